//! Where the modules' Ruby function files are, found by name as Puppet's autoloaders find
//! them: a compile asks for the functions it calls, not for a listing of every module.
//!
//! Puppet's rules (`Puppet::Pops::Loader::ModuleLoaders`, `Puppet::Util::Autoload`):
//! - a qualified 4.x function `a::b::c` can only be in module `a`, as
//!   `lib/puppet/functions/a/b/c.rb` (a module loader refuses a name of another namespace);
//! - an unqualified function `f` is looked for in the modules in module path order, each
//!   module's 4.x file `lib/puppet/functions/f.rb` before its 3.x file
//!   `lib/puppet/parser/functions/f.rb`;
//! - failing those, the 3.x autoloader also searches the `lib` of every other directory of
//!   the module path's entries (a module shadowed by one of the same name earlier on the
//!   path), in module path order, names sorted within a directory.
//!
//! A name is found from the listings of the two flat function directories of each module
//! (`lib/puppet/functions`, `lib/puppet/parser/functions`), each read once, the first time a
//! name gets to that module (the environment's [`Listings`], which Ruby's `require` and
//! the type autoloader share); a qualified name is one file probe in its module. Answers are
//! cached by the caller ([`Environment::function`](super::Environment::function) caches
//! misses too), so each name is searched once per environment.
//!
//! [`list`] is the full listing (every module's files), for the tools that show every
//! function: it keeps exactly the names that [`FunctionFiles`] finds (a test checks that
//! both agree).

use super::listings::Listings;
use puppet_loader::{EntryKind, Loader, SourceProvider};
use rustc_hash::FxHashSet;
use smol_str::SmolStr;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The 4.x function directory of a module.
const DIR_4X: &str = "lib/puppet/functions";
/// The 3.x function directory of a module.
const DIR_3X: &str = "lib/puppet/parser/functions";
/// How many levels of subdirectories of `lib/puppet/functions` a qualified name may take
/// (as many as the full listing walks).
const MAX_DEPTH: usize = 16;

/// The file names of one directory (`None`: it cannot be listed).
type Names = Option<FxHashSet<String>>;

/// A directory of the module path that is not one of the environment's modules (a shadowed
/// module), with its 3.x function directory's listing, read on first use.
#[derive(Debug)]
struct Elsewhere {
    name: SmolStr,
    path: PathBuf,
    three: OnceLock<Names>,
}

/// The modules' Ruby function files, found by name (see the module docs).
#[derive(Debug)]
pub(super) struct FunctionFiles {
    /// The modules' directory listings (roots in module path order, same index as
    /// `Loader::modules`), shared with the other lookups of module files.
    listings: Arc<Listings>,
    /// The module path's other directories, listed the first time a name is not found in
    /// any module.
    elsewhere: OnceLock<Vec<Elsewhere>>,
}

/// A 3.x function file of a directory that is not one of the environment's modules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ElsewhereFile {
    /// The directory's name (the module it would be).
    pub name: SmolStr,
    /// The directory.
    pub dir: PathBuf,
    /// The file, relative to `dir`.
    pub rel: String,
}

/// Whether `name` (lower case, no leading `::`) can name a function file: segments that are
/// not empty and hold no path separator or dot. Anything else names no file.
pub(super) fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    // No empty segment: not empty, no `:` at either end, and every `:` one of a `::` pair
    // with something after it.
    let mut i = 0;
    let mut segment_empty = true;
    while i < b.len() {
        match b[i] {
            b':' if !segment_empty && b.get(i + 1) == Some(&b':') => {
                segment_empty = true;
                i += 2;
                continue;
            }
            b':' | b'/' | b'\\' | b'.' | 0 => return false,
            _ => segment_empty = false,
        }
        i += 1;
    }
    !segment_empty
}

/// The file names (files only: a symlink to a file counts, directories and refused entries
/// do not) of `dir`, `None` when it cannot be listed.
fn list_files(provider: &dyn SourceProvider, dir: &Path) -> Names {
    let entries = provider.list_dir(dir).ok()?;
    Some(
        entries
            .into_iter()
            .filter(|e| e.kind == EntryKind::File)
            .map(|e| e.name)
            .collect(),
    )
}

fn has(names: &Names, file: &str) -> bool {
    names.as_ref().is_some_and(|n| n.contains(file))
}

impl FunctionFiles {
    /// Lookups over `listings`, the listings of `loader`'s modules.
    pub(super) fn new(listings: Arc<Listings>) -> FunctionFiles {
        FunctionFiles {
            listings,
            elsewhere: OnceLock::new(),
        }
    }

    /// The file (relative to the module) that defines function `name` (lower case, no
    /// leading `::`) in module number `index` of the loader, if any: its 4.x file, else its
    /// 3.x file.
    pub(super) fn in_module(&self, loader: &Loader, index: usize, name: &str) -> Option<String> {
        if !valid_name(name) {
            return None;
        }
        let module = loader.modules().nth(index)?;
        let provider = &**loader.provider();
        if let Some((first, _)) = name.split_once("::") {
            // A module loader only finds names of its own namespace.
            if first != module.name || name.matches("::").count() > MAX_DEPTH {
                return None;
            }
            let rel = format!("{DIR_4X}/{}.rb", name.replace("::", "/"));
            return (provider.kind(&module.path.join(&rel)) == Some(EntryKind::File))
                .then_some(rel);
        }
        let file = format!("{name}.rb");
        [DIR_4X, DIR_3X]
            .into_iter()
            .find(|dir| self.listings.has_file(index, dir, &file))
            .map(|dir| format!("{dir}/{file}"))
    }

    /// The 3.x file of function `name` in the module path's directories that are not the
    /// environment's modules (the first in module path order, names sorted within one
    /// module path entry).
    pub(super) fn elsewhere(&self, loader: &Loader, name: &str) -> Option<ElsewhereFile> {
        if !valid_name(name) || name.contains("::") {
            return None;
        }
        let provider = &**loader.provider();
        let dirs = self.elsewhere.get_or_init(|| other_dirs(loader));
        let file = format!("{name}.rb");
        dirs.iter().find_map(|d| {
            let names = d
                .three
                .get_or_init(|| list_files(provider, &d.path.join(DIR_3X)));
            has(names, &file).then(|| ElsewhereFile {
                name: d.name.clone(),
                dir: d.path.clone(),
                rel: format!("{DIR_3X}/{file}"),
            })
        })
    }
}

/// The directories of the module path's entries that are not the environment's modules,
/// in module path order, sorted by name within an entry.
fn other_dirs(loader: &Loader) -> Vec<Elsewhere> {
    let provider = &**loader.provider();
    let mut out = Vec::new();
    for dir in &loader.config().modulepath {
        let Ok(mut entries) = provider.list_dir(dir) else {
            continue;
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in entries {
            let path = dir.join(&entry.name);
            if entry.kind != EntryKind::Dir || loader.modules().any(|m| m.path == path) {
                continue;
            }
            out.push(Elsewhere {
                name: SmolStr::new(&entry.name),
                path,
                three: OnceLock::new(),
            });
        }
    }
    out
}

/// Every module's Ruby function files, listed (for the tools that show every function).
#[derive(Debug, Default)]
pub(super) struct RubyFiles {
    /// Per module, in module path order: its name and its function files by function name
    /// (paths relative to the module), the names [`FunctionFiles::in_module`] finds.
    pub by_module: Vec<(SmolStr, HashMap<String, String>)>,
    /// The 3.x function files of the module path's other directories, as
    /// [`FunctionFiles::elsewhere`] finds them: per directory, its name, path and files by
    /// function name (relative to the directory). `functions` does not show them (as
    /// before); the test of lookups by name checks them.
    #[cfg_attr(not(test), allow(dead_code))]
    pub legacy_elsewhere: Vec<(SmolStr, PathBuf, HashMap<String, String>)>,
}

/// The function name of a file path below a function directory (`a/b/c.rb` -> `a::b::c`),
/// when a lookup by that name finds the file: lower case, valid, and (when qualified) in
/// its own module's namespace.
fn stem_name(below: &str, module: &str) -> Option<String> {
    let name = below.strip_suffix(".rb")?.replace('/', "::");
    let own = match name.split_once("::") {
        Some((first, _)) => first == module,
        None => true,
    };
    (own && valid_name(&name) && !name.bytes().any(|b| b.is_ascii_uppercase())).then_some(name)
}

/// Lists every module's function files and the 3.x files of the module path's other
/// directories (a module's 4.x file wins over its 3.x file).
pub(super) fn list(loader: &Loader) -> RubyFiles {
    let provider = &**loader.provider();
    let mut by_module = Vec::new();
    for m in loader.modules() {
        let mut found: HashMap<String, String> = HashMap::new();
        let three = super::list_tree(provider, &m.path, DIR_3X, 0);
        let four = super::list_tree(provider, &m.path, DIR_4X, MAX_DEPTH);
        for (dir, files) in [(DIR_3X, three), (DIR_4X, four)] {
            for rel in files {
                let below = rel.strip_prefix(dir).and_then(|r| r.strip_prefix('/'));
                if let Some(name) = below.and_then(|b| stem_name(b, &m.name)) {
                    found.insert(name, rel.clone());
                }
            }
        }
        by_module.push((m.name.clone(), found));
    }
    let mut legacy_elsewhere = Vec::new();
    for d in other_dirs(loader) {
        let mut found: HashMap<String, String> = HashMap::new();
        for rel in super::list_tree(provider, &d.path, DIR_3X, 0) {
            let below = rel.strip_prefix(DIR_3X).and_then(|r| r.strip_prefix('/'));
            if let Some(name) = below.and_then(|b| stem_name(b, "")) {
                if !name.contains("::") {
                    found.insert(name, rel.clone());
                }
            }
        }
        if !found.is_empty() {
            legacy_elsewhere.push((d.name, d.path, found));
        }
    }
    RubyFiles {
        by_module,
        legacy_elsewhere,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puppet_loader::{EnvironmentConfig, MemoryProvider};
    use std::sync::Arc;

    fn loader(files: &[&str]) -> Loader {
        let mut provider = MemoryProvider::new();
        for f in files {
            provider.insert(*f, "");
        }
        let config = EnvironmentConfig {
            modulepath: vec!["/m".into(), "/n".into()],
            ..EnvironmentConfig::default()
        };
        Loader::open(&config, Arc::new(provider))
    }

    /// What a lookup by name answers: the first module's file, else another directory's.
    fn find(files: &FunctionFiles, loader: &Loader, name: &str) -> Option<String> {
        let n = loader.modules().count();
        (0..n)
            .find_map(|i| {
                let m = loader.modules().nth(i)?;
                files
                    .in_module(loader, i, name)
                    .map(|rel| format!("{}:{rel}", m.name))
            })
            .or_else(|| {
                files
                    .elsewhere(loader, name)
                    .map(|e| format!("{}@{}:{}", e.name, e.dir.display(), e.rel))
            })
    }

    /// What the full listing answers for the same name.
    fn listed(all: &RubyFiles, name: &str) -> Option<String> {
        all.by_module
            .iter()
            .find_map(|(m, found)| found.get(name).map(|rel| format!("{m}:{rel}")))
            .or_else(|| {
                all.legacy_elsewhere.iter().find_map(|(n, dir, found)| {
                    found
                        .get(name)
                        .map(|rel| format!("{n}@{}:{rel}", dir.display()))
                })
            })
    }

    const FILES: &[&str] = &[
        "/m/alpha/manifests/init.pp",
        "/m/alpha/lib/puppet/functions/both.rb",
        "/m/alpha/lib/puppet/parser/functions/both.rb",
        "/m/alpha/lib/puppet/parser/functions/three.rb",
        "/m/alpha/lib/puppet/functions/alpha/deep/er.rb",
        "/m/alpha/lib/puppet/functions/alpha/q.rb",
        // Another module's namespace: a module loader does not find it.
        "/m/alpha/lib/puppet/functions/beta/stolen.rb",
        // Upper case: no call names it.
        "/m/alpha/lib/puppet/functions/Upper.rb",
        "/m/alpha/lib/puppet/functions/notes.txt",
        "/m/beta/lib/puppet/functions/three.rb",
        "/m/beta/lib/puppet/functions/four.rb",
        "/m/beta/lib/puppet/functions/beta/q.rb",
        "/m/beta/lib/puppet/parser/functions/sub/nested.rb",
        // Shadowed by /m/beta: only its 3.x files are found, last.
        "/n/beta/lib/puppet/parser/functions/shadowed.rb",
        "/n/beta/lib/puppet/parser/functions/three.rb",
        "/n/beta/lib/puppet/functions/shadowed4.rb",
        "/n/gamma/lib/puppet/parser/functions/g.rb",
        // Not a module (not a valid module name), so searched as another directory.
        "/n/Delta/lib/puppet/parser/functions/d.rb",
    ];

    #[test]
    fn valid_names_are_non_empty_segments_without_separators() {
        for ok in ["f", "a::b", "a::b::c", "a_1::b2"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "", "::", "a::", "::a", "a::::b", "a:b", "a:::b", "../x", "a/b", "a.b", "a\\b", "a\0",
        ] {
            assert!(!valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn lookup_by_name_agrees_with_the_full_listing() {
        let loader = loader(FILES);
        let files = FunctionFiles::new(Arc::new(Listings::of_modules(&loader)));
        let all = list(&loader);
        let mut names: Vec<String> = all
            .by_module
            .iter()
            .flat_map(|(_, f)| f.keys().cloned())
            .chain(
                all.legacy_elsewhere
                    .iter()
                    .flat_map(|(_, _, f)| f.keys().cloned()),
            )
            .collect();
        names.extend(
            [
                "beta::stolen",
                "upper",
                "notes",
                "nested",
                "sub::nested",
                "shadowed4",
                "none",
                "alpha::none",
                "alpha::deep",
                "alpha",
                "",
                "::",
                "a::::b",
                "../x",
                "alpha::..::x",
                "alpha::deep/er",
            ]
            .map(String::from),
        );
        for name in &names {
            assert_eq!(find(&files, &loader, name), listed(&all, name), "{name}");
        }
        assert_eq!(
            find(&files, &loader, "both").as_deref(),
            Some("alpha:lib/puppet/functions/both.rb")
        );
        assert_eq!(
            find(&files, &loader, "three").as_deref(),
            Some("alpha:lib/puppet/parser/functions/three.rb")
        );
        assert_eq!(
            find(&files, &loader, "alpha::deep::er").as_deref(),
            Some("alpha:lib/puppet/functions/alpha/deep/er.rb")
        );
        assert_eq!(find(&files, &loader, "beta::stolen"), None);
        assert_eq!(
            find(&files, &loader, "shadowed").as_deref(),
            Some("beta@/n/beta:lib/puppet/parser/functions/shadowed.rb")
        );
        assert_eq!(
            find(&files, &loader, "g").as_deref(),
            Some("gamma:lib/puppet/parser/functions/g.rb")
        );
        assert_eq!(find(&files, &loader, "shadowed4"), None);
        assert_eq!(
            find(&files, &loader, "d").as_deref(),
            Some("Delta@/n/Delta:lib/puppet/parser/functions/d.rb")
        );
    }
}
