//! The parameters the build phase reads (relationship metaparameters, aliases, namevars,
//! the flags the simulation needs, the inputs of the autorequire rules), found in one pass
//! over each resource's parameters and kept as borrowed values, so that later passes never
//! scan or hash parameter names again.

use serde_json::Value;

use crate::model::Resource;

/// A parameter the build phase reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum P {
    Require,
    Subscribe,
    Before,
    Notify,
    Alias,
    Path,
    Name,
    Noop,
    Refreshonly,
    Ensure,
    Target,
    Owner,
    Group,
    Cwd,
    Command,
    Onlyif,
    Unless,
    User,
    Responsefile,
    Adminfile,
    Source,
    Gid,
    Groups,
    Roles,
}

const COUNT: usize = 24;

impl P {
    /// The relationship metaparameters in the order Puppet turns them into edges.
    pub(crate) const RELATIONS: [P; 4] = [P::Require, P::Subscribe, P::Before, P::Notify];

    fn of(name: &str) -> Option<P> {
        Some(match name {
            "require" => P::Require,
            "subscribe" => P::Subscribe,
            "before" => P::Before,
            "notify" => P::Notify,
            "alias" => P::Alias,
            "path" => P::Path,
            "name" => P::Name,
            "noop" => P::Noop,
            "refreshonly" => P::Refreshonly,
            "ensure" => P::Ensure,
            "target" => P::Target,
            "owner" => P::Owner,
            "group" => P::Group,
            "cwd" => P::Cwd,
            "command" => P::Command,
            "onlyif" => P::Onlyif,
            "unless" => P::Unless,
            "user" => P::User,
            "responsefile" => P::Responsefile,
            "adminfile" => P::Adminfile,
            "source" => P::Source,
            "gid" => P::Gid,
            "groups" => P::Groups,
            "roles" => P::Roles,
            _ => return None,
        })
    }
}

/// Appends the parameters of `r` that the build phase reads to `out`, in catalog order.
pub(crate) fn collect<'a>(r: &'a Resource, out: &mut Vec<(P, &'a Value)>) {
    for (k, v) in &r.parameters {
        if let Some(p) = P::of(k) {
            out.push((p, v));
        }
    }
}

/// The parameters of one resource the build phase reads, by [`P`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ParamSet<'a>([Option<&'a Value>; COUNT]);

impl<'a> ParamSet<'a> {
    /// From the pairs [`collect`] found.
    pub(crate) fn from_pairs(pairs: &[(P, &'a Value)]) -> ParamSet<'a> {
        let mut set = [None; COUNT];
        for &(p, v) in pairs {
            set[p as usize] = Some(v);
        }
        ParamSet(set)
    }

    /// All of `r`'s parameters the build phase reads.
    #[cfg(test)]
    pub(crate) fn of(r: &'a Resource) -> ParamSet<'a> {
        let mut pairs = Vec::new();
        collect(r, &mut pairs);
        ParamSet::from_pairs(&pairs)
    }

    /// A parameter, if set.
    #[inline]
    pub(crate) fn get(&self, p: P) -> Option<&'a Value> {
        self.0[p as usize]
    }

    /// A parameter as a string, if it is one.
    #[inline]
    pub(crate) fn str(&self, p: P) -> Option<&'a str> {
        self.get(p).and_then(Value::as_str)
    }

    /// A boolean parameter (`true`, `"true"`), if set.
    pub(crate) fn bool(&self, p: P) -> Option<bool> {
        match self.get(p)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) if s == "true" => Some(true),
            Value::String(s) if s == "false" => Some(false),
            _ => None,
        }
    }
}
