//! `modules`: list an environment's modules, classes, defined types, functions and type
//! aliases with their files, its diagnostics, the PUP-121 hazard report (references whose
//! target differs between Puppet 3's relative lookup and modern absolute resolution) and
//! the calls seed 003's dependency visibility rule would refuse.
//!
//! ```text
//! cargo run --release --example modules -- --modulepath /usr/share/puppet/modules
//! cargo run --release --example modules -- --modulepath a:b --manifest site.pp --format json
//! cargo run --release --example modules -- --modulepath DIR --check-files LIST
//! ```
//!
//! `--check-files LIST` instead runs Puppet's location checks on each `.pp` path of LIST
//! (one per line) as `parse-dump --validate -M MODULEPATH` would, printing one JSON line per
//! file: `{"file":F,"ok":bool,"errors":[{"code","message","line","column"}]}`.

use clap::Parser as _;
use puppet_loader::{check_file_location, DefKind, EnvironmentConfig, FsProvider, Index, Severity};
use puppet_syntax::LineIndex;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Parser)]
struct Args {
    /// Module path: directories separated by `:`, first wins.
    #[arg(long, required = true)]
    modulepath: String,
    /// Main manifest (a file or a directory).
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Environment directory (for `functions/` and `types/` of the environment).
    #[arg(long)]
    env_dir: Option<PathBuf>,
    /// `text` (default) or `json`.
    #[arg(long, default_value = "text")]
    format: String,
    /// Run the location checks over the files listed in this file instead.
    #[arg(long)]
    check_files: Option<PathBuf>,
    /// Load the environment this many times and report the timings.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
}

fn main() {
    let args = Args::parse();
    let modulepath: Vec<PathBuf> = args
        .modulepath
        .split(':')
        .filter(|s| !s.is_empty())
        .map(|p| puppet_loader::absolute_path(p.as_ref()))
        .collect();
    if let Some(list) = &args.check_files {
        check_files(list, &modulepath, args.manifest.as_deref());
        return;
    }
    // The file-system provider refuses `..`: relative paths are resolved first.
    let config = EnvironmentConfig {
        modulepath,
        manifest: args.manifest.as_deref().map(puppet_loader::absolute_path),
        env_dir: args.env_dir.as_deref().map(puppet_loader::absolute_path),
        data_provider: None,
    };
    let provider = std::sync::Arc::new(FsProvider::new(config.roots()));
    let mut times = Vec::new();
    let mut env = None;
    for _ in 0..args.repeat.max(1) {
        let t = Instant::now();
        let e = Index::load(&config, provider.clone());
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        env = Some(e);
    }
    let Some(env) = env else { return };
    let hazards = env.hazards();
    let visibility = env.visibility_report();
    if args.format == "json" {
        let defs: Vec<_> = env.definitions().collect();
        let diags: Vec<_> = env.all_diagnostics().collect();
        let modules: Vec<_> = env.modules().collect();
        let out = serde_json::json!({
            "modules": modules,
            "definitions": defs,
            "diagnostics": diags,
            "hazards": hazards,
            "visibility": visibility,
            "load_ms": times,
        });
        println!("{out}");
        return;
    }
    println!("# modules ({})", env.modules().count());
    for m in env.modules() {
        let meta = m.metadata.as_ref();
        let deps = match meta.and_then(|m| m.dependencies.as_ref()) {
            None => "sees all".to_string(),
            Some(d) => format!(
                "depends on [{}]",
                d.iter()
                    .map(|d| d.module_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        println!(
            "{} {} {} ({deps})",
            m.name,
            meta.and_then(|m| m.version.as_deref()).unwrap_or("-"),
            m.path.display()
        );
    }
    for kind in DefKind::ALL {
        let defs: Vec<_> = env.definitions().filter(|d| d.kind == kind).collect();
        println!("\n# {} ({})", kind.label(), defs.len());
        for d in defs {
            println!("{} {}", d.written_name, d.file.display());
        }
    }
    let diags: Vec<_> = env.all_diagnostics().collect();
    println!("\n# diagnostics ({})", diags.len());
    for d in &diags {
        let sev = if d.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        println!("{sev}: {d}");
    }
    println!(
        "\n# PUP-121 hazards ({}): absolute (Puppet 4+) vs relative (Puppet 3)",
        hazards.len()
    );
    let show = |d: &Option<puppet_loader::Definition>| match d {
        Some(d) => format!("{} {}", d.kind.label(), d.name),
        None => "(no user definition)".to_string(),
    };
    for h in &hazards {
        let r = &h.reference;
        println!(
            "{}:{}: {:?} '{}' in namespace '{}': absolute -> {}, relative -> {}",
            r.file.display(),
            r.line,
            r.syntax,
            r.name,
            r.namespace,
            show(&h.absolute),
            show(&h.relative)
        );
    }
    println!(
        "\n# seed-003 visibility ({}): calls to functions of modules not in the caller's dependencies",
        visibility.len()
    );
    for v in &visibility {
        println!(
            "{}:{}: module {} calls {} ({})",
            v.file.display(),
            v.line,
            v.caller,
            v.function,
            if v.definition.is_some() {
                "Puppet-language function"
            } else {
                "not a Puppet-language function here"
            }
        );
    }
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    println!(
        "\n# load: {} files, {} definitions, min {:.1} ms, median {:.1} ms over {} runs",
        env.files().count(),
        env.definitions().count(),
        sorted[0],
        sorted[sorted.len() / 2],
        sorted.len()
    );
}

fn check_files(list: &std::path::Path, modulepath: &[PathBuf], manifest: Option<&std::path::Path>) {
    let Ok(text) = std::fs::read_to_string(list) else {
        eprintln!("cannot read {}", list.display());
        std::process::exit(2);
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let path = PathBuf::from(line.trim());
        let src = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                println!(
                    "{}",
                    serde_json::json!({"file": line, "ok": false, "io_error": e.to_string()})
                );
                continue;
            }
        };
        let parse = puppet_syntax::parse(&src);
        let diags = check_file_location(&path, &parse, modulepath, manifest);
        let idx = LineIndex::new(&src);
        let errors: Vec<_> = diags
            .iter()
            .map(|d| {
                let lc = idx.line_col(&src, d.start());
                serde_json::json!({"code": d.code, "message": d.message, "line": lc.line, "column": lc.col})
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({"file": line, "ok": errors.is_empty(), "errors": errors})
        );
    }
}
