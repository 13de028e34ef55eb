//! ERB rendering speed of puppet-erb against Ruby's ERB on the apache vhost templates
//! (criterion, run with `cargo bench --bench erb`).
//!
//! The work is every recorded fixture of the corpus apache module's `templates/vhost/*.erb`
//! (`crates/puppet-erb/tests/fixtures/expected.json`, "#smart" variables, rendered without
//! error by Ruby): parse and render each, as Puppet compiles and renders on every
//! `template()` call. Each output is checked against Ruby's before timing. When `ruby` is on
//! the PATH, `crates/puppet-erb/benches/erb_ruby.rb` times Ruby on the same work in the same
//! run and the ratio is printed.

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_erb::{render, IndexMap, SmolStr, TemplateScope};
use puppet_types::Value;

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/puppet-erb/tests/fixtures/expected.json"
);

struct Scope(IndexMap<SmolStr, Value>);

impl TemplateScope for Scope {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.0.get(name.trim_start_matches("::")).cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.0.clone()
    }
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        if name != "versioncmp" {
            return Err(format!("Unknown function: '{name}'"));
        }
        let parts = |v: Option<&Value>| -> Vec<i64> {
            v.map(|v| v.to_plain_string())
                .unwrap_or_default()
                .split('.')
                .map(|p| {
                    let d: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
                    d.parse().unwrap_or(0)
                })
                .collect()
        };
        Ok(Value::Integer(
            parts(args.first()).cmp(&parts(args.get(1))) as i64
        ))
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

/// (file, template, variables, Ruby's output)
type Work = Vec<(String, String, IndexMap<SmolStr, Value>, String)>;

fn load() -> Work {
    let Ok(text) = std::fs::read_to_string(FIXTURES) else {
        return Vec::new();
    };
    let records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
    records
        .iter()
        .filter(|r| {
            let f = r["file"].as_str().unwrap_or("");
            let n = r["name"].as_str().unwrap_or("");
            f.starts_with("apache/templates/vhost/")
                && n.ends_with("#smart")
                && r["output"].is_string()
        })
        .map(|r| {
            let vars = r["vars"]
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (SmolStr::new(k), to_value(v)))
                        .collect()
                })
                .unwrap_or_default();
            (
                r["file"].as_str().unwrap_or("").to_string(),
                r["template"].as_str().unwrap_or("").to_string(),
                vars,
                r["output"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn render_all(work: &Work) -> usize {
    let mut n = 0;
    for (file, text, vars, _) in work {
        let mut scope = Scope(vars.clone());
        if let Ok(out) = render(text, file, &mut scope) {
            n += out.len();
        }
    }
    n
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
    for (file, text, vars, expected) in &work {
        let mut scope = Scope(vars.clone());
        match render(text, file, &mut scope) {
            Ok(out) if &out == expected => {}
            Ok(_) => eprintln!("erb bench: output of {file} differs from Ruby's"),
            Err(e) => eprintln!("erb bench: {e}"),
        }
    }
    c.bench_function("erb/apache_vhost_templates", |b| {
        b.iter(|| black_box(render_all(black_box(&work))))
    });
    // Our own time per iteration, measured the same way as the Ruby script does.
    let t0 = Instant::now();
    let mut iters = 0u32;
    while t0.elapsed().as_secs_f64() < 2.0 {
        black_box(render_all(&work));
        iters += 1;
    }
    let ours = t0.elapsed().as_secs_f64() * 1e9 / f64::from(iters.max(1));
    match ruby_ns_per_iter() {
        Some(ruby) => println!(
            "erb: {} templates; puppet-erb {:.0} us/iter, Ruby ERB {:.0} us/iter; Ruby/ours = {:.1}x",
            work.len(),
            ours / 1e3,
            ruby / 1e3,
            ruby / ours
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
