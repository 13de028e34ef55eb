//! Scopes: where variables live during one compile.
//!
//! Scopes sit in an arena owned by the compiler and refer to their parent by index, so a
//! lambda (which is a `Send + Sync` block object for the function registry) can name the
//! scope it closes over without reference counting. Scopes of lambda calls are released
//! when the call returns (Puppet lambdas cannot escape), others live for the compile.
//!
//! Puppet's rules: variables are static; a class sees its own scope, its `inherits`
//! parent's, node scope and top scope (the parent chain); a define instance sees its own and
//! top/node scope; match variables (`$0`..`$9`) live in an ephemeral layer of the scope
//! where the match happened.

use crate::catalog::ResourceKey;
use indexmap::map::RawEntryApiV1;
use puppet_types::Value;
use smol_str::SmolStr;
use std::hash::BuildHasher;

/// How many variables the statements `body` assign in their own scope, at most: the
/// assignments among them and in the branches of their `if`, `unless` and `case`
/// statements (a destructuring assignment counts its targets). An estimate for reserving
/// room when a class or define body's scope opens; only its size depends on it.
pub fn assignments_in(body: &[crate::ir::Expr]) -> usize {
    use crate::ir::ExprKind;
    fn targets(e: &crate::ir::Expr) -> usize {
        match &e.kind {
            ExprKind::Array(items) => items.iter().map(targets).sum(),
            _ => 1,
        }
    }
    body.iter()
        .map(|e| match &e.kind {
            ExprKind::Assign(lhs, _) => targets(lhs),
            ExprKind::If { then, els, .. } | ExprKind::Unless { then, els, .. } => {
                assignments_in(then) + els.as_deref().map_or(0, assignments_in)
            }
            ExprKind::Case { options, .. } => {
                options.iter().map(|(_, body)| assignments_in(body)).sum()
            }
            _ => 0,
        })
        .sum()
}

/// An index into the compiler's scope arena.
pub type ScopeId = usize;

/// What a scope belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeKind {
    Top,
    Node,
    /// A class scope, with the class name.
    Class(SmolStr),
    /// A defined type instance: type name and title.
    Define(SmolStr, SmolStr),
    /// A lambda call or a function body.
    Local,
}

/// One scope.
#[derive(Debug, Clone)]
pub struct Scope {
    pub kind: ScopeKind,
    pub parent: Option<ScopeId>,
    pub vars: crate::Map<SmolStr, Value>,
    /// Stack of match results (`$0`, `$1`, ...); the innermost is last.
    pub matches: Vec<Vec<Option<String>>>,
    /// The label Puppet prints in log lines: `Class[main]`, `Foo[title]`.
    pub label: String,
    /// The module the code of this scope comes from (for `$module_name`).
    pub module: Option<SmolStr>,
    /// The catalog resource whose code runs in this scope (`Class[main]`, `Class[Foo]`,
    /// `Foo::Bar[title]`, `Node[name]`); `None` for local scopes.
    pub resource: Option<ResourceKey>,
    /// The scope the class or define was declared from (Puppet's dynamic parent), along
    /// which resource defaults are found.
    pub dyn_parent: Option<ScopeId>,
}

impl Scope {
    pub fn new(kind: ScopeKind, parent: Option<ScopeId>, label: String) -> Scope {
        Scope {
            kind,
            parent,
            vars: Default::default(),
            matches: Vec::new(),
            label,
            module: None,
            resource: None,
            dyn_parent: None,
        }
    }
}

/// The arena of scopes of one compile.
#[derive(Debug, Default)]
pub struct Scopes {
    slots: Vec<Option<Scope>>,
    free: Vec<ScopeId>,
    /// The emptied variable maps of released scopes, reused by the next scopes added
    /// without variables (a lambda called for each element would otherwise allocate and
    /// free a map per call).
    spare: Vec<crate::Map<SmolStr, Value>>,
}

/// The most emptied maps kept for reuse.
const SPARE_MAPS: usize = 8;

impl Scopes {
    /// An arena with room for `n` scopes.
    pub fn with_capacity(n: usize) -> Scopes {
        Scopes {
            slots: Vec::with_capacity(n),
            free: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// The number of slots: the most scopes held at once so far.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    pub fn add(&mut self, mut scope: Scope) -> ScopeId {
        if scope.vars.capacity() == 0 {
            if let Some(vars) = self.spare.pop() {
                scope.vars = vars;
            }
        }
        if let Some(id) = self.free.pop() {
            self.slots[id] = Some(scope);
            id
        } else {
            self.slots.push(Some(scope));
            self.slots.len() - 1
        }
    }

    /// Releases a scope that nothing refers to any more (a finished lambda call).
    pub fn release(&mut self, id: ScopeId) {
        if let Some(slot) = self.slots.get_mut(id) {
            if let Some(mut scope) = slot.take() {
                if self.spare.len() < SPARE_MAPS && scope.vars.capacity() > 0 {
                    scope.vars.clear();
                    self.spare.push(std::mem::take(&mut scope.vars));
                }
            }
            self.free.push(id);
        }
    }

    pub fn get(&self, id: ScopeId) -> &Scope {
        self.slots[id].as_ref().expect("scope used after release")
    }

    pub fn get_mut(&mut self, id: ScopeId) -> &mut Scope {
        self.slots[id].as_mut().expect("scope used after release")
    }

    /// Looks a plain variable up along the parent chain. The name is hashed once for the
    /// whole chain (every scope's map hashes with the same stateless hasher), not once per
    /// scope as `get` would.
    pub fn lookup(&self, mut id: ScopeId, name: &str) -> Option<&Value> {
        let mut hash = None;
        loop {
            let s = self.get(id);
            let found = match s.vars.len() {
                // `get` compares these without hashing.
                0 | 1 => s.vars.get(name),
                _ => {
                    let h = *hash.get_or_insert_with(|| s.vars.hasher().hash_one(name));
                    (s.vars.raw_entry_v1())
                        .from_key_hashed_nocheck(h, name)
                        .map(|(_, v)| v)
                }
            };
            if found.is_some() {
                return found;
            }
            id = s.parent?;
        }
    }

    /// The innermost match data visible from a scope.
    pub fn match_data(&self, mut id: ScopeId) -> Option<&Vec<Option<String>>> {
        loop {
            let s = self.get(id);
            // Frames opened by an if/case/selector that matched nothing are empty.
            if let Some(m) = s.matches.iter().rev().find(|m| !m.is_empty()) {
                return Some(m);
            }
            id = s.parent?;
        }
    }

    /// The resource whose code runs in scope `id`: the nearest class, define instance or
    /// node (`Class[main]` at top level).
    pub fn container_of(&self, mut id: ScopeId) -> ResourceKey {
        loop {
            let s = self.get(id);
            if let Some(r) = &s.resource {
                return r.clone();
            }
            match s.parent {
                Some(p) => id = p,
                None => return ResourceKey::new("Class", "main"),
            }
        }
    }

    /// The nearest scope from `id` out that lives for the whole compile (lambda and
    /// function-call scopes are released when they return, so nothing kept past the call
    /// may name them).
    pub fn persistent(&self, mut id: ScopeId) -> ScopeId {
        loop {
            let s = self.get(id);
            match (&s.kind, s.parent) {
                (ScopeKind::Local, Some(p)) => id = p,
                _ => return id,
            }
        }
    }

    /// The scopes whose resource defaults apply to code in scope `from`, nearest first: a
    /// scope, then its dynamic parent (where its class or define was declared), else its
    /// parent (a bounded walk).
    pub fn defaults_chain(&self, from: Option<ScopeId>) -> impl Iterator<Item = ScopeId> + '_ {
        std::iter::successors(from, move |&id| {
            let s = self.get(id);
            s.dyn_parent.or(s.parent)
        })
        .take(100_000)
    }

    /// The nearest enclosing class or define scope's label (for log lines).
    pub fn label(&self, mut id: ScopeId) -> String {
        loop {
            let s = self.get(id);
            if !matches!(s.kind, ScopeKind::Local) || s.parent.is_none() {
                return s.label.clone();
            }
            match s.parent {
                Some(p) => id = p,
                None => return s.label.clone(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scope added after one was released starts without variables, though it may
    /// reuse the released one's map.
    #[test]
    fn released_maps_come_back_empty() {
        let mut scopes = Scopes::with_capacity(2);
        let top = scopes.add(Scope::new(ScopeKind::Top, None, String::new()));
        for round in 0..20i64 {
            let mut ids = Vec::new();
            for i in 0..(round % 11) {
                let id = scopes.add(Scope::new(ScopeKind::Local, Some(top), String::new()));
                assert!(scopes.get(id).vars.is_empty());
                assert_eq!(scopes.lookup(id, "x"), None);
                scopes
                    .get_mut(id)
                    .vars
                    .insert("x".into(), Value::Integer(i));
                assert_eq!(scopes.lookup(id, "x"), Some(&Value::Integer(i)));
                ids.push(id);
            }
            for id in ids {
                scopes.release(id);
            }
        }
    }

    /// The chain lookup hashing once finds what `get` finds scope by scope.
    #[test]
    fn lookup_matches_get_along_the_chain() {
        let mut scopes = Scopes::default();
        let names: Vec<String> = (0..40)
            .map(|i| format!("v{i}_{}", "x".repeat(i % 30)))
            .collect();
        let mut parent = None;
        let mut ids = Vec::new();
        // Scopes with 0, 1, 2, ... variables, each inner one shadowing some outer ones.
        for depth in 0..8 {
            let mut s = Scope::new(ScopeKind::Local, parent, String::new());
            for (i, n) in names.iter().enumerate().filter(|(i, _)| i % 8 < depth) {
                s.vars
                    .insert(SmolStr::new(n), Value::Integer((depth * 100 + i) as i64));
            }
            let id = scopes.add(s);
            ids.push(id);
            parent = Some(id);
        }
        for &id in &ids {
            for n in names.iter().map(String::as_str).chain(["", "nope", "v1"]) {
                let mut want = None;
                let mut cur = Some(id);
                while let Some(c) = cur {
                    if let Some(v) = scopes.get(c).vars.get(n) {
                        want = Some(v);
                        break;
                    }
                    cur = scopes.get(c).parent;
                }
                assert_eq!(scopes.lookup(id, n), want, "{n} from {id}");
            }
        }
    }
}
