//! Puppet's Regexp value: the source text as Puppet keeps it plus a compiled matcher.
//!
//! Puppet runs on Ruby regexps (Onigmo). We compile with regex-automata's meta engine, or
//! `fancy-regex` (pure Rust, supports look-around and back references) for the patterns that
//! need it (`Engine`), after a translation of Ruby's syntax ([`compile_ruby`], the one
//! translation and cache of the workspace; the translation itself is `crate::onigmo`):
//! `^`/`$` always match at line boundaries in Ruby, so patterns get a leading `(?m)` (Ruby's
//! `^` does not match after a newline that ends the text: the exact translation guards it
//! with a look-ahead, and the automata run the plain one on the texts where both agree);
//! Ruby's `m` flag (dot matches newline) becomes Rust's `s`; classes, escapes, intervals,
//! options and groups are written as Onigmo reads them. What the engines cannot match as
//! Ruby does (the absent operator, `\X`, subexpression calls, a group name used twice) is
//! refused: the pattern produces a [`TypeError::BadRegexp`] naming it. This module also has
//! Ruby's match iteration ([`RubyPattern::all_matches`]), `split` ([`ruby_split`]) and
//! replacement escapes ([`ruby_replacement`]); it does not implement `=~` match variables.

use crate::error::TypeError;
use smol_str::SmolStr;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A regular expression with its Puppet source text. The pattern is checked when made and
/// compiled the first time it is matched (compiling costs far more than checking, and many
/// patterns of a catalog's code are never matched); a compiled pattern is shared by every
/// copy of the same source in the process.
#[derive(Clone)]
pub struct Regexp {
    source: SmolStr,
    compiled: Arc<Matcher>,
}

/// The translated pattern and, once needed, its compiled forms (`Err` when the engine
/// refuses a pattern that parsed, for example one over its size limit: as a Puppet `Regexp`
/// it never matches).
struct Matcher {
    /// The exact translation (fancy-regex's, [`RubyPattern::regex`]).
    translated: String,
    /// For a pattern with a `^`: the translation with Rust's `^`, which the automata run;
    /// it matches as Ruby's on every text that does not end in a newline
    /// ([`Matcher::exact_only`]).
    plain: Option<String>,
    /// What Puppet's matching uses ([`Engine`]).
    engine: std::sync::OnceLock<Result<Engine, String>>,
    /// For patterns whose `\Z` only closing groups follow: the translation that answers
    /// "is there a match" without a look-ahead ([`translate_for_test`]), and its engine.
    /// A look-ahead needs fancy-regex's backtracking engine (about 5,000 instructions a
    /// match for getvar's name pattern); without one the pattern runs on the automata.
    test_translated: Option<String>,
    test_engine: std::sync::OnceLock<Result<Engine, String>>,
    /// For patterns ending in a `\Z` outside any group ([`translate_for_captures`]): the
    /// translation that consumes the final newline into a last group of its own, which
    /// [`Matcher::engine`] then drops. It gives the same groups without a look-ahead.
    captures_translated: Option<String>,
    /// The fancy-regex form, for callers that want its API ([`RubyPattern::regex`]).
    fancy: std::sync::OnceLock<Result<Arc<fancy_regex::Regex>, String>>,
}

/// A compiled pattern. Most patterns (no look-around, no back reference) run on
/// regex-automata's meta engine built without literal prefilters and full DFAs: building
/// those costs several times the rest of a compile (50 patterns of a catalog: 37M
/// instructions through fancy-regex, 9M this way), and the short strings of a catalog
/// match as fast without them (for those, not even a lazy DFA: [`Automata`]). The others
/// go through fancy-regex, which hands the same engine the parts it can.
enum Engine {
    Automata(Automata),
    /// A [`translate_for_captures`] pattern: its last group is the newline a `\Z` would
    /// have looked at, not one of the pattern's groups.
    AutomataEndGroup(Automata),
    Fancy(Arc<fancy_regex::Regex>),
}

/// A pattern on the meta engine, built twice over: for ASCII text (nearly all of a
/// catalog's strings) from the pattern with every class cut down to its ASCII members
/// ([`ascii_only`]), which gives the same matches and groups there; for other text, the
/// first time one comes, from the pattern as written. A class with members above ASCII
/// (`.`, `[^/]`, `\W`) costs the meta engine's compiler a 400 KB table to turn into UTF-8
/// automata (about 100 fresh pages and 100,000 instructions a pattern); the ASCII build
/// needs none of it.
///
/// The ASCII build for short texts (up to [`SHORT_TEXT`] bytes, nearly all of a catalog's)
/// has no lazy DFA: it runs the bounded backtracker (or the PikeVM), which answers alike
/// (every engine of the meta regex finds the same leftmost-first match and groups) and
/// needs neither the reverse NFA nor the DFA's cache, half the cost of a build. Longer
/// ASCII texts get, the first time one comes, the build with the lazy DFA, whose time is
/// linear in the text.
struct Automata {
    ascii: regex_automata::meta::Regex,
    /// The ASCII build with the lazy DFA, for long texts (made on first use).
    ascii_long: std::sync::OnceLock<Option<regex_automata::meta::Regex>>,
    /// The pattern as parsed, for the full build.
    hir: regex_syntax::hir::Hir,
    /// The full build, or fancy-regex's should the meta engine refuse it (its size limit).
    full: std::sync::OnceLock<Result<FullEngine, String>>,
    /// The pattern's text, for that fallback.
    pattern: String,
}

/// The longest text the ASCII build without a lazy DFA takes ([`Automata`]).
const SHORT_TEXT: usize = 512;

enum FullEngine {
    Automata(regex_automata::meta::Regex),
    Fancy(Arc<fancy_regex::Regex>),
}

fn meta_config() -> regex_automata::meta::Config {
    regex_automata::meta::Config::new()
        .auto_prefilter(false)
        .dfa(false)
        .onepass(false)
}

impl Automata {
    /// The parse of `pattern` and its ASCII build; `None` when the meta engine cannot take
    /// it (look-around, back references: a parse error here).
    fn build(pattern: &str) -> Option<Automata> {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(pattern)
            .ok()?;
        // Most patterns have a class above ASCII (`.`, `[^/]`); the others are their own
        // ASCII form.
        let cut;
        let ascii_hir = if is_ascii_only(&hir) {
            &hir
        } else {
            cut = ascii_only(&hir);
            &cut
        };
        let ascii = regex_automata::meta::Builder::new()
            .configure(meta_config().hybrid(false))
            .build_from_hir(ascii_hir)
            .ok()?;
        Some(Automata {
            ascii,
            ascii_long: std::sync::OnceLock::new(),
            hir,
            full: std::sync::OnceLock::new(),
            pattern: pattern.to_string(),
        })
    }

    /// The ASCII build for `text` (ASCII): the one without a lazy DFA for a short text.
    fn ascii_for(&self, text: &str) -> &regex_automata::meta::Regex {
        if text.len() <= SHORT_TEXT {
            return &self.ascii;
        }
        self.ascii_long
            .get_or_init(|| {
                regex_automata::meta::Builder::new()
                    .configure(meta_config())
                    .build_from_hir(&ascii_only(&self.hir))
                    .ok()
            })
            .as_ref()
            .unwrap_or(&self.ascii)
    }

    /// The full build (made on first use).
    fn full(&self) -> Option<&FullEngine> {
        self.full
            .get_or_init(|| {
                match regex_automata::meta::Builder::new()
                    .configure(meta_config())
                    .build_from_hir(&self.hir)
                {
                    Ok(re) => Ok(FullEngine::Automata(re)),
                    Err(_) => build_fancy(&self.pattern).map(FullEngine::Fancy),
                }
            })
            .as_ref()
            .ok()
    }
}

/// Whether [`ascii_only`] leaves `hir` as it is: no class has a member above ASCII and no
/// word boundary is a Unicode one.
fn is_ascii_only(hir: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind, Look};
    match hir.kind() {
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(Class::Bytes(_)) => true,
        HirKind::Class(Class::Unicode(c)) => c.ranges().last().is_none_or(|r| r.end() <= '\x7f'),
        HirKind::Look(look) => !matches!(
            look,
            Look::WordUnicode
                | Look::WordUnicodeNegate
                | Look::WordStartUnicode
                | Look::WordEndUnicode
                | Look::WordStartHalfUnicode
                | Look::WordEndHalfUnicode
        ),
        HirKind::Repetition(r) => is_ascii_only(&r.sub),
        HirKind::Capture(c) => is_ascii_only(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().all(is_ascii_only),
    }
}

/// `hir` with each class reduced to its ASCII members and each Unicode word boundary made
/// an ASCII one. On an ASCII haystack it matches exactly where `hir` does, with the same
/// groups: every class matches one character, which there is ASCII; a literal above ASCII
/// never matches in either; case-insensitive letters are already classes of their case
/// variants (the Kelvin sign of `(?i)k` goes, `K` and `k` stay); and an ASCII character is
/// a Unicode word character exactly when it is an ASCII one.
fn ascii_only(hir: &regex_syntax::hir::Hir) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};
    use regex_syntax::hir::{Look, Repetition};
    match hir.kind() {
        HirKind::Empty | HirKind::Literal(_) => hir.clone(),
        HirKind::Class(Class::Unicode(c)) => {
            let mut c = c.clone();
            c.intersect(&ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7f')]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Class(Class::Bytes(_)) => hir.clone(),
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => *other,
        }),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(ascii_only(&r.sub)),
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            index: c.index,
            name: c.name.clone(),
            sub: Box::new(ascii_only(&c.sub)),
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(ascii_only).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(ascii_only).collect()),
    }
}

fn build_fancy(translated: &str) -> Result<Arc<fancy_regex::Regex>, String> {
    fancy_regex::RegexBuilder::new(translated)
        .backtrack_limit(1_000_000)
        // No full DFA: building one costs 50-250 µs per pattern.
        .delegate_dfa_size_limit(0)
        .build()
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

fn build_engine(translated: &str) -> Result<Engine, String> {
    if let Some(re) = Automata::build(translated) {
        return Ok(Engine::Automata(re));
    }
    // Negative look-aheads that can never fail (`[0-9](?!\d)[.]`) are left out.
    if let Some(re) = crate::lookahead::drop_redundant_lookaheads(translated)
        .and_then(|plain| Automata::build(&plain))
    {
        return Ok(Engine::Automata(re));
    }
    // Look-around, back references, atomic groups: fancy-regex's.
    build_fancy(translated).map(Engine::Fancy)
}

impl Engine {
    /// Whether it matches somewhere; a match over fancy-regex's backtracking limit counts
    /// as none.
    fn is_match(&self, text: &str) -> bool {
        match self {
            Engine::Automata(a) | Engine::AutomataEndGroup(a) => {
                if text.is_ascii() {
                    return a.ascii_for(text).is_match(text);
                }
                match a.full() {
                    Some(FullEngine::Automata(re)) => re.is_match(text),
                    Some(FullEngine::Fancy(re)) => re.is_match(text).unwrap_or(false),
                    None => false,
                }
            }
            Engine::Fancy(re) => re.is_match(text).unwrap_or(false),
        }
    }

    /// The groups of the first match (group 0 the whole match), `None` for no match.
    fn captures(&self, text: &str) -> Option<Vec<Option<String>>> {
        match self {
            Engine::Automata(a) | Engine::AutomataEndGroup(a) => {
                let re = if text.is_ascii() {
                    a.ascii_for(text)
                } else {
                    match a.full()? {
                        FullEngine::Automata(re) => re,
                        FullEngine::Fancy(re) => {
                            return fancy_captures(
                                re,
                                text,
                                matches!(self, Engine::AutomataEndGroup(_)),
                            )
                        }
                    }
                };
                let mut caps = re.create_captures();
                re.captures(text, &mut caps);
                if !caps.is_match() {
                    return None;
                }
                let mut groups: Vec<Option<regex_automata::Span>> =
                    (0..caps.group_len()).map(|i| caps.get_group(i)).collect();
                if let Engine::AutomataEndGroup(_) = self {
                    // The whole match ends where the `\Z` looked.
                    if let (Some(Some(end)), Some(Some(whole))) = (groups.pop(), groups.first_mut())
                    {
                        whole.end = end.start;
                    }
                }
                Some(
                    groups
                        .into_iter()
                        .map(|g| g.map(|span| text[span].to_string()))
                        .collect(),
                )
            }
            Engine::Fancy(re) => fancy_captures(re, text, false),
        }
    }
}

/// The groups of fancy-regex's first match; with `end_group`, the last group is the
/// newline of a `\Z` ([`Engine::AutomataEndGroup`]): the whole match ends where it starts.
fn fancy_captures(
    re: &fancy_regex::Regex,
    text: &str,
    end_group: bool,
) -> Option<Vec<Option<String>>> {
    let caps = re.captures(text).ok()??;
    let mut groups: Vec<Option<(usize, usize)>> = (0..caps.len())
        .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
        .collect();
    if end_group {
        if let (Some(Some(end)), Some(Some(whole))) = (groups.pop(), groups.first_mut()) {
            whole.1 = end.0;
        }
    }
    Some(
        groups
            .into_iter()
            .map(|g| g.map(|(s, e)| text[s..e].to_string()))
            .collect(),
    )
}

impl Matcher {
    fn compiled(&self) -> &Result<Arc<fancy_regex::Regex>, String> {
        self.fancy.get_or_init(|| build_fancy(&self.translated))
    }

    /// What the automata run: the translation with Rust's `^` when it differs.
    fn automata_source(&self) -> &str {
        self.plain.as_deref().unwrap_or(&self.translated)
    }

    /// Whether `text` needs the exact translation: it ends in a newline, after which
    /// Rust's `^` matches and Ruby's does not.
    fn exact_only(&self, text: &str) -> bool {
        self.plain.is_some() && text.ends_with('\n')
    }

    /// The engine that finds the first match and its groups.
    fn engine(&self) -> Option<&Engine> {
        self.engine
            .get_or_init(|| match &self.captures_translated {
                Some(t) => build_engine(t).map(|e| match e {
                    Engine::Automata(re) => Engine::AutomataEndGroup(re),
                    // Not reached (the translation has no look-around of its own), but
                    // the full pattern is always right.
                    Engine::Fancy(_) | Engine::AutomataEndGroup(_) => {
                        build_engine(self.automata_source()).unwrap_or(e)
                    }
                }),
                None => build_engine(self.automata_source()),
            })
            .as_ref()
            .ok()
    }

    /// The groups of the first match in `text` (see [`RubyPattern::captures`]).
    fn captures(&self, text: &str) -> Option<Vec<Option<String>>> {
        if self.exact_only(text) {
            return fancy_captures(self.compiled().as_ref().ok()?, text, false);
        }
        self.engine()?.captures(text)
    }

    /// The engine that tells whether the pattern matches somewhere (not where).
    fn test_engine(&self) -> Option<&Engine> {
        match &self.test_translated {
            Some(t) => self
                .test_engine
                .get_or_init(|| build_engine(t))
                .as_ref()
                .ok(),
            None => self.engine(),
        }
    }
}

impl Regexp {
    /// Compiles `source` (the text between the slashes of a Puppet regexp literal).
    ///
    /// ```
    /// use puppet_types::Regexp;
    /// let r = Regexp::new("^a.c$").unwrap();
    /// assert!(r.is_match("xx\nabc"));
    /// assert_eq!(r.to_string(), "/^a.c$/");
    /// // Ruby's syntax: \h, \Z, octal escapes.
    /// let unixpath = Regexp::new(r"\A\/([^\n\/\0]+\/*)*\z").unwrap();
    /// assert!(unixpath.is_match("/etc/motd"));
    /// assert!(!unixpath.is_match("/etc/mo\0td"));
    /// ```
    pub fn new(source: &str) -> Result<Regexp, TypeError> {
        let compiled = matcher(source, "").map_err(|message| TypeError::BadRegexp {
            source_text: source.to_string(),
            message,
        })?;
        Ok(Regexp {
            source: SmolStr::new(source),
            compiled,
        })
    }

    /// The source text, without delimiters.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether Ruby gives this regexp its `FIXEDENCODING` option, the only option a Puppet
    /// regexp literal can have: when the source holds a character outside ASCII, a `\u`
    /// escape above U+007F or a `\p{...}` property. Puppet prints such a regexp with its
    /// options group: `/(?-mix:é)/`.
    ///
    /// ```
    /// use puppet_types::Regexp;
    /// assert!(Regexp::new("é").unwrap().fixed_encoding());
    /// assert!(Regexp::new(r"\u00e9").unwrap().fixed_encoding());
    /// assert!(!Regexp::new(r"\u0041").unwrap().fixed_encoding());
    /// assert_eq!(Regexp::new("a/é").unwrap().to_string(), r"/(?-mix:a\/é)/");
    /// assert_eq!(Regexp::new("a/é").unwrap().to_ruby_s(), "(?-imx:a/é)");
    /// assert_eq!(Regexp::new("a/b").unwrap().to_ruby_s(), "a/b");
    /// ```
    pub fn fixed_encoding(&self) -> bool {
        ruby_fixed_encoding(&self.source)
    }

    /// The text of Puppet's `PRegexpType.regexp_to_s`: the source, inside an options group
    /// `(?-imx:...)` when Ruby gave the regexp an option. What `String()` and the rich-data
    /// form of a catalog (`__pvalue`) hold.
    pub fn to_ruby_s(&self) -> String {
        if self.fixed_encoding() {
            format!("(?-imx:{})", self.source)
        } else {
            self.source.to_string()
        }
    }

    /// True when the regexp matches somewhere in `text`. A match that exceeds the backtracking
    /// limit counts as no match.
    pub fn is_match(&self, text: &str) -> bool {
        if self.compiled.exact_only(text) {
            return self
                .compiled
                .compiled()
                .as_ref()
                .is_ok_and(|re| re.is_match(text).unwrap_or(false));
        }
        self.compiled
            .test_engine()
            .is_some_and(|e| e.is_match(text))
    }

    /// The captures of the first match: group 0 is the whole match; unmatched groups are `None`.
    pub fn captures(&self, text: &str) -> Option<Vec<Option<String>>> {
        self.compiled.captures(text)
    }
}

/// A cache key: the source and Ruby's options as bits (`i` 1, `m` 2, `x` 4).
#[derive(PartialEq, Eq, Hash)]
struct Key {
    source: SmolStr,
    flags: u8,
}

/// A [`Key`] borrowed from the caller: looking up allocates nothing.
#[derive(Hash)]
struct KeyRef<'a> {
    source: &'a str,
    flags: u8,
}

impl indexmap::Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.flags == key.flags && self.source == key.source.as_str()
    }
}

type Cache = std::sync::Mutex<indexmap::IndexMap<Key, Arc<Matcher>, rustc_hash::FxBuildHasher>>;

/// Regexps by (source, options), shared by the whole process (compiling is pure and
/// costly). The one regexp cache of the workspace.
fn cache() -> &'static Cache {
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The cached matcher of a Ruby regexp with options `flags` (normalised to `imx`): the
/// pattern is translated and its syntax checked, not yet compiled.
fn matcher(source: &str, flags: &str) -> Result<Arc<Matcher>, String> {
    let bits = [('i', 1u8), ('m', 2), ('x', 4)]
        .iter()
        .filter(|(f, _)| flags.contains(*f))
        .fold(0u8, |acc, (_, b)| acc | b);
    let lookup = KeyRef {
        source,
        flags: bits,
    };
    if let Some(m) = cache().lock().ok().and_then(|c| c.get(&lookup).cloned()) {
        return Ok(m);
    }
    let flags: String = ['i', 'm', 'x']
        .iter()
        .filter(|f| flags.contains(**f))
        .collect();
    let key = (
        Key {
            source: SmolStr::new(source),
            flags: bits,
        },
        flags,
    );
    let translated = crate::onigmo::translate(source, &key.1, false, true)?;
    // Only a `^` translates differently (most patterns are translated once).
    let plain = source
        .contains('^')
        .then(|| translate(source, &key.1, false, false))
        .filter(|p| *p != translated);
    let automata_source = plain.as_deref().unwrap_or(&translated);
    // The syntax check (the guarded form parses exactly when the plain one does: it puts a
    // group of assertions where a `^` was).
    fancy_regex::Expr::parse_tree(automata_source).map_err(|e| e.to_string())?;
    let test_translated = translate_for_test(source, &key.1, automata_source);
    let captures_translated = translate_for_captures(source, &key.1);
    let m = Arc::new(Matcher {
        translated,
        plain,
        engine: std::sync::OnceLock::new(),
        test_translated,
        test_engine: std::sync::OnceLock::new(),
        captures_translated,
        fancy: std::sync::OnceLock::new(),
    });
    if let Ok(mut c) = cache().lock() {
        if c.len() >= 4096 {
            c.clear();
        }
        c.insert(key.0, m.clone());
    }
    Ok(m)
}

/// A Ruby regexp whose syntax is checked and translation cached, compiled the first time it
/// matches (through the one cache): code that only builds regexps (a resource type's
/// `newvalues(/.../)` read for its source) does not pay for compiling them.
///
/// ```
/// let p = puppet_types::regexp::RubyPattern::new("^a.c$", "m").unwrap();
/// assert!(p.regex().unwrap().is_match("x\na\nc").unwrap());
/// assert!(puppet_types::regexp::RubyPattern::new("(", "").is_err());
/// ```
#[derive(Clone)]
pub struct RubyPattern(Arc<Matcher>);

impl std::fmt::Debug for RubyPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RubyPattern({:?})", self.0.translated)
    }
}

impl RubyPattern {
    /// Checks and translates `source` with Ruby's options `flags` (`i`, `m`, `x`).
    pub fn new(source: &str, flags: &str) -> Result<RubyPattern, String> {
        matcher(source, flags).map(RubyPattern)
    }

    /// The groups of the first match in `text` (group 0 the whole match, `None` for a group
    /// that did not take part), or `None` when it does not match or the engine refuses the
    /// pattern. Cheaper to compile than [`RubyPattern::regex`] for most patterns (`Engine`).
    ///
    /// ```
    /// let p = puppet_types::regexp::RubyPattern::new(r"^(\w+)(:(\d+))?$", "").unwrap();
    /// assert_eq!(p.captures("web:80").unwrap()[3].as_deref(), Some("80"));
    /// assert_eq!(p.captures("web").unwrap()[2], None);
    /// assert!(p.captures("a b").is_none());
    /// ```
    pub fn captures(&self, text: &str) -> Option<Vec<Option<String>>> {
        self.0.captures(text)
    }

    /// Every match in `text` that fancy-regex's `captures_iter` would give, in order (its
    /// start, end and groups, group 0 the whole match; the search stops after the first
    /// `limit + 1`), found on the automata the pattern runs on ([`Engine`]), which cost
    /// far less to build. `None` when it does not run on them (look-around, a final `\Z`,
    /// a pattern the engines refuse, non-ASCII text the full build sends to fancy-regex, a
    /// `^` pattern on a text that ends in a newline):
    /// then ask [`RubyPattern::regex`]. The matches are Ruby's ([`RubyPattern::all_matches`]):
    /// each search starts where the previous match ended, or one character further after
    /// an empty match ([`next_search`]).
    ///
    /// ```
    /// let p = puppet_types::regexp::RubyPattern::new(r"(\d)-", "").unwrap();
    /// let m = p.automata_matches("a1-2-b", 10).unwrap();
    /// assert_eq!(m[1], (3, 5, vec![Some("2-".to_string()), Some("2".to_string())]));
    /// assert!(puppet_types::regexp::RubyPattern::new(r"a(?=b)", "").unwrap()
    ///     .automata_matches("ab", 10).is_none());
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn automata_matches(
        &self,
        text: &str,
        limit: usize,
    ) -> Option<Vec<(usize, usize, Vec<Option<String>>)>> {
        if self.0.exact_only(text) {
            return None;
        }
        let Engine::Automata(a) = self.0.engine()? else {
            return None;
        };
        let re = match text.is_ascii() {
            true => a.ascii_for(text),
            false => match a.full()? {
                FullEngine::Automata(re) => re,
                FullEngine::Fancy(_) => return None,
            },
        };
        let mut out = Vec::new();
        let mut caps = re.create_captures();
        let mut pos = 0;
        while pos <= text.len() {
            re.search_captures(&regex_automata::Input::new(text).range(pos..), &mut caps);
            let Some(m) = caps.get_match() else { break };
            let groups = (0..caps.group_len())
                .map(|i| caps.get_group(i).map(|span| text[span].to_string()))
                .collect();
            out.push((m.start(), m.end(), groups));
            if out.len() > limit {
                break;
            }
            pos = next_search(text, m.start(), m.end());
        }
        Some(out)
    }

    /// The name of each group (index 1 on), `None` for a group without one.
    pub fn group_names(&self) -> Vec<Option<String>> {
        match self.regex() {
            Ok(re) => re
                .capture_names()
                .skip(1)
                .map(|n| n.map(str::to_string))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The byte spans of the groups of the first match (group 0 the whole match), `None`
    /// when there is none or the engine refuses the pattern.
    #[allow(clippy::type_complexity)]
    pub fn first_match(&self, text: &str) -> Option<Vec<Option<(usize, usize)>>> {
        let re = self.regex().ok()?;
        let caps = re.captures(text).ok()??;
        Some(
            (0..caps.len())
                .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
                .collect(),
        )
    }

    /// Ruby's `String#split` by this pattern ([`ruby_split`]); `Err` when the engine
    /// refuses the pattern.
    pub fn split(&self, text: &str) -> Result<Vec<String>, String> {
        let re = self.regex()?;
        Ok(ruby_split(text, |pos| {
            let caps = re.captures_from_pos(text, pos).ok()??;
            Some(
                (0..caps.len())
                    .map(|i| caps.get(i).map(|m| (m.start(), m.end())))
                    .collect(),
            )
        }))
    }

    /// Every match as Ruby's `scan` and `gsub` find them (the byte spans of each match's
    /// groups; at most `limit + 1` matches): each search starts where the previous match
    /// ended (`\G` anchors there), or one character further after an empty match, so an
    /// empty match right after a non-empty one counts (`"aaa".scan(/a*/)` is
    /// `["aaa", ""]`).
    ///
    /// ```
    /// let p = puppet_types::regexp::RubyPattern::new("a*", "").unwrap();
    /// assert_eq!(p.all_matches("aab", 10).len(), 3);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn all_matches(&self, text: &str, limit: usize) -> Vec<Vec<Option<(usize, usize)>>> {
        let mut out = Vec::new();
        let Ok(re) = self.regex() else {
            return out;
        };
        let mut pos = 0;
        while pos <= text.len() {
            let Ok(Some(caps)) = re.captures_from_pos(text, pos) else {
                break;
            };
            let Some(m) = caps.get(0) else { break };
            out.push(
                (0..caps.len())
                    .map(|i| caps.get(i).map(|g| (g.start(), g.end())))
                    .collect(),
            );
            if out.len() > limit {
                break;
            }
            pos = next_search(text, m.start(), m.end());
        }
        out
    }

    /// The compiled fancy-regex (compiled now if it was not yet), for match positions and
    /// every match; `Err` with the engine's message when it refuses the pattern.
    pub fn regex(&self) -> Result<&Arc<fancy_regex::Regex>, String> {
        self.0.compiled().as_ref().map_err(Clone::clone)
    }
}

/// Ruby's replacement text (`sub`, `gsub`, Puppet's `regsubst`) for one match: `repl` with
/// `\\0`/`\\&` the whole match, `\\1`..`\\9` a group (nothing when the pattern has named
/// groups: Ruby then numbers none), `\\k<name>` a named group, `` \\` `` the text before
/// the match, `\\'` the text after it and `\\\\` a backslash; any other backslash stays.
/// `groups` are the match's (group 0 the whole), `names` the pattern's group names
/// ([`RubyPattern::group_names`]). `Err` for a name no group has (Ruby's `IndexError`).
///
/// ```
/// use puppet_types::regexp::ruby_replacement;
/// let groups = [Some("ab"), Some("a")];
/// assert_eq!(ruby_replacement(r"<\1|\0|\q>", &groups, "", "", &[None]).unwrap(), r"<a|ab|\q>");
/// let named = [Some("a".to_string())];
/// assert_eq!(ruby_replacement(r"\k<a>\1", &groups, "", "", &named).unwrap(), "a");
/// ```
pub fn ruby_replacement(
    repl: &str,
    groups: &[Option<&str>],
    pre: &str,
    post: &str,
    names: &[Option<String>],
) -> Result<String, String> {
    let named = names.iter().any(Option::is_some);
    let group = |i: usize| groups.get(i).copied().flatten().unwrap_or("");
    let mut out = String::with_capacity(repl.len());
    let mut cs = repl.char_indices().peekable();
    while let Some((_, c)) = cs.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&(at, n)) = cs.peek() else {
            out.push('\\');
            break;
        };
        match n {
            '0' | '&' => out.push_str(group(0)),
            '1'..='9' => {
                if !named {
                    out.push_str(group(n as usize - '0' as usize));
                }
            }
            '`' => out.push_str(pre),
            '\'' => out.push_str(post),
            '\\' => out.push('\\'),
            'k' if repl[at + 1..].starts_with('<') => {
                let Some(close) = repl[at + 2..].find('>') else {
                    out.push_str("\\k");
                    cs.next();
                    continue;
                };
                let name = &repl[at + 2..at + 2 + close];
                let index = names
                    .iter()
                    .position(|n| n.as_deref() == Some(name))
                    .ok_or_else(|| format!("undefined group name reference: {name}"))?;
                out.push_str(group(index + 1));
                // Past the name and its `>`.
                while cs.next_if(|&(i, _)| i < at + 2 + close + 1).is_some() {}
                continue;
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
        cs.next();
    }
    Ok(out)
}

/// Ruby's `String#split` by a pattern (no limit): the texts between matches and the groups
/// each match sets; an empty match splits between characters but not at the start, and
/// trailing empty texts are dropped. `matches_from(pos)` is the pattern's first match at or
/// after byte `pos` (its groups' spans, group 0 the whole).
pub fn ruby_split(
    text: &str,
    mut matches_from: impl FnMut(usize) -> Option<Vec<Option<(usize, usize)>>>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let char_len = |at: usize| text[at..].chars().next().map_or(1, char::len_utf8);
    let (mut beg, mut start, mut last_null) = (0usize, 0usize, false);
    while start <= text.len() {
        let Some(groups) = matches_from(start) else {
            break;
        };
        let Some(Some((m_start, m_end))) = groups.first().copied() else {
            break;
        };
        if m_start == start && m_start == m_end {
            if last_null {
                out.push(text[beg..beg + char_len(beg)].to_string());
                beg = start;
            } else {
                start += if start == text.len() {
                    1
                } else {
                    char_len(start)
                };
                last_null = true;
                continue;
            }
        } else {
            out.push(text[beg..m_start].to_string());
            beg = m_end;
            start = m_end;
        }
        last_null = false;
        out.extend(
            groups[1..]
                .iter()
                .flatten()
                .map(|&(s, e)| text[s..e].to_string()),
        );
    }
    if text.len() > beg {
        out.push(text[beg..].to_string());
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// Where Ruby's next search starts after a match `start..end` (`scan`, `gsub`): at its end,
/// or one character further after an empty match (past the text's end when there is none).
pub fn next_search(text: &str, start: usize, end: usize) -> usize {
    if end > start {
        return end;
    }
    match text.get(end..).and_then(|rest| rest.chars().next()) {
        Some(c) => end + c.len_utf8(),
        None => text.len() + 1,
    }
}

/// Compiles a Ruby (Onigmo) regular expression with Ruby's options (`i` ignore case, `m`
/// dot matches newline, `x` extended; others ignored) into a fancy-regex matcher, cached.
/// The one Ruby-to-Rust regexp translation of the workspace: Puppet's regexps, puppet-ruby's
/// `Regexp` and the built-in functions' matching all use it. `Err` has the compiler's
/// message.
///
/// ```
/// let re = puppet_types::regexp::compile_ruby("^a.c$", "m").unwrap();
/// assert!(re.is_match("x\na\nc").unwrap());
/// assert!(puppet_types::regexp::compile_ruby("\\h+\\Z", "").unwrap().is_match("ff\n").unwrap());
/// ```
pub fn compile_ruby(source: &str, flags: &str) -> Result<Arc<fancy_regex::Regex>, String> {
    matcher(source, flags)?.compiled().clone()
}

/// Rewrites Ruby regexp syntax into the dialect fancy-regex understands: `^`/`$` match at
/// line boundaries (a leading `(?m)`), Ruby's `m` option is Rust's `s` (also in inline
/// groups), `\Z`, `\h`, `\H` and octal escapes are rewritten, `\w`, `\d`, `\s` are ASCII.
pub fn translate_ruby(src: &str, flags: &str) -> String {
    translate(src, flags, false, true)
}

/// [`translate_ruby`] for telling only whether a pattern matches: a `\Z` that nothing but
/// closing groups follow becomes `\n?\z`, which consumes the final newline instead of
/// looking ahead at it. A match exists with one exactly when it exists with the other
/// (nothing after the `\Z` could tell them apart); only the match's end differs. `None`
/// when the pattern has no such `\Z`; `translated` is its [`translate_ruby`] form.
///
/// ```
/// use puppet_types::Regexp;
/// let name = Regexp::new(r"\A[a-z]\w*(?:\.|\Z)").unwrap();
/// assert!(name.is_match("abc") && name.is_match("abc\n") && name.is_match("a.b"));
/// assert!(!name.is_match("abc\n\n") && !name.is_match("Abc"));
/// ```
fn translate_for_test(src: &str, flags: &str, translated: &str) -> Option<String> {
    // Only a `\Z` translates differently (a pattern without one is translated once).
    if !src.contains("\\Z") {
        return None;
    }
    let t = translate(src, flags, true, false);
    (t != translated).then_some(t)
}

/// [`translate_ruby`] for finding groups, for a pattern that ends in `\Z` outside any group
/// and has no `|` outside a group (the file type's title pattern `^(...)\/*\Z`): the body
/// in a non-capturing group, then `(\n?)\z`. The body's choices come in the same order as
/// with the look-ahead, and each succeeds exactly when the rest of the text is empty or
/// one newline, so its groups are the same; the whole match ends where the last group
/// starts. `None` for other patterns and in extended mode (`x`).
///
/// ```
/// use puppet_types::regexp::RubyPattern;
/// let title = RubyPattern::new(r"^(\/|.+:\/|.*[^\/])\/*\Z", "m").unwrap();
/// let groups = title.captures("/etc/motd/").unwrap();
/// assert_eq!(groups[0].as_deref(), Some("/etc/motd/"));
/// assert_eq!(groups[1].as_deref(), Some("/etc/motd"));
/// // `\Z` looks at a final newline without taking it.
/// let word = RubyPattern::new(r"(a+)\Z", "").unwrap();
/// assert_eq!(word.captures("baa\n").unwrap(), [Some("aa".to_string()), Some("aa".to_string())]);
/// ```
fn translate_for_captures(src: &str, flags: &str) -> Option<String> {
    let body = src.strip_suffix("\\Z")?;
    // Extended mode (the option, or turned on inside: `(?x)`, `(?ix:`) has comments the
    // scan below would read as pattern.
    let inline_x = body.match_indices("(?").any(|(i, _)| {
        body[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .any(|c| c == 'x')
    });
    if flags.contains('x')
        || inline_x
        || body.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 1
    {
        return None;
    }
    let (mut depth, mut class, mut chars) = (0usize, 0usize, body.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => {
                class += 1;
                // A `]` first in a class (after an optional `^`) is a literal.
                let mut ahead = chars.clone();
                if ahead.next() == Some('^') {
                    chars.next();
                    ahead = chars.clone();
                }
                if ahead.next() == Some(']') {
                    chars.next();
                }
            }
            ']' if class > 0 => class -= 1,
            '(' if class == 0 => depth += 1,
            ')' if class == 0 => depth = depth.checked_sub(1)?,
            '|' if class == 0 && depth == 0 => return None,
            _ => {}
        }
    }
    if depth != 0 || class != 0 {
        return None;
    }
    let translated = translate(body, flags, false, false);
    let close = translated.find(')')?;
    Some(format!(
        "{}(?:{})(\\n?)\\z",
        &translated[..=close],
        &translated[close + 1..]
    ))
}

/// With `guard_caret`, `^` outside a class becomes `(?:\A|^(?!\z))`: Ruby's (Onigmo's) `^`
/// matches at the start and after each newline except one that ends the text, where Rust's
/// `(?m)^` also matches (`"a\n".gsub(/^/, '>')` is `">a\n"`, not `">a\n>"`). The two
/// forms differ only on a text that ends in a newline ([`Matcher::plain`]).
fn translate(src: &str, flags: &str, for_test: bool, guard_caret: bool) -> String {
    // `matcher` checks the pattern first: a refused one never gets here.
    crate::onigmo::translate(src, flags, for_test, guard_caret).unwrap_or_default()
}

impl PartialEq for Regexp {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}
impl Eq for Regexp {}
impl Hash for Regexp {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source.hash(state)
    }
}

impl fmt::Debug for Regexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Regexp({:?})", self.source)
    }
}

/// Displays as Puppet does (`regexp_to_s_with_delimiters`): `/source/`, with unescaped
/// slashes escaped; a regexp with Ruby's `FIXEDENCODING` option as Ruby's `to_s` inside
/// slashes, `/(?-mix:source)/`.
impl fmt::Display for Regexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fixed = self.fixed_encoding();
        let mut out = String::with_capacity(self.source.len() + 10);
        out.push('/');
        if fixed {
            out.push_str("(?-mix:");
        }
        let mut escaped = false;
        for c in self.source.chars() {
            if c == '/' && !escaped {
                out.push('\\');
            }
            escaped = c == '\\' && !escaped;
            out.push(c);
        }
        if fixed {
            out.push(')');
        }
        out.push('/');
        f.write_str(&out)
    }
}

/// Ruby's rule for a regexp's `FIXEDENCODING` option (see [`Regexp::fixed_encoding`]).
/// puppet-syntax's dump applies the same rule to regexp literals (it cannot depend on
/// this crate).
fn ruby_fixed_encoding(source: &str) -> bool {
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii() {
            return true;
        }
        if c != '\\' {
            continue;
        }
        match chars.next() {
            Some('p' | 'P') if chars.peek() == Some(&'{') => return true,
            Some('u') => {
                let digits: String = if chars.peek() == Some(&'{') {
                    chars.next();
                    let mut d = String::new();
                    for c in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                        d.push(c);
                    }
                    d
                } else {
                    chars.by_ref().take(4).collect()
                };
                let above_ascii = digits
                    .split_whitespace()
                    .any(|h| u32::from_str_radix(h, 16).is_ok_and(|cp| cp > 0x7f));
                if above_ascii {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{build_fancy, matcher, translate_ruby, Engine, Regexp};

    /// Every match found on the automata is what fancy-regex's iterator finds (the general
    /// path), empty matches and non-ASCII text included.
    #[test]
    fn automata_matches_agree_with_fancy_regex() {
        let patterns = [
            ("-", ""),
            ("[/\\.]", ""),
            ("x*", ""),
            ("\\b", ""),
            ("^", ""),
            ("$", ""),
            ("^(\\w+)=(.*)$", ""),
            ("(a)|(b)", ""),
            ("a|", ""),
            ("(?:ab)*?", ""),
            ("[^/]+", ""),
            ("UNMANAGED", "i"),
            ("\\s+", ""),
            ("é|ü+", ""),
            (".", "m"),
            ("(\\d+)\\.?", ""),
        ];
        let texts = [
            "",
            "a",
            "ab-cd/e.f",
            "x1 xx22\n333",
            "a=b\nc=d\n",
            "abba",
            "ééü-ü x",
            "Unmanaged\n",
            "/etc/apache2/sites-available",
            "  lead and trail  ",
        ];
        let mut on_automata = 0;
        for (source, flags) in patterns {
            let p = super::RubyPattern::new(source, flags).unwrap();
            for text in texts {
                let want: Vec<_> = p
                    .all_matches(text, 1000)
                    .into_iter()
                    .map(|groups| {
                        let (start, end) = groups[0].unwrap();
                        let strings: Vec<Option<String>> = groups
                            .iter()
                            .map(|g| g.map(|(s, e)| text[s..e].to_string()))
                            .collect();
                        (start, end, strings)
                    })
                    .collect();
                if let Some(got) = p.automata_matches(text, 1000) {
                    on_automata += 1;
                    assert_eq!(got, want, "/{source}/{flags} on {text:?}");
                }
            }
        }
        assert!(on_automata > 100, "{on_automata}");
    }

    /// The test translation, made only for patterns with a `\Z`, is what translating for
    /// the test gives whenever that differs from the plain translation.
    #[test]
    fn the_test_translation_skips_only_patterns_it_would_not_change() {
        let patterns = [
            r"\A[a-z]\w*(?:\.|\Z)",
            r"^(\/|.+:\/|.*[^\/])\/*\Z",
            r"a\Zb",
            r"[\Z]",
            r"\\Z",
            r"^\d+$",
            r"(a+)\Z",
            r"\h\H\w",
            "",
        ];
        for p in patterns {
            for flags in ["", "i", "mx"] {
                let plain = super::translate(p, flags, false, false);
                let general = Some(super::translate(p, flags, true, false)).filter(|t| *t != plain);
                assert_eq!(
                    super::translate_for_test(p, flags, &plain),
                    general,
                    "{p} /{flags}"
                );
            }
        }
    }

    #[test]
    fn the_cache_finds_a_pattern_by_source_and_options() {
        let long = "a".repeat(40);
        for source in ["ab", long.as_str()] {
            let first = matcher(source, "mi").unwrap();
            assert!(std::sync::Arc::ptr_eq(
                &first,
                &matcher(source, "im").unwrap()
            ));
            assert!(!std::sync::Arc::ptr_eq(
                &first,
                &matcher(source, "i").unwrap()
            ));
        }
    }

    /// A pattern [`super::is_ascii_only`] passes is its own ASCII form; one it refuses is not.
    #[test]
    fn ascii_only_patterns_are_their_own_ascii_form() {
        for (p, own) in [
            ("^(present|absent)$", true),
            ("^[0-9]+$", true),
            // Ruby's `\d` is ASCII (regex-syntax's is not): as translated.
            (&translate_ruby(r"\A\d+\s\w\z", ""), true),
            (r"^\d+$", false),
            ("[a-z_]+(?i:k)?", false),
            ("(?i)ab", true),
            ("a.c", false),
            ("[^/]", false),
            (r"\bx", false),
            (r"(?-u:\b)x", true),
            ("é", true),
        ] {
            let hir = regex_syntax::Parser::new().parse(p).unwrap();
            assert_eq!(super::is_ascii_only(&hir), own, "{p}");
            if own {
                assert_eq!(super::ascii_only(&hir), hir, "{p}");
            } else {
                assert_ne!(super::ascii_only(&hir), hir, "{p}");
            }
        }
    }

    #[test]
    fn octal_escapes_are_character_codes() {
        // stdlib's Stdlib::Unixpath.
        let r = Regexp::new(r"\A\/([^\n\/\0]+\/*)*\z").unwrap();
        assert!(r.is_match("/etc/ntp.conf"));
        assert!(!r.is_match("/etc/\0x"));
        assert!(Regexp::new(r"\012").unwrap().is_match("\n"));
    }

    #[test]
    fn match_test_translation_agrees_with_full_pattern() {
        let patterns = [
            r"\A(?:::)?(?:[a-z]\w*::)*[a-z_]\w*(?:\.|\Z)",
            r"a\Z",
            r"(a|b\Z)",
            r"^x(y\Z)",
            r"a\Zb",
            r"(a\Z)+",
        ];
        let texts = [
            "", "a", "a\n", "a\n\n", "b\n", "ab", "x\nxy\n", "xy", "a.b", "a::b", "A", "Z", "aZb",
            "aa\n", "b", "\n",
        ];
        for p in patterns {
            let m = matcher(p, "").unwrap();
            let full = build_fancy(&m.translated).unwrap();
            for t in texts {
                assert_eq!(
                    m.test_engine().unwrap().is_match(t),
                    full.is_match(t).unwrap(),
                    "{p:?} on {t:?}"
                );
            }
        }
        assert!(matcher(r"a\Z", "").unwrap().test_translated.is_some());
        assert!(matcher(r"a\Zb", "").unwrap().test_translated.is_none());
    }

    /// The automata engine and fancy-regex answer alike (match, and every group of the first
    /// match) on patterns of the shapes modules use: anchors in multi-line mode, options,
    /// alternations, classes, repetitions, optional and nested groups, Unicode text.
    /// Ruby's `^` matches at the start and after every newline but one that ends the text:
    /// `"a\n".scan(/^/)` has one match, `"a\n" =~ /^$/` none, on every path.
    #[test]
    fn caret_does_not_match_after_a_final_newline() {
        let cases: &[(&str, &str, bool)] = &[
            ("^$", "a\n", false),
            ("^$", "a\n\nb", true),
            ("^$", "", true),
            ("^$", "\n", true),
            ("\n^", "a\n", false),
            ("\n^", "a\nb", true),
            ("^ *", "  x\n", true),
            ("^b", "a\nb\n", true),
            ("[^a]", "a\n", true),
            ("\\^", "x^\n", true),
        ];
        for (p, t, want) in cases {
            let r = Regexp::new(p).unwrap();
            assert_eq!(r.is_match(t), *want, "{p:?} on {t:?}");
            assert_eq!(r.captures(t).is_some(), *want, "{p:?} on {t:?}");
            let re = super::compile_ruby(p, "").unwrap();
            assert_eq!(re.is_match(t).unwrap(), *want, "{p:?} on {t:?}");
        }
        // Every match of `^ *` in "  a\n    b\n": two, none at the end.
        let p = super::RubyPattern::new("^ *", "").unwrap();
        assert!(p.automata_matches("  a\n    b\n", 10).is_none());
        let re = p.regex().unwrap();
        let starts: Vec<usize> = re
            .find_iter("  a\n    b\n")
            .map(|m| m.unwrap().start())
            .collect();
        assert_eq!(starts, [0, 4]);
        assert_eq!(p.automata_matches("  a\n    b", 10).unwrap().len(), 2);
    }

    #[test]
    fn automata_and_fancy_regex_agree() {
        let patterns = [
            (r"^(RedHat|Linux)", ""),
            (r"^(wheezy|7\.)", ""),
            (r"^[^/]+\.(service|socket|mount|swap)$", ""),
            (
                r"\A(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9])\z",
                "",
            ),
            (r"\A\/([^\n\/\0]+\/*)*\z", ""),
            (r"^(.*)match$", ""),
            (r"(?i:^DATABASE$)", ""),
            (r"unmanaged", "i"),
            (r"a.c", "m"),
            (r"a b # comment", "x"),
            (r"(a)?(b)(c)?", ""),
            (r"((a)|(b))+", ""),
            (r"(?<year>\d{4})-(?<month>\d\d)", ""),
            (r"\h+\z", ""),
            (r"[[:alpha:]]+\s\w*", ""),
            (r"é+", ""),
            (r"\bfoo\b", ""),
            (r"^$", ""),
            (r"x*", ""),
            (r"[\\/:~\n \t\n\x0B\x0C\r\+\*\(\)@]", ""),
            // Classes above ASCII, case folding beyond it, Unicode word boundaries: the
            // ASCII build takes the ASCII texts, the full build the others.
            (r"k+s", "i"),
            (r"(\w+)\b(.)", ""),
            (r"[^x](y)?", ""),
            (r"\W(\S+)", "m"),
        ];
        let texts = [
            "",
            "a",
            "abc",
            "a\nc",
            "A\nC",
            "RedHat",
            "xLinux\nLinux",
            "wheezy",
            "7.1",
            "ssh.service",
            "etc/ssh.service",
            "foo.socket\nbar",
            "host.example.com",
            "-bad.com",
            "/etc/motd",
            "/etc/\0x",
            "nomatch",
            "xmatch\nymatch",
            "database",
            "DATABASE",
            "UnManaged",
            "ab",
            "b",
            "bc",
            "aab",
            "2024-11",
            "ff\n",
            "ff\n\n",
            "été",
            "eee",
            "a foo b",
            "foobar",
            "\n",
            "xxx",
            "a b",
            "ab ",
            "a~b",
            "@",
            "KS",
            "\u{212a}\u{17f}",
            "xy",
            "x\u{e9}y",
            "a-b c",
        ];
        for (p, flags) in patterns {
            let m = matcher(p, flags).unwrap();
            let automata = super::build_engine(m.automata_source()).unwrap();
            assert!(
                matches!(automata, Engine::Automata(_)),
                "{p:?} should not need fancy-regex"
            );
            let fancy = Engine::Fancy(build_fancy(&translate_ruby(p, flags)).unwrap());
            for t in texts {
                if m.exact_only(t) {
                    // A `^` pattern on a text ending in a newline: the exact form answers.
                    assert_eq!(m.captures(t), fancy.captures(t), "{p:?}/{flags} on {t:?}");
                    continue;
                }
                assert_eq!(
                    automata.is_match(t),
                    fancy.is_match(t),
                    "{p:?}/{flags} on {t:?}"
                );
                assert_eq!(
                    automata.captures(t),
                    fancy.captures(t),
                    "{p:?}/{flags} on {t:?}"
                );
            }
        }
        // Texts past SHORT_TEXT run on the build with the lazy DFA, shorter ones on the
        // one without: both answer as fancy-regex does.
        let long_texts: Vec<String> = texts
            .iter()
            .filter(|t| t.is_ascii() && !t.is_empty())
            .map(|t| {
                let mut long = format!("{t} ").repeat(super::SHORT_TEXT / (t.len() + 1) + 1);
                long.push_str(t);
                long
            })
            .collect();
        assert!(long_texts.iter().all(|t| t.len() > super::SHORT_TEXT));
        for (p, flags) in patterns {
            let m = matcher(p, flags).unwrap();
            let automata = super::build_engine(m.automata_source()).unwrap();
            let fancy = Engine::Fancy(build_fancy(&translate_ruby(p, flags)).unwrap());
            for t in long_texts.iter().map(String::as_str).chain(texts) {
                if m.exact_only(t) {
                    continue;
                }
                assert_eq!(automata.is_match(t), fancy.is_match(t), "{p:?} on {t:?}");
                assert_eq!(automata.captures(t), fancy.captures(t), "{p:?} on {t:?}");
            }
            if let Engine::Automata(a) = &automata {
                assert!(a.ascii_long.get().is_some(), "{p:?}");
            }
        }
        // A trailing `\Z` outside groups: the end-group translation finds the same groups
        // as the look-ahead.
        for p in [
            r"^(\/|.+:\/|.*[^\/])\/*\Z",
            r"(a+)(b)?\Z",
            r"x[|]\Z",
            r"(?:a|b)\n?\Z",
        ] {
            let m = matcher(p, "m").unwrap();
            assert!(m.captures_translated.is_some(), "{p:?}");
            assert!(
                matches!(m.engine(), Some(Engine::AutomataEndGroup(_))),
                "{p:?}"
            );
            let fancy = Engine::Fancy(build_fancy(&m.translated).unwrap());
            for t in [
                "/etc/motd",
                "/etc/motd/",
                "/etc/motd/\n",
                "c:/",
                "/",
                "//\n",
                "aab\n",
                "aa\n\n",
                "ab",
                "x]",
                "x|\n",
                "b\n\n",
                "a\n",
                "\n",
            ] {
                assert_eq!(
                    m.engine().unwrap().captures(t),
                    fancy.captures(t),
                    "{p:?} on {t:?}"
                );
            }
        }
        for p in [r"a|b\Z", r"a\\Z", r"(a\Z)", r"a\Zb", r"(?x) a # (\n|b\Z"] {
            assert!(
                matcher(p, "").unwrap().captures_translated.is_none(),
                "{p:?}"
            );
        }
        // Look-around and back references are fancy-regex's.
        for p in [r"a(?=b)", r"(a)\1", r"a\Zb", r"\h+\Z"] {
            let e = super::build_engine(&translate_ruby(p, "")).unwrap();
            assert!(matches!(e, Engine::Fancy(_)), "{p:?}");
        }
    }
}
