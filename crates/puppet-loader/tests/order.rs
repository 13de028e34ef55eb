//! Order independence (RFC 1), by property: for random module trees, random directory
//! listing orders and random orders of resolution requests, every name resolves to the
//! same definition, and a name defined in several places resolves by the documented
//! precedence (main manifest, then general to specific along the autoload path).

use proptest::prelude::*;
use puppet_loader::*;

const MODULES: &[&str] = &["a", "b", "c"];
const SEGS: &[&str] = &["x", "y", "z"];

/// One file of a random tree: (module, path below manifests/ as segments, classes defined
/// in it as extra segments below the file's namespace).
type TreeFile = (usize, Vec<usize>, Vec<Vec<usize>>);

/// A random tree.
fn tree() -> impl Strategy<Value = Vec<TreeFile>> {
    let file = (
        0..MODULES.len(),
        prop::collection::vec(0..SEGS.len(), 0..3),
        prop::collection::vec(prop::collection::vec(0..SEGS.len(), 0..3), 1..4),
    );
    prop::collection::vec(file, 1..12)
}

fn provider(tree: &[TreeFile], seed: u64) -> MemoryProvider {
    let mut p = MemoryProvider::new().with_listing_seed(seed);
    for (m, path, classes) in tree {
        let module = MODULES[*m];
        let file = if path.is_empty() {
            format!("/mp/{module}/manifests/init.pp")
        } else {
            let segs: Vec<&str> = path.iter().map(|s| SEGS[*s]).collect();
            format!("/mp/{module}/manifests/{}.pp", segs.join("/"))
        };
        // Classes named inside the file's namespace (so they pass the location check).
        let mut ns = vec![module.to_string()];
        ns.extend(path.iter().map(|s| SEGS[*s].to_string()));
        let text: String = classes
            .iter()
            .map(|extra| {
                let mut n = ns.clone();
                n.extend(extra.iter().map(|s| SEGS[*s].to_string()));
                format!("class {} {{ }}\n", n.join("::"))
            })
            .collect();
        p.insert(file, text);
    }
    p
}

fn all_names() -> Vec<String> {
    let mut out = Vec::new();
    for m in MODULES {
        out.push(m.to_string());
        for a in SEGS {
            out.push(format!("{m}::{a}"));
            for b in SEGS {
                out.push(format!("{m}::{a}::{b}"));
                for c in SEGS {
                    out.push(format!("{m}::{a}::{b}::{c}"));
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn resolution_is_order_independent(
        t in tree(),
        seed in 1u64..u64::MAX,
        order in Just(all_names()).prop_shuffle(),
    ) {
        let config = EnvironmentConfig::with_modulepath(["/mp"]);
        let sorted = Index::load(&config, std::sync::Arc::new(provider(&t, 0)));
        let scrambled = Index::load(&config, std::sync::Arc::new(provider(&t, seed)));
        // Resolve in a random order in one snapshot, in sorted order in the other.
        let mut first = std::collections::BTreeMap::new();
        for n in &order {
            first.insert(n.clone(), scrambled.resolve(DefKind::Class, n).cloned());
        }
        for n in all_names() {
            let again = sorted.resolve(DefKind::Class, &n).cloned();
            prop_assert_eq!(first.get(&n).cloned().flatten(), again.clone());
            // And a definition that exists is found where precedence says.
            if let Some(def) = again {
                let candidates = names::autoload_candidates(&n);
                let holders: Vec<String> = sorted
                    .files()
                    .filter(|f| f.definitions.iter().any(|d| d.name == def.name))
                    .map(|f| f.path.to_string_lossy().into_owned())
                    .collect();
                let expected = candidates
                    .iter()
                    .filter_map(|c| sorted.path_of(c))
                    .map(|p| p.to_string_lossy().into_owned())
                    .find(|p| holders.contains(p))
                    .or_else(|| holders.first().cloned());
                prop_assert_eq!(Some(def.file.to_string_lossy().into_owned()), expected);
            }
        }
        // The whole index is identical, in content and order.
        let a: Vec<_> = sorted.definitions().cloned().collect();
        let b: Vec<_> = scrambled.definitions().cloned().collect();
        prop_assert_eq!(a, b);
        let da: Vec<_> = sorted.all_diagnostics().cloned().collect();
        let db: Vec<_> = scrambled.all_diagnostics().cloned().collect();
        prop_assert_eq!(da, db);
    }

    #[test]
    fn lazy_loading_equals_the_index(
        t in tree(),
        seed in 1u64..u64::MAX,
        order in Just(all_names()).prop_shuffle(),
        prefix_names in prop::collection::vec((0..MODULES.len(), 0..SEGS.len()), 0..3),
    ) {
        // Files that also define names only Puppet's string-prefix check accepts
        // (`m::xz` in `m/manifests/x.pp`), which are on no autoload path.
        let mut p = provider(&t, seed);
        for (m, s) in prefix_names {
            let (module, seg) = (MODULES[m], SEGS[s]);
            p.insert(
                format!("/mp/{module}/manifests/{seg}.pp"),
                format!("class {module}::{seg} {{ }}\nclass {module}::{seg}z {{ }}\n"),
            );
        }
        let config = EnvironmentConfig::with_modulepath(["/mp"]);
        let index = Index::load(&config, std::sync::Arc::new(p.clone()));
        let lazy = Loader::open(&config, std::sync::Arc::new(p));
        let mut names = order.clone();
        names.extend(MODULES.iter().flat_map(|m| SEGS.iter().map(move |s| format!("{m}::{s}z"))));
        for n in &names {
            prop_assert_eq!(lazy.resolve(DefKind::Class, n), index.resolve(DefKind::Class, n).cloned(), "{}", n);
        }
    }

    #[test]
    fn environments_are_isolated(t in tree(), u in tree()) {
        let config = EnvironmentConfig::with_modulepath(["/mp"]);
        let cache = std::sync::Arc::new(ParseCache::new());
        let alone = Index::load(&config, std::sync::Arc::new(provider(&t, 0)));
        let _other = Index::load_with_cache(&config, std::sync::Arc::new(provider(&u, 0)), cache.clone());
        let after = Index::load_with_cache(&config, std::sync::Arc::new(provider(&t, 0)), cache.clone());
        let a: Vec<_> = alone.definitions().cloned().collect();
        let b: Vec<_> = after.definitions().cloned().collect();
        prop_assert_eq!(a, b);
    }
}
