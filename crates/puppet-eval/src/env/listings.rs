//! What the modules' directories hold, read once per directory: answers "is there a file
//! `lib/puppet/type/mount.rb` in this module" from the listing of its directory instead of
//! asking the source provider for the file in every module of the module path.
//!
//! Ruby's `require` and the resource type autoloader look for one relative path in each
//! module, in module path order, and most modules do not have it: a compile that loads 20
//! module types and 10 `require`d helpers would ask for about 1,500 missing files. With
//! listings, a directory is listed the first time something below it is asked for, and a
//! directory that its parent's listing lacks is known to be missing without asking.
//!
//! A listing is a snapshot, like everything else of an [`Environment`](super::Environment).
//! Paths are relative to one of the roots (the module directories), named by its index.

use puppet_loader::{EntryKind, SourceProvider};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The names in one directory.
#[derive(Debug, Default)]
struct Listing {
    files: Vec<String>,
    dirs: Vec<String>,
}

/// One root's listings by relative directory path, `None` when it is not a directory that
/// can be listed. Looked up by `&str`, so a query allocates nothing.
type RootListings = FxHashMap<Box<str>, Option<Arc<Listing>>>;

/// Cached directory listings below a list of roots (the module directories, in module
/// path order), addressed by root index and a relative path with `/` separators.
#[derive(Debug)]
pub(super) struct Listings {
    provider: Arc<dyn SourceProvider>,
    roots: Vec<PathBuf>,
    /// Per root (same index as `roots`), its directories' listings.
    cache: Mutex<Vec<RootListings>>,
}

impl Listings {
    pub(super) fn new(provider: Arc<dyn SourceProvider>, roots: Vec<PathBuf>) -> Listings {
        let cache = Mutex::new(roots.iter().map(|_| RootListings::default()).collect());
        Listings {
            provider,
            roots,
            cache,
        }
    }

    /// Whether `rel` (`lib/puppet/type/mount.rb`) is a file below root `root`.
    pub(super) fn is_file(&self, root: usize, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.listing(root, dir)
            .is_some_and(|l| l.files.iter().any(|f| f == name))
    }

    /// Whether `rel` is a directory below root `root` (`""` is the root itself).
    pub(super) fn is_dir(&self, root: usize, rel: &str) -> bool {
        if rel.is_empty() {
            return self.listing(root, "").is_some();
        }
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.listing(root, dir)
            .is_some_and(|l| l.dirs.iter().any(|d| d == name))
    }

    /// The listing of directory `rel` below root `root`: the root is listed as it is, a
    /// directory below it only when its parent's listing has it.
    fn listing(&self, root: usize, rel: &str) -> Option<Arc<Listing>> {
        let base = self.roots.get(root)?;
        if let Some(known) = self.cache.lock().ok()?.get(root)?.get(rel) {
            return known.clone();
        }
        let listed = if rel.is_empty() {
            self.list(base)
        } else if self.is_dir(root, rel) {
            self.list(&base.join(rel))
        } else {
            None
        };
        let mut cache = self.cache.lock().ok()?;
        cache
            .get_mut(root)?
            .entry(rel.into())
            .or_insert(listed)
            .clone()
    }

    fn list(&self, dir: &Path) -> Option<Arc<Listing>> {
        let entries = self.provider.list_dir(dir).ok()?;
        let mut listing = Listing::default();
        for e in entries {
            match e.kind {
                EntryKind::File => listing.files.push(e.name),
                EntryKind::Dir => listing.dirs.push(e.name),
                EntryKind::Refused(_) => {}
            }
        }
        Some(Arc::new(listing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puppet_loader::MemoryProvider;

    #[test]
    fn answers_from_listings_below_the_roots() {
        let files = MemoryProvider::new()
            .with_file("/m/a/lib/puppet/type/x.rb", "")
            .with_file("/m/a/lib/util.rb", "")
            .with_file("/m/b/manifests/init.pp", "");
        let l = Listings::new(Arc::new(files), vec!["/m/a".into(), "/m/b".into()]);
        assert!(l.is_file(0, "lib/puppet/type/x.rb"));
        assert!(!l.is_file(0, "lib/puppet/type/y.rb"));
        assert!(!l.is_file(1, "lib/puppet/type/x.rb"));
        assert!(l.is_file(0, "lib/util.rb"));
        assert!(!l.is_file(0, "lib/puppet"));
        assert!(l.is_dir(0, "lib/puppet"));
        assert!(l.is_dir(1, ""));
        assert!(!l.is_dir(1, "lib"));
        assert!(l.is_file(1, "manifests/init.pp"));
        // No such root.
        assert!(!l.is_file(2, "manifests/init.pp"));
    }
}
