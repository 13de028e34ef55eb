//! Automatic relationships that the catalog alone determines: the autorequire/autobefore
//! rules of Puppet's core types (`file`, `exec`, `package`, `user`) and of the core modules
//! shipped with the agent (`mount`, `cron`, `ssh_authorized_key`).
//!
//! Not covered: rules that need the system (provider-specific ones, resources generated at
//! apply time), and types from other modules. Each rule yields the references it would
//! look up; a reference that is not in the catalog is simply no relationship, as in Puppet.

use serde_json::Value;

use crate::model::Resource;
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

/// A candidate automatic relationship: `(relation, other type, other title)`.
pub(crate) type AutoCandidate = (AutoRelation, &'static str, String);

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Number(n)) => vec![n.to_string()],
        Some(Value::Array(a)) => a
            .iter()
            .flat_map(|x| match x {
                Value::Array(inner) => strings(inner.first()),
                other => strings(Some(other)),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn numeric(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Absolute paths at the start of each line (`^(/\S+)` in Ruby, where `^` is per line).
fn leading_paths(text: &str, out: &mut Vec<String>) {
    for line in text.split('\n') {
        if line.starts_with('/') {
            let end = line.find(|c: char| c.is_whitespace()).unwrap_or(line.len());
            out.push(line[..end].to_string());
        }
    }
}

/// The parents of an absolute path, nearest first (`/a/b/c` -> `/a/b`, `/a`, `/`).
fn parents(path: &str) -> Vec<String> {
    let p = normalize_path(path);
    let mut out = Vec::new();
    if !p.starts_with('/') || p == "/" {
        return out;
    }
    let mut cur = p.as_str();
    while let Some(i) = cur.rfind('/') {
        let parent = if i == 0 { "/" } else { &cur[..i] };
        out.push(parent.to_string());
        if parent == "/" {
            break;
        }
        cur = parent;
    }
    out
}

/// The automatic relationships of `res`, in the order Puppet adds them.
/// `file_exists` says whether a `File` of that path is in the catalog (for the
/// nearest-managed-parent rule); `files` lists every file path (for mount's autobefore).
pub(crate) fn candidates(
    res: &Resource,
    file_exists: &dyn Fn(&str) -> bool,
    files: &dyn Fn() -> Vec<String>,
) -> Vec<AutoCandidate> {
    let mut out: Vec<AutoCandidate> = Vec::new();
    let req = AutoRelation::Autorequire;
    match res.type_key().as_str() {
        "file" => {
            let path = res.param_str("path").unwrap_or(&res.title);
            if let Some(found) = parents(path).into_iter().find(|p| file_exists(p)) {
                out.push((req, "file", found));
            }
            if let Some(t) = res.param_str("target") {
                out.push((req, "file", t.to_string()));
            }
            for (ty, param) in [("user", "owner"), ("group", "group")] {
                if let Some(v) = strings(res.parameters.get(param)).into_iter().next() {
                    if !numeric(&v) {
                        out.push((req, ty, v));
                    }
                }
            }
        }
        "exec" => {
            let mut files = Vec::new();
            if let Some(cwd) = res.param_str("cwd") {
                files.push(cwd.to_string());
            }
            let command = match res.parameters.get("command") {
                Some(Value::Array(a)) => a.first().and_then(Value::as_str).map(str::to_string),
                Some(Value::String(s)) => Some(s.clone()),
                _ => None,
            }
            .unwrap_or_else(|| res.title.clone());
            leading_paths(&command, &mut files);
            for line in command.split('\n') {
                if let Some(rest) = line.strip_prefix('"') {
                    if let Some(end) = rest.find('"') {
                        if end > 0 {
                            files.push(rest[..end].to_string());
                        }
                    }
                }
            }
            for param in ["onlyif", "unless"] {
                for line in strings(res.parameters.get(param)) {
                    leading_paths(&line, &mut files);
                }
            }
            out.extend(files.into_iter().map(|f| (req, "file", f)));
            if let Some(user) = res.param_str("user") {
                if !numeric(user) {
                    out.push((req, "user", user.to_string()));
                }
            }
        }
        "package" => {
            for param in ["responsefile", "adminfile"] {
                if let Some(v) = res.param_str(param) {
                    out.push((req, "file", v.to_string()));
                }
            }
            if let Some(src) = res.param_str("source") {
                if src.starts_with('/') {
                    out.push((req, "file", src.to_string()));
                }
            }
        }
        "user" => {
            for g in strings(res.parameters.get("gid")) {
                if !numeric(&g) {
                    out.push((req, "group", g));
                }
            }
            for g in strings(res.parameters.get("groups")) {
                for part in g.split(',') {
                    out.push((req, "group", part.trim().to_string()));
                }
            }
            for r in strings(res.parameters.get("roles")) {
                for part in r.split(',') {
                    out.push((req, "user", part.trim().to_string()));
                }
            }
        }
        "cron" | "ssh_authorized_key" => {
            if let Some(u) = res.param_str("user") {
                out.push((req, "user", u.to_string()));
            }
        }
        "mount" => {
            let name = res.param_str("name").unwrap_or(&res.title).to_string();
            let mut ps = parents(&name);
            ps.reverse();
            out.extend(ps.into_iter().map(|p| (req, "mount", p)));
            let prefix = format!("{}/", name.trim_end_matches('/'));
            for f in files() {
                if f.starts_with(&prefix) && f.len() > prefix.len() {
                    out.push((AutoRelation::Autobefore, "file", f));
                }
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_nearest_first() {
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
        let c = candidates(&r, &|_| false, &Vec::new);
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
