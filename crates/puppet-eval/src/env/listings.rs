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
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The names in one directory.
#[derive(Debug, Default)]
struct Listing {
    files: Vec<String>,
    dirs: Vec<String>,
}

/// Cached directory listings below a set of roots.
///
/// Paths are compared in their normal form (see [`normal`]) as bytes: `Path`'s own `==`,
/// `starts_with` and hashing walk the components, which for 48 module roots cost more
/// than the file system calls the listings save.
#[derive(Debug)]
pub(super) struct Listings {
    provider: Arc<dyn SourceProvider>,
    /// In normal form.
    roots: Vec<PathBuf>,
    /// A directory's listing (keyed by its normal form), `None` when it is not a directory
    /// that can be listed.
    cache: Mutex<FxHashMap<OsString, Option<Arc<Listing>>>>,
}

/// `path` in the form its components give back (`a//b/./c/` is `a/b/c`): two paths are
/// equal as `Path`s exactly when their normal forms have the same bytes. Most paths are
/// already normal and are borrowed.
fn normal(path: &Path) -> Cow<'_, Path> {
    let b = path.as_os_str().as_encoded_bytes();
    // Not normal: `//`, a `.` component after a `/`, or a trailing `/` (but `/` itself).
    let plain = (b.len() <= 1 || b[b.len() - 1] != b'/')
        && !b.iter().enumerate().any(|(i, &c)| {
            c == b'/'
                && match b.get(i + 1) {
                    Some(b'/') => true,
                    Some(b'.') => matches!(b.get(i + 2), None | Some(b'/')),
                    _ => false,
                }
        });
    if plain {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(path.components().collect())
    }
}

/// `Path::parent` and `Path::file_name` (as text) of a normal path: split at its last `/`
/// when it is text with a plain last component, else through `Path`.
fn split_last(path: &Path) -> (Option<&Path>, Option<&str>) {
    if let Some(s) = path.to_str() {
        if let Some(i) = s.rfind('/') {
            let name = &s[i + 1..];
            if !name.is_empty() && name != "." && name != ".." {
                let parent = if i == 0 { "/" } else { &s[..i] };
                return (Some(Path::new(parent)), Some(name));
            }
        }
    }
    (path.parent(), path.file_name().and_then(|n| n.to_str()))
}

/// Whether normal `path` lies below (or is) normal `root`, as `Path::starts_with` says.
fn below(path: &Path, root: &Path) -> bool {
    let (p, r) = (
        path.as_os_str().as_encoded_bytes(),
        root.as_os_str().as_encoded_bytes(),
    );
    if r.is_empty() {
        // Every path starts with the empty path.
        return true;
    }
    p.starts_with(r) && (p.len() == r.len() || p[r.len()] == b'/' || r == b"/")
}

impl Listings {
    pub(super) fn new(provider: Arc<dyn SourceProvider>, roots: Vec<PathBuf>) -> Listings {
        Listings {
            provider,
            roots: roots.iter().map(|r| normal(r).into_owned()).collect(),
            cache: Mutex::default(),
        }
    }

    /// Whether `path` (below one of the roots) is a file.
    pub(super) fn is_file(&self, path: &Path) -> bool {
        self.entry_in_parent(&normal(path), |l, name| l.files.iter().any(|f| f == name))
    }

    /// Whether `path` (below one of the roots) is a directory.
    pub(super) fn is_dir(&self, path: &Path) -> bool {
        self.is_dir_normal(&normal(path))
    }

    fn is_root(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| r.as_os_str() == path.as_os_str())
    }

    fn is_dir_normal(&self, path: &Path) -> bool {
        self.is_root(path) || self.entry_in_parent(path, |l, name| l.dirs.iter().any(|d| d == name))
    }

    /// Whether the listing of normal `path`'s parent has its name (as `has` says).
    fn entry_in_parent(&self, path: &Path, has: impl Fn(&Listing, &str) -> bool) -> bool {
        let (Some(parent), Some(name)) = split_last(path) else {
            return false;
        };
        self.listing(parent).is_some_and(|l| has(&l, name))
    }

    /// The listing of normal `dir`: a root is listed as it is; a directory below a root
    /// only when its parent's listing has it.
    fn listing(&self, dir: &Path) -> Option<Arc<Listing>> {
        if let Some(known) = self.cache.lock().ok()?.get(dir.as_os_str()) {
            return known.clone();
        }
        let root = self.is_root(dir);
        let below_root = || self.roots.iter().any(|r| below(dir, r)) && self.is_dir_normal(dir);
        let listed = if root || below_root() {
            self.list(dir)
        } else {
            None
        };
        let mut cache = self.cache.lock().ok()?;
        cache
            .entry(dir.as_os_str().to_os_string())
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

    fn listings() -> Listings {
        let files = MemoryProvider::new()
            .with_file("/m/a/lib/puppet/type/x.rb", "")
            .with_file("/m/a/lib/util.rb", "")
            .with_file("/m/b/manifests/init.pp", "")
            .with_file("/elsewhere/lib/util.rb", "");
        Listings::new(Arc::new(files), vec!["/m/a".into(), "/m/b".into()])
    }

    #[test]
    fn normal_forms_and_prefixes_agree_with_path() {
        let paths = [
            "/m/a",
            "/m/a/",
            "/m//a",
            "/m/./a",
            "/m/a/.",
            "./m/a",
            "m/a",
            "/",
            "",
            "/m",
            "/m/ab",
            "/m/a/lib",
            "/m/a/../a",
            "//m/a",
            ".",
            "./",
        ];
        for p in paths {
            for q in paths {
                let (np, nq) = (normal(Path::new(p)), normal(Path::new(q)));
                assert_eq!(
                    np.as_os_str() == nq.as_os_str(),
                    Path::new(p) == Path::new(q),
                    "{p} == {q}"
                );
                assert_eq!(
                    split_last(&np),
                    (
                        Path::new(p).parent(),
                        Path::new(p).file_name().and_then(|n| n.to_str())
                    ),
                    "{p}: parent and name"
                );
                assert_eq!(
                    below(&np, &nq),
                    Path::new(p).starts_with(q),
                    "{p} starts with {q}"
                );
            }
        }
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
