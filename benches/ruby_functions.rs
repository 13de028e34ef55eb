//! Speed of a few stdlib functions three ways (criterion, `cargo bench --bench
//! ruby_functions`): the native implementation (puppet-stdlib), the module's own Ruby run by
//! puppet-ruby (what a compile does with natives off, or for a function without a native),
//! and, when Puppet's oracle is present, Puppet 7.23 itself, so that the ratios are printed
//! in the same run.
//!
//! Our two sides call the function through a registry as the compiler does (the Ruby one
//! loads the module file once and runs each call in a fresh interpreter); each result is
//! checked equal before timing. Puppet's side is `compile-catalog -e` of a loop of K calls
//! (`Integer[1, K].each |$i| { $r = CALL }`, median of `--repeat` compiles in one Ruby
//! process) minus the same loop without the call, divided by K: Puppet's cost of one call
//! from Puppet code, its evaluator's call overhead included. The functions and the module
//! corpus come from `/usr/share/puppet/modules` (or `$PUPPET_CORPUS`); without it the bench
//! says so and measures nothing. `$ORACLE` (default `../shared/oracle`) locates
//! `compile-catalog`.

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_lang::functions::{builtins, Block, CallContext, CallError, LogLevel, Registry};
use puppet_lang::ruby::{functions, SourceHost, Sources};
use puppet_lang::types::{Type, Value};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

/// (function, its file under the corpus, arguments as Puppet source).
const CALLS: &[(&str, &str, &str)] = &[
    (
        "delete",
        "stdlib/lib/puppet/parser/functions/delete.rb",
        "['a', 'b', 'c', 'b'], 'b'",
    ),
    (
        "to_json_pretty",
        "stdlib/lib/puppet/functions/to_json_pretty.rb",
        "{'a' => [1, 2], 'b' => {'c' => true, 'd' => 'x'}}",
    ),
    (
        "parseyaml",
        "stdlib/lib/puppet/parser/functions/parseyaml.rb",
        "\"a: 1\\nb: [x, y]\\nc: {d: e}\\n\"",
    ),
    (
        "validate_re",
        "stdlib/lib/puppet/parser/functions/validate_re.rb",
        "'abc', ['^a', '^b']",
    ),
    (
        "stdlib::ip_in_range",
        "stdlib/lib/puppet/functions/stdlib/ip_in_range.rb",
        "'10.0.0.5', '10.0.0.0/24'",
    ),
];

fn corpus() -> PathBuf {
    std::env::var_os("PUPPET_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/puppet/modules"))
}

/// Module libraries for `require` of puppet_x helpers.
struct Libs(Vec<PathBuf>);

impl SourceHost for Libs {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let rel = format!("{}.rb", name.trim_end_matches(".rb"));
        self.0.iter().find_map(|l| {
            let p = l.join(&rel);
            std::fs::read_to_string(&p)
                .ok()
                .map(|t| (p.display().to_string(), Arc::from(t)))
        })
    }
    fn read(&self, _path: &str) -> Option<Arc<str>> {
        None
    }
}

/// A call context with no scope: functions reach each other through the registry.
struct Ctx {
    reg: Arc<Registry>,
}

impl CallContext for Ctx {
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError> {
        block.call(self, args)
    }
    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let reg = self.reg.clone();
        reg.call(self, name, args, block)
    }
    fn variable(&self, _name: &str) -> Option<Value> {
        None
    }
    fn log(&mut self, _level: LogLevel, _message: &str) {}
    fn type_alias(&self, _name: &str) -> Option<Type> {
        None
    }
    fn warn_once(&mut self, _key: &str, _message: &str) -> bool {
        false
    }
}

fn native_registry() -> Arc<Registry> {
    let mut reg = builtins::registry().clone();
    puppet_lang::stdlib::register_module("stdlib", &mut reg);
    Arc::new(reg)
}

fn ruby_registry(root: &Path) -> Arc<Registry> {
    let mut libs = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root) {
        for m in rd.flatten() {
            libs.push(m.path().join("lib"));
        }
    }
    libs.sort();
    let sources = Sources::new(Arc::new(Libs(libs)));
    let mut reg = builtins::registry().clone();
    for (name, file, _) in CALLS {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).expect("function file");
        let f = functions::load(&path.display().to_string(), &text, &sources)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        f.register_as(&mut reg, true).expect("registers");
    }
    // The deprecation these functions log is stdlib's 4.x function, also from its Ruby.
    let dep = root.join("stdlib/lib/puppet/functions/deprecation.rb");
    if let Ok(text) = std::fs::read_to_string(&dep) {
        if let Ok(f) = functions::load(&dep.display().to_string(), &text, &sources) {
            let _ = f.register_as(&mut reg, true);
        }
    }
    Arc::new(reg)
}

fn args_of(src: &str) -> Vec<Value> {
    match puppet_lang::functions::parse_value(&format!("[{src}]"), &|_| None) {
        Ok(Value::Array(a)) => a.to_vec(),
        other => panic!("arguments {src}: {other:?}"),
    }
}

fn call(reg: &Arc<Registry>, name: &str, args: &[Value]) -> Value {
    let mut ctx = Ctx { reg: reg.clone() };
    reg.call(&mut ctx, name, args.to_vec(), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Median nanoseconds of one call, over a few timed batches.
fn ns_per_call(reg: &Arc<Registry>, name: &str, args: &[Value]) -> f64 {
    let mut batch = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            black_box(call(reg, name, args));
        }
        if t.elapsed().as_millis() >= 20 || batch >= 1 << 20 {
            break;
        }
        batch *= 2;
    }
    let mut samples: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                black_box(call(reg, name, args));
            }
            t.elapsed().as_nanos() as f64 / batch as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Puppet's nanoseconds per call from Puppet code, or `None` without the oracle.
fn puppet_ns_per_call(root: &Path, code_call: &str) -> Option<f64> {
    let oracle = std::env::var_os("ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/oracle")));
    let exe = oracle.join("compile-catalog");
    if !exe.is_file() {
        return None;
    }
    const K: u32 = 2000;
    let median = |body: &str| -> Option<f64> {
        let code = format!("Integer[1, {K}].each |$i| {{ $r = {body} }}");
        let out = Command::new(&exe)
            .args(["-e", &code, "-M"])
            .arg(root)
            .args(["--repeat", "5", "--reuse-env", "-q"])
            .output()
            .ok()?;
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err.lines().rev().find(|l| l.starts_with('{'))?;
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        if v.get("ok") == Some(&serde_json::Value::Bool(false)) {
            return None;
        }
        v["median_ms"].as_f64()
    };
    let with = median(code_call)?;
    let without = median("$i")?;
    Some((with - without).max(0.0) * 1e6 / f64::from(K))
}

fn bench(c: &mut Criterion) {
    let root = corpus();
    if !root.join("stdlib").is_dir() {
        eprintln!(
            "ruby_functions: no module corpus at {}, nothing measured",
            root.display()
        );
        return;
    }
    let native = native_registry();
    let ruby = ruby_registry(&root);
    let mut table = Vec::new();
    for (name, _, src) in CALLS {
        let args = args_of(src);
        let a = call(&native, name, &args);
        let b = call(&ruby, name, &args);
        assert_eq!(a, b, "{name}: the native and the Ruby answers differ");
        let mut g = c.benchmark_group(format!("ruby_functions_{}", name.replace("::", "_")));
        g.bench_function("native", |bch| bch.iter(|| call(&native, name, &args)));
        g.bench_function("ruby", |bch| bch.iter(|| call(&ruby, name, &args)));
        g.finish();
        let n = ns_per_call(&native, name, &args);
        let r = ns_per_call(&ruby, name, &args);
        let p = puppet_ns_per_call(&root, &format!("{name}({src})"));
        table.push((name, n, r, p));
    }
    println!(
        "\n{:<22}{:>12}{:>12}{:>12}{:>12}{:>12}",
        "function", "native us", "ruby us", "puppet us", "ruby/nat", "puppet/ruby"
    );
    for (name, n, r, p) in table {
        let (ps, ratio) = match p {
            Some(p) => (format!("{:.1}", p / 1e3), format!("{:.1}x", p / r)),
            None => ("-".to_string(), "-".to_string()),
        };
        println!(
            "{name:<22}{:>12.2}{:>12.1}{ps:>12}{:>11.0}x{ratio:>12}",
            n / 1e3,
            r / 1e3,
            r / n
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
