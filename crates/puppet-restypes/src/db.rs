//! The registry of resource types ([`TypeDatabase`]): the core table, module
//! types read by running their Ruby, and the checks the compiler makes with them
//! (unknown parameters, unknown types, namevar/title resolution for the
//! uniqueness of resources) with Puppet 7.23's exact message texts.

use indexmap::IndexMap;
use smol_str::SmolStr;

use crate::core_table::{CORE_TYPES, VENDORED_TYPES};
use crate::model::{AttrKind, Attribute, Diagnostic, ResourceTypeInfo, TitlePattern, TypeSource};
use crate::ruby::RubyTypeReader;

/// One attribute of the static core table.
#[derive(Debug)]
pub(crate) struct CoreAttr {
    pub(crate) name: &'static str,
    pub(crate) property: bool,
    pub(crate) namevar: bool,
    pub(crate) values: Option<&'static [&'static str]>,
}

/// One type of the static core table.
#[derive(Debug)]
pub(crate) struct CoreType {
    pub(crate) name: &'static str,
    pub(crate) module: Option<&'static str>,
    pub(crate) attrs: &'static [CoreAttr],
    pub(crate) namevars: &'static [&'static str],
    pub(crate) title_patterns: &'static [(&'static str, u32, &'static [&'static str])],
    pub(crate) isomorphic: bool,
    pub(crate) features: &'static [&'static str],
    pub(crate) autorequires: &'static [&'static str],
    pub(crate) autobefores: &'static [&'static str],
    pub(crate) autosubscribes: &'static [&'static str],
    pub(crate) autonotifies: &'static [&'static str],
}

fn smols(xs: &[&str]) -> Vec<SmolStr> {
    xs.iter().copied().map(SmolStr::new).collect()
}

impl CoreType {
    fn to_info(&self) -> ResourceTypeInfo {
        let source = match self.module {
            Some(m) => TypeSource::Vendored {
                module: SmolStr::new(m),
            },
            None => TypeSource::Core,
        };
        let mut info = ResourceTypeInfo::new(self.name, source);
        for a in self.attrs {
            let kind = if a.property {
                AttrKind::Property
            } else {
                AttrKind::Parameter
            };
            let mut attr = Attribute::new(a.name, kind);
            attr.is_namevar = a.namevar;
            attr.values = a.values.map(smols);
            info.attributes.insert(SmolStr::new(a.name), attr);
        }
        info.namevars = smols(self.namevars);
        info.title_patterns = self
            .title_patterns
            .iter()
            .map(|(re, opts, caps)| TitlePattern {
                regex: SmolStr::new(re),
                ignore_case: opts & 1 != 0,
                extended: opts & 2 != 0,
                multiline: opts & 4 != 0,
                captures: smols(caps),
            })
            .collect();
        info.isomorphic = self.isomorphic;
        info.features = smols(self.features);
        info.autorequires = smols(self.autorequires);
        info.autobefores = smols(self.autobefores);
        info.autosubscribes = smols(self.autosubscribes);
        info.autonotifies = smols(self.autonotifies);
        info
    }
}

/// The value of one key attribute of a resource, as Puppet computes it for
/// the uniqueness key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamevarValue<V> {
    /// Given as a parameter of the resource.
    Given(V),
    /// Taken from the title (a title pattern capture, or the whole title).
    FromTitle(String),
    /// Not set (Ruby `nil`), e.g. `package`'s `command` when not given.
    Missing,
}

/// A registry of resource types by (lower case) name.
///
/// ```
/// use puppet_restypes::TypeDatabase;
/// let db = TypeDatabase::core();
/// assert!(db.get("File").is_some());
/// assert_eq!(db.check_parameter("file", "bogus").unwrap_err(), "no parameter named 'bogus'");
/// assert!(db.check_parameter("file", "ensure").is_ok());
/// ```
#[derive(Debug, Clone, Default)]
pub struct TypeDatabase {
    /// By lower-case name; looked up for every resource of a compile.
    types: IndexMap<SmolStr, ResourceTypeInfo, rustc_hash::FxBuildHasher>,
    diagnostics: Vec<Diagnostic>,
}

impl TypeDatabase {
    /// An empty database.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puppet 7.23's built-in types only (`lib/puppet/type/*.rb`: component,
    /// exec, file, filebucket, group, notify, package, resources, schedule,
    /// service, stage, tidy, user, whit). This is what the Debian `puppet`
    /// 7.23 package knows without modules.
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// assert_eq!(db.len(), 14);
    /// assert!(db.get("cron").is_none());
    /// ```
    pub fn core() -> Self {
        let mut db = Self::new();
        for t in CORE_TYPES {
            db.insert(t.to_info());
        }
        db
    }

    /// The built-in types plus the types of the core modules puppet-agent
    /// 7.23 vendors (augeas, cron, host, mailalias, mount, sshkey,
    /// ssh_authorized_key); see the crate documentation for the vendored
    /// types not included.
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::with_vendored();
    /// assert_eq!(db.get("sshkey").unwrap().namevars, ["type", "name"]);
    /// ```
    pub fn with_vendored() -> Self {
        let mut db = Self::core();
        for t in VENDORED_TYPES {
            db.insert(t.to_info());
        }
        db
    }

    /// Adds (or replaces) a type description, by its lower-case name (what
    /// [`get`](Self::get) looks up).
    pub fn insert(&mut self, info: ResourceTypeInfo) {
        let key = if info.name.bytes().any(|b| b.is_ascii_uppercase()) {
            SmolStr::new(info.name.to_ascii_lowercase())
        } else {
            info.name.clone()
        };
        self.types.insert(key, info);
    }

    /// Number of types.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether there are no types.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// All types, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &ResourceTypeInfo> + '_ {
        self.types.values()
    }

    /// The diagnostics of [`load_modules`](Self::load_modules) so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The type named `name`, case-insensitively (`File`, `file`).
    pub fn get(&self, name: &str) -> Option<&ResourceTypeInfo> {
        // The names are lower case (see `ResourceTypeInfo::new`): a name with an upper-case
        // letter is looked up by its lower-case copy only.
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.types.get(name);
        }
        // Type names are short: the lower-case copy stays inline, no allocation.
        let lower: SmolStr = name.chars().map(|c| c.to_ascii_lowercase()).collect();
        self.types.get(&lower)
    }

    /// Loads module types. Each item is (module name, file path, source
    /// text), as the loader found them; the path decides what it is:
    ///
    /// * `.../lib/puppet/type/<name>.rb`: run by puppet-ruby's type recorder
    ///   (see [`RubyTypeReader`]);
    /// * `.../lib/puppet/provider/<type>/<name>.rb`: only its presence
    ///   matters: a type with providers gets Puppet's implicit `provider`
    ///   parameter;
    /// * `.../.resource_types/<name>.pp`: `puppet generate types` output,
    ///   read by [`crate::parse_generated_type`]; it wins over the Ruby file
    ///   of the same type;
    /// * every file given is also what the type files can `require`
    ///   (`lib/puppet_x/...` helpers; Puppet puts every module's `lib` on
    ///   the load path).
    ///
    /// Types are inserted in the order given (a later type of the same name
    /// replaces an earlier one). A file that cannot be read is not inserted;
    /// every problem is returned (and kept, see
    /// [`diagnostics`](Self::diagnostics)).
    ///
    /// ```
    /// use puppet_restypes::TypeDatabase;
    /// let mut db = TypeDatabase::core();
    /// let src = "Puppet::Type.newtype(:thing) do\n  ensurable\n  newparam(:name, :namevar => true)\n  newproperty(:size)\nend\n";
    /// let diags = db.load_modules([
    ///     ("mymod", "mymod/lib/puppet/type/thing.rb", src),
    ///     ("mymod", "mymod/lib/puppet/provider/thing/ruby.rb", ""),
    /// ]);
    /// assert!(diags.is_empty());
    /// assert!(db.check_parameter("thing", "provider").is_ok());
    /// assert!(db.get("thing").unwrap().has_ensure());
    /// ```
    pub fn load_modules<'a, I, M, P, S>(&mut self, files: I) -> Vec<Diagnostic>
    where
        I: IntoIterator<Item = (M, P, S)>,
        M: AsRef<str> + 'a,
        P: AsRef<str> + 'a,
        S: AsRef<str> + 'a,
    {
        let files: Vec<(M, P, S)> = files.into_iter().collect();
        let reader =
            RubyTypeReader::in_memory(files.iter().map(|(_, p, s)| (p.as_ref(), s.as_ref())));
        self.load_modules_with(&reader, files)
    }

    /// [`load_modules`](Self::load_modules) with a reader of one's own: the
    /// files type files `require` and the facts `Facter.value` answers come
    /// from it, not from `files`.
    pub fn load_modules_with<'a, I, M, P, S>(
        &mut self,
        reader: &RubyTypeReader,
        files: I,
    ) -> Vec<Diagnostic>
    where
        I: IntoIterator<Item = (M, P, S)>,
        M: AsRef<str> + 'a,
        P: AsRef<str> + 'a,
        S: AsRef<str> + 'a,
    {
        let mut diags = Vec::new();
        let mut with_providers: Vec<SmolStr> = Vec::new();
        let mut ruby: Vec<ResourceTypeInfo> = Vec::new();
        let mut generated: Vec<ResourceTypeInfo> = Vec::new();
        for (module, path, source) in files {
            let (module, path, source) = (module.as_ref(), path.as_ref(), source.as_ref());
            let norm = path.replace('\\', "/");
            if let Some(ty) = provider_type_of(&norm) {
                with_providers.push(SmolStr::new(ty));
            } else if is_type_file(&norm) {
                match reader.read(module, path, source) {
                    Ok((info, warnings)) => {
                        diags.extend(warnings);
                        ruby.push(info);
                    }
                    Err(d) => diags.push(d),
                }
            } else if is_generated_file(&norm) {
                match crate::generated::parse_generated_type_in(source, path, module) {
                    Ok(info) => generated.push(info),
                    Err(d) => diags.push(d),
                }
            }
        }
        for mut info in ruby {
            if with_providers.contains(&info.name) && !info.attributes.contains_key("provider") {
                info.attributes.insert(
                    SmolStr::new("provider"),
                    Attribute::new("provider", AttrKind::Parameter),
                );
            }
            self.insert(info);
        }
        for info in generated {
            self.insert(info);
        }
        self.diagnostics.extend(diags.iter().cloned());
        diags
    }

    /// Checks that `param` is accepted by resources of type `type_name`
    /// (parameters, properties, metaparameters and `name`), with Puppet's
    /// error text otherwise. An unknown type is reported as Puppet's
    /// resource statement does.
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// assert_eq!(db.check_parameter("notify", "export").unwrap_err(), "no parameter named 'export'");
    /// assert_eq!(db.check_parameter("foo", "x").unwrap_err(), "Unknown resource type: 'foo'");
    /// ```
    pub fn check_parameter(&self, type_name: &str, param: &str) -> Result<(), String> {
        let t = self
            .get(type_name)
            .ok_or_else(|| unknown_resource_type_message(type_name))?;
        t.check_parameter(param)
    }

    /// Puppet's `parse_title`: the key attribute values the first matching
    /// title pattern gives, in capture order. Errors with Puppet's message
    /// when no pattern matches (or the type is unknown).
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// let h = db.parse_title("file", "/tmp/x//").unwrap();
    /// assert_eq!(h["path"], "/tmp/x");
    /// ```
    pub fn parse_title(
        &self,
        type_name: &str,
        title: &str,
    ) -> Result<IndexMap<SmolStr, String>, String> {
        let t = self
            .get(type_name)
            .ok_or_else(|| unknown_resource_type_message(type_name))?;
        parse_title(t, title)
    }

    /// The uniqueness key of a resource, as Puppet computes it: for each key
    /// attribute sorted by name, the parameter value if given (looked up with
    /// `param`, which is also asked for `name` when that stands for the sole
    /// namevar), else the value the title gives. Two resources of one type
    /// with equal keys are duplicates.
    ///
    /// ```
    /// use puppet_restypes::{NamevarValue, TypeDatabase};
    /// let db = TypeDatabase::core();
    /// let key = db
    ///     .namevar_values("package", "a", |p| match p { "name" => Some("x"), "provider" => Some("apt"), _ => None })
    ///     .unwrap();
    /// assert_eq!(key[0], ("command".into(), NamevarValue::Missing));
    /// assert_eq!(key[1], ("name".into(), NamevarValue::Given("x")));
    /// let key = db.namevar_values("file", "/tmp/x/", |_| None::<&str>).unwrap();
    /// assert_eq!(key, [("path".into(), NamevarValue::FromTitle("/tmp/x".into()))]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn namevar_values<V, F>(
        &self,
        type_name: &str,
        title: &str,
        param: F,
    ) -> Result<Vec<(SmolStr, NamevarValue<V>)>, String>
    where
        F: Fn(&str) -> Option<V>,
    {
        let t = self
            .get(type_name)
            .ok_or_else(|| unknown_resource_type_message(type_name))?;
        let from_title = parse_title(t, title)?;
        Ok(t.namevar_values_parsed(title, &from_title, param))
    }
}

impl ResourceTypeInfo {
    /// [`TypeDatabase::check_parameter`] for this type.
    pub fn check_parameter(&self, param: &str) -> Result<(), String> {
        if self.accepts(param) || !self.complete {
            Ok(())
        } else {
            Err(no_parameter_message(param))
        }
    }

    /// [`TypeDatabase::parse_title`] for this type.
    pub fn parse_title(&self, title: &str) -> Result<IndexMap<SmolStr, String>, String> {
        parse_title(self, title)
    }

    /// [`TypeDatabase::namevar_values`] for this type, from what
    /// [`ResourceTypeInfo::parse_title`] gave for `title` (`from_title`): for a caller
    /// that has parsed the title already.
    ///
    /// ```
    /// use puppet_restypes::{NamevarValue, TypeDatabase};
    /// let db = TypeDatabase::core();
    /// let file = db.get("file").unwrap();
    /// let parsed = file.parse_title("/tmp/x/").unwrap();
    /// let key = file.namevar_values_parsed("/tmp/x/", &parsed, |_| None::<&str>);
    /// assert_eq!(key, db.namevar_values("file", "/tmp/x/", |_| None::<&str>).unwrap());
    /// ```
    pub fn namevar_values_parsed<V, F>(
        &self,
        title: &str,
        from_title: &IndexMap<SmolStr, String>,
        param: F,
    ) -> Vec<(SmolStr, NamevarValue<V>)>
    where
        F: Fn(&str) -> Option<V>,
    {
        let t = self;
        let single = t.single_namevar();
        let lookup = |attr: &str| -> Option<V> {
            param(attr).or_else(|| {
                if single == Some(attr) && attr != "name" {
                    param("name")
                } else {
                    None
                }
            })
        };
        // Puppet::Resource#uniqueness_key: the namevar (or `name`) defaults
        // to the title when neither a parameter nor a title pattern set it.
        let namevar = single.unwrap_or("name");
        let mut keys: Vec<&SmolStr> = t.namevars.iter().collect();
        keys.sort();
        let mut out = Vec::with_capacity(keys.len());
        for k in keys {
            let v = match lookup(k) {
                Some(v) => NamevarValue::Given(v),
                None => match from_title.get(k.as_str()) {
                    Some(s) => NamevarValue::FromTitle(s.clone()),
                    None if k == namevar || k == "name" => {
                        NamevarValue::FromTitle(title.to_string())
                    }
                    None => NamevarValue::Missing,
                },
            };
            out.push((k.clone(), v));
        }
        out
    }
}

fn parse_title(t: &ResourceTypeInfo, title: &str) -> Result<IndexMap<SmolStr, String>, String> {
    let mut h = IndexMap::new();
    if t.title_patterns.is_empty() {
        return Ok(h);
    }
    for p in &t.title_patterns {
        // `(.*)`, every built-in type's pattern but file's: the title (up to its first line
        // break unless `.` matches line breaks).
        if p.regex == "(.*)" && p.captures.len() == 1 && !p.extended {
            let whole = if p.multiline {
                title
            } else {
                title.split('\n').next().unwrap_or("")
            };
            h.insert(p.captures[0].clone(), whole.to_string());
            return Ok(h);
        }
        // `file`'s pattern, for a title without line breaks (the rest takes the regexp).
        if p.regex == FILE_TITLE_PATTERN && p.captures.len() == 1 && !p.extended {
            if let Some(path) = file_title_path(title) {
                h.insert(p.captures[0].clone(), path.to_string());
                return Ok(h);
            }
        }
        let flags = [(p.multiline, 'm'), (p.ignore_case, 'i'), (p.extended, 'x')]
            .iter()
            .filter_map(|(on, f)| on.then_some(*f))
            .collect::<String>();
        // A pattern the engine cannot compile or run (a backtracking limit) is
        // skipped: it cannot match.
        let Ok(re) = puppet_types::regexp::RubyPattern::new(&p.regex, &flags) else {
            continue;
        };
        if let Some(caps) = re.captures(title) {
            for (i, name) in p.captures.iter().enumerate() {
                if let Some(Some(c)) = caps.get(i + 1) {
                    h.insert(name.clone(), c.clone());
                }
            }
            return Ok(h);
        }
    }
    Err(format!(
        "No set of title patterns matched the title \"{title}\"."
    ))
}

/// `file`'s title pattern (Puppet's `lib/puppet/type/file.rb`): the path is the title less
/// its trailing slashes, but `/` stays `/` and `scheme:/` keeps its slash.
const FILE_TITLE_PATTERN: &str = "^(/|.+:/|.*[^/])/*\\Z";

/// What [`FILE_TITLE_PATTERN`] captures from a title with no line break (then `^` and `\Z`
/// match only at its ends and `.` matches any character); `None` for a title with a line
/// break, or the empty title (which the pattern does not match), left to the regexp.
/// The alternatives in order: only slashes gives `/`; a title ending in `:` and slashes
/// (with something before the `:`) keeps the first slash; else the title less its
/// trailing slashes.
fn file_title_path(title: &str) -> Option<&str> {
    if title.is_empty() || title.bytes().any(|b| b == b'\n' || b == b'\r') {
        return None;
    }
    let trimmed = title.trim_end_matches('/');
    if trimmed.is_empty() {
        return Some("/");
    }
    if trimmed.len() < title.len() && trimmed.len() >= 2 && trimmed.ends_with(':') {
        return Some(&title[..trimmed.len() + 1]);
    }
    Some(trimmed)
}

fn is_type_file(path: &str) -> bool {
    path.ends_with(".rb")
        && path
            .rsplit_once('/')
            .is_some_and(|(dir, _)| dir.ends_with("lib/puppet/type") || dir == "puppet/type")
}

fn is_generated_file(path: &str) -> bool {
    path.ends_with(".pp")
        && path
            .rsplit_once('/')
            .is_some_and(|(dir, _)| dir.ends_with(".resource_types"))
}

fn provider_type_of(path: &str) -> Option<&str> {
    if !path.ends_with(".rb") {
        return None;
    }
    let (dir, _) = path.rsplit_once('/')?;
    let (parent, ty) = dir.rsplit_once('/')?;
    if parent.ends_with("lib/puppet/provider") || parent == "puppet/provider" {
        Some(ty)
    } else {
        None
    }
}

/// Puppet's error for an unknown attribute of a resource:
/// `no parameter named 'x'` (the compiler appends the location and resource).
pub fn no_parameter_message(param: &str) -> String {
    format!("no parameter named '{param}'")
}

/// Puppet's error for a resource statement (`foo { ... }`) of an unknown
/// type: `Unknown resource type: 'foo'` (the name as written).
pub fn unknown_resource_type_message(name: &str) -> String {
    format!("Unknown resource type: '{name}'")
}

/// Puppet's error for a resource defaults statement or a reference
/// (`Foo { ... }`) of an unknown type: `Resource type not found: Foo`.
pub fn resource_type_not_found_message(name: &str) -> String {
    format!("Resource type not found: {name}")
}

/// Ruby's `String#inspect` for key values (puppet-types', the one of the workspace).
pub fn ruby_inspect_str(s: &str) -> String {
    puppet_types::ruby::inspect_str(s)
}

/// Puppet's error when a resource's uniqueness key is already taken by
/// another resource of the same type (`Puppet::Resource::Catalog#alias`).
///
/// `class_name` is the type as in the reference (`File`), `resource_ref` the
/// new resource (`File[b]`), `key` the uniqueness key values (`None` is
/// Ruby's `nil`); `at` / `existing_at` are the formatted locations of the new
/// and the existing resource (`(line: 1)`), if known.
///
/// ```
/// let m = puppet_restypes::alias_conflict_message("File", "File[b]", &[Some("/tmp/x")], None, None);
/// assert_eq!(m, r#"Cannot alias File[b] to ["/tmp/x"]; resource ["File", "/tmp/x"] already declared"#);
/// ```
pub fn alias_conflict_message(
    class_name: &str,
    resource_ref: &str,
    key: &[Option<&str>],
    at: Option<&str>,
    existing_at: Option<&str>,
) -> String {
    let items: Vec<String> = key
        .iter()
        .map(|k| k.map_or_else(|| "nil".to_string(), ruby_inspect_str))
        .collect();
    let key_s = format!("[{}]", items.join(", "));
    let mut newref = vec![ruby_inspect_str(class_name)];
    newref.extend(items);
    let newref_s = format!("[{}]", newref.join(", "));
    let existing = existing_at.map(|e| format!(" {e}")).unwrap_or_default();
    match at {
        Some(at) => format!(
            "Cannot alias {resource_ref} to {key_s} at {at}; resource {newref_s} already declared{existing}"
        ),
        None => format!(
            "Cannot alias {resource_ref} to {key_s}; resource {newref_s} already declared{existing}"
        ),
    }
}

#[cfg(test)]
mod file_title_tests {
    use super::{file_title_path, FILE_TITLE_PATTERN};
    use puppet_types::regexp::RubyPattern;

    /// The fast path gives what the regexp captures (with file's `m` option), for every
    /// title of up to five characters over an alphabet of the characters that matter, and
    /// leaves the titles it does not decide (line breaks, the empty title) to the regexp.
    #[test]
    fn fast_path_agrees_with_the_regexp() {
        let re = RubyPattern::new(FILE_TITLE_PATTERN, "m").expect("file's pattern compiles");
        let alphabet = ['/', ':', 'a', 'é', ' ', '.', '\n'];
        let mut titles = vec![String::new()];
        let mut all = Vec::new();
        for _ in 0..5 {
            let mut next = Vec::new();
            for t in &titles {
                for c in alphabet {
                    let mut u = t.clone();
                    u.push(c);
                    next.push(u);
                }
            }
            all.extend(next.iter().cloned());
            titles = next;
        }
        all.extend(
            [
                "",
                "/etc/foo//",
                "http://x/",
                "c:/",
                "C:\\dir\\",
                "a\r/",
                "/tmp/x\r\n",
            ]
            .map(String::from),
        );
        let mut decided = 0;
        for t in &all {
            let Some(fast) = file_title_path(t) else {
                assert!(t.is_empty() || t.contains(['\n', '\r']), "{t:?}");
                continue;
            };
            decided += 1;
            let caps = re
                .captures(t)
                .unwrap_or_else(|| panic!("no match for {t:?}"));
            assert_eq!(
                caps.get(1).cloned().flatten().as_deref(),
                Some(fast),
                "{t:?}"
            );
        }
        assert!(decided > 9_000);
    }
}
