//! The catalog-changing functions (`ensure_resource`, `ensure_packages`, `ensure_resources`,
//! `defined_with_params`, `getparam`) against a mock `CatalogAccess`, and the discovery of
//! the corpus modules' Ruby functions (when `/usr/share/puppet/modules` exists).

use puppet_functions::{
    builtins, Block, CallContext, CallError, CatalogAccess, LogLevel, Registry,
};
use puppet_types::{Type, Value};
use std::sync::Arc;

/// (type, title, parameters).
type Resource = (String, String, Vec<(String, Value)>);

#[derive(Default)]
struct Catalog {
    resources: Vec<Resource>,
}

impl CatalogAccess for Catalog {
    fn resource(&self, type_name: &str, title: &str) -> Option<Vec<(String, Value)>> {
        self.resources
            .iter()
            .find(|(t, n, _)| t == type_name && n == title)
            .map(|r| r.2.clone())
    }
    fn titles(&self, type_name: &str) -> Vec<String> {
        self.resources
            .iter()
            .filter(|r| r.0 == type_name)
            .map(|r| r.1.clone())
            .collect()
    }
    fn current_resource(&self) -> Option<(String, String)> {
        None
    }
    fn declare_resource(
        &mut self,
        type_name: &str,
        title: &str,
        params: Vec<(String, Value)>,
    ) -> Result<(), CallError> {
        if self.resource(type_name, title).is_some() {
            return Err(CallError::new(
                "EVAL_DUPLICATE",
                format!("Duplicate declaration: {type_name}[{title}] is already declared"),
            ));
        }
        self.resources
            .push((type_name.to_string(), title.to_string(), params));
        Ok(())
    }
}

struct Ctx {
    reg: Arc<Registry>,
    catalog: Catalog,
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
    fn catalog(&mut self) -> Option<&mut dyn CatalogAccess> {
        Some(&mut self.catalog)
    }
}

fn ctx() -> Ctx {
    let mut reg = builtins::registry().clone();
    puppet_stdlib::register_module("stdlib", &mut reg);
    Ctx {
        reg: Arc::new(reg),
        catalog: Catalog::default(),
    }
}

fn h(pairs: &[(&str, &str)]) -> Value {
    Value::hash(
        pairs
            .iter()
            .map(|(k, v)| (Value::string(k), Value::string(v))),
    )
}

#[test]
fn ensure_packages_declares_once() {
    let mut c = ctx();
    let reg = c.reg.clone();
    let pkgs = Value::array(vec![Value::string("vim"), Value::string("git")]);
    reg.call(&mut c, "ensure_packages", vec![pkgs.clone()], None)
        .unwrap();
    // Same parameters again: nothing new, no duplicate error.
    reg.call(&mut c, "ensure_packages", vec![pkgs], None)
        .unwrap();
    assert_eq!(c.catalog.resources.len(), 2);
    assert_eq!(c.catalog.resources[0].0, "Package");
    assert_eq!(
        c.catalog.resources[0].2,
        vec![("ensure".to_string(), Value::string("installed"))]
    );
    // 'present' is rewritten to 'installed', so this matches too.
    reg.call(
        &mut c,
        "ensure_packages",
        vec![Value::string("vim"), h(&[("ensure", "present")])],
        None,
    )
    .unwrap();
    assert_eq!(c.catalog.resources.len(), 2);
    // Different parameters: a duplicate declaration, as in Puppet.
    let e = reg
        .call(
            &mut c,
            "ensure_packages",
            vec![Value::string("vim"), h(&[("ensure", "latest")])],
            None,
        )
        .unwrap_err();
    assert!(e.to_string().contains("Duplicate declaration"), "{e}");
}

#[test]
fn ensure_resource_and_queries() {
    let mut c = ctx();
    let reg = c.reg.clone();
    reg.call(
        &mut c,
        "ensure_resource",
        vec![
            Value::string("user"),
            Value::array(vec![Value::string("dan"), Value::string("alex")]),
            h(&[("ensure", "present")]),
        ],
        None,
    )
    .unwrap();
    assert_eq!(c.catalog.titles("User"), vec!["dan", "alex"]);
    let yes = reg
        .call(
            &mut c,
            "defined_with_params",
            vec![Value::string("User[dan]"), h(&[("ensure", "present")])],
            None,
        )
        .unwrap();
    assert_eq!(yes, Value::Boolean(true));
    let no = reg
        .call(
            &mut c,
            "defined_with_params",
            vec![Value::string("User[dan]"), h(&[("ensure", "absent")])],
            None,
        )
        .unwrap();
    assert_eq!(no, Value::Boolean(false));
    let p = reg
        .call(
            &mut c,
            "getparam",
            vec![Value::string("User[alex]"), Value::string("ensure")],
            None,
        )
        .unwrap();
    assert_eq!(p, Value::string("present"));
    reg.call(
        &mut c,
        "ensure_resources",
        vec![
            Value::string("user"),
            Value::hash([(Value::string("bob"), h(&[("uid", "600")]))]),
            h(&[("ensure", "present")]),
        ],
        None,
    )
    .unwrap();
    let bob = c.catalog.resource("User", "bob").unwrap();
    assert_eq!(bob.len(), 2);
}

#[test]
fn without_a_catalog_the_error_is_clear() {
    let mut reg = Registry::new();
    puppet_stdlib::register_module("stdlib", &mut reg);
    let mut c = puppet_functions::NullContext::default();
    let e = reg
        .call(
            &mut c,
            "ensure_resource",
            vec![Value::string("user"), Value::string("dan")],
            None,
        )
        .unwrap_err();
    assert!(e.to_string().contains("needs the catalog"), "{e}");
}

#[test]
fn corpus_discovery_matches_natives() {
    let root = std::path::Path::new("/usr/share/puppet/modules");
    if !root.is_dir() {
        eprintln!("no corpus modules here; skipped");
        return;
    }
    let natives = puppet_stdlib::natives();
    let mut checked = 0;
    for n in &natives {
        let dir = root.join(n.module).join("lib/puppet");
        let mut files = Vec::new();
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rb") {
                    if let Ok(s) = std::fs::read_to_string(&p) {
                        files.push((p.to_string_lossy().to_string(), s));
                    }
                }
            }
        }
        let found = puppet_stdlib::discover_ruby_functions(n.module, &files);
        let f = found
            .iter()
            .find(|f| f.name == n.name)
            .unwrap_or_else(|| panic!("{} not discovered in {}", n.name, n.module));
        assert_eq!(f.api, n.api(), "{}", n.name);
        // The registered 4.x signatures have the Ruby dispatches' parameter types.
        if f.api == puppet_stdlib::Api::V4 && !f.dispatches.is_empty() {
            let mut reg = Registry::new();
            puppet_stdlib::register_module(n.module, &mut reg);
            let func = reg.get(n.name).unwrap();
            let scoped = f.dispatches[0]
                .params
                .first()
                .is_some_and(|p| p.name == "scope");
            if !scoped {
                for (d, rd) in func.dispatches().iter().zip(&f.dispatches) {
                    let ours: Vec<String> = d.params().iter().map(|p| p.name.to_string()).collect();
                    let theirs: Vec<String> = rd
                        .params
                        .iter()
                        .filter(|p| {
                            !matches!(
                                p.kind,
                                puppet_stdlib::RubyParamKind::Block
                                    | puppet_stdlib::RubyParamKind::OptionalBlock
                            )
                        })
                        .map(|p| p.name.clone())
                        .collect();
                    assert_eq!(ours, theirs, "{}", n.name);
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 50);
}
