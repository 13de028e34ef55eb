//! Automatic relationships that the catalog alone determines: the autorequire/autobefore
//! rules of Puppet's core types (`file`, `exec`, `package`, `user`) and of the core modules
//! shipped with the agent (`mount`, `cron`, `ssh_authorized_key`).
//!
//! Not covered: rules that need the system (provider-specific ones, resources generated at
//! apply time), and types from other modules. Each rule yields the references it would
//! look up; a reference that is not in the catalog is simply no relationship, as in Puppet.

use std::borrow::Cow;

use serde_json::Value;

use crate::params::{ParamSet, P};
use crate::reference::normalize_path;

/// The four kinds of automatic relationship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoRelation {
    /// The other resource is applied first (`autorequire`).
    Autorequire,
    /// This resource is applied first (`autobefore`).
    Autobefore,
    /// `autorequire` plus refresh (`autosubscribe`).
    Autosubscribe,
    /// `autobefore` plus refresh (`autonotify`).
    Autonotify,
}

impl AutoRelation {
    /// The name Puppet uses.
    pub fn as_str(self) -> &'static str {
        match self {
            AutoRelation::Autorequire => "autorequire",
            AutoRelation::Autobefore => "autobefore",
            AutoRelation::Autosubscribe => "autosubscribe",
            AutoRelation::Autonotify => "autonotify",
        }
    }
}

/// A candidate automatic relationship: `(relation, other type, other title)`; the title
/// borrows from the resource where it can.
pub(crate) type AutoCandidate<'a> = (AutoRelation, &'static str, Cow<'a, str>);

/// The string values of a parameter (first elements of nested arrays), as Puppet's rules
/// read them.
fn strings<'a>(v: Option<&'a Value>, out: &mut Vec<Cow<'a, str>>) {
    match v {
        Some(Value::String(s)) => out.push(Cow::Borrowed(s)),
        Some(Value::Number(n)) => out.push(Cow::Owned(n.to_string())),
        Some(Value::Array(a)) => {
            for x in a {
                match x {
                    Value::Array(inner) => strings(inner.first(), out),
                    other => strings(Some(other), out),
                }
            }
        }
        _ => {}
    }
}

fn first_string(v: Option<&Value>) -> Option<Cow<'_, str>> {
    let mut out = Vec::new();
    strings(v, &mut out);
    out.into_iter().next()
}

fn numeric(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Absolute paths at the start of each line (`^(/\S+)` in Ruby, where `^` is per line).
fn leading_paths<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    for line in text.split('\n') {
        if line.starts_with('/') {
            let end = line.find(|c: char| c.is_whitespace()).unwrap_or(line.len());
            out.push(&line[..end]);
        }
    }
}

fn is_normalized(p: &str) -> bool {
    let b = p.as_bytes();
    !b.windows(2).any(|w| w == b"//") && (b.len() <= 1 || b[b.len() - 1] != b'/')
}

/// The nearest parent of the normalised absolute path `p` for which `exists` holds.
fn first_parent<'p>(p: &'p str, exists: &mut dyn FnMut(&str) -> bool) -> Option<&'p str> {
    if !p.starts_with('/') || p == "/" {
        return None;
    }
    let mut end = p.len();
    while let Some(i) = p[..end].rfind('/') {
        let parent = &p[..if i == 0 { 1 } else { i }];
        if exists(parent) {
            return Some(parent);
        }
        if i == 0 {
            break;
        }
        end = i;
    }
    None
}

/// The nearest parent of `path` that `exists` (the first of [`parents_of`] that does).
fn nearest_parent<'a>(path: &'a str, exists: &mut dyn FnMut(&str) -> bool) -> Option<Cow<'a, str>> {
    if is_normalized(path) {
        first_parent(path, exists).map(Cow::Borrowed)
    } else {
        let p = normalize_path(path);
        first_parent(&p, exists).map(|s| Cow::Owned(s.to_string()))
    }
}

/// The parents of an absolute path, nearest first (`/a/b/c` -> `/a/b`, `/a`, `/`),
/// borrowed from `path` when it is already normalised.
fn parents_of(path: &str) -> Vec<Cow<'_, str>> {
    let p: Cow<'_, str> = if is_normalized(path) {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(normalize_path(path))
    };
    let mut out = Vec::new();
    if !p.starts_with('/') || p == "/" {
        return out;
    }
    let mut end = p.len();
    while let Some(i) = p[..end].rfind('/') {
        let parent_end = if i == 0 { 1 } else { i };
        out.push(match &p {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..parent_end]),
            Cow::Owned(o) => Cow::Owned(o[..parent_end].to_string()),
        });
        if i == 0 {
            break;
        }
        end = i;
    }
    out
}

/// The parents of an absolute path, nearest first.
#[cfg(test)]
fn parents(path: &str) -> Vec<String> {
    parents_of(path).into_iter().map(Cow::into_owned).collect()
}

/// The automatic relationships of the resource titled `title` with `params` (whose
/// lower-cased type is `type_key`), in the
/// order Puppet adds them, appended to `out`. `file_exists` says whether a `File` of that
/// path is in the catalog (for the nearest-managed-parent rule); `files` lists every file
/// path (for mount's autobefore).
pub(crate) fn candidates<'a>(
    title: &'a str,
    params: &ParamSet<'a>,
    type_key: &str,
    file_exists: &mut dyn FnMut(&str) -> bool,
    files: &dyn Fn() -> Vec<String>,
    out: &mut Vec<AutoCandidate<'a>>,
) {
    let req = AutoRelation::Autorequire;
    match type_key {
        "file" => {
            let path = params.str(P::Path).unwrap_or(title);
            if let Some(found) = nearest_parent(path, file_exists) {
                out.push((req, "file", found));
            }
            if let Some(t) = params.str(P::Target) {
                out.push((req, "file", Cow::Borrowed(t)));
            }
            for (ty, param) in [("user", P::Owner), ("group", P::Group)] {
                if let Some(v) = first_string(params.get(param)) {
                    if !numeric(&v) {
                        out.push((req, ty, v));
                    }
                }
            }
        }
        "exec" => {
            let mut files: Vec<&'a str> = Vec::new();
            if let Some(cwd) = params.str(P::Cwd) {
                files.push(cwd);
            }
            let command: &'a str = match params.get(P::Command) {
                Some(Value::Array(a)) => a.first().and_then(Value::as_str),
                Some(Value::String(s)) => Some(s.as_str()),
                _ => None,
            }
            .unwrap_or(title);
            leading_paths(command, &mut files);
            for line in command.split('\n') {
                if let Some(rest) = line.strip_prefix('"') {
                    if let Some(end) = rest.find('"') {
                        if end > 0 {
                            files.push(&rest[..end]);
                        }
                    }
                }
            }
            let mut guards = Vec::new();
            for param in [P::Onlyif, P::Unless] {
                guards.clear();
                strings(params.get(param), &mut guards);
                for line in &guards {
                    // Only numbers are owned, and a number never starts with `/`.
                    if let Cow::Borrowed(b) = line {
                        leading_paths(b, &mut files);
                    }
                }
            }
            out.extend(files.into_iter().map(|f| (req, "file", Cow::Borrowed(f))));
            if let Some(user) = params.str(P::User) {
                if !numeric(user) {
                    out.push((req, "user", Cow::Borrowed(user)));
                }
            }
        }
        "package" => {
            for param in [P::Responsefile, P::Adminfile] {
                if let Some(v) = params.str(param) {
                    out.push((req, "file", Cow::Borrowed(v)));
                }
            }
            if let Some(src) = params.str(P::Source) {
                if src.starts_with('/') {
                    out.push((req, "file", Cow::Borrowed(src)));
                }
            }
        }
        "user" => {
            let mut vals = Vec::new();
            strings(params.get(P::Gid), &mut vals);
            for g in vals.drain(..) {
                if !numeric(&g) {
                    out.push((req, "group", g));
                }
            }
            strings(params.get(P::Groups), &mut vals);
            for g in vals.drain(..) {
                for part in g.split(',') {
                    out.push((req, "group", Cow::Owned(part.trim().to_string())));
                }
            }
            strings(params.get(P::Roles), &mut vals);
            for r in vals.drain(..) {
                for part in r.split(',') {
                    out.push((req, "user", Cow::Owned(part.trim().to_string())));
                }
            }
        }
        "cron" | "ssh_authorized_key" => {
            if let Some(u) = params.str(P::User) {
                out.push((req, "user", Cow::Borrowed(u)));
            }
        }
        "mount" => {
            let name = params.str(P::Name).unwrap_or(title);
            let mut ps = parents_of(name);
            ps.reverse();
            out.extend(
                ps.into_iter()
                    .map(|p| (req, "mount", Cow::Owned(p.into_owned()))),
            );
            let prefix = format!("{}/", name.trim_end_matches('/'));
            for f in files() {
                if f.starts_with(&prefix) && f.len() > prefix.len() {
                    out.push((AutoRelation::Autobefore, "file", Cow::Owned(f)));
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Resource;

    #[test]
    fn parents_nearest_first() {
        for path in ["/a/b/c", "//a//b/", "/", "rel/x", "/a", "", "/a/b//"] {
            for managed in [&["/a"][..], &["/"], &[], &["/a/b", "/a"]] {
                let want = parents(path)
                    .into_iter()
                    .find(|p| managed.contains(&p.as_str()));
                let got = nearest_parent(path, &mut |p| managed.contains(&p));
                assert_eq!(got.map(Cow::into_owned), want, "{path} {managed:?}");
            }
        }
        assert_eq!(parents("/a/b/c"), vec!["/a/b", "/a", "/"]);
        assert_eq!(parents("/"), Vec::<String>::new());
        assert_eq!(parents("relative"), Vec::<String>::new());
    }

    #[test]
    fn exec_scans_command_lines() {
        let mut r = Resource::new("Exec", "x");
        r.parameters.insert(
            "command".into(),
            Value::String("/usr/bin/foo arg\n/bin/bar".into()),
        );
        r.parameters
            .insert("cwd".into(), Value::String("/srv".into()));
        r.parameters
            .insert("user".into(), Value::String("www".into()));
        let mut c = Vec::new();
        candidates(
            &r.title,
            &ParamSet::of(&r),
            "exec",
            &mut |_| false,
            &Vec::new,
            &mut c,
        );
        let titles: Vec<_> = c.iter().map(|(_, t, n)| format!("{t}:{n}")).collect();
        assert_eq!(
            titles,
            vec![
                "file:/srv",
                "file:/usr/bin/foo",
                "file:/bin/bar",
                "user:www"
            ]
        );
    }
}
