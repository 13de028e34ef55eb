//! Where `hiera.yaml` and data files come from: the [`DataSource`] trait, an in-memory
//! implementation for tests ([`MemorySource`]) and the real file system ([`FsSource`]), with
//! a glob matcher following Ruby's `Dir.glob` (`*`, `?`, `[...]`, `{a,b}`, `**/`; `*` does
//! not match a leading dot; results sorted, directories left out).

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Component, Path, PathBuf};

/// Reads files for a [`crate::Lookup`]. Implementations must be `Send + Sync`; the lookup
/// caches every answer, so each path is read at most once.
pub trait DataSource: Send + Sync + Debug {
    /// The text of a file, or `None` if it does not exist (or cannot be read).
    fn read(&self, path: &Path) -> Option<String>;
    /// The files (not directories) matching a glob pattern, sorted.
    fn glob(&self, pattern: &Path) -> Vec<PathBuf>;
    /// Whether a file or a directory is at `path`: Hiera takes a hierarchy path naming a
    /// directory for an existing location, as Ruby's `Pathname#exist?` does (a backend
    /// function is then called with it; `yaml_data` fails to read it). The default knows
    /// files only.
    fn exists(&self, path: &Path) -> bool {
        self.read(path).is_some()
    }
}

/// Files held in memory, keyed by absolute path.
///
/// ```
/// use puppet_hiera::{DataSource, MemorySource};
/// use std::path::Path;
/// let src = MemorySource::new()
///     .with("/env/data/nodes/a.yaml", "x: 1")
///     .with("/env/data/nodes/b.yaml", "x: 2");
/// assert_eq!(src.read(Path::new("/env/data/nodes/a.yaml")).as_deref(), Some("x: 1"));
/// assert_eq!(src.glob(Path::new("/env/data/nodes/*.yaml")).len(), 2);
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    files: BTreeMap<PathBuf, String>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> MemorySource {
        MemorySource::default()
    }

    /// Adds a file (builder style).
    pub fn with(mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> MemorySource {
        self.insert(path, text);
        self
    }

    /// Adds a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.files.insert(normalize(&path.into()), text.into());
    }
}

impl DataSource for MemorySource {
    fn read(&self, path: &Path) -> Option<String> {
        self.files.get(&normalize(path)).cloned()
    }

    fn exists(&self, path: &Path) -> bool {
        let path = normalize(path);
        // A directory exists when a file lies below it.
        self.files
            .range(path.clone()..)
            .next()
            .is_some_and(|(f, _)| f.starts_with(&path))
    }

    fn glob(&self, pattern: &Path) -> Vec<PathBuf> {
        let pattern = pattern.to_string_lossy();
        let mut out: Vec<PathBuf> = Vec::new();
        for pat in expand_braces(&pattern) {
            let pat_parts = split_parts(&pat);
            for path in self.files.keys() {
                let text = path.to_string_lossy();
                if match_parts(&pat_parts, &split_parts(&text)) {
                    out.push(path.clone());
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsSource;

impl DataSource for FsSource {
    fn read(&self, path: &Path) -> Option<String> {
        if path.is_dir() {
            return None;
        }
        std::fs::read_to_string(path).ok()
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn glob(&self, pattern: &Path) -> Vec<PathBuf> {
        glob_with(pattern, &|dir: &Path| {
            let rd = std::fs::read_dir(dir).ok()?;
            Some(
                rd.flatten()
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().to_string();
                        (name, e.path().is_dir())
                    })
                    .collect(),
            )
        })
    }
}

/// The entries of a directory as (name, is a directory), or `None` when it cannot be listed.
pub type ListDir<'a> = dyn Fn(&Path) -> Option<Vec<(String, bool)>> + 'a;

/// Expands a glob pattern (`*`, `?`, `[...]`, `**`, `{a,b}`) over any file tree, given the
/// way to list a directory: what [`DataSource::glob`] implementations share. Files only,
/// sorted, without duplicates; hidden directories are not entered by `**`.
pub fn glob_with(pattern: &Path, list: &ListDir<'_>) -> Vec<PathBuf> {
    let text = pattern.to_string_lossy();
    let mut out = Vec::new();
    for pat in expand_braces(&text) {
        let parts = split_parts(&pat);
        let mut root = if pat.starts_with('/') {
            PathBuf::from("/")
        } else {
            PathBuf::from(".")
        };
        // The walk starts below the leading segments without wildcards (the last segment is
        // always matched against a listing): a source serving only some directories
        // (`ProviderSource`) cannot list `/`.
        let literal = parts
            .iter()
            .take(parts.len().saturating_sub(1))
            .take_while(|p| !has_magic(p) && *p != "**")
            .count();
        for p in &parts[..literal] {
            root.push(p);
        }
        walk(&root, &parts[literal..], list, &mut out, 0);
    }
    out.sort();
    out.dedup();
    out
}

fn walk(dir: &Path, parts: &[String], list: &ListDir<'_>, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 64 {
        return;
    }
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    let Some(mut entries) = list(dir) else {
        return;
    };
    entries.sort();
    if first == "**" {
        walk(dir, rest, list, out, depth + 1);
        for (name, is_dir) in &entries {
            if !name.starts_with('.') && *is_dir {
                walk(&dir.join(name), parts, list, out, depth + 1);
            }
        }
        return;
    }
    for (name, is_dir) in entries {
        let matches = if has_magic(first) {
            match_segment(first, &name)
        } else {
            *first == name
        };
        if !matches {
            continue;
        }
        let p = dir.join(&name);
        if rest.is_empty() {
            if !is_dir {
                out.push(p);
            }
        } else if is_dir {
            walk(&p, rest, list, out, depth + 1);
        }
    }
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn has_magic(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

fn split_parts(s: &str) -> Vec<String> {
    s.split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .map(str::to_string)
        .collect()
}

/// Expands `{a,b}` alternatives (nested allowed); an unbalanced brace is literal.
pub fn expand_braces(s: &str) -> Vec<String> {
    expand_braces_depth(s, 0)
}

fn expand_braces_depth(s: &str, depth: usize) -> Vec<String> {
    if depth > 16 {
        return vec![s.to_string()];
    }
    let chars: Vec<char> = s.chars().collect();
    let Some(open) = chars.iter().position(|c| *c == '{') else {
        return vec![s.to_string()];
    };
    let mut level = 0;
    let mut close = None;
    let mut commas = Vec::new();
    for (i, c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => level += 1,
            '}' => {
                level -= 1;
                if level == 0 {
                    close = Some(i);
                    break;
                }
            }
            ',' if level == 1 => commas.push(i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![s.to_string()];
    };
    let pre: String = chars[..open].iter().collect();
    let post: String = chars[close + 1..].iter().collect();
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        let alt: String = chars[w[0] + 1..w[1]].iter().collect();
        for tail in expand_braces_depth(&post, depth + 1) {
            for x in expand_braces_depth(&format!("{pre}{alt}{tail}"), depth + 1) {
                if out.len() < 1024 {
                    out.push(x);
                }
            }
        }
    }
    out
}

fn match_parts(pat: &[String], path: &[String]) -> bool {
    match pat.split_first() {
        None => path.is_empty(),
        Some((p, rest)) if p == "**" => (0..=path.len()).any(|i| {
            path[..i].iter().all(|c| !c.starts_with('.')) && match_parts(rest, &path[i..])
        }),
        Some((p, rest)) => match path.split_first() {
            Some((c, prest)) => match_segment(p, c) && match_parts(rest, prest),
            None => false,
        },
    }
}

/// Matches one path component against one glob component (`*`, `?`, `[...]`).
pub fn match_segment(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    if n.first() == Some(&'.') && p.first() != Some(&'.') {
        return false;
    }
    seg(&p, &n)
}

fn seg(p: &[char], n: &[char]) -> bool {
    // Iterative wildcard matching with backtracking on the last `*`.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, len)) = class(&p[pi..], n[ni]) {
                        if matched {
                            pi += len;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == n[ni] => {
                    pi += 2;
                    ni += 1;
                    continue;
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

fn class(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let start = i;
    while i < p.len() {
        if p[i] == ']' && i > start {
            return Some((matched != negate, i + 1));
        }
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_list_only_below_their_literal_prefix() {
        // A source that serves one directory tree (as the environment's provider does).
        let list = |dir: &Path| -> Option<Vec<(String, bool)>> {
            match dir.to_str()? {
                "/env/data" => Some(vec![("a.kv".into(), false), ("sub".into(), true)]),
                "/env/data/sub" => Some(vec![("b.kv".into(), false)]),
                _ => None,
            }
        };
        assert_eq!(
            glob_with(Path::new("/env/data/*.kv"), &list),
            vec![PathBuf::from("/env/data/a.kv")]
        );
        assert_eq!(
            glob_with(Path::new("/env/data/**/*.kv"), &list),
            vec![
                PathBuf::from("/env/data/a.kv"),
                PathBuf::from("/env/data/sub/b.kv")
            ]
        );
        assert_eq!(
            glob_with(Path::new("/env/data/sub/b.kv"), &list),
            vec![PathBuf::from("/env/data/sub/b.kv")]
        );
    }

    #[test]
    fn globs() {
        assert!(match_segment("*.yaml", "a.yaml"));
        assert!(!match_segment("*.yaml", ".a.yaml"));
        assert!(match_segment("[ab]?.y*", "bz.yml"));
        assert_eq!(expand_braces("a{b,c{d,e}}f"), vec!["abf", "acdf", "acef"]);
        let src = MemorySource::new()
            .with("/d/x/1.yaml", "")
            .with("/d/x/y/2.yaml", "")
            .with("/d/3.json", "");
        assert_eq!(src.glob(Path::new("/d/**/*.yaml")).len(), 2);
        assert_eq!(src.glob(Path::new("/d/*.{yaml,json}")).len(), 1);
    }
}
