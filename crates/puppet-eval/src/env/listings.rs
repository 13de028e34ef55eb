//! What the modules' directories hold, read once per directory: answers "is there a file
//! `lib/puppet/type/mount.rb` in this module" from the listing of its directory instead of
//! asking the source provider for the file in every module of the module path.
//!
//! Ruby's `require` and the resource type autoloader look for one relative path in each
//! module, in module path order, and most modules do not have it: a compile that loads 20
//! module types and 10 `require`d helpers would ask for about 1,500 missing files. With
//! listings, a directory is listed the first time something in it is asked for (directly:
//! not its parents), and a directory that an ancestor's listing already lacks is known to be
//! missing without asking.
//!
//! A listing is a snapshot, like everything else of an [`Environment`](super::Environment).
//! Paths are relative to one of the roots (the module directories), named by its index.

use puppet_loader::{EntryKind, SourceProvider};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The names in one directory, each list sorted (searched by bisection).
#[derive(Debug, Default)]
struct Listing {
    files: Vec<String>,
    dirs: Vec<String>,
}

impl Listing {
    fn has_dir(&self, name: &str) -> bool {
        self.dirs.binary_search_by(|d| d.as_str().cmp(name)).is_ok()
    }
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
    /// Listings below the modules of `loader`, in module path order (root `i` is module
    /// `i` of `Loader::modules`).
    pub(super) fn of_modules(loader: &puppet_loader::Loader) -> Listings {
        let roots = loader.modules().map(|m| m.path.clone()).collect();
        Listings::new(loader.provider().clone(), roots)
    }

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
        self.has_file(root, dir, name)
    }

    /// Whether directory `dir` below root `root` holds a file `name`.
    pub(super) fn has_file(&self, root: usize, dir: &str, name: &str) -> bool {
        self.listing(root, dir)
            .is_some_and(|l| l.files.binary_search_by(|f| f.as_str().cmp(name)).is_ok())
    }

    /// Whether `rel` is a directory below root `root` (`""` is the root itself).
    pub(super) fn is_dir(&self, root: usize, rel: &str) -> bool {
        if rel.is_empty() {
            return self.listing(root, "").is_some();
        }
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.listing(root, dir).is_some_and(|l| l.has_dir(name))
    }

    /// The listing of directory `rel` below root `root`, `None` when it cannot be listed
    /// (missing, not a directory). A directory is listed directly, never its parents just
    /// to learn that it exists (one failed open costs a few microseconds, listing the three
    /// or four directories above `lib/puppet/type` in every module several times that);
    /// but when the nearest ancestor already listed lacks the way down, it is known
    /// missing without asking.
    fn listing(&self, root: usize, rel: &str) -> Option<Arc<Listing>> {
        let base = self.roots.get(root)?;
        {
            let cache = self.cache.lock().ok()?;
            let known = cache.get(root)?;
            if let Some(listed) = known.get(rel) {
                return listed.clone();
            }
            if !rel.is_empty() && missing_below_listed(known, rel) {
                return None;
            }
        }
        let listed = if rel.is_empty() {
            self.list(base)
        } else {
            self.list(&base.join(rel))
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
        listing.files.sort_unstable();
        listing.dirs.sort_unstable();
        Some(Arc::new(listing))
    }
}

/// Whether the nearest listed ancestor of `rel` (a non-empty relative directory) shows that
/// it does not exist: the ancestor could not be listed, or lacks the next directory down.
fn missing_below_listed(known: &RootListings, rel: &str) -> bool {
    let mut child = rel;
    loop {
        let (parent, name) = child.rsplit_once('/').unwrap_or(("", child));
        if let Some(listed) = known.get(parent) {
            return !listed.as_ref().is_some_and(|l| l.has_dir(name));
        }
        if parent.is_empty() {
            return false;
        }
        child = parent;
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

    /// A provider that records which directories it was asked to list.
    #[derive(Debug)]
    struct Counting(MemoryProvider, Mutex<Vec<PathBuf>>);

    impl SourceProvider for Counting {
        fn list_dir(
            &self,
            dir: &Path,
        ) -> Result<Vec<puppet_loader::DirEntry>, puppet_loader::ProviderError> {
            self.1.lock().unwrap().push(dir.to_path_buf());
            self.0.list_dir(dir)
        }
        fn read_to_string(&self, file: &Path) -> Result<String, puppet_loader::ProviderError> {
            self.0.read_to_string(file)
        }
        fn kind(&self, path: &Path) -> Option<EntryKind> {
            self.0.kind(path)
        }
    }

    #[test]
    fn lists_a_directory_directly_and_trusts_listed_ancestors() {
        let files = MemoryProvider::new()
            .with_file("/m/a/lib/puppet/type/x.rb", "")
            .with_file("/m/a/lib/puppet/provider/x/p.rb", "")
            .with_file("/m/b/manifests/init.pp", "");
        let provider = Arc::new(Counting(files, Mutex::default()));
        let l = Listings::new(provider.clone(), vec!["/m/a".into(), "/m/b".into()]);
        let asked = || std::mem::take(&mut *provider.1.lock().unwrap());
        // Only the directory itself is listed, once, whatever is asked below it.
        assert!(l.is_file(0, "lib/puppet/type/x.rb"));
        assert!(!l.is_file(0, "lib/puppet/type/y.rb"));
        assert_eq!(asked(), [PathBuf::from("/m/a/lib/puppet/type")]);
        // A missing directory is asked for once.
        assert!(!l.is_file(1, "lib/puppet/type/x.rb"));
        assert!(!l.is_file(1, "lib/puppet/type/y.rb"));
        assert_eq!(asked(), [PathBuf::from("/m/b/lib/puppet/type")]);
        // Once a root is listed, what it lacks is missing without asking.
        assert!(l.is_dir(1, ""));
        assert_eq!(asked(), [PathBuf::from("/m/b")]);
        assert!(!l.is_dir(1, "lib/puppet/provider/x"));
        assert!(!l.is_file(1, "lib/puppet_x/helper.rb"));
        assert_eq!(asked(), Vec::<PathBuf>::new());
        // A listed ancestor that has the way down does not stop the lookup.
        assert!(l.is_dir(0, "lib/puppet"));
        assert_eq!(asked(), [PathBuf::from("/m/a/lib")]);
        assert!(l.is_dir(0, "lib/puppet/provider/x"));
        assert_eq!(asked(), [PathBuf::from("/m/a/lib/puppet/provider")]);
    }
}
