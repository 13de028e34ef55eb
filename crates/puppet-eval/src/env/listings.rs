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
//! Only paths below the given roots (the module directories) are answered; a path elsewhere
//! is reported missing.

use puppet_loader::{EntryKind, SourceProvider};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The names in one directory.
#[derive(Debug, Default)]
struct Listing {
    files: Vec<String>,
    dirs: Vec<String>,
}

/// Cached directory listings below a set of roots.
#[derive(Debug)]
pub(super) struct Listings {
    provider: Arc<dyn SourceProvider>,
    roots: Vec<PathBuf>,
    /// A directory's listing, `None` when it is not a directory that can be listed.
    cache: Mutex<HashMap<PathBuf, Option<Arc<Listing>>>>,
}

impl Listings {
    pub(super) fn new(provider: Arc<dyn SourceProvider>, roots: Vec<PathBuf>) -> Listings {
        Listings {
            provider,
            roots,
            cache: Mutex::default(),
        }
    }

    /// Whether `path` (below one of the roots) is a file.
    pub(super) fn is_file(&self, path: &Path) -> bool {
        self.entry_in_parent(path, |l, name| l.files.iter().any(|f| f == name))
    }

    /// Whether `path` (below one of the roots) is a directory.
    pub(super) fn is_dir(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| r == path)
            || self.entry_in_parent(path, |l, name| l.dirs.iter().any(|d| d == name))
    }

    fn entry_in_parent(&self, path: &Path, has: impl Fn(&Listing, &str) -> bool) -> bool {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return false;
        };
        let Some(name) = name.to_str() else {
            return false;
        };
        self.listing(parent).is_some_and(|l| has(&l, name))
    }

    /// The listing of `dir`: a root is listed as it is; a directory below a root only when
    /// its parent's listing has it.
    fn listing(&self, dir: &Path) -> Option<Arc<Listing>> {
        if let Some(known) = self.cache.lock().ok()?.get(dir) {
            return known.clone();
        }
        let root = self.roots.iter().any(|r| r == dir);
        let below_root = || self.roots.iter().any(|r| dir.starts_with(r)) && self.is_dir(dir);
        let listed = if root || below_root() {
            self.list(dir)
        } else {
            None
        };
        let mut cache = self.cache.lock().ok()?;
        cache.entry(dir.to_path_buf()).or_insert(listed).clone()
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

    fn listings() -> Listings {
        let files = MemoryProvider::new()
            .with_file("/m/a/lib/puppet/type/x.rb", "")
            .with_file("/m/a/lib/util.rb", "")
            .with_file("/m/b/manifests/init.pp", "")
            .with_file("/elsewhere/lib/util.rb", "");
        Listings::new(Arc::new(files), vec!["/m/a".into(), "/m/b".into()])
    }

    #[test]
    fn answers_from_listings_below_the_roots() {
        let l = listings();
        assert!(l.is_file(Path::new("/m/a/lib/puppet/type/x.rb")));
        assert!(!l.is_file(Path::new("/m/a/lib/puppet/type/y.rb")));
        assert!(!l.is_file(Path::new("/m/b/lib/puppet/type/x.rb")));
        assert!(l.is_file(Path::new("/m/a/lib/util.rb")));
        assert!(!l.is_file(Path::new("/m/a/lib/puppet")));
        assert!(l.is_dir(Path::new("/m/a/lib/puppet")));
        assert!(l.is_dir(Path::new("/m/b")));
        assert!(!l.is_dir(Path::new("/m/b/lib")));
        // Outside the roots: missing, whatever the provider holds.
        assert!(!l.is_file(Path::new("/elsewhere/lib/util.rb")));
    }
}
