//! Runs the modules' functions from their own Ruby source (puppet-ruby) over the cases Puppet
//! 7.23 answered in `crates/puppet-stdlib/fixtures/oracle.json`, and reports the agreement:
//! the same `%p` text of the value, or the same error message. Puppet's built-ins win over
//! module functions (as in Puppet); every other function the cases call is the module's
//! Ruby one (4.x before 3.x), so the native implementations are not used at all.
//!
//! Run: `cargo run --release --example ruby_oracle -- [-v] [MODULES_DIR]` (default
//! `/usr/share/puppet/modules`). `-v` lists every disagreement.

use puppet_lang::functions::{builtins, Block, CallContext, CallError, LogLevel, Registry};
use puppet_lang::ruby::{functions, SourceHost, Sources};
use puppet_lang::types::{Type, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct FsHost {
    libs: Vec<PathBuf>,
    root: PathBuf,
}

impl SourceHost for FsHost {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let rel = format!("{}.rb", name.trim_end_matches(".rb"));
        self.libs.iter().find_map(|l| {
            let p = l.join(&rel);
            std::fs::read_to_string(&p)
                .ok()
                .map(|t| (p.display().to_string(), Arc::from(t)))
        })
    }
    fn read(&self, path: &str) -> Option<Arc<str>> {
        let p = Path::new(path);
        if !p.starts_with(&self.root) || path.contains("/../") {
            return None;
        }
        std::fs::read_to_string(p).ok().map(Arc::from)
    }
}

/// The context of each call, as puppet-stdlib's oracle test gives the natives: no variables,
/// the module path at the corpus, the `-e` stack of the recorded calls; type aliases are
/// read from the modules' `types/` files.
struct Mock {
    reg: Arc<Registry>,
    warned: std::collections::HashSet<String>,
    root: PathBuf,
}

impl CallContext for Mock {
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
    fn type_alias(&self, name: &str) -> Option<Type> {
        module_type_alias(&self.root, name, 0)
    }
    fn warn_once(&mut self, key: &str, _message: &str) -> bool {
        self.warned.insert(key.to_string())
    }
    fn read_file(&self, _path: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }
    /// The fixtures' calls are `-e` code: a call on line 1 of the program.
    fn puppet_stack(&self) -> Vec<(String, u32)> {
        vec![("unknown".into(), 1), ("unknown".into(), 0)]
    }
    fn module_directory(&self, name: &str) -> Option<String> {
        let dir = self.root.join(name);
        dir.is_dir().then(|| dir.display().to_string())
    }
    fn module_file(&self, name: &str, relative: &str) -> Option<Vec<u8>> {
        std::fs::read(self.root.join(name).join(relative)).ok()
    }
}

/// A module's type alias (`Stdlib::HTTPUrl` is `stdlib/types/httpurl.pp`), read from its
/// file: the text after `type NAME =`, as a type expression whose own aliases resolve the
/// same way.
fn module_type_alias(root: &Path, name: &str, depth: usize) -> Option<Type> {
    let mut parts = name.split("::");
    let module = parts.next()?.to_lowercase();
    let rest: Vec<String> = parts.map(str::to_lowercase).collect();
    if rest.is_empty() || depth > 16 {
        return None;
    }
    let file = root
        .join(module)
        .join("types")
        .join(format!("{}.pp", rest.join("/")));
    let text = std::fs::read_to_string(file).ok()?;
    let body: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let (_, rhs) = body.split_once(&format!("type {name}"))?;
    let rhs = rhs.trim_start().strip_prefix('=')?;
    let root = root.to_path_buf();
    let t = match puppet_lang::functions::parse_value(rhs.trim(), &move |n| {
        module_type_alias(&root, n, depth + 1)
    }) {
        Ok(Value::Type(t)) => t,
        _ => return None,
    };
    let alias = puppet_lang::types::TypeAlias::new(name);
    alias.resolve_to(t);
    Some(Type::Alias(alias))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "rb") {
            out.push(p);
        }
    }
}

fn main() {
    let mut verbose = false;
    let mut root = PathBuf::from("/usr/share/puppet/modules");
    for a in std::env::args().skip(1) {
        if a == "-v" {
            verbose = true;
        } else {
            root = PathBuf::from(a);
        }
    }
    let mut libs = Vec::new();
    let mut v4 = Vec::new();
    let mut v3 = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&root) {
        let mut mods: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        mods.sort();
        for m in mods {
            let lib = m.join("lib");
            if lib.is_dir() {
                walk(&lib.join("puppet/functions"), &mut v4);
                walk(&lib.join("puppet/parser/functions"), &mut v3);
                libs.push(lib);
            }
        }
    }
    let sources = Sources::new(Arc::new(FsHost {
        libs,
        root: root.clone(),
    }));
    let mut reg = builtins::registry().clone();
    let mut failed_loads = 0;
    for p in v4.iter().chain(v3.iter()) {
        let path = p.display().to_string();
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        match functions::load(&path, &text, &sources) {
            Ok(f) => {
                if !reg.contains(f.name()) {
                    if let Err(e) = f.register(&mut reg) {
                        eprintln!("{path}: {e}");
                    }
                }
            }
            Err(e) => {
                failed_loads += 1;
                if verbose {
                    eprintln!("load: {e}");
                }
            }
        }
    }
    let reg = Arc::new(reg);
    let text = std::fs::read_to_string("crates/puppet-stdlib/fixtures/oracle.json")
        .expect("run from the workspace root");
    let fixtures: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = fixtures["cases"].as_array().cloned().unwrap_or_default();
    let (mut total, mut agree) = (0usize, 0usize);
    let mut by_function: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for c in &cases {
        let function = c["function"].as_str().unwrap_or_default();
        let args = c["args"].as_str().unwrap_or_default();
        let expected: Result<String, String> = if c["ok"].as_bool() == Some(true) {
            Ok(c["output"].as_str().unwrap_or_default().to_string())
        } else {
            Err(c["error"].as_str().unwrap_or_default().to_string())
        };
        let parsed = match puppet_lang::functions::parse_value(&format!("[{args}]"), &|_| None) {
            Ok(Value::Array(a)) => a.to_vec(),
            _ => continue,
        };
        let mut ctx = Mock {
            reg: reg.clone(),
            warned: Default::default(),
            root: root.clone(),
        };
        let got = match reg.call(&mut ctx, function, parsed, None) {
            Ok(v) => {
                puppet_lang::types::convert::format_value(&v, Some("%p")).map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        };
        total += 1;
        let entry = by_function.entry(function.to_string()).or_default();
        entry.0 += 1;
        if got == expected {
            agree += 1;
            entry.1 += 1;
        } else if verbose {
            println!("{function}({args})\n   expected {expected:?}\n   got      {got:?}");
        }
    }
    if verbose {
        for (f, (n, ok)) in &by_function {
            if ok < n {
                println!("  {f}: {ok}/{n}");
            }
        }
    }
    let pct = agree as f64 * 100.0 / total.max(1) as f64;
    println!("function files not loaded: {failed_loads}");
    println!("oracle cases: {total}; agree: {agree} ({pct:.1} %)");
}
