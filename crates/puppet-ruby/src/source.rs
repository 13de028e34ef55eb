//! Where Ruby source files come from: the [`SourceHost`] trait that the embedder implements
//! (the loader's view of the modules' `lib/` directories and files), and [`Sources`], which
//! adds a parse cache so that every file is parsed once and its tree shared by all the
//! interpreters that run it, and remembers where each `require` name was found (or that it
//! was not), so that the host searches the load path once per name.
//!
//! The interpreter reads files only through this trait (`require`, `require_relative`,
//! `File.read`, `File.exist?`); this crate does no file IO of its own. [`MemoryHost`] serves
//! files from memory for tests and tools.

use crate::ast::Program;
use crate::RubyError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The files Ruby code may read.
pub trait SourceHost: Send + Sync {
    /// `require 'name'`: the file `lib/<name>.rb` of the first module that has one (Ruby's
    /// `$LOAD_PATH` is the modules' `lib` directories): its path and text.
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)>;
    /// A file by (absolute) path, for `require_relative`, `require` of a path, `File.read`
    /// and `File.exist?`; `None` when it is absent or outside what the host serves.
    fn read(&self, path: &str) -> Option<Arc<str>>;
    /// What is at `path` (`File.directory?`, a module's `file(name)`), confined as
    /// [`read`](SourceHost::read) is, with the module path's directories also visible;
    /// `None` when nothing is there or it is outside. The default knows files only.
    fn kind(&self, path: &str) -> Option<PathKind> {
        self.read(path).map(|_| PathKind::File)
    }
    /// The entries of directory `path` (name and kind), confined as
    /// [`kind`](SourceHost::kind) is; `None` when it is not a visible directory. The default
    /// lists nothing.
    fn list_dir(&self, path: &str) -> Option<Vec<(String, PathKind)>> {
        let _ = path;
        None
    }
    /// The environment's modules as Puppet's `Environment#modules` lists them: in module
    /// path order, the first module of each name, each as (name, directory). The default
    /// has none.
    fn modules(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// The environment's module path, every directory as configured (Puppet's
    /// `Environment#full_modulepath`). The default is empty.
    fn modulepath(&self) -> Vec<String> {
        Vec::new()
    }
}

/// What [`SourceHost::kind`] finds at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    File,
    Directory,
}

/// A [`SourceHost`] over files in memory.
///
/// ```
/// use puppet_ruby::{MemoryHost, SourceHost};
/// let mut h = MemoryHost::default();
/// h.add("/m/foo/lib/puppet_x/foo/util.rb", "module PuppetX; end\n");
/// assert!(h.find_lib("puppet_x/foo/util").is_some());
/// assert!(h.read("/m/foo/lib/nope.rb").is_none());
/// ```
#[derive(Debug, Default, Clone)]
pub struct MemoryHost {
    files: Vec<(String, Arc<str>)>,
}

impl MemoryHost {
    /// Adds a file.
    pub fn add(&mut self, path: &str, text: &str) {
        self.files.push((path.to_string(), Arc::from(text)));
    }
}

impl SourceHost for MemoryHost {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let suffix = format!("/lib/{}.rb", name.trim_end_matches(".rb"));
        self.files
            .iter()
            .find(|(p, _)| p.ends_with(&suffix))
            .map(|(p, t)| (p.clone(), t.clone()))
    }
    fn read(&self, path: &str) -> Option<Arc<str>> {
        self.files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.clone())
    }
}

/// A file the host found: its path and text.
type Found = Option<(String, Arc<str>)>;

/// A [`SourceHost`] with a parse cache: each file's tree is built once and shared.
pub struct Sources {
    host: Arc<dyn SourceHost>,
    parsed: Mutex<HashMap<String, Arc<Program>>>,
    /// `require` names looked up through the host: the file found, or `None`.
    libs: Mutex<HashMap<String, Found>>,
    /// [`Sources::empty`]: the host has no file, nothing is looked up or kept.
    no_files: bool,
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sources")
    }
}

impl Sources {
    /// Sources read through `host`.
    pub fn new(host: Arc<dyn SourceHost>) -> Arc<Sources> {
        Arc::new(Sources {
            host,
            parsed: Mutex::new(HashMap::new()),
            libs: Mutex::new(HashMap::new()),
            no_files: false,
        })
    }

    /// Sources with no file at all.
    pub fn empty() -> Arc<Sources> {
        Sources::new(Arc::new(MemoryHost::default()))
    }

    /// Sources with no file at all that keep nothing (no parsed tree, no `require` name),
    /// shared by the interpreters of this thread: a template's, built once instead of once
    /// per render. Sharing them changes nothing, as they hold nothing.
    pub(crate) fn shared_empty() -> Arc<Sources> {
        thread_local! {
            static EMPTY: Arc<Sources> = Arc::new(Sources {
                host: Arc::new(MemoryHost::default()),
                parsed: Mutex::new(HashMap::new()),
                libs: Mutex::new(HashMap::new()),
                no_files: true,
            });
        }
        EMPTY.with(Arc::clone)
    }

    /// False for `Sources::shared_empty`: no `require` or file read can find anything
    /// (a caller may skip building the name it would look up).
    pub fn has_files(&self) -> bool {
        !self.no_files
    }

    /// The host.
    pub fn host(&self) -> &dyn SourceHost {
        &*self.host
    }

    /// The parsed tree of `text` (the file at `path`), from the cache when it was parsed
    /// before.
    pub fn program(&self, path: &str, text: &str) -> Result<Arc<Program>, RubyError> {
        if let Some(p) = self.parsed.lock().ok().and_then(|c| c.get(path).cloned()) {
            return Ok(p);
        }
        let p = Arc::new(
            crate::parser::parse_file(text, path).map_err(|e| RubyError::from_parse(path, e))?,
        );
        if self.no_files {
            // Nothing is kept in sources without files (they may be shared).
            return Ok(p);
        }
        if let Ok(mut c) = self.parsed.lock() {
            c.insert(path.to_string(), p.clone());
        }
        Ok(p)
    }

    /// [`program`](Self::program) for a file that runs once (a resource type): its tree
    /// is not kept, so its memory goes when the run is over.
    pub fn program_once(&self, path: &str, text: &str) -> Result<Arc<Program>, RubyError> {
        if let Some(p) = self.parsed.lock().ok().and_then(|c| c.get(path).cloned()) {
            return Ok(p);
        }
        crate::parser::parse_file(text, path)
            .map(Arc::new)
            .map_err(|e| RubyError::from_parse(path, e))
    }

    /// `require 'name'` through the host (searched once per name): the parsed library file.
    pub fn find_lib(&self, name: &str) -> Option<Result<(String, Arc<Program>), RubyError>> {
        if self.no_files {
            return None;
        }
        let known = self.libs.lock().ok().and_then(|l| l.get(name).cloned());
        let found = match known {
            Some(found) => found,
            None => {
                let found = self.host.find_lib(name);
                if let Ok(mut l) = self.libs.lock() {
                    l.insert(name.to_string(), found.clone());
                }
                found
            }
        };
        let (path, text) = found?;
        Some(self.program(&path, &text).map(|p| (path, p)))
    }

    /// A file by path, parsed (not read again when it was parsed before).
    pub fn read_program(&self, path: &str) -> Option<Result<Arc<Program>, RubyError>> {
        if self.no_files {
            return None;
        }
        if let Some(p) = self.parsed.lock().ok().and_then(|c| c.get(path).cloned()) {
            return Some(Ok(p));
        }
        let text = self.host.read(path)?;
        Some(self.program(path, &text))
    }
}
