//! Module type files (`lib/puppet/type/<name>.rb`) read by running them: puppet-ruby's
//! type recorder ([`puppet_ruby::typedsl`]) runs the file as Puppet would load it
//! (`newtype`, `newparam`, `newproperty`, `ensurable`, `newvalues`, `isnamevar`,
//! `feature`, `autorequire`, ..., with `require` of the modules' `lib/puppet_x` helpers and
//! the type's own `self.title_patterns` run), and [`RubyTypeReader`] turns the record into
//! the [`ResourceTypeInfo`] the compiler uses.
//!
//! This is not a reader of Ruby text: a file the interpreter cannot run (a construct or a
//! library it does not have, a method the DSL does not know, such as exec's `newcheck`)
//! is a [`Diagnostic`] naming the file, the line and the construct, never a guess.

use std::sync::Arc;

use indexmap::IndexMap;
use puppet_ruby::typedsl::{self, AttrValue, TypeRecord};
use puppet_ruby::{MemoryHost, RubyError, Sources};
use puppet_types::Value;
use smol_str::SmolStr;

use crate::model::{
    AttrKind, Attribute, Diagnostic, ResourceTypeInfo, Severity, TitlePattern, TypeSource,
};

/// Reads module type files with puppet-ruby: the files they `require` come from
/// `sources` (the modules' `lib/` directories), and `Facter.value` answers from the facts
/// given with [`with_facts`](Self::with_facts) (the host that reads the types; without
/// them a type that asks Facter while it loads is a diagnostic).
///
/// ```
/// use puppet_restypes::RubyTypeReader;
/// let src = "Puppet::Type.newtype(:thing) do\n  ensurable\n  newparam(:name, namevar: true)\n  newproperty(:size) { newvalues(:small, :big) }\n  autorequire(:file) { ['/etc/thing'] }\nend\n";
/// let (t, warnings) = RubyTypeReader::default().read("mymod", "lib/puppet/type/thing.rb", src).unwrap();
/// assert!(warnings.is_empty());
/// assert_eq!(t.namevars, ["name"]);
/// assert_eq!(t.properties().collect::<Vec<_>>(), ["ensure", "size"]);
/// assert_eq!(t.attributes["size"].values.as_deref().unwrap(), ["small", "big"]);
/// assert_eq!(t.autorequires, ["file"]);
/// assert_eq!(t.title_patterns[0].regex, "(.*)");
/// ```
#[derive(Debug, Clone)]
pub struct RubyTypeReader {
    sources: Arc<Sources>,
    facts: Option<Arc<IndexMap<SmolStr, Value>>>,
}

impl Default for RubyTypeReader {
    /// A reader with no files to `require` and no facts.
    fn default() -> Self {
        RubyTypeReader::new(Sources::empty())
    }
}

impl RubyTypeReader {
    /// A reader whose type files `require` from `sources`.
    pub fn new(sources: Arc<Sources>) -> Self {
        RubyTypeReader {
            sources,
            facts: None,
        }
    }

    /// A reader over files in memory, given as (path, text): the helpers that type files
    /// `require` (`lib/puppet_x/...`).
    pub fn in_memory<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut host = MemoryHost::default();
        for (path, text) in files {
            host.add(path, text);
        }
        RubyTypeReader::new(Sources::new(Arc::new(host)))
    }

    /// The facts `Facter.value` answers while type files load.
    pub fn with_facts(mut self, facts: Arc<IndexMap<SmolStr, Value>>) -> Self {
        self.facts = Some(facts);
        self
    }

    /// Runs the type file `path` of `module` and describes the type it defines (the one
    /// named as the file when it defines several), with warnings about what the description
    /// leaves out (title pattern captures that a proc transforms). `Err`: the file could
    /// not be run, or defines something the compiler cannot describe.
    pub fn read(
        &self,
        module: &str,
        path: &str,
        source: &str,
    ) -> Result<(ResourceTypeInfo, Vec<Diagnostic>), Diagnostic> {
        let records = typedsl::load_types_with(path, source, &self.sources, self.facts.as_ref())
            .map_err(|e| ruby_diagnostic(&e))?;
        let stem = path
            .rsplit(['/', '\\'])
            .next()
            .and_then(|f| f.strip_suffix(".rb"))
            .unwrap_or("");
        let rec = records
            .iter()
            .find(|r| r.name == stem)
            .or_else(|| records.first())
            .ok_or_else(|| {
                error(
                    path,
                    1,
                    "RESTYPE_NO_TYPE",
                    "the file defines no type".into(),
                )
            })?;
        info_of(rec, module, path)
    }
}

/// Reads one type file with no helpers and no facts (see [`RubyTypeReader`]).
///
/// ```
/// let src = "Puppet::Type.newtype(:t) do\n  newparam(:name) { isnamevar }\n  newparam(:path) { isnamevar }\n  def self.title_patterns\n    [[%r{^(.*?)/(.*)$}, [[:path], [:name]]], [/(.*)/m, [[:name]]]]\n  end\nend\n";
/// let t = puppet_restypes::parse_ruby_type(src, "lib/puppet/type/t.rb").unwrap();
/// assert_eq!(t.namevars, ["name", "path"]);
/// assert_eq!(t.title_patterns[0].captures, ["path", "name"]);
/// let err = puppet_restypes::parse_ruby_type(
///     "Puppet::Type.newtype(:x) do\n  newcheck(:y)\nend\n", "x.rb").unwrap_err();
/// assert_eq!(err.line, 2);
/// assert!(err.message.contains("newcheck"), "{}", err.message);
/// ```
pub fn parse_ruby_type(source: &str, path: &str) -> Result<ResourceTypeInfo, Diagnostic> {
    RubyTypeReader::default()
        .read("", path, source)
        .map(|(info, _)| info)
}

fn error(path: &str, line: u32, code: &str, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        code: SmolStr::new(code),
        path: path.to_string(),
        line,
        message,
    }
}

fn ruby_diagnostic(e: &RubyError) -> Diagnostic {
    let (file, line, _) = e.location();
    error(file, line, e.code(), e.message())
}

/// The compiler's description of a recorded type.
fn info_of(
    rec: &TypeRecord,
    module: &str,
    path: &str,
) -> Result<(ResourceTypeInfo, Vec<Diagnostic>), Diagnostic> {
    let mut warnings = Vec::new();
    let source = TypeSource::RubySource {
        module: SmolStr::new(module),
        path: path.to_string(),
    };
    let mut info = ResourceTypeInfo::new(&rec.name, source);
    for a in &rec.attrs {
        let kind = match a.kind {
            typedsl::AttrKind::Param => AttrKind::Parameter,
            typedsl::AttrKind::Property => AttrKind::Property,
            typedsl::AttrKind::MetaParam => {
                return Err(error(
                    path,
                    0,
                    "RESTYPE_METAPARAM",
                    format!(
                        "type {} defines the metaparameter `{}` (newmetaparam): metaparameters of module types are not supported",
                        rec.name, a.name
                    ),
                ))
            }
        };
        let mut attr = Attribute::new(&a.name, kind);
        attr.is_namevar = a.namevar;
        let regex = a.values.iter().any(|v| matches!(v, AttrValue::Regex(_)));
        if !regex && !a.values.is_empty() {
            attr.values = Some(
                a.values
                    .iter()
                    .filter_map(|v| match v {
                        AttrValue::Name(n) => Some(SmolStr::new(n)),
                        AttrValue::Regex(_) => None,
                    })
                    .collect(),
            );
        }
        info.attributes.insert(SmolStr::new(&a.name), attr);
    }
    info.recompute_namevars();
    if rec.has_title_patterns {
        for p in &rec.title_patterns {
            for (c, proc) in p.captures.iter().zip(&p.procs) {
                if *proc {
                    warnings.push(Diagnostic {
                        severity: Severity::Warning,
                        code: SmolStr::new("RESTYPE_TITLE_PROC"),
                        path: path.to_string(),
                        line: 0,
                        message: format!(
                            "title pattern capture for `{c}` of type {} is transformed by a proc: values from titles are taken untransformed",
                            rec.name
                        ),
                    });
                }
            }
            info.title_patterns.push(TitlePattern {
                regex: SmolStr::new(&p.source),
                multiline: p.flags.contains('m'),
                ignore_case: p.flags.contains('i'),
                extended: p.flags.contains('x'),
                captures: p.captures.iter().map(SmolStr::new).collect(),
            });
        }
    } else if let Some(nv) = info.single_namevar() {
        // Puppet's default `title_patterns` for one key attribute.
        info.title_patterns = vec![TitlePattern::default_for(nv)];
    }
    info.isomorphic = rec.isomorphic;
    info.features = rec.features.iter().map(|f| SmolStr::new(&f.name)).collect();
    for (kind, target) in &rec.auto_relations {
        let list = match kind.as_str() {
            "autorequire" => &mut info.autorequires,
            "autobefore" => &mut info.autobefores,
            "autosubscribe" => &mut info.autosubscribes,
            _ => &mut info.autonotifies,
        };
        if !list.iter().any(|t| t == target) {
            list.push(SmolStr::new(target));
        }
    }
    Ok((info, warnings))
}
