//! ERB rendering speed of puppet-erb against Ruby's ERB in Puppet on the apache vhost
//! templates of the public web node (criterion, run with `cargo bench --bench erb`).
//!
//! The work is every apache `templates/vhost/*.erb` call Puppet made while compiling the web
//! node, as recorded in `crates/puppet-erb/tests/fixtures/expected.json` (records
//! `node/web/apache/templates/vhost/...`: the variables Puppet bound, the function results
//! and `scope.lookupvar` answers it gave, and Ruby's output). Each call is parsed and
//! rendered, as Puppet compiles and renders on every `template()` call, against a scope that
//! looks variables up without copying them (as the evaluator's does) and replays the
//! recorded function results. Each output is checked against Ruby's before timing. When
//! `ruby` is on the PATH, `crates/puppet-erb/benches/erb_ruby.rb` times the same calls
//! through Puppet's own `TemplateWrapper#result` in the same run and the ratio is printed.
//! Also timed: rendering the same calls from templates parsed once beforehand, which is
//! what our compiler does after a template's first use (it keeps parsed templates).

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_erb::{render, IndexMap, SmolStr, Template, TemplateScope};
use puppet_types::Value;

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/puppet-erb/tests/fixtures/expected.json"
);

/// A recorded answer: (function name or `lookupvar`, arguments, result).
type Call = (String, Vec<Value>, Value);

struct Scope<'a> {
    vars: &'a IndexMap<SmolStr, Value>,
    /// The recorded answers not used yet.
    calls: Vec<&'a Call>,
    set: IndexMap<SmolStr, Value>,
}

impl TemplateScope for Scope<'_> {
    fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.set.get(name) {
            return Some(v.clone());
        }
        let recorded = self.calls.iter().find(|(n, a, _)| {
            n == "lookupvar" && a.first().is_some_and(|a| a.to_plain_string() == name)
        });
        if let Some((_, _, v)) = recorded {
            return Some(v.clone());
        }
        self.vars.get(name.trim_start_matches("::")).cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.vars.clone()
    }
    fn instance_variable(&self, name: &str) -> Option<Value> {
        self.vars.get(name).cloned()
    }
    fn set_variable(&mut self, name: &str, value: Value) -> Result<(), String> {
        self.set.insert(SmolStr::new(name), value);
        Ok(())
    }
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        let i = self
            .calls
            .iter()
            .position(|(n, a, _)| n == name && *a == args)
            .ok_or_else(|| format!("unrecorded call {name}()"))?;
        Ok(self.calls.remove(i).2.clone())
    }
}

fn to_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::string(s),
        serde_json::Value::Array(a) => Value::array(a.iter().map(to_value).collect()),
        serde_json::Value::Object(o) => {
            Value::hash(o.iter().map(|(k, v)| (Value::string(k), to_value(v))))
        }
    }
}

/// One recorded call: file, template, variables, recorded answers, Ruby's output.
struct Case {
    file: String,
    text: String,
    vars: IndexMap<SmolStr, Value>,
    calls: Vec<Call>,
    expected: String,
}

fn load() -> Vec<Case> {
    let Ok(text) = std::fs::read_to_string(FIXTURES) else {
        return Vec::new();
    };
    let records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
    let tops: IndexMap<&str, &serde_json::Map<String, serde_json::Value>> = records
        .iter()
        .filter_map(|r| Some((r["name"].as_str()?, r["topscope_vars"].as_object()?)))
        .collect();
    let empty = serde_json::Map::new();
    records
        .iter()
        .filter(|r| {
            r["name"]
                .as_str()
                .unwrap_or("")
                .starts_with("node/web/apache/templates/vhost/")
                && r["output"].is_string()
        })
        .map(|r| {
            let hidden = r["not_in_scope"].as_array();
            let top = r["topscope"]
                .as_str()
                .and_then(|t| tops.get(t).copied())
                .unwrap_or(&empty);
            let mut vars: IndexMap<SmolStr, Value> = top
                .iter()
                .filter(|(k, _)| !hidden.is_some_and(|h| h.iter().any(|x| x == *k)))
                .map(|(k, v)| (SmolStr::new(k), to_value(v)))
                .collect();
            if let Some(o) = r["vars"].as_object() {
                vars.extend(o.iter().map(|(k, v)| (SmolStr::new(k), to_value(v))));
            }
            let calls = r["calls"]
                .as_array()
                .map(|cs| {
                    cs.iter()
                        .map(|c| {
                            let args = match &c[1] {
                                serde_json::Value::Array(a) => a.iter().map(to_value).collect(),
                                other => vec![to_value(other)],
                            };
                            (
                                c[0].as_str().unwrap_or("").to_string(),
                                args,
                                to_value(&c[2]),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            Case {
                file: r["file"].as_str().unwrap_or("").to_string(),
                text: r["template"].as_str().unwrap_or("").to_string(),
                vars,
                calls,
                expected: r["output"].as_str().unwrap_or("").to_string(),
            }
        })
        .collect()
}

fn render_one(case: &Case) -> Result<String, puppet_erb::ErbError> {
    let mut scope = Scope {
        vars: &case.vars,
        calls: case.calls.iter().collect(),
        set: IndexMap::new(),
    };
    render(&case.text, &case.file, &mut scope).map(String::from)
}

/// Renders templates parsed beforehand, as the compiler does after a template's first use
/// (it keeps parsed templates by file).
fn render_parsed(work: &[Case], parsed: &[Template]) -> usize {
    work.iter()
        .zip(parsed)
        .filter_map(|(case, t)| {
            let mut scope = Scope {
                vars: &case.vars,
                calls: case.calls.iter().collect(),
                set: IndexMap::new(),
            };
            t.render(&mut scope).ok()
        })
        .map(|o| o.len())
        .sum()
}

fn render_all(work: &[Case]) -> usize {
    work.iter()
        .filter_map(|c| render_one(c).ok())
        .map(|o| o.len())
        .sum()
}

fn ruby_ns_per_iter() -> Option<f64> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/puppet-erb/benches/erb_ruby.rb"
    );
    let out = Command::new("ruby")
        .args([script, FIXTURES, "3"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if let Some(w) = text.lines().find_map(|l| l.strip_prefix("wrapper ")) {
        println!("erb: Ruby side through {w}");
    }
    text.lines()
        .find_map(|l| l.strip_prefix("ruby_ns_per_iter "))
        .and_then(|n| n.trim().parse().ok())
}

fn bench(c: &mut Criterion) {
    let work = load();
    if work.is_empty() {
        eprintln!("erb bench: no fixtures at {FIXTURES}");
        return;
    }
    for case in &work {
        match render_one(case) {
            Ok(out) if out == case.expected => {}
            Ok(_) => eprintln!("erb bench: output of {} differs from Ruby's", case.file),
            Err(e) => eprintln!("erb bench: {e}"),
        }
    }
    c.bench_function("erb/web_node_apache_vhost_templates", |b| {
        b.iter(|| black_box(render_all(black_box(&work))))
    });
    let parsed: Vec<Template> = work
        .iter()
        .filter_map(|c| Template::parse(&c.text, &c.file).ok())
        .collect();
    if parsed.len() == work.len() {
        c.bench_function("erb/web_node_apache_vhost_templates_render_only", |b| {
            b.iter(|| black_box(render_parsed(black_box(&work), &parsed)))
        });
    }
    // Our own time per iteration, measured the same way as the Ruby script does.
    let per_iter = |f: &dyn Fn() -> usize| {
        let t0 = Instant::now();
        let mut iters = 0u32;
        while t0.elapsed().as_secs_f64() < 2.0 {
            black_box(f());
            iters += 1;
        }
        t0.elapsed().as_secs_f64() * 1e9 / f64::from(iters.max(1))
    };
    let ours = per_iter(&|| render_all(&work));
    let render_only = per_iter(&|| render_parsed(&work, &parsed));
    match ruby_ns_per_iter() {
        Some(ruby) => println!(
            "erb: {} templates; puppet-erb {:.0} us/iter (parse + render, as Puppet does on every call), Ruby ERB {:.0} us/iter; Ruby/ours = {:.1}x; render only (our compiler keeps parsed templates) {:.0} us/iter, Ruby/ours = {:.1}x",
            work.len(),
            ours / 1e3,
            ruby / 1e3,
            ruby / ours,
            render_only / 1e3,
            ruby / render_only
        ),
        None => println!(
            "erb: {} templates; puppet-erb {:.0} us/iter (ruby not available for comparison)",
            work.len(),
            ours / 1e3
        ),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
