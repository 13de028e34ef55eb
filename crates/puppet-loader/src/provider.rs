//! Source providers: the only way the loader reaches files.
//!
//! [`SourceProvider`] lists directories and reads files; nothing else in the workspace does
//! IO. [`MemoryProvider`] serves an in-memory tree (tests, doc examples, editors with unsaved
//! buffers); [`FsProvider`] serves the real file system but only below the roots it was
//! given, and refuses paths with `..` or outside those roots. Symlinks are followed (Debian
//! installs modules as symlinks), and each listed directory carries its resolved identity so
//! the environment can refuse symlink loops.

use crate::diagnostic::ProviderError;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// What a directory entry is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EntryKind {
    File,
    Dir,
    /// Something the provider will not follow, with the reason (for example a symlink loop).
    Refused(String),
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DirEntry {
    /// The entry's file name (one path component).
    pub name: String,
    pub kind: EntryKind,
    /// For directories reached through a symlink: an opaque, stable identity of the real
    /// directory (compared only, to detect loops). `None` otherwise.
    pub identity: Option<PathBuf>,
}

/// Everything the loader needs from the outside world. Implementations must be
/// deterministic for a given state of their storage; the loader sorts listings itself, so
/// their order does not matter.
pub trait SourceProvider: Send + Sync + std::fmt::Debug {
    /// The entries of directory `dir` (any order).
    fn list_dir(&self, dir: &Path) -> Result<Vec<DirEntry>, ProviderError>;
    /// The text of file `file` (invalid UTF-8 is replaced).
    fn read_to_string(&self, file: &Path) -> Result<String, ProviderError>;
    /// What is at `path`, if anything.
    fn kind(&self, path: &Path) -> Option<EntryKind>;
    /// The bytes of file `file` (`binary_file()`); by default the UTF-8 of
    /// [`read_to_string`](SourceProvider::read_to_string).
    fn read_bytes(&self, file: &Path) -> Result<Vec<u8>, ProviderError> {
        self.read_to_string(file).map(String::into_bytes)
    }
    /// The text of file `file` as the loader keeps it (invalid UTF-8 is replaced); by
    /// default [`read_to_string`](SourceProvider::read_to_string)'s, copied.
    fn read_to_arc(&self, file: &Path) -> Result<Arc<str>, ProviderError> {
        self.read_to_string(file).map(Arc::from)
    }
}

/// `path` made absolute against the current directory, with `.` and `..` resolved
/// lexically, as a user means `--modulepath ../modules`: the form [`FsProvider`] accepts
/// (it refuses `..`, so a relative path must go through here first).
///
/// ```
/// use std::path::Path;
/// let p = puppet_loader::absolute_path(Path::new("/env/manifests/../modules/./x"));
/// assert_eq!(p, Path::new("/env/modules/x"));
/// assert!(puppet_loader::absolute_path(Path::new("../modules")).is_absolute());
/// ```
pub fn absolute_path(path: &Path) -> PathBuf {
    let joined = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Refuses paths with `..` (or `.`) components.
fn check_components(path: &Path) -> Result<(), ProviderError> {
    if may_have_dot_component(path)
        && path
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::CurDir))
    {
        return Err(ProviderError::Escape {
            path: path.to_path_buf(),
            reason: "path contains `..` or `.`".into(),
        });
    }
    Ok(())
}

/// False when `path` certainly has no `..` or `.` component: such a component starts the
/// path or follows a `/`, and `Path::components` reports `.` only at the start. Checked on
/// the bytes, so the common path (a module file) skips the component walk.
fn may_have_dot_component(path: &Path) -> bool {
    let b = path.as_os_str().as_encoded_bytes();
    b.first() == Some(&b'.') || b.windows(2).any(|w| w == b"/.")
}

/// Whether `path` lies below `root` (`Path::starts_with`, component-wise): a byte prefix
/// that ends at a separator answers without walking the components.
fn lies_below(path: &Path, root: &Path) -> bool {
    let (p, r) = (
        path.as_os_str().as_encoded_bytes(),
        root.as_os_str().as_encoded_bytes(),
    );
    if !r.is_empty()
        && p.starts_with(r)
        && (p.len() == r.len() || p[r.len()] == b'/' || r.ends_with(b"/"))
    {
        return true;
    }
    path.starts_with(root)
}

/// An in-memory tree of files. Directories exist implicitly when a file lies below them.
///
/// ```
/// use puppet_loader::{MemoryProvider, SourceProvider};
/// let p = MemoryProvider::new()
///     .with_file("/env/modules/apache/manifests/init.pp", "class apache {}");
/// let names: Vec<_> = p.list_dir("/env/modules".as_ref()).unwrap()
///     .into_iter().map(|e| e.name).collect();
/// assert_eq!(names, ["apache"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemoryProvider {
    files: BTreeMap<PathBuf, String>,
    listing_seed: u64,
}

impl MemoryProvider {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file.
    pub fn with_file(mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        self.insert(path, text);
        self
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.files.insert(path.into(), text.into());
    }

    /// Removes a file.
    pub fn remove(&mut self, path: impl AsRef<Path>) {
        self.files.remove(path.as_ref());
    }

    /// A testing aid: directory listings come back in an order scrambled by `seed`
    /// (0, the default, is sorted order), to show that results do not depend on it.
    pub fn with_listing_seed(mut self, seed: u64) -> Self {
        self.listing_seed = seed;
        self
    }
}

fn scramble(seed: u64, name: &str) -> u64 {
    // FNV-1a over the name, mixed with the seed: a cheap, deterministic permutation key.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl SourceProvider for MemoryProvider {
    fn list_dir(&self, dir: &Path) -> Result<Vec<DirEntry>, ProviderError> {
        check_components(dir)?;
        let mut out: BTreeMap<String, EntryKind> = BTreeMap::new();
        for path in self.files.keys() {
            let Ok(rest) = path.strip_prefix(dir) else {
                continue;
            };
            let mut comps = rest.components();
            let Some(first) = comps.next() else { continue };
            let name = first.as_os_str().to_string_lossy().into_owned();
            let kind = if comps.next().is_some() {
                EntryKind::Dir
            } else {
                EntryKind::File
            };
            out.entry(name).or_insert(kind);
        }
        if out.is_empty() {
            return Err(ProviderError::NotFound(dir.to_path_buf()));
        }
        let mut v: Vec<DirEntry> = out
            .into_iter()
            .map(|(name, kind)| DirEntry {
                identity: (kind == EntryKind::Dir).then(|| dir.join(&name)),
                name,
                kind,
            })
            .collect();
        if self.listing_seed != 0 {
            v.sort_by_key(|e| scramble(self.listing_seed, &e.name));
        }
        Ok(v)
    }

    fn read_to_string(&self, file: &Path) -> Result<String, ProviderError> {
        check_components(file)?;
        self.files
            .get(file)
            .cloned()
            .ok_or_else(|| ProviderError::NotFound(file.to_path_buf()))
    }

    fn kind(&self, path: &Path) -> Option<EntryKind> {
        if self.files.contains_key(path) {
            return Some(EntryKind::File);
        }
        self.files
            .keys()
            .any(|p| p.starts_with(path) && p != path)
            .then_some(EntryKind::Dir)
    }
}

/// The real file system, restricted to a set of root directories (the module path
/// entries, the environment directory, the main manifest).
///
/// Paths must lie lexically below a root and contain no `..`; anything else is refused
/// with [`ProviderError::Escape`]. A directory symlink whose target is an ancestor of the
/// directory being listed is reported as [`EntryKind::Refused`] (a loop).
#[derive(Debug, Clone, Default)]
pub struct FsProvider {
    roots: Vec<PathBuf>,
}

impl FsProvider {
    /// A provider serving only paths below `roots`.
    pub fn new(roots: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        FsProvider {
            roots: roots.into_iter().map(Into::into).collect(),
        }
    }

    fn check(&self, path: &Path) -> Result<(), ProviderError> {
        check_components(path)?;
        if self.roots.iter().any(|r| lies_below(path, r)) {
            Ok(())
        } else {
            Err(ProviderError::Escape {
                path: path.to_path_buf(),
                reason: "outside the module path and environment".into(),
            })
        }
    }
}

/// A file's (device, inode): what makes two paths the same directory.
fn file_id(md: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (md.dev(), md.ino())
}

/// A directory identity as [`DirEntry::identity`] carries it (opaque: compared only).
fn identity_path((dev, ino): (u64, u64)) -> PathBuf {
    PathBuf::from(format!("//dev/{dev}/inode/{ino}"))
}

fn io_error(path: &Path, e: &std::io::Error) -> ProviderError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ProviderError::NotFound(path.to_path_buf())
    } else {
        ProviderError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

impl SourceProvider for FsProvider {
    fn list_dir(&self, dir: &Path) -> Result<Vec<DirEntry>, ProviderError> {
        self.check(dir)?;
        let rd = std::fs::read_dir(dir).map_err(|e| io_error(dir, &e))?;
        // The (device, inode) of `dir` and each of its ancestors, read once and only when
        // the directory holds a symlink: a symlink to one of them is a loop.
        let mut ancestors: Option<Vec<(u64, u64)>> = None;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| io_error(dir, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(ft) = entry.file_type() else { continue };
            let (kind, identity) = if ft.is_symlink() {
                let path = entry.path();
                match std::fs::metadata(&path) {
                    Ok(md) if md.is_dir() => {
                        let id = file_id(&md);
                        let up = ancestors.get_or_insert_with(|| {
                            dir.ancestors()
                                .filter_map(|a| std::fs::metadata(a).ok().map(|m| file_id(&m)))
                                .collect()
                        });
                        if up.contains(&id) {
                            let reason = format!(
                                "symlink loop: {} points to {} or one of its parents",
                                path.display(),
                                dir.display()
                            );
                            (EntryKind::Refused(reason), None)
                        } else {
                            (EntryKind::Dir, Some(identity_path(id)))
                        }
                    }
                    Ok(_) => (EntryKind::File, None),
                    Err(e) => (
                        EntryKind::Refused(format!("unresolvable symlink: {e}")),
                        None,
                    ),
                }
            } else if ft.is_dir() {
                (EntryKind::Dir, None)
            } else {
                (EntryKind::File, None)
            };
            out.push(DirEntry {
                name,
                kind,
                identity,
            });
        }
        Ok(out)
    }

    fn read_to_string(&self, file: &Path) -> Result<String, ProviderError> {
        self.check(file)?;
        let bytes = std::fs::read(file).map_err(|e| io_error(file, &e))?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    fn read_bytes(&self, file: &Path) -> Result<Vec<u8>, ProviderError> {
        self.check(file)?;
        std::fs::read(file).map_err(|e| io_error(file, &e))
    }

    /// Reads into a buffer kept by the thread and copies the text once into its `Arc`: the
    /// loader keeps every file's text, and a `String` per file that only lives until it is
    /// copied is memory touched for nothing.
    fn read_to_arc(&self, file: &Path) -> Result<Arc<str>, ProviderError> {
        use std::io::Read;
        thread_local! {
            static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        /// A buffer bigger than this is freed after the read rather than kept.
        const KEEP_MAX: usize = 1 << 20;
        self.check(file)?;
        let read = |buf: &mut Vec<u8>| -> Result<Arc<str>, ProviderError> {
            buf.clear();
            let mut f = std::fs::File::open(file).map_err(|e| io_error(file, &e))?;
            f.read_to_end(buf).map_err(|e| io_error(file, &e))?;
            let text: Arc<str> = match std::str::from_utf8(buf) {
                Ok(s) => Arc::from(s),
                Err(_) => Arc::from(String::from_utf8_lossy(buf)),
            };
            if buf.capacity() > KEEP_MAX {
                *buf = Vec::new();
            }
            Ok(text)
        };
        BUFFER
            .try_with(|b| match b.try_borrow_mut() {
                Ok(mut buf) => read(&mut buf),
                Err(_) => read(&mut Vec::new()),
            })
            .unwrap_or_else(|_| read(&mut Vec::new()))
    }

    fn kind(&self, path: &Path) -> Option<EntryKind> {
        self.check(path).ok()?;
        let md = std::fs::metadata(path).ok()?;
        Some(if md.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::File
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATHS: &[&str] = &[
        "/m/apache/manifests/init.pp",
        "/m/apache/../x.pp",
        "/m/./apache/init.pp",
        "./m/init.pp",
        ".",
        "..",
        "../m",
        "m/..",
        "/m/.hidden/x.pp",
        "/m/a..b/x.pp",
        "/m//apache/x.pp",
        "/m/",
        "/m",
        "/mx/a.pp",
        "/",
        "",
        "m/init.pp",
        "/m/apache/.",
    ];
    const ROOTS: &[&str] = &["/m", "/m/", "/", "", "m", "/m/apache", "/m/./apache", "./m"];

    /// The file system's `read_to_arc` (a buffer kept per thread) gives what its
    /// `read_to_string` gives: valid and invalid UTF-8, an empty file, a file bigger than
    /// the kept buffer after a smaller one, and no text for a directory or a missing file.
    #[test]
    fn reading_into_an_arc_agrees_with_reading_a_string() {
        let dir = std::env::temp_dir().join(format!("puppet-loader-arc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let big = "class a { }\n".repeat(200_000);
        let files: &[(&str, &[u8])] = &[
            ("a.pp", b"notify { 'x': }\n"),
            ("empty.pp", b""),
            ("latin1.pp", b"notify { 'caf\xe9': }\n"),
            ("big.pp", big.as_bytes()),
            ("small.pp", b"$x = 1"),
        ];
        let fs = FsProvider::new([dir.clone()]);
        for (name, bytes) in files {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            let arc = fs.read_to_arc(&path).unwrap();
            assert_eq!(&*arc, fs.read_to_string(&path).unwrap().as_str(), "{name}");
        }
        assert!(fs.read_to_arc(&dir.join("sub")).is_err());
        assert!(fs.read_to_arc(&dir.join("missing.pp")).is_err());
        assert!(fs.read_to_arc(&dir.join("sub/../a.pp")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_byte_checks_agree_with_the_component_walk() {
        for p in PATHS {
            let path = Path::new(p);
            let walk = path
                .components()
                .any(|c| matches!(c, Component::ParentDir | Component::CurDir));
            assert!(!walk || may_have_dot_component(path), "{p}");
            assert_eq!(check_components(path).is_err(), walk, "{p}");
            for r in ROOTS {
                let root = Path::new(r);
                assert_eq!(
                    lies_below(path, root),
                    path.starts_with(root),
                    "{p} under {r}"
                );
            }
        }
    }
}
