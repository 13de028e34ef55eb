//! The `eyaml_lookup_key` backend, natively (Puppet 7.23's `eyaml_lookup_key` function with
//! hiera-eyaml 3.3; the decryption itself is [`crate::eyaml`]): a hierarchy entry
//! `lookup_key: eyaml_lookup_key` reads each location as YAML (the same parse, cache and
//! errors as `yaml_data`); a key the file does not have is not found there; a key it has
//! gets its value with every string decrypted when it holds `ENC[...]`, then interpolated,
//! through arrays and hashes (hash keys interpolated, not decrypted). As in Puppet, the
//! answer for a key is kept per location for the rest of the compilation (in the
//! [`LookupAdapter`]), interpolation included. The key and certificate files named by the
//! entry's options are read through the lookup's [`DataSource`], else through
//! [`Scope::host_file`] (the evaluator's, when the host's files may be read).

use super::*;
use crate::eyaml::{decrypt_string, is_encrypted, DecryptError, KeySource};

/// What one compilation keeps of `eyaml_lookup_key`'s answers (Puppet's function-context
/// cache): by lookup, entry context and key, the value and whether it was interpolated.
pub(super) type EyamlAnswers = HashMap<(u64, String, String), (Value, bool)>;

/// The options the `PKCS7` encryptor reads, and the files it reads, of one call.
struct Keys<'a> {
    lookup: &'a Lookup,
    scope: &'a dyn Scope,
    options: &'a ValueMap,
}

impl KeySource for Keys<'_> {
    fn option(&self, name: &str) -> Option<String> {
        match self.options.get(&s(name))? {
            Value::Undef | Value::Boolean(false) => None,
            Value::String(t) => Some(t.to_string()),
            other => Some(ruby_to_s(other)),
        }
    }

    fn read(&self, path: &str) -> Result<String, String> {
        let p = Path::new(path);
        if let Some(text) = self.lookup.read_cached(p) {
            return Ok(text.to_string());
        }
        match self.scope.host_file(p) {
            Some(r) => r,
            None => Err(format!("No such file or directory @ rb_sysopen - {path}")),
        }
    }
}

impl Lookup {
    /// A hierarchy entry `lookup_key: eyaml_lookup_key`: once without a location (which
    /// fails), else once per location that exists, merged.
    pub(super) fn eyaml_entry_lookup(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        e: &HierarchyEntry,
        locations: &[Resolved],
        root: &str,
        merge: &MergeStrategy,
    ) -> Result<Option<Value>, HieraError> {
        // As for other backend functions, the options are interpolated when Puppet creates
        // the provider (no methods, not explained).
        let options = match &e.options {
            Some(o) => match inv.silently(|| self.interpolate(inv, o, false, inv.scope))? {
                Value::Hash(h) => (*h).clone(),
                _ => ValueMap::default(),
            },
            None => ValueMap::default(),
        };
        if matches!(e.location, Location::None) {
            return self.eyaml_call(inv, p, e, &options, None, root);
        }
        each_location(inv, merge, locations, |loc| {
            self.eyaml_call(inv, p, e, &options, Some(loc), root)
        })
    }

    /// One call of `eyaml_lookup_key(key, options, context)` for a location.
    fn eyaml_call(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        e: &HierarchyEntry,
        options: &ValueMap,
        loc: Option<&Resolved>,
        key: &str,
    ) -> Result<Option<Value>, HieraError> {
        let path = loc.filter(|l| !l.uri).map(|l| l.path.as_path());
        let answer_key = (
            self.id,
            format!(
                "{:?}\u{0}{}\u{0}{}",
                p.layer,
                e.name,
                loc.map(|l| l.path.to_string_lossy()).unwrap_or_default()
            ),
            key.to_string(),
        );
        let adapter = inv.scope.adapter();
        if let Some((v, interpolated)) =
            adapter.and_then(|a| a.eyaml.borrow().get(&answer_key).cloned())
        {
            if interpolated {
                inv.data_interpolated.set(true);
            }
            inv.outcome(|| Outcome::Found(key.to_string(), v.clone()));
            return Ok(Some(v));
        }
        let Some(path) = path else {
            return Err(HieraError::new(
                codes::FUNCTION_ARGUMENT,
                "'eyaml_lookup_key': one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this lookup_key function",
            ));
        };
        // Puppet keeps the parsed file per path, whichever function read it: the same
        // parse as `yaml_data` (same errors and warning), without a module's key filter.
        let data = self.data_hash(path, "yaml_data", None)?;
        for w in &data.warnings {
            inv.scope.warning(w);
        }
        let Some(raw) = data.map.get(&s(key)) else {
            inv.outcome(|| Outcome::NotFound(key.to_string()));
            return Ok(None);
        };
        let mut with_path = options.clone();
        with_path.insert(s("path"), s(&path.to_string_lossy()));
        let call = Call {
            keys: Keys {
                lookup: self,
                scope: inv.scope,
                options: &with_path,
            },
            key,
            path: &path.to_string_lossy(),
        };
        let mut interpolated = false;
        let v = self.eyaml_value(inv, raw, &call, &mut interpolated)?;
        if let Some(a) = adapter {
            a.eyaml
                .borrow_mut()
                .insert(answer_key, (v.clone(), interpolated));
        }
        inv.outcome(|| Outcome::Found(key.to_string(), v.clone()));
        Ok(Some(v))
    }

    /// Puppet's `decrypt_value`: strings decrypted (when encrypted) then interpolated,
    /// arrays and hash values likewise, hash keys interpolated; in order, so the first
    /// failure is Puppet's.
    fn eyaml_value(
        &self,
        inv: &Inv<'_>,
        v: &Value,
        call: &Call<'_>,
        interpolated: &mut bool,
    ) -> Result<Value, HieraError> {
        match v {
            Value::String(t) if is_encrypted(t) => {
                let plain = decrypt_string(t, &call.keys).map_err(|e| match e {
                    DecryptError::Standard(m) => HieraError::new(
                        codes::EYAML,
                        format!(
                            "hiera-eyaml backend error decrypting {t} when looking up {} in {}. Error was {m}",
                            call.key, call.path
                        ),
                    ),
                    DecryptError::Load(m) => HieraError::new(codes::RUBY_LOAD_ERROR, m),
                })?;
                self.eyaml_interpolate(inv, &s(&plain), interpolated)
            }
            Value::String(_) => self.eyaml_interpolate(inv, v, interpolated),
            Value::Array(items) => Ok(Value::array(
                items
                    .iter()
                    .map(|i| self.eyaml_value(inv, i, call, interpolated))
                    .collect::<Result<Vec<_>, _>>()?,
            )),
            Value::Hash(h) => {
                let mut out = ValueMap::default();
                for (k, val) in h.iter() {
                    let k = self.eyaml_interpolate(inv, k, interpolated)?;
                    out.insert(k, self.eyaml_value(inv, val, call, interpolated)?);
                }
                Ok(Value::Hash(Arc::new(out)))
            }
            other => Ok(other.clone()),
        }
    }

    /// `context.interpolate(value)` (methods allowed).
    fn eyaml_interpolate(
        &self,
        inv: &Inv<'_>,
        v: &Value,
        interpolated: &mut bool,
    ) -> Result<Value, HieraError> {
        if !cache::needs_interpolation(v) {
            return Ok(v.clone());
        }
        *interpolated = true;
        inv.data_interpolated.set(true);
        self.interpolate(inv, v, true, inv.scope)
    }
}

/// One call's key, location and key source.
struct Call<'a> {
    keys: Keys<'a>,
    key: &'a str,
    path: &'a str,
}
