//! Loading on demand gives what loading everything first gives (issue 17's "lazy = eager"),
//! whatever the directory listing order and whatever other compiles ran before, and many
//! nodes compiled in parallel give what each compiled alone gives.
//!
//! Random module trees hold classes that include each other, defined types, Puppet-language
//! functions, type aliases, definitions in files Puppet's autoloader would not find them in,
//! and files with syntax errors; random programs include random classes.

use proptest::prelude::*;
use puppet_eval::{compile, Environment, Session, Settings};
use puppet_loader::{Index, MemoryProvider};
use std::sync::Arc;

const MODULES: &[&str] = &["a", "b", "c"];
const NAMES: &[&str] = &["x", "y", "z"];

/// One class of a random tree: module, name below it (empty for the module's main class),
/// what its body does.
#[derive(Debug, Clone)]
struct Class {
    module: usize,
    name: Vec<usize>,
    body: Vec<Stmt>,
}

#[derive(Debug, Clone)]
enum Stmt {
    /// Another class of the tree (by index), or (rarely) a class that may not exist.
    Include(usize),
    IncludeAny(usize, Vec<usize>),
    Notify(u8),
    Define(usize),
    Function(usize),
    Alias(usize),
}

fn qualified(module: usize, name: &[usize]) -> String {
    let mut parts = vec![MODULES[module].to_string()];
    parts.extend(name.iter().map(|n| NAMES[*n].to_string()));
    parts.join("::")
}

fn stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        4 => any::<usize>().prop_map(Stmt::Include),
        1 => (0..MODULES.len(), prop::collection::vec(0..NAMES.len(), 0..2))
            .prop_map(|(m, n)| Stmt::IncludeAny(m, n)),
        2 => any::<u8>().prop_map(Stmt::Notify),
        1 => (0..MODULES.len()).prop_map(Stmt::Define),
        1 => (0..MODULES.len()).prop_map(Stmt::Function),
        1 => (0..MODULES.len()).prop_map(Stmt::Alias),
    ]
}

fn class() -> impl Strategy<Value = Class> {
    (
        0..MODULES.len(),
        prop::collection::vec(0..NAMES.len(), 0..2),
        prop::collection::vec(stmt(), 0..4),
    )
        .prop_map(|(module, name, body)| Class { module, name, body })
}

/// Where a tree puts a class: its own file, or (when `misplaced`) the module's init.pp;
/// `broken` files get a syntax error.
fn provider(classes: &[Class], misplaced: &[bool], broken: &[bool], seed: u64) -> MemoryProvider {
    let mut files: std::collections::BTreeMap<String, String> = Default::default();
    for (i, c) in classes.iter().enumerate() {
        let name = qualified(c.module, &c.name);
        let mut body = String::new();
        for s in &c.body {
            body.push_str(&match s {
                Stmt::Include(j) => {
                    let other = &classes[j % classes.len()];
                    format!("  include {}\n", qualified(other.module, &other.name))
                }
                Stmt::IncludeAny(m, n) => format!("  include {}\n", qualified(*m, n)),
                Stmt::Notify(v) => {
                    format!("  notify {{ '{name} {v}': message => \"${{title}}\" }}\n")
                }
                Stmt::Define(m) => format!("  {}::thing {{ '{name} thing': }}\n", MODULES[*m]),
                Stmt::Function(m) => format!(
                    "  notify {{ \"{name} fn ${{{}::double(2)}}\": }}\n",
                    MODULES[*m]
                ),
                Stmt::Alias(m) => format!(
                    "  $v = 3\n  if $v =~ {}::Small {{ notify {{ '{name} small': }} }}\n",
                    capitalize(MODULES[*m])
                ),
            });
        }
        let text = format!("class {name} {{\n{body}}}\n");
        let file = if misplaced.get(i).copied().unwrap_or(false) || c.name.is_empty() {
            format!("/mp/{}/manifests/init.pp", MODULES[c.module])
        } else {
            let rel: Vec<&str> = c.name.iter().map(|n| NAMES[*n]).collect();
            format!("/mp/{}/manifests/{}.pp", MODULES[c.module], rel.join("/"))
        };
        let entry = files.entry(file).or_default();
        entry.push_str(&text);
        if broken.get(i).copied().unwrap_or(false) {
            entry.push_str("class {\n");
        }
    }
    for m in MODULES {
        files.insert(
            format!("/mp/{m}/manifests/thing.pp"),
            format!("define {m}::thing {{ notify {{ \"{m} thing ${{title}}\": }} }}\n"),
        );
        files.insert(
            format!("/mp/{m}/functions/double.pp"),
            format!("function {m}::double(Integer $x) >> Integer {{ $x * 2 }}\n"),
        );
        files.insert(
            format!("/mp/{m}/types/small.pp"),
            format!("type {}::Small = Integer[0, 9]\n", capitalize(m)),
        );
    }
    let mut p = MemoryProvider::new().with_listing_seed(seed);
    for (path, text) in files {
        p.insert(path, text);
    }
    p
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn load(p: MemoryProvider) -> Arc<Environment> {
    Session::new()
        .files(p)
        .modulepath(["/mp"])
        .load()
        .expect("an in-memory module path loads")
}

/// The catalog's JSON, or the error as Puppet prints it.
fn outcome(env: &Arc<Environment>, program: &str) -> String {
    let out = compile(
        Arc::new(env.with_main_code(None, program)),
        &Settings::default(),
    );
    match out.catalog {
        Ok(c) => c.to_json(),
        Err(e) => format!("error: {}", e.puppet_message()),
    }
}

/// `include` lines for classes of the tree (by index).
fn program(classes: &[Class], includes: &[usize]) -> String {
    includes
        .iter()
        .map(|i| {
            let c = &classes[i % classes.len()];
            format!("include {}\n", qualified(c.module, &c.name))
        })
        .collect()
}

fn includes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(any::<usize>(), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn lazy_loading_equals_loading_everything_first(
        classes in prop::collection::vec(class(), 1..10),
        misplaced in prop::collection::vec(prop::bool::weighted(0.15), 10),
        broken in prop::collection::vec(prop::bool::weighted(0.1), 10),
        seed in 1u64..u64::MAX,
        first in includes(),
        second in includes(),
    ) {
        let first = program(&classes, &first);
        let second = program(&classes, &second);
        // Lazily, from a fresh environment.
        let lazy = outcome(&load(provider(&classes, &misplaced, &broken, 0)), &second);
        // With every file read and indexed first (and the listing scrambled).
        let eager_env = load(provider(&classes, &misplaced, &broken, seed));
        let _index = Index::build(eager_env.loader());
        let eager = outcome(&eager_env, &second);
        prop_assert_eq!(&lazy, &eager);
        // After another program compiled in the same environment.
        let warm_env = load(provider(&classes, &misplaced, &broken, seed));
        let _ = outcome(&warm_env, &first);
        let warm = outcome(&warm_env, &second);
        prop_assert_eq!(&lazy, &warm);
    }

    #[test]
    fn compile_many_equals_one_by_one(
        classes in prop::collection::vec(class(), 1..8),
        programs in prop::collection::vec(includes(), 1..6),
        threads in 1usize..4,
    ) {
        let env = load(provider(&classes, &[], &[], 0));
        let code: String = programs
            .iter()
            .enumerate()
            .map(|(i, p)| format!("node n{i} {{\n{}}}\n", program(&classes, p)))
            .collect();
        let env = Arc::new(env.with_main_code(None, &code));
        let nodes: Vec<Settings> = (0..programs.len())
            .map(|i| Settings::agent(&format!("n{i}"), Default::default()))
            .collect();
        let text = |c: &puppet_eval::Compiled| match &c.catalog {
            Ok(c) => c.to_json(),
            Err(e) => format!("error: {}", e.puppet_message()),
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        // In reverse order, in parallel, on a fresh environment each time.
        let mut reversed = nodes.clone();
        reversed.reverse();
        let many = pool.install(|| env.compile_many(&reversed));
        let alone_env = Arc::new(load(provider(&classes, &[], &[], 0)).with_main_code(None, &code));
        for (i, s) in reversed.iter().enumerate() {
            let alone = compile(alone_env.clone(), s);
            prop_assert_eq!(text(&many[i]), text(&alone));
        }
    }
}
