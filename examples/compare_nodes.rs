//! `compare_nodes`: compiles node manifests with our compiler and compares each catalog with
//! the one Puppet 7.23 compiled (the fixtures `scripts/gen-catalog-fixtures.sh` writes), in
//! `compile-catalog`'s canonical form: resources sorted by type and title with sorted tags
//! and parameters, sorted containment edges, sorted classes.
//!
//! ```text
//! cargo run --release --example compare_nodes -- [--modulepath /usr/share/puppet/modules]
//!     [--oracle ../shared/oracle] [--fixtures tests/fixtures/catalogs] [--verbose]
//!     [--no-native-functions] [NODE...]
//! ```
//!
//! Parameters whose value our compile produced with an ERB template are compared like any
//! other and counted (a difference in one is marked "template output"). Prints one line per
//! node (`ntp: equal` or the counts of differences) and, with `--verbose`, each difference.
//!
//! `--no-native-functions` runs every module function from its Ruby source (the natives
//! off), so the Ruby path is checked against the same catalogs.
//!
//! `--classes FILE` compares single classes instead: FILE is the output of
//! `scripts/gen-class-catalogs.sh` (Puppet's `compile-catalog --batch` of `include CLASS` for
//! every class of the module path, with the web01 facts). Each class is compiled the same
//! way here and sorted into: equal (template output included); different only in parameters
//! our ERB templates produced; different; Puppet compiled it and we failed; both failed
//! (with the same message, `EvalError::puppet_message`, or not); Puppet failed and we did
//! not. Prints one line per class that is not equal and the counts. With `--defines` the
//! ids are defined types, each declared once as `ID { 't1': }`.

use clap::Parser as _;
use puppet_lang::eval::{compile, facts_from_data, Environment, Session, Settings};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Parser)]
struct Args {
    /// The module path the nodes are compiled with.
    #[arg(long, default_value = "/usr/share/puppet/modules")]
    modulepath: String,
    /// The oracle directory (with `nodes/*.pp` and `facts/*.json`).
    #[arg(long, default_value = "../shared/oracle")]
    oracle: PathBuf,
    /// Where Puppet's catalogs are (`<node>.json`).
    #[arg(long, default_value = "tests/fixtures/catalogs")]
    fixtures: PathBuf,
    /// Print every difference.
    #[arg(long)]
    verbose: bool,
    /// Compare `include CLASS` catalogs from this `compile-catalog --batch` output instead.
    #[arg(long)]
    classes: Option<PathBuf>,
    /// With `--classes`: the facts file (in the oracle's `facts/`) and certname the classes
    /// were compiled with.
    #[arg(long, default_value = "debian12-web01.json")]
    class_facts: String,
    #[arg(long, default_value = "web01.example.com")]
    class_node: String,
    /// With `--classes`: the ids are defined types, declared as `ID { 't1': }` (the batch
    /// Puppet compiled must be the same).
    #[arg(long)]
    defines: bool,
    /// Leave out the native implementations of modules' functions: every module function
    /// runs from its own Ruby source (`Settings::native_functions = false`, as
    /// `compile --no-native-functions`).
    #[arg(long)]
    no_native_functions: bool,
    /// Nodes to compare (default: ntp db web keystone kitchensink).
    nodes: Vec<String>,
}

/// The facts file and certname each public node is compiled with (as the fixtures were).
fn node_setup(node: &str) -> (&'static str, &'static str) {
    match node {
        "keystone" => ("debian12-ctl01.json", "ctl01.example.com"),
        _ => ("debian12-web01.json", "web01.example.com"),
    }
}

/// A resource in canonical form: `Type[title]` -> (tags, parameters).
type Canonical = BTreeMap<String, (Vec<String>, BTreeMap<String, Json>)>;

fn canonical_resources(resources: &[Json]) -> Canonical {
    let mut out = BTreeMap::new();
    for r in resources {
        let key = format!(
            "{}[{}]",
            r["type"].as_str().unwrap_or(""),
            r["title"].as_str().unwrap_or("")
        );
        let mut tags: Vec<String> = r["tags"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        tags.sort();
        let params: BTreeMap<String, Json> = r["parameters"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        out.insert(key, (tags, params));
    }
    out
}

fn strings(v: &Json) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| match e {
                    Json::String(s) => s.clone(),
                    Json::Object(o) => format!(
                        "{} -> {}",
                        o.get("source").and_then(Json::as_str).unwrap_or(""),
                        o.get("target").and_then(Json::as_str).unwrap_or("")
                    ),
                    other => other.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Whether a value is (or holds) text an ERB template produced in our compile.
fn from_template(v: &Json, outputs: &[String]) -> bool {
    match v {
        Json::String(s) => outputs.iter().any(|o| o == s),
        Json::Array(a) => a.iter().any(|x| from_template(x, outputs)),
        Json::Object(m) => m.values().any(|x| from_template(x, outputs)),
        _ => false,
    }
}

/// Differences between our catalog and Puppet's, as lines (a parameter that holds a
/// template's output is compared like any other), and how many parameters hold a template's
/// output.
fn diff(ours: &Json, theirs: &Json, outputs: &[String]) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    let mut template_params = 0;
    let (a, b) = (
        canonical_resources(ours["resources"].as_array().map_or(&[][..], |v| v)),
        canonical_resources(theirs["resources"].as_array().map_or(&[][..], |v| v)),
    );
    for k in b.keys().filter(|k| !a.contains_key(*k)) {
        lines.push(format!("missing resource {k}"));
    }
    for k in a.keys().filter(|k| !b.contains_key(*k)) {
        lines.push(format!("extra resource {k}"));
    }
    for (k, (tags, params)) in &a {
        let Some((wtags, wparams)) = b.get(k) else {
            continue;
        };
        if tags != wtags {
            lines.push(format!("{k} tags {tags:?}, Puppet {wtags:?}"));
        }
        for (p, v) in params {
            let templated = from_template(v, outputs);
            if templated {
                template_params += 1;
            }
            match wparams.get(p) {
                None => lines.push(format!("{k} extra parameter {p} = {v}")),
                Some(w) if w != v => lines.push(format!(
                    "{k} {p} = {v}, Puppet {w}{}",
                    if templated { " (template output)" } else { "" }
                )),
                Some(_) => {}
            }
        }
        for p in wparams.keys().filter(|p| !params.contains_key(*p)) {
            lines.push(format!("{k} missing parameter {p} = {}", wparams[p]));
        }
    }
    for field in ["classes", "edges"] {
        let (g, w) = (strings(&ours[field]), strings(&theirs[field]));
        for x in w.iter().filter(|x| !g.contains(x)) {
            lines.push(format!("missing {field} entry {x}"));
        }
        for x in g.iter().filter(|x| !w.contains(x)) {
            lines.push(format!("extra {field} entry {x}"));
        }
    }
    (lines, template_params)
}

fn compare_node(args: &Args, env: &Arc<Environment>, node: &str) -> Result<String, String> {
    let manifest = args.oracle.join("nodes").join(format!("{node}.pp"));
    let text =
        std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let fixture = args.fixtures.join(format!("{node}.json"));
    let theirs: Json = serde_json::from_str(
        &std::fs::read_to_string(&fixture).map_err(|e| format!("{}: {e}", fixture.display()))?,
    )
    .map_err(|e| format!("{}: {e}", fixture.display()))?;
    let (facts_file, certname) = node_setup(node);
    let facts_path = args.oracle.join("facts").join(facts_file);
    let facts: Json = serde_json::from_str(
        &std::fs::read_to_string(&facts_path)
            .map_err(|e| format!("{}: {e}", facts_path.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let facts = facts_from_data(&facts);
    let mut settings = Settings::agent(certname, facts);
    settings.native_functions = !args.no_native_functions;
    let env = env.with_main_code(Some(&manifest.to_string_lossy()), &text);
    let out = compile(Arc::new(env), &settings);
    let cat = out.catalog.map_err(|e| e.located())?;
    let ours: Json = serde_json::from_str(&cat.to_json()).map_err(|e| e.to_string())?;
    let (lines, templated) = diff(&ours, &theirs, &out.template_outputs);
    let n_ours = ours["resources"].as_array().map_or(0, Vec::len);
    let n_theirs = theirs["resources"].as_array().map_or(0, Vec::len);
    let mut report = if lines.is_empty() {
        format!("{node}: equal ({n_ours} resources; {templated} parameters produced by templates)")
    } else {
        format!(
            "{node}: {} differences ({n_ours} resources, Puppet {n_theirs}; {templated} parameters produced by templates)",
            lines.len()
        )
    };
    if args.verbose {
        for l in lines {
            report.push_str("\n  ");
            report.push_str(&l);
        }
    }
    Ok(report)
}

/// How one class compares (`--classes`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    Equal,
    DifferentOnlyInTemplateOutput,
    Different,
    OnlyPuppetCompiles,
    BothFailSameMessage,
    BothFail,
    OnlyWeCompile,
}

/// Compiles `include CLASS` and compares it with Puppet's batch result line `theirs`.
fn compare_class(
    env: &Arc<Environment>,
    settings: &Settings,
    code: &str,
    theirs: &Json,
) -> (Outcome, Vec<String>) {
    let out = compile(Arc::new(env.with_main_code(None, code)), settings);
    let puppet_ok = theirs["ok"].as_bool() == Some(true);
    match (out.catalog, puppet_ok) {
        (Ok(cat), true) => {
            let ours: Json = serde_json::from_str(&cat.to_json()).unwrap_or(Json::Null);
            let (lines, _) = diff(&ours, theirs, &out.template_outputs);
            let outcome = if lines.is_empty() {
                Outcome::Equal
            } else if lines.iter().all(|l| l.ends_with("(template output)")) {
                Outcome::DifferentOnlyInTemplateOutput
            } else {
                Outcome::Different
            };
            (outcome, lines)
        }
        (Ok(_), false) => (
            Outcome::OnlyWeCompile,
            vec![format!(
                "Puppet: {}",
                theirs["error"].as_str().unwrap_or_default()
            )],
        ),
        (Err(e), true) => (Outcome::OnlyPuppetCompiles, vec![e.located()]),
        (Err(e), false) => {
            let want = theirs["error"].as_str().unwrap_or_default();
            let want = want
                .strip_suffix(&format!(" on node {}", settings.node_name))
                .unwrap_or(want);
            let got = e.puppet_message();
            if got == want {
                (Outcome::BothFailSameMessage, vec![])
            } else {
                (
                    Outcome::BothFail,
                    vec![format!("ours:   {got}"), format!("Puppet: {want}")],
                )
            }
        }
    }
}

/// `--classes`: every class of Puppet's batch output, compiled and compared.
fn compare_classes(args: &Args, env: &Arc<Environment>, file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let (facts_file, certname) = (args.class_facts.as_str(), args.class_node.as_str());
    let facts_path = args.oracle.join("facts").join(facts_file);
    let facts: Json = serde_json::from_str(
        &std::fs::read_to_string(&facts_path)
            .map_err(|e| format!("{}: {e}", facts_path.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let mut settings = Settings::agent(certname, facts_from_data(&facts));
    settings.native_functions = !args.no_native_functions;
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let theirs: Json = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let class = theirs["id"].as_str().unwrap_or_default().to_string();
        let code = if args.defines {
            format!("{class} {{ 't1': }}")
        } else {
            format!("include {class}")
        };
        let result = std::thread::scope(|scope| {
            let r = std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(scope, || compare_class(env, &settings, &code, &theirs));
            match r.map(|h| h.join()) {
                Ok(Ok(r)) => r,
                _ => (
                    Outcome::OnlyPuppetCompiles,
                    vec!["compiler panicked".into()],
                ),
            }
        });
        let (outcome, lines) = result;
        *counts.entry(outcome).or_default() += 1;
        if !matches!(outcome, Outcome::Equal | Outcome::BothFailSameMessage) {
            println!("{class}: {outcome:?} ({} lines)", lines.len());
            if args.verbose {
                for l in lines {
                    println!("  {l}");
                }
            }
        }
    }
    let total: usize = counts.values().sum();
    let puppet_ok = counts.get(&Outcome::Equal).copied().unwrap_or(0)
        + counts
            .get(&Outcome::DifferentOnlyInTemplateOutput)
            .copied()
            .unwrap_or(0)
        + counts.get(&Outcome::Different).copied().unwrap_or(0)
        + counts
            .get(&Outcome::OnlyPuppetCompiles)
            .copied()
            .unwrap_or(0);
    println!("{total} classes; Puppet compiles {puppet_ok}:");
    for (outcome, n) in &counts {
        println!("  {outcome:?}: {n}");
    }
    Ok(())
}

fn main() {
    let args = Args::parse();
    let modulepath: Vec<PathBuf> = args
        .modulepath
        .split(':')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect();
    if !modulepath.iter().all(|p| Path::new(p).is_dir()) {
        eprintln!("module path {} not found", args.modulepath);
        std::process::exit(2);
    }
    let env = match Session::new().modulepath(modulepath).load() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("{e:?}");
            std::process::exit(2);
        }
    };
    if let Some(file) = &args.classes {
        if let Err(e) = compare_classes(&args, &env, file) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    let nodes: Vec<String> = if args.nodes.is_empty() {
        ["ntp", "db", "web", "keystone", "kitchensink"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        args.nodes.clone()
    };
    for node in &nodes {
        let line = std::thread::scope(|scope| {
            let r = std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(scope, || compare_node(&args, &env, node));
            match r.map(|h| h.join()) {
                Ok(Ok(Ok(line))) => line,
                Ok(Ok(Err(e))) => format!("{node}: error: {e}"),
                _ => format!("{node}: compiler panicked"),
            }
        });
        println!("{line}");
    }
}
