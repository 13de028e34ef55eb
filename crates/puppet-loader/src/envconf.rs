//! A directory environment as Puppet 7.23 reads it: `environment.conf` (an ini file of
//! `key = value` lines) turned into an [`EnvironmentConfig`].
//!
//! What Puppet does, and so what this does:
//! * `modulepath` (default `modules:$basemodulepath`) and `manifest` (default `manifests`)
//!   are resolved against the environment directory unless absolute; an entry starting
//!   with `$` is interpolated (`$basemodulepath`, `$environment`); modulepath entries with
//!   glob characters are expanded (sorted, as Ruby's `Dir.glob`);
//! * `config_version` names a script Puppet runs for the catalog's `version`: it is not
//!   run here (a note says so, the catalog's version stays the compile time);
//! * `environment_timeout`, `environment_data_provider`, `static_catalogs` and `rich_data`
//!   are valid and change nothing in a compile; other settings and `[sections]` get
//!   Puppet's warnings; a line that is none of these is Puppet's `Could not match line`.
//!
//! Reading goes through a [`SourceProvider`], so an environment held in memory works the
//! same. Not here: Hiera's `hiera.yaml` (puppet-hiera) and the loading of what the
//! configuration names ([`crate::Loader`]).

use crate::diagnostic::{Diagnostic, ProviderError, Severity};
use crate::env::EnvironmentConfig;
use crate::provider::{EntryKind, SourceProvider};
use std::path::{Component, Path, PathBuf};

/// Diagnostic codes of reading `environment.conf`.
pub mod codes {
    /// A line that is neither a setting, a section, a comment nor blank (an error in Puppet).
    pub const SYNTAX: &str = "ENV_CONF_SYNTAX";
    /// A setting `environment.conf` may not hold; ignored, with Puppet's warning.
    pub const UNKNOWN_SETTING: &str = "ENV_CONF_UNKNOWN_SETTING";
    /// A `[section]`; its settings are ignored, with Puppet's warning.
    pub const SECTION: &str = "ENV_CONF_SECTION";
    /// `config_version` is not run: catalogs keep the compile time as their version.
    pub const CONFIG_VERSION_IGNORED: &str = "ENV_CONF_CONFIG_VERSION_IGNORED";
    /// A `$variable` in a path that only a Puppet server's settings could give.
    pub const UNKNOWN_VARIABLE: &str = "ENV_CONF_UNKNOWN_VARIABLE";
    /// The file exists but could not be read.
    pub const IO: &str = "ENV_CONF_IO";
}

/// The settings `environment.conf` may hold (Puppet's `VALID_SETTINGS`).
const VALID_SETTINGS: [&str; 7] = [
    "modulepath",
    "manifest",
    "config_version",
    "environment_timeout",
    "environment_data_provider",
    "static_catalogs",
    "rich_data",
];

/// The settings of an `environment.conf`'s main section, as written (quotes removed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvironmentConf {
    pub modulepath: Option<String>,
    pub manifest: Option<String>,
    pub config_version: Option<String>,
    /// `environment_data_provider` (deprecated: `none`, `hiera`, `function`), which Hiera
    /// applies to the environment layer.
    pub environment_data_provider: Option<String>,
    /// Problems found while reading (Puppet's warnings and errors).
    pub diagnostics: Vec<Diagnostic>,
}

impl EnvironmentConf {
    /// Parses the text of `path` as Puppet's settings parser does: settings before any
    /// `[section]` and in `[main]` count, `#` starts a comment line.
    ///
    /// ```
    /// use puppet_loader::EnvironmentConf;
    /// let c = EnvironmentConf::parse("modulepath = site:modules:$basemodulepath\nmanifest='site.pp'\n", "e/environment.conf".as_ref());
    /// assert_eq!(c.modulepath.as_deref(), Some("site:modules:$basemodulepath"));
    /// assert_eq!(c.manifest.as_deref(), Some("site.pp"));
    /// assert!(c.diagnostics.is_empty());
    /// ```
    pub fn parse(text: &str, path: &Path) -> EnvironmentConf {
        let mut conf = EnvironmentConf::default();
        let file = path.display().to_string();
        let mut section = "main".to_string();
        let mut other_sections: Vec<String> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        let mut offset = 0u32;
        for raw in text.split_inclusive('\n') {
            let start = offset;
            offset += raw.len() as u32;
            let line = raw.trim_end_matches(['\n', '\r']);
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if let Some(name) = trimmed
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .filter(|n| is_word(n))
            {
                section = name.to_string();
                if section != "main" && !other_sections.contains(&section) {
                    other_sections.push(section.clone());
                }
                continue;
            }
            let Some((key, value)) = line
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .filter(|(k, _)| is_word(k))
            else {
                conf.diagnostics.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::SYNTAX,
                        format!("Could not match line {line}"),
                    )
                    .with_file(file.clone())
                    .with_range(puppet_diagnostics::TextRange::new(
                        start.into(),
                        (start + line.len() as u32).into(),
                    )),
                );
                continue;
            };
            if section != "main" {
                continue;
            }
            let value = unquote(value);
            match key {
                "modulepath" => conf.modulepath = Some(value),
                "manifest" => conf.manifest = Some(value),
                "config_version" => conf.config_version = Some(value),
                "environment_data_provider" => conf.environment_data_provider = Some(value),
                k if VALID_SETTINGS.contains(&k) => {}
                k => {
                    if !unknown.iter().any(|u| u == k) {
                        unknown.push(k.to_string());
                    }
                }
            }
        }
        if !other_sections.is_empty() {
            conf.diagnostics.push(
                Diagnostic::new(
                    Severity::Warning,
                    codes::SECTION,
                    format!(
                        "Invalid sections in environment.conf at '{file}'. Environment conf may not have sections. The following sections are being ignored: '{}'",
                        other_sections.join(",")
                    ),
                )
                .with_file(file.clone()),
            );
        }
        if !unknown.is_empty() {
            conf.diagnostics.push(
                Diagnostic::new(
                    Severity::Warning,
                    codes::UNKNOWN_SETTING,
                    format!(
                        "Invalid settings in environment.conf at '{file}'. The following unknown setting(s) are being ignored: {}",
                        unknown.join(", ")
                    ),
                )
                .with_file(file.clone()),
            );
        }
        if let Some(script) = &conf.config_version {
            conf.diagnostics.push(
                Diagnostic::new(
                    Severity::Warning,
                    codes::CONFIG_VERSION_IGNORED,
                    format!(
                        "config_version '{script}' is not run: catalogs keep the compile time as their version"
                    ),
                )
                .with_file(file),
            );
        }
        conf
    }

    /// What the settings give for the environment in `dir` named `name`: the module path
    /// (`basemodulepath` for `$basemodulepath`, globs expanded through `provider`), the
    /// main manifest and the environment directory. `dir` and `basemodulepath` should be
    /// absolute. Problems (a `$variable` only a server's settings know) are added to
    /// [`diagnostics`](EnvironmentConf::diagnostics).
    ///
    /// ```
    /// use puppet_loader::{EnvironmentConf, MemoryProvider};
    /// let conf = EnvironmentConf::parse("modulepath = site:../shared:$basemodulepath\n", "/envs/prod/environment.conf".as_ref());
    /// let (config, problems) = conf.resolve("/envs/prod".as_ref(), &["/opt/modules".into()], "prod", &MemoryProvider::new());
    /// assert!(problems.is_empty());
    /// let paths: Vec<_> = config.modulepath.iter().map(|p| p.display().to_string()).collect();
    /// assert_eq!(paths, ["/envs/prod/site", "/envs/shared", "/opt/modules"]);
    /// assert_eq!(config.manifest.unwrap().display().to_string(), "/envs/prod/manifests");
    /// ```
    pub fn resolve(
        &self,
        dir: &Path,
        basemodulepath: &[PathBuf],
        name: &str,
        provider: &dyn SourceProvider,
    ) -> (EnvironmentConfig, Vec<Diagnostic>) {
        let mut problems = Vec::new();
        let base = basemodulepath
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
        let modulepath_text = self
            .modulepath
            .clone()
            .unwrap_or_else(|| "modules:$basemodulepath".to_string());
        let mut modulepath = Vec::new();
        for entry in modulepath_text.split(':').filter(|e| !e.is_empty()) {
            let Some(text) = interpolate(entry, &base, name, &mut problems) else {
                continue;
            };
            // `$basemodulepath` may stand for several directories.
            for part in text.split(':').filter(|e| !e.is_empty()) {
                let path = absolute_in(dir, part);
                if has_glob(part) {
                    modulepath.extend(glob(&path, provider));
                } else {
                    modulepath.push(path);
                }
            }
        }
        let manifest_text = self
            .manifest
            .clone()
            .unwrap_or_else(|| "manifests".to_string());
        let manifest =
            interpolate(&manifest_text, &base, name, &mut problems).map(|m| absolute_in(dir, &m));
        let config = EnvironmentConfig {
            modulepath,
            manifest,
            env_dir: Some(dir.to_path_buf()),
            data_provider: self.environment_data_provider.clone(),
        };
        (config, problems)
    }
}

impl EnvironmentConfig {
    /// The configuration of the directory environment `dir` named `name`: its
    /// `environment.conf` read through `provider` (Puppet's defaults when there is none)
    /// and [resolved](EnvironmentConf::resolve). The diagnostics are the file's problems.
    ///
    /// ```
    /// use puppet_loader::{EnvironmentConfig, MemoryProvider};
    /// let files = MemoryProvider::new()
    ///     .with_file("/envs/prod/environment.conf", "modulepath = site:modules\nconfig_version = /bin/date\n");
    /// let (config, diagnostics) = EnvironmentConfig::from_directory("/envs/prod".as_ref(), &[], "prod", &files);
    /// assert_eq!(config.modulepath.len(), 2);
    /// assert_eq!(diagnostics[0].code, "ENV_CONF_CONFIG_VERSION_IGNORED");
    /// ```
    pub fn from_directory(
        dir: &Path,
        basemodulepath: &[PathBuf],
        name: &str,
        provider: &dyn SourceProvider,
    ) -> (EnvironmentConfig, Vec<Diagnostic>) {
        let path = dir.join("environment.conf");
        let conf = match provider.read_to_string(&path) {
            Ok(text) => EnvironmentConf::parse(&text, &path),
            Err(ProviderError::NotFound(_)) => EnvironmentConf::default(),
            Err(e) => EnvironmentConf {
                diagnostics: vec![Diagnostic::new(Severity::Error, codes::IO, e.to_string())
                    .with_file(path.display().to_string())],
                ..EnvironmentConf::default()
            },
        };
        let (config, mut problems) = conf.resolve(dir, basemodulepath, name, provider);
        let mut diagnostics = conf.diagnostics;
        diagnostics.append(&mut problems);
        (config, diagnostics)
    }
}

/// Puppet's rule for environment names (`\A\w+\z`): a directory environment whose
/// directory name is not one cannot be named by that name.
///
/// ```
/// assert!(puppet_loader::valid_environment_name("feature_x1"));
/// assert!(!puppet_loader::valid_environment_name("control-repo"));
/// ```
pub fn valid_environment_name(name: &str) -> bool {
    is_word(name)
}

fn is_word(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Puppet's value translation: one leading and one trailing quote go.
fn unquote(v: &str) -> String {
    let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
    let v = v.strip_suffix(['"', '\'']).unwrap_or(v);
    v.trim_end().to_string()
}

/// `$basemodulepath` / `${basemodulepath}` and `$environment` replaced; `None` (and a
/// diagnostic) for any other variable.
fn interpolate(
    text: &str,
    base: &str,
    name: &str,
    problems: &mut Vec<Diagnostic>,
) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (var, len) = match after.strip_prefix('{').and_then(|a| a.split_once('}')) {
            Some((v, _)) => (v, v.len() + 2),
            None => {
                let n = after
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..n], n)
            }
        };
        match var {
            "basemodulepath" => out.push_str(base),
            "environment" => out.push_str(name),
            _ => {
                problems.push(Diagnostic::new(
                    Severity::Warning,
                    codes::UNKNOWN_VARIABLE,
                    format!(
                        "'{text}' in environment.conf uses ${var}, a setting of a Puppet server's configuration that is not known here; the entry is left out"
                    ),
                ));
                return None;
            }
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    Some(out)
}

/// `p` against `dir` unless absolute, with `.` and `..` resolved lexically (Ruby's
/// `File.expand_path`).
fn absolute_in(dir: &Path, p: &str) -> PathBuf {
    let joined = dir.join(p);
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

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// The directories `pattern` matches (`*`, `?`, `[...]`, `{a,b}` in its components),
/// sorted.
fn glob(pattern: &Path, provider: &dyn SourceProvider) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("/")];
    for c in pattern.components() {
        let Component::Normal(part) = c else {
            continue;
        };
        let part = part.to_string_lossy();
        let mut next = Vec::new();
        for dir in &found {
            if !has_glob(&part) {
                let p = dir.join(part.as_ref());
                if provider.kind(&p).is_some() {
                    next.push(p);
                }
                continue;
            }
            let Ok(entries) = provider.list_dir(dir) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .into_iter()
                .filter(|e| !matches!(e.kind, EntryKind::Refused(_)))
                .map(|e| e.name)
                .filter(|n| {
                    !n.starts_with('.') && expand_braces(&part).iter().any(|p| matches(p, n))
                })
                .collect();
            names.sort();
            next.extend(names.into_iter().map(|n| dir.join(n)));
        }
        found = next;
    }
    found
        .into_iter()
        .filter(|p| provider.kind(p) == Some(EntryKind::Dir))
        .collect()
}

/// `a{b,c}d` -> `abd`, `acd` (one level of braces at a time, recursively).
fn expand_braces(p: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (p.find('{'), p.find('}')) else {
        return vec![p.to_string()];
    };
    if close < open {
        return vec![p.to_string()];
    }
    let (head, alts, tail) = (&p[..open], &p[open + 1..close], &p[close + 1..]);
    alts.split(',')
        .flat_map(|a| expand_braces(&format!("{head}{a}{tail}")))
        .collect()
}

/// Shell-style matching of one path component: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    fn go(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|i| go(&p[1..], &n[i..])),
            Some('?') => !n.is_empty() && go(&p[1..], &n[1..]),
            Some('[') => {
                let Some(end) = p.iter().skip(1).position(|&c| c == ']').map(|i| i + 1) else {
                    return n.first() == Some(&'[') && go(&p[1..], &n[1..]);
                };
                let Some(&c) = n.first() else { return false };
                let set = &p[1..end];
                let (negate, set) = match set.first() {
                    Some('!' | '^') => (true, &set[1..]),
                    _ => (false, set),
                };
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == '-' {
                        hit |= set[i] <= c && c <= set[i + 2];
                        i += 3;
                    } else {
                        hit |= set[i] == c;
                        i += 1;
                    }
                }
                hit != negate && go(&p[end + 1..], &n[1..])
            }
            Some(&x) => n.first() == Some(&x) && go(&p[1..], &n[1..]),
        }
    }
    go(&p, &n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryProvider;

    fn paths(c: &EnvironmentConfig) -> Vec<String> {
        c.modulepath
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    }

    #[test]
    fn defaults_without_a_file() {
        let (c, d) = EnvironmentConfig::from_directory(
            "/e".as_ref(),
            &["/b".into()],
            "e",
            &MemoryProvider::new(),
        );
        assert!(d.is_empty());
        assert_eq!(paths(&c), ["/e/modules", "/b"]);
        assert_eq!(c.manifest.unwrap(), PathBuf::from("/e/manifests"));
        assert_eq!(c.env_dir.unwrap(), PathBuf::from("/e"));
    }

    #[test]
    fn puppet_warnings_and_errors() {
        let c = EnvironmentConf::parse(
            "# comment\n  modulepath = \"a:b\"\ntimeout = 3\nstatic_catalogs = false\nnot a setting\n[agent]\nmanifest = x.pp\n",
            "/e/environment.conf".as_ref(),
        );
        assert_eq!(c.modulepath.as_deref(), Some("a:b"));
        assert_eq!(c.manifest, None, "settings of other sections are ignored");
        let codes: Vec<&str> = c.diagnostics.iter().map(|d| &*d.code).collect();
        assert_eq!(
            codes,
            [codes::SYNTAX, codes::SECTION, codes::UNKNOWN_SETTING]
        );
        assert_eq!(
            c.diagnostics[0].message,
            "Could not match line not a setting"
        );
        assert_eq!(
            c.diagnostics[2].message,
            "Invalid settings in environment.conf at '/e/environment.conf'. The following unknown setting(s) are being ignored: timeout"
        );
    }

    #[test]
    fn variables_and_globs() {
        let files = MemoryProvider::new()
            .with_file("/e/vendor/b/x/manifests/init.pp", "")
            .with_file("/e/vendor/a/y/manifests/init.pp", "")
            .with_file("/e/vendor/c.txt", "");
        let conf = EnvironmentConf::parse(
            "modulepath = vendor/*:${basemodulepath}:$codedir/m:/abs/$environment\n",
            "/e/environment.conf".as_ref(),
        );
        let (c, problems) =
            conf.resolve("/e".as_ref(), &["/b1".into(), "/b2".into()], "prod", &files);
        assert_eq!(
            paths(&c),
            ["/e/vendor/a", "/e/vendor/b", "/b1", "/b2", "/abs/prod"]
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].code, codes::UNKNOWN_VARIABLE);
    }

    #[test]
    fn glob_patterns() {
        assert!(matches("mod_*", "mod_a"));
        assert!(!matches("mod_?", "mod_ab"));
        assert!(matches("[a-c]x", "bx"));
        assert!(!matches("[!a-c]x", "bx"));
        assert_eq!(expand_braces("{a,b}c"), ["ac", "bc"]);
    }
}
