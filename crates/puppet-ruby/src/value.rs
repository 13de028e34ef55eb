//! Ruby values and their text forms.
//!
//! Strings, arrays and hashes are shared mutable objects ([`Shared`]: a `RefCell` plus a
//! frozen flag), as in Ruby, so `a = []; @list.each { |x| a << x }` works. Modules, objects
//! and procs are the runtime objects of [`crate::object`]. `to_s` and `inspect` print exactly what
//! Ruby 3.1 prints (`[1, "a", nil]`, `{"a"=>1, :b=>nil}`, `1.0e+16`), equality follows
//! `==` (numeric across Integer/Float) and hash keys follow `eql?`. The bridge to Puppet
//! values ([`from_puppet`], [`to_puppet`]) maps undef to nil and `default` to `:default`.

use crate::object::{Blk, Module, ObjData, Object};
use puppet_types::ruby::slash_escaped;
use puppet_types::Value;
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::rc::Rc;

/// A mutable Ruby object's contents with its frozen flag.
#[derive(Debug, Default)]
pub struct Shared<T: Contents> {
    cell: RefCell<T>,
    frozen: Cell<bool>,
    binary: Cell<bool>,
}

/// What a [`Shared`] object holds: a string's text, an array's elements, a hash.
pub trait Contents: Default {
    /// Hands values that may nest to [`crate::deep_drop`] as the object is dropped, so that
    /// deeply nested data is not dropped by deep recursion; text is dropped in place.
    #[doc(hidden)]
    fn release_nested(&mut self) {}
}

impl Contents for String {}

/// A value that holds no other values that could nest (a number, a string, a symbol...):
/// a container of such values is dropped in place, at one level of recursion, without
/// going through [`crate::deep_drop`].
#[inline]
pub(crate) fn holds_nothing_nested(v: &RValue) -> bool {
    matches!(
        v,
        RValue::Nil
            | RValue::Bool(_)
            | RValue::Int(_)
            | RValue::Big(_)
            | RValue::Float(_)
            | RValue::Str(_)
            | RValue::Sym(_)
            | RValue::Regexp(_)
            | RValue::Scope
            | RValue::IpAddr(_)
    )
}

impl Contents for Vec<RValue> {
    fn release_nested(&mut self) {
        if !self.iter().all(holds_nothing_nested) {
            crate::deep_drop::release(crate::deep_drop::Deferred::Array(std::mem::take(self)));
        }
    }
}

impl Contents for RHash {
    fn release_nested(&mut self) {
        let flat = holds_nothing_nested(&self.default)
            && self.default_proc.is_none()
            && self
                .map
                .values()
                .all(|(k, v)| holds_nothing_nested(k) && holds_nothing_nested(v));
        if !flat {
            crate::deep_drop::release(crate::deep_drop::Deferred::Hash(std::mem::take(self)));
        }
    }
}

impl<T: Contents> Drop for Shared<T> {
    fn drop(&mut self) {
        self.cell.get_mut().release_nested();
    }
}

impl<T: Contents> Shared<T> {
    /// A new, unfrozen object.
    pub fn new(v: T) -> Shared<T> {
        Shared {
            cell: RefCell::new(v),
            frozen: Cell::new(false),
            binary: Cell::new(false),
        }
    }
    /// Reads the contents (panics on a conflicting write borrow, like `RefCell`).
    pub fn borrow(&self) -> Ref<'_, T> {
        self.cell.borrow()
    }
    /// Changes the contents.
    pub fn borrow_mut(&self) -> RefMut<'_, T> {
        self.cell.borrow_mut()
    }
    /// Reads the contents unless they are being changed.
    pub fn try_borrow(&self) -> Result<Ref<'_, T>, std::cell::BorrowError> {
        self.cell.try_borrow()
    }
    /// Changes the contents unless they are borrowed.
    pub fn try_borrow_mut(&self) -> Result<RefMut<'_, T>, std::cell::BorrowMutError> {
        self.cell.try_borrow_mut()
    }
    /// True once frozen.
    pub fn is_frozen(&self) -> bool {
        self.frozen.get()
    }
    /// Freezes the object.
    pub fn freeze(&self) {
        self.frozen.set(true)
    }
    /// True for a binary (ASCII-8BIT) string: each character is one byte.
    pub fn is_binary(&self) -> bool {
        self.binary.get()
    }
    /// Marks a string binary.
    pub fn set_binary(&self) {
        self.binary.set(true)
    }
    /// Marks a string binary or UTF-8.
    pub fn set_binary_to(&self, binary: bool) {
        self.binary.set(binary)
    }
}

/// Depth limit for printing and comparing (self-referencing containers).
const MAX_DEPTH: usize = 64;

/// The elements one native operation (a built-in method, an `inspect`, a conversion) may
/// visit when it walks nested data. Data built of shared parts is small but exponentially
/// large to walk (`a = [a, a]` a hundred times is 200 references and 2^100 elements): such
/// a walk stops at this bound and the interpreter raises `NoMemoryError` (Ruby would run out
/// of memory or time).
pub const WALK_LIMIT: u64 = 4_000_000;

thread_local! {
    /// Elements visited by the walks of the native operation that runs on this thread.
    static WALKED: Cell<u64> = const { Cell::new(0) };
}

thread_local! {
    /// The object addresses handed out by the interpreter that runs on this thread.
    static ADDRESSES: Cell<u64> = const { Cell::new(0) };
}

/// The next object address (Ruby's `0x00007f...` in `#<Foo:0x00007f...>`): a made-up but
/// deterministic one, counted per interpreter (see [`addresses_begin`]), so that the same
/// program prints the same texts whatever ran before it on the thread.
pub(crate) fn next_address() -> u64 {
    ADDRESSES.with(|a| {
        let n = a.get() + 1;
        a.set(n);
        0x0000_7f00_0000_0000 + n * 0x28
    })
}

/// Starts counting addresses for a new interpreter; returns the enclosing one's count, for
/// [`addresses_end`].
pub(crate) fn addresses_begin() -> u64 {
    ADDRESSES.with(|a| a.replace(0))
}

/// Restores the enclosing interpreter's address count.
pub(crate) fn addresses_end(outer: u64) {
    ADDRESSES.with(|a| a.set(outer))
}

/// Counts one element visited by a walk over nested data; `false` once the running native
/// operation passed [`WALK_LIMIT`]: the walk stops there, and its partial result is never
/// seen (the interpreter raises when the operation returns, see [`walk_end`]).
#[inline]
pub(crate) fn walk_step() -> bool {
    WALKED.with(|w| {
        let n = w.get().saturating_add(1);
        w.set(n);
        n <= WALK_LIMIT
    })
}

/// Starts counting the walks of a native operation; returns the count of the enclosing one.
#[inline]
pub(crate) fn walk_begin() -> u64 {
    WALKED.with(|w| w.replace(0))
}

/// Ends a native operation's count and restores the enclosing one's (`outer`, from
/// [`walk_begin`]); true when the operation passed [`WALK_LIMIT`].
#[inline]
pub(crate) fn walk_end(outer: u64) -> bool {
    WALKED.with(|w| w.replace(outer) > WALK_LIMIT)
}

/// A compiled Ruby regexp.
#[derive(Debug)]
pub struct RRegex {
    pub source: String,
    pub flags: String,
    /// The pattern, compiled when it first matches ([`RRegex::re`]).
    pub pattern: puppet_types::regexp::RubyPattern,
    /// When the pattern is plain text, maybe anchored (`/ssl-/`, `/^ssl/`, `/\Afoo/`):
    /// what [`RRegex::find_literal`] matches without the regexp engine.
    literal: Option<Literal>,
}

/// A regexp that is plain text (see [`Literal::of`]).
#[derive(Debug, Clone, PartialEq)]
struct Literal {
    /// The text (never empty).
    text: String,
    /// Where a match may start.
    anchor: Anchor,
}

/// Where a [`Literal`] may match.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Anchor {
    /// Anywhere.
    None,
    /// At a line start (`^`: the start of the string or after a `\n`).
    Line,
    /// At the start of the string (`\A`).
    Start,
}

impl Literal {
    /// The literal a regexp `/source/flags` is, when it is one: an optional `^` or `\A`
    /// followed by one or more bytes that stand for themselves in Ruby's (Onigmo's)
    /// syntax whatever the position (letters, digits and a few punctuation marks), with no
    /// `i` or `x` flag (`m` only changes what `.` matches).
    fn of(source: &str, flags: &str) -> Option<Literal> {
        if flags.contains('i') || flags.contains('x') {
            return None;
        }
        let (anchor, text) = if let Some(t) = source.strip_prefix("\\A") {
            (Anchor::Start, t)
        } else if let Some(t) = source.strip_prefix('^') {
            (Anchor::Line, t)
        } else {
            (Anchor::None, source)
        };
        let plain = |b: u8| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-'
                        | b' '
                        | b','
                        | b':'
                        | b'='
                        | b'@'
                        | b'%'
                        | b'/'
                        | b'\''
                        | b'"'
                        | b'!'
                        | b'~'
                        | b';'
                        | b'&'
                        | b'<'
                        | b'>'
                )
        };
        (!text.is_empty() && text.bytes().all(plain)).then(|| Literal {
            text: text.to_string(),
            anchor,
        })
    }

    /// The byte offset of the first match in `hay` at or after byte `from`.
    fn find(&self, hay: &str, from: usize) -> Option<usize> {
        let bytes = hay.as_bytes();
        let lit = self.text.as_bytes();
        let at = |p: usize| bytes.get(p..).is_some_and(|rest| rest.starts_with(lit));
        match self.anchor {
            Anchor::None => hay.get(from..)?.find(self.text.as_str()).map(|i| from + i),
            Anchor::Start => (from == 0 && at(0)).then_some(0),
            Anchor::Line => {
                let mut p = from;
                loop {
                    if p > bytes.len() {
                        return None;
                    }
                    if (p == 0 || bytes[p - 1] == b'\n') && at(p) {
                        return Some(p);
                    }
                    // The next line start.
                    p += 1 + bytes.get(p..)?.iter().position(|&b| b == b'\n')?;
                }
            }
        }
    }
}

impl RRegex {
    /// The compiled regex; an unsupported-construct error when the engine refuses it.
    pub fn re(
        &self,
        pos: crate::Pos,
    ) -> Result<&std::sync::Arc<fancy_regex::Regex>, crate::interp::Ctrl> {
        self.pattern.regex().map_err(|e| {
            crate::interp::Ctrl::Unsupported(Box::new(crate::interp::Unsupported {
                what: format!("regexp /{}/: {e}", self.source),
                pos,
                file: None,
            }))
        })
    }

    /// For a regexp that is plain text (maybe anchored), the byte span of its first match
    /// in `hay` at or after byte `from` (`Some(None)`: no match), found without the regexp
    /// engine; `None` for any other regexp. The same match as the engine's: the tests
    /// compare them.
    pub(crate) fn find_literal(&self, hay: &str, from: usize) -> Option<Option<(usize, usize)>> {
        let l = self.literal.as_ref()?;
        Some(l.find(hay, from).map(|at| (at, at + l.text.len())))
    }

    /// The first match in `text` (`Some(None)`: none) as the automata the pattern runs on
    /// find it ([`puppet_types::regexp::RubyPattern::automata_matches`]: the matches of
    /// fancy-regex, on automata that cost far less to build than the full regexp), for a
    /// regexp without named groups; `None` when the pattern does not run on them.
    pub(crate) fn first_match_on_automata(&self, text: &str) -> Option<Option<Captures>> {
        if self.source.contains("(?<") || self.source.contains("(?'") {
            return None;
        }
        let found = self.pattern.automata_matches(text, 0)?;
        Some(
            found
                .into_iter()
                .next()
                .map(|(start, end, groups)| Captures {
                    groups,
                    names: Vec::new(),
                    subject: Rc::from(text),
                    span: (start, end),
                }),
        )
    }
}

/// A Ruby hash: insertion ordered, keys by `eql?`.
#[derive(Debug, Default, Clone)]
pub struct RHash {
    pub map: crate::object::FxIndexMap<HKey, (RValue, RValue)>,
    pub default: RValue,
    /// `Hash.new { |h, k| ... }`.
    pub default_proc: Option<Blk>,
    /// `compare_by_identity`: keys are the same object, not `eql?`.
    pub identity: bool,
}

impl RHash {
    /// The map key of a value: its `eql?` image, or with `compare_by_identity` its
    /// identity.
    pub fn key_of(&self, k: &RValue) -> HKey {
        if self.identity {
            HKey::identity_of(k)
        } else {
            HKey::of(k)
        }
    }
    /// What `h['text']` answers for a new string key `text`, when that is known without
    /// the key object: the value stored under the text, else the default (`None` with
    /// `compare_by_identity`, where a new string is never a key, or with a default proc,
    /// which is given the key object). The same as [`RHash::get`] of such a string (which
    /// counts one element walked, inside the bracket of the call that asks: no net count).
    pub(crate) fn literal_index(&self, text: &str) -> Option<RValue> {
        if self.identity {
            return None;
        }
        match self.map.get(&KeyRef::Str(text)) {
            Some((_, v)) => Some(v.clone()),
            None if self.default_proc.is_none() => Some(self.default.clone()),
            None => None,
        }
    }
    pub fn get(&self, k: &RValue) -> Option<&RValue> {
        if self.identity {
            return self.map.get(&HKey::identity_of(k)).map(|(_, v)| v);
        }
        // A string, symbol or integer key is looked up without copying it (counted as one
        // element walked, as `HKey::of` counts it).
        let found = match k {
            RValue::Str(_) | RValue::Sym(_) | RValue::Int(_) if !walk_step() => {
                self.map.get(&HKey::Nil)
            }
            RValue::Str(s) => self.map.get(&KeyRef::Str(s.borrow().as_str())),
            RValue::Sym(s) => self.map.get(&KeyRef::Sym(s)),
            RValue::Int(i) => self.map.get(&KeyRef::Int(*i)),
            _ => self.map.get(&HKey::of(k)),
        };
        found.map(|(_, v)| v)
    }
    pub fn insert(&mut self, k: RValue, v: RValue) {
        if self.identity {
            // Compared by identity, a string key is kept as it is.
            match self.map.entry(HKey::identity_of(&k)) {
                indexmap::map::Entry::Occupied(mut slot) => slot.get_mut().1 = v,
                indexmap::map::Entry::Vacant(slot) => {
                    slot.insert((k, v));
                }
            }
            return;
        }
        // Ruby dups and freezes string keys; keep the first key object on update.
        match self.map.entry(HKey::of(&k)) {
            indexmap::map::Entry::Occupied(mut slot) => slot.get_mut().1 = v,
            indexmap::map::Entry::Vacant(slot) => {
                let k = match &k {
                    RValue::Str(s) if !s.is_frozen() => {
                        let k = RValue::str(s.borrow().as_str());
                        if let RValue::Str(n) = &k {
                            n.freeze();
                        }
                        k
                    }
                    _ => k,
                };
                slot.insert((k, v));
            }
        }
    }
    pub fn pairs(&self) -> Vec<(RValue, RValue)> {
        self.map.values().cloned().collect()
    }
}

/// A hashable image of a value, following `eql?`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HKey {
    Nil,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(smol_str::SmolStr),
    Sym(smol_str::SmolStr),
    Array(Vec<HKey>),
    /// An object compared by identity.
    Ptr(usize),
    Other(String),
    /// An Integer beyond 64 bits: its bytes. (Last: [`KeyRef`] hashes the index of the
    /// variants before it.)
    Big(Vec<u8>),
    /// An object with its own `hash` (a user class's, a Struct's): that hash, as
    /// `crate::kernel::prepare_keys` recorded it.
    User(i64),
}

/// A borrowed image of a string, symbol or integer key: hashes and compares as the
/// [`HKey`] of that key does (the derived `Hash` of `HKey` hashes the variant's index as an
/// `isize`, then the field), so that a lookup needs no copy of the key.
enum KeyRef<'a> {
    Str(&'a str),
    Sym(&'a str),
    Int(i64),
}

impl std::hash::Hash for KeyRef<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            KeyRef::Int(i) => {
                2isize.hash(state);
                i.hash(state);
            }
            KeyRef::Str(s) => {
                4isize.hash(state);
                s.hash(state);
            }
            KeyRef::Sym(s) => {
                5isize.hash(state);
                s.hash(state);
            }
        }
    }
}

impl indexmap::Equivalent<HKey> for KeyRef<'_> {
    fn equivalent(&self, key: &HKey) -> bool {
        match (self, key) {
            (KeyRef::Str(a), HKey::Str(b)) | (KeyRef::Sym(a), HKey::Sym(b)) => *a == b.as_str(),
            (KeyRef::Int(a), HKey::Int(b)) => a == b,
            _ => false,
        }
    }
}

impl HKey {
    pub fn of(v: &RValue) -> HKey {
        Self::of_depth(v, 0)
    }
    /// The key of a value in a `compare_by_identity` hash: strings, arrays, hashes and
    /// other heap objects by address; integers, symbols, nil and booleans by value (they are
    /// the same object in Ruby), floats by value too (Ruby's flonums).
    pub fn identity_of(v: &RValue) -> HKey {
        match v {
            RValue::Str(s) => HKey::Ptr(Rc::as_ptr(s) as *const u8 as usize),
            RValue::Array(a) => HKey::Ptr(Rc::as_ptr(a) as *const u8 as usize),
            RValue::Hash(h) => HKey::Ptr(Rc::as_ptr(h) as *const u8 as usize),
            RValue::Big(b) => HKey::Ptr(Rc::as_ptr(b) as *const u8 as usize),
            RValue::Range(r) => HKey::Ptr(Rc::as_ptr(r) as *const u8 as usize),
            RValue::Regexp(r) => HKey::Ptr(Rc::as_ptr(r) as *const u8 as usize),
            RValue::MatchData(m) => HKey::Ptr(Rc::as_ptr(m) as *const u8 as usize),
            RValue::IpAddr(a) => HKey::Ptr(Rc::as_ptr(a) as *const u8 as usize),
            RValue::Puppet(p) => HKey::Ptr(Rc::as_ptr(p) as *const u8 as usize),
            _ => HKey::of(v),
        }
    }
    fn of_depth(v: &RValue, depth: usize) -> HKey {
        // A value that holds nothing nested is made without recursing: no stack to check.
        if holds_nothing_nested(v) {
            Self::of_here(v, depth)
        } else {
            crate::with_stack_at(depth, || Self::of_here(v, depth))
        }
    }

    /// [`HKey::of_depth`] on the stack it runs on.
    fn of_here(v: &RValue, depth: usize) -> HKey {
        {
            if !walk_step() {
                return HKey::Nil;
            }
            match v {
                RValue::Nil => HKey::Nil,
                RValue::Bool(b) => HKey::Bool(*b),
                RValue::Int(i) => HKey::Int(*i),
                RValue::Big(b) => HKey::Big(crate::bigint::key_bytes(b)),
                RValue::Float(f) => HKey::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
                RValue::Str(s) => HKey::Str(smol_str::SmolStr::new(s.borrow().as_str())),
                RValue::Sym(s) => HKey::Sym(smol_str::SmolStr::new(&**s)),
                RValue::Array(a) if depth < MAX_DEPTH => HKey::Array(
                    a.borrow()
                        .iter()
                        .map(|x| Self::of_depth(x, depth + 1))
                        .collect(),
                ),
                RValue::Module(m) => HKey::Ptr(Rc::as_ptr(m) as usize),
                RValue::Object(o) => match o.ivars.try_borrow().ok().and_then(|iv| {
                    match iv.get(crate::kernel::HASH_IVAR) {
                        Some(RValue::Int(h)) => Some(*h),
                        _ => None,
                    }
                }) {
                    Some(h) => HKey::User(h),
                    None => HKey::Ptr(Rc::as_ptr(o) as usize),
                },
                RValue::Proc(p) => HKey::Ptr(Rc::as_ptr(p) as usize),
                other => HKey::Other(inspect(other)),
            }
        }
    }
}

/// The built-in classes whose instances have native methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    Object,
    NilClass,
    TrueClass,
    FalseClass,
    Integer,
    Float,
    Numeric,
    String,
    Symbol,
    Array,
    Hash,
    Range,
    Regexp,
    MatchData,
    Comparable,
    Enumerable,
    Kernel,
    Puppet,
    IPAddr,
    Json,
    File,
    Math,
    StandardError,
    RuntimeError,
    ArgumentError,
    TypeError,
    NameError,
    NoMethodError,
    KeyError,
    IndexError,
    ZeroDivisionError,
    Exception,
    Module,
    Class,
}

impl Builtin {
    /// The built-in class of that (top-level) name.
    pub fn by_name(name: &str) -> Option<Builtin> {
        Some(match name {
            "Object" | "BasicObject" => Builtin::Object,
            "NilClass" => Builtin::NilClass,
            "TrueClass" => Builtin::TrueClass,
            "FalseClass" => Builtin::FalseClass,
            "Integer" | "Fixnum" | "Bignum" => Builtin::Integer,
            "Float" => Builtin::Float,
            "Numeric" => Builtin::Numeric,
            "String" => Builtin::String,
            "Symbol" => Builtin::Symbol,
            "Array" => Builtin::Array,
            "Hash" => Builtin::Hash,
            "Range" => Builtin::Range,
            "Regexp" => Builtin::Regexp,
            "MatchData" => Builtin::MatchData,
            "Comparable" => Builtin::Comparable,
            "Enumerable" => Builtin::Enumerable,
            "Kernel" => Builtin::Kernel,
            "Puppet" => Builtin::Puppet,
            "IPAddr" => Builtin::IPAddr,
            "JSON" => Builtin::Json,
            "File" => Builtin::File,
            "Math" => Builtin::Math,
            "StandardError" => Builtin::StandardError,
            "RuntimeError" => Builtin::RuntimeError,
            "ArgumentError" => Builtin::ArgumentError,
            "TypeError" => Builtin::TypeError,
            "NameError" => Builtin::NameError,
            "NoMethodError" => Builtin::NoMethodError,
            "KeyError" => Builtin::KeyError,
            "IndexError" => Builtin::IndexError,
            "ZeroDivisionError" => Builtin::ZeroDivisionError,
            "Exception" => Builtin::Exception,
            "Module" => Builtin::Module,
            "Class" => Builtin::Class,
            _ => return None,
        })
    }
    /// The class's name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Object => "Object",
            Builtin::NilClass => "NilClass",
            Builtin::TrueClass => "TrueClass",
            Builtin::FalseClass => "FalseClass",
            Builtin::Integer => "Integer",
            Builtin::Float => "Float",
            Builtin::Numeric => "Numeric",
            Builtin::String => "String",
            Builtin::Symbol => "Symbol",
            Builtin::Array => "Array",
            Builtin::Hash => "Hash",
            Builtin::Range => "Range",
            Builtin::Regexp => "Regexp",
            Builtin::MatchData => "MatchData",
            Builtin::Comparable => "Comparable",
            Builtin::Enumerable => "Enumerable",
            Builtin::Kernel => "Kernel",
            Builtin::Puppet => "Puppet",
            Builtin::IPAddr => "IPAddr",
            Builtin::Json => "JSON",
            Builtin::File => "File",
            Builtin::Math => "Math",
            Builtin::StandardError => "StandardError",
            Builtin::RuntimeError => "RuntimeError",
            Builtin::ArgumentError => "ArgumentError",
            Builtin::TypeError => "TypeError",
            Builtin::NameError => "NameError",
            Builtin::NoMethodError => "NoMethodError",
            Builtin::KeyError => "KeyError",
            Builtin::IndexError => "IndexError",
            Builtin::ZeroDivisionError => "ZeroDivisionError",
            Builtin::Exception => "Exception",
            Builtin::Module => "Module",
            Builtin::Class => "Class",
        }
    }
    /// True for the exception classes.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Builtin::StandardError
                | Builtin::RuntimeError
                | Builtin::ArgumentError
                | Builtin::TypeError
                | Builtin::NameError
                | Builtin::NoMethodError
                | Builtin::KeyError
                | Builtin::IndexError
                | Builtin::ZeroDivisionError
                | Builtin::Exception
        )
    }
}

/// A match result (`MatchData`): the groups (0 is the whole match), the group names and
/// the subject with the match's place in it (for the text before and after the match).
/// Dereferences to the groups.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Captures {
    /// The groups; unmatched ones are `None`.
    pub groups: Vec<Option<String>>,
    /// Named groups and their numbers.
    pub names: Vec<(String, usize)>,
    /// The matched text (shared by the matches of one `gsub`/`scan`).
    subject: Rc<str>,
    /// Byte offsets of the whole match in `subject`.
    span: (usize, usize),
}

impl std::ops::Deref for Captures {
    type Target = Vec<Option<String>>;
    fn deref(&self) -> &Vec<Option<String>> {
        &self.groups
    }
}

impl Captures {
    /// The captures of one match of `re` in `text`.
    pub fn of(re: &fancy_regex::Regex, c: &fancy_regex::Captures<'_>, text: &str) -> Captures {
        Self::of_shared(re, c, &Rc::from(text))
    }

    /// The captures of a match of a regexp without groups: the whole match, the bytes
    /// `start..end` of `text` (what [`Captures::of`] gives for such a regexp).
    pub fn whole(text: &str, start: usize, end: usize) -> Captures {
        Captures {
            groups: vec![text.get(start..end).map(str::to_string)],
            names: Vec::new(),
            subject: Rc::from(text),
            span: (start, end),
        }
    }

    /// The byte offsets of the whole match in the subject.
    pub fn span(&self) -> (usize, usize) {
        self.span
    }

    /// The captures of one match of `re` in `text`, sharing the subject (a loop over the
    /// matches of one text copies it once).
    pub fn of_shared(
        re: &fancy_regex::Regex,
        c: &fancy_regex::Captures<'_>,
        text: &Rc<str>,
    ) -> Captures {
        let groups = (0..c.len())
            .map(|i| c.get(i).map(|m| m.as_str().to_string()))
            .collect();
        let names = re
            .capture_names()
            .enumerate()
            .filter_map(|(i, n)| n.map(|n| (n.to_string(), i)))
            .collect();
        let span = c.get(0).map_or((0, 0), |m| (m.start(), m.end()));
        Captures {
            groups,
            names,
            subject: text.clone(),
            span,
        }
    }

    /// `pre_match`: the text before the match.
    pub fn pre(&self) -> &str {
        self.subject.get(..self.span.0).unwrap_or("")
    }

    /// `post_match`: the text after the match.
    pub fn post(&self) -> &str {
        self.subject.get(self.span.1..).unwrap_or("")
    }

    /// The group of that name.
    pub fn named(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|(_, i)| *i)
    }
}

pub use crate::ipaddr::IpAddr;

/// A Ruby value.
#[derive(Debug, Clone, Default)]
pub enum RValue {
    #[default]
    Nil,
    Bool(bool),
    Int(i64),
    /// An Integer beyond 64 bits (never one that fits: see [`crate::bigint`]).
    Big(Rc<num_bigint::BigInt>),
    Float(f64),
    Str(Rc<Shared<String>>),
    Sym(Rc<str>),
    Array(Rc<Shared<Vec<RValue>>>),
    Hash(Rc<Shared<RHash>>),
    Range(Rc<(RValue, RValue, bool)>),
    Regexp(Rc<RRegex>),
    /// A module or class.
    Module(Rc<Module>),
    /// An instance of a user-defined or library class (exceptions included).
    Object(Rc<Object>),
    /// A proc, lambda or method object.
    Proc(Blk),
    /// The Puppet scope object (`scope`).
    Scope,
    /// A match result: captures (group 0 is the whole match).
    MatchData(Rc<Captures>),
    IpAddr(Rc<IpAddr>),
    /// A Puppet value with no Ruby counterpart (types, Sensitive, timestamps...).
    Puppet(Rc<Value>),
}

impl RValue {
    pub fn str(s: &str) -> RValue {
        RValue::Str(Rc::new(Shared::new(s.to_string())))
    }
    pub fn string(s: String) -> RValue {
        RValue::Str(Rc::new(Shared::new(s)))
    }
    pub fn sym(s: &str) -> RValue {
        RValue::Sym(Rc::from(s))
    }
    pub fn array(v: Vec<RValue>) -> RValue {
        RValue::Array(Rc::new(Shared::new(v)))
    }
    pub fn hash(h: RHash) -> RValue {
        RValue::Hash(Rc::new(Shared::new(h)))
    }
    pub fn truthy(&self) -> bool {
        !matches!(self, RValue::Nil | RValue::Bool(false))
    }
    pub fn class(&self) -> Builtin {
        match self {
            RValue::Nil => Builtin::NilClass,
            RValue::Bool(true) => Builtin::TrueClass,
            RValue::Bool(false) => Builtin::FalseClass,
            RValue::Int(_) | RValue::Big(_) => Builtin::Integer,
            RValue::Float(_) => Builtin::Float,
            RValue::Str(_) => Builtin::String,
            RValue::Sym(_) => Builtin::Symbol,
            RValue::Array(_) => Builtin::Array,
            RValue::Hash(_) => Builtin::Hash,
            RValue::Range(_) => Builtin::Range,
            RValue::Regexp(_) => Builtin::Regexp,
            RValue::Module(m) => {
                if m.is_class {
                    Builtin::Class
                } else {
                    Builtin::Module
                }
            }
            RValue::MatchData(_) => Builtin::MatchData,
            RValue::IpAddr(_) => Builtin::IPAddr,
            RValue::Scope | RValue::Puppet(_) | RValue::Proc(_) => Builtin::Object,
            RValue::Object(o) => o.class.builtin.unwrap_or(Builtin::Object),
        }
    }
    /// The class name as Ruby error messages print it.
    /// How Ruby's implicit-conversion errors name a value ("no implicit conversion of
    /// true into String", "can't convert nil into Integer"): nil, true and false by
    /// themselves, anything else by its class.
    pub fn conversion_name(&self) -> String {
        match self {
            RValue::Nil => "nil".into(),
            RValue::Bool(b) => b.to_string(),
            other => other.class_name(),
        }
    }

    pub fn class_name(&self) -> String {
        match self {
            RValue::Scope => "Puppet::Parser::Scope".into(),
            RValue::Puppet(v) => puppet_class_name(v),
            RValue::Object(o) => o.class.name(),
            RValue::Module(m) => if m.is_class { "Class" } else { "Module" }.into(),
            RValue::Proc(p) => if matches!(p.body, crate::object::ProcBody::Method(..)) {
                "Method"
            } else {
                "Proc"
            }
            .into(),
            _ => self.class().name().into(),
        }
    }
    /// The string contents of a String (or Symbol) value.
    pub fn as_string(&self) -> Option<String> {
        match self {
            RValue::Str(s) => Some(s.borrow().clone()),
            _ => None,
        }
    }
}

fn puppet_class_name(v: &Value) -> String {
    puppet_types::ruby::class_name(v)
}

/// Ruby's `Float#to_s` (puppet-types' implementation, the one of the workspace).
pub use puppet_types::format::float_to_s;

/// Ruby's `String#inspect` (puppet-types' implementation, the one of the workspace).
pub use puppet_types::ruby::inspect_str;

fn sym_is_plain(s: &str) -> bool {
    let ident = |b: &str| {
        let mut cs = b.chars();
        matches!(cs.next(), Some(c) if c.is_alphabetic() || c == '_')
            && cs.all(|c| c.is_alphanumeric() || c == '_')
    };
    // `:@iv`, `:@@cv`, `:$g`, `:$1`, `:$~` (no `?`, `!` or `=` after them).
    if let Some(b) = s.strip_prefix("@@").or_else(|| s.strip_prefix('@')) {
        return ident(b);
    }
    if let Some(b) = s.strip_prefix('$') {
        return ident(b)
            || (!b.is_empty() && b.chars().all(|c| c.is_ascii_digit()))
            || (b.chars().count() == 1 && "~*$?!@/\\;,.=:<>\"&`'+0_".contains(b))
            || b.strip_prefix('-').is_some_and(|r| {
                r.chars().count() == 1 && r.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
    }
    let body = s
        .strip_suffix('?')
        .or_else(|| s.strip_suffix('!'))
        .or_else(|| s.strip_suffix('='))
        .unwrap_or(s);
    if ident(body) {
        return true;
    }
    matches!(
        s,
        "+" | "-"
            | "*"
            | "/"
            | "%"
            | "**"
            | "=="
            | "<=>"
            | "<"
            | "<="
            | ">"
            | ">="
            | "[]"
            | "[]="
            | "<<"
            | ">>"
            | "!"
            | "!="
            | "!~"
            | "=~"
            | "==="
            | "+@"
            | "-@"
            | "~"
            | "^"
            | "&"
            | "|"
            | "`"
    )
}

/// Ruby's `inspect`.
pub fn inspect(v: &RValue) -> String {
    let mut out = String::new();
    inspect_into(v, &mut out, 0);
    out
}

fn inspect_into(v: &RValue, out: &mut String, depth: usize) {
    crate::with_stack_at(depth, || {
        if depth > MAX_DEPTH || !walk_step() {
            out.push_str("[...]");
            return;
        }
        match v {
            RValue::Nil => out.push_str("nil"),
            RValue::Str(s) if s.is_binary() => {
                out.push_str(&puppet_types::ruby::inspect_binary_str(&s.borrow()))
            }
            RValue::Str(s) => out.push_str(&inspect_str(&s.borrow())),
            RValue::Sym(s) => {
                out.push(':');
                if sym_is_plain(s) {
                    out.push_str(s);
                } else {
                    out.push_str(&inspect_str(s));
                }
            }
            RValue::Array(a) => {
                let Ok(a) = a.try_borrow() else {
                    out.push_str("[...]");
                    return;
                };
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    inspect_into(x, out, depth + 1);
                }
                out.push(']');
            }
            RValue::Hash(h) => {
                let Ok(h) = h.try_borrow() else {
                    out.push_str("{...}");
                    return;
                };
                out.push('{');
                for (i, (k, v)) in h.map.values().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    inspect_into(k, out, depth + 1);
                    out.push_str("=>");
                    inspect_into(v, out, depth + 1);
                }
                out.push('}');
            }
            RValue::Range(r) => {
                // `..5`, `1..`, but `nil..nil`.
                if !matches!(r.0, RValue::Nil) || matches!(r.1, RValue::Nil) {
                    inspect_into(&r.0, out, depth + 1);
                }
                out.push_str(if r.2 { "..." } else { ".." });
                if !matches!(r.1, RValue::Nil) || matches!(r.0, RValue::Nil) {
                    inspect_into(&r.1, out, depth + 1);
                }
            }
            RValue::Regexp(r) => {
                out.push('/');
                out.push_str(&slash_escaped(&r.source));
                out.push('/');
                for f in ['m', 'i', 'x'] {
                    if r.flags.contains(f) {
                        out.push(f);
                    }
                }
            }
            RValue::MatchData(m) => {
                out.push_str("#<MatchData ");
                out.push_str(&inspect_str(
                    m.first().cloned().flatten().as_deref().unwrap_or(""),
                ));
                for (i, g) in m.iter().enumerate().skip(1) {
                    let _ = write!(out, " {i}:");
                    match g {
                        Some(s) => out.push_str(&inspect_str(s)),
                        None => out.push_str("nil"),
                    }
                }
                out.push('>');
            }
            RValue::IpAddr(ip) => out.push_str(&ip.inspect()),
            RValue::Object(o) => {
                let name = o.class.name();
                if let ObjData::Exception(m) = &*o.data.borrow() {
                    let msg = m.as_ref().map(to_s).unwrap_or_else(|| name.clone());
                    if msg.is_empty() {
                        out.push_str(&name);
                    } else {
                        let _ = write!(out, "#<{name}: {msg}>");
                    }
                    return;
                }
                let ivars = o.ivars.borrow();
                let addr = o.address();
                if ivars.is_empty() || depth > 8 {
                    let _ = write!(out, "#<{name}:{addr:#018x}>");
                } else {
                    let _ = write!(out, "#<{name}:{addr:#018x}");
                    for (i, (k, v)) in ivars.iter().enumerate() {
                        out.push_str(if i == 0 { " @" } else { ", @" });
                        out.push_str(k);
                        out.push('=');
                        inspect_into(v, out, depth + 1);
                    }
                    out.push('>');
                }
            }
            RValue::Puppet(p) => match puppet_types::ruby::inspect_object(p, &mut next_address) {
                Some(text) => out.push_str(&text),
                None => out.push_str(&to_s(v)),
            },
            _ => out.push_str(&to_s(v)),
        }
    })
}

/// Ruby's `to_s`.
pub fn to_s(v: &RValue) -> String {
    match v {
        RValue::Nil => String::new(),
        RValue::Bool(b) => b.to_string(),
        RValue::Int(i) => i.to_string(),
        RValue::Big(b) => b.to_string(),
        RValue::Float(f) => float_to_s(*f),
        RValue::Str(s) => s.borrow().clone(),
        RValue::Sym(s) => s.to_string(),
        RValue::Array(_) | RValue::Hash(_) => inspect(v),
        // `"a".."e"` is `a..e` (its ends' `to_s`).
        RValue::Range(r) => {
            let mut out = String::new();
            out.push_str(&to_s(&r.0));
            out.push_str(if r.2 { "..." } else { ".." });
            out.push_str(&to_s(&r.1));
            out
        }
        RValue::Regexp(r) => {
            let mut on = String::new();
            let mut off = String::from("-");
            for f in ['m', 'i', 'x'] {
                if r.flags.contains(f) {
                    on.push(f);
                } else {
                    off.push(f);
                }
            }
            if off == "-" {
                off.clear();
            }
            format!("(?{on}{off}:{})", slash_escaped(&r.source))
        }
        RValue::Module(m) => m.name(),
        RValue::Object(o) => match &*o.data.borrow() {
            ObjData::Exception(Some(m)) => to_s(m),
            _ => {
                if matches!(&*o.data.borrow(), ObjData::Exception(None)) {
                    o.class.name()
                } else {
                    format!("#<{}:{:#018x}>", o.class.name(), o.address())
                }
            }
        },
        RValue::Proc(p) => {
            if p.lambda {
                "#<Proc:0x0001 (lambda)>".into()
            } else {
                "#<Proc:0x0001>".into()
            }
        }
        RValue::Scope => "Scope()".into(),
        RValue::MatchData(m) => m.first().cloned().flatten().unwrap_or_default(),
        RValue::IpAddr(ip) => ip.to_s(),
        RValue::Puppet(p) => match &**p {
            Value::Sensitive(_) => "Sensitive [value redacted]".to_string(),
            other => other.to_plain_string(),
        },
    }
}

/// Ruby's `==`.
pub fn equal(a: &RValue, b: &RValue) -> bool {
    equal_depth(a, b, 0)
}

fn equal_depth(a: &RValue, b: &RValue, depth: usize) -> bool {
    // Two values that hold nothing nested compare without recursing: no stack to check.
    if holds_nothing_nested(a) && holds_nothing_nested(b) {
        equal_here(a, b, depth)
    } else {
        crate::with_stack_at(depth, || equal_here(a, b, depth))
    }
}

/// [`equal_depth`] on the stack it runs on.
fn equal_here(a: &RValue, b: &RValue, depth: usize) -> bool {
    {
        if depth > MAX_DEPTH || !walk_step() {
            return false;
        }
        match (a, b) {
            (RValue::Nil, RValue::Nil) => true,
            (RValue::Bool(x), RValue::Bool(y)) => x == y,
            (RValue::Int(x), RValue::Int(y)) => x == y,
            (RValue::Float(x), RValue::Float(y)) => x == y,
            (RValue::Int(x), RValue::Float(y)) | (RValue::Float(y), RValue::Int(x)) => {
                (*x as f64) == *y
            }
            (RValue::Big(x), RValue::Big(y)) => x == y,
            (RValue::Big(x), RValue::Float(y)) | (RValue::Float(y), RValue::Big(x)) => {
                crate::bigint::eq_float(x, *y)
            }
            (RValue::Str(x), RValue::Str(y)) => Rc::ptr_eq(x, y) || *x.borrow() == *y.borrow(),
            (RValue::Sym(x), RValue::Sym(y)) => x == y,
            (RValue::Array(x), RValue::Array(y)) => {
                if Rc::ptr_eq(x, y) {
                    return true;
                }
                let (Ok(x), Ok(y)) = (x.try_borrow(), y.try_borrow()) else {
                    return false;
                };
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| equal_depth(p, q, depth + 1))
            }
            (RValue::Hash(x), RValue::Hash(y)) => {
                if Rc::ptr_eq(x, y) {
                    return true;
                }
                let (Ok(x), Ok(y)) = (x.try_borrow(), y.try_borrow()) else {
                    return false;
                };
                x.map.len() == y.map.len()
                    && x.map.iter().all(|(k, (_, v))| {
                        y.map
                            .get(k)
                            .is_some_and(|(_, w)| equal_depth(v, w, depth + 1))
                    })
            }
            (RValue::Range(x), RValue::Range(y)) => {
                x.2 == y.2
                    && equal_depth(&x.0, &y.0, depth + 1)
                    && equal_depth(&x.1, &y.1, depth + 1)
            }
            (RValue::Regexp(x), RValue::Regexp(y)) => x.source == y.source && x.flags == y.flags,
            (RValue::Module(x), RValue::Module(y)) => Rc::ptr_eq(x, y),
            (RValue::Object(x), RValue::Object(y)) => Rc::ptr_eq(x, y),
            (RValue::Proc(x), RValue::Proc(y)) => Rc::ptr_eq(x, y),
            (RValue::Scope, RValue::Scope) => true,
            (RValue::IpAddr(x), RValue::IpAddr(y)) => x.v6 == y.v6 && x.addr == y.addr,
            (RValue::Puppet(x), RValue::Puppet(y)) => x == y,
            (RValue::MatchData(x), RValue::MatchData(y)) => x == y,
            _ => false,
        }
    }
}

/// A regexp's source as `Regexp#inspect` and `#to_s` show it: a `/` that is not escaped
/// gets a backslash (`%r{a/b}` is `/a\/b/`).
/// Ruby's `eql?` (no Integer/Float mixing).
pub fn eql(a: &RValue, b: &RValue) -> bool {
    match (a, b) {
        (RValue::Int(_) | RValue::Big(_), RValue::Float(_))
        | (RValue::Float(_), RValue::Int(_) | RValue::Big(_)) => false,
        _ => HKey::of(a) == HKey::of(b) && equal(a, b),
    }
}

/// Ruby's `<=>`; `None` when the values are not comparable.
pub fn compare(a: &RValue, b: &RValue) -> Option<Ordering> {
    compare_depth(a, b, 0)
}

fn compare_depth(a: &RValue, b: &RValue, depth: usize) -> Option<Ordering> {
    crate::with_stack_at(depth, || {
        if depth > MAX_DEPTH || !walk_step() {
            return None;
        }
        match (a, b) {
            (RValue::Int(x), RValue::Int(y)) => Some(x.cmp(y)),
            (RValue::Float(x), RValue::Float(y)) => x.partial_cmp(y),
            (RValue::Int(x), RValue::Float(y)) => (*x as f64).partial_cmp(y),
            (RValue::Float(x), RValue::Int(y)) => x.partial_cmp(&(*y as f64)),
            (RValue::Big(x), RValue::Big(y)) => Some(x.cmp(y)),
            (RValue::Big(x), RValue::Int(y)) => Some((**x).cmp(&num_bigint::BigInt::from(*y))),
            (RValue::Int(x), RValue::Big(y)) => Some(num_bigint::BigInt::from(*x).cmp(y)),
            (RValue::Big(x), RValue::Float(y)) => crate::bigint::cmp_float(x, *y),
            (RValue::Float(x), RValue::Big(y)) => {
                crate::bigint::cmp_float(y, *x).map(Ordering::reverse)
            }
            (RValue::Str(x), RValue::Str(y)) => {
                Some(x.borrow().as_bytes().cmp(y.borrow().as_bytes()))
            }
            (RValue::Sym(x), RValue::Sym(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
            // SemanticPuppet's versions are Comparable.
            (RValue::Puppet(x), RValue::Puppet(y)) => match (&**x, &**y) {
                (Value::SemVer(x), Value::SemVer(y)) => Some(x.cmp(y)),
                _ => None,
            },
            (RValue::Array(x), RValue::Array(y)) => {
                let (Ok(x), Ok(y)) = (x.try_borrow(), y.try_borrow()) else {
                    return None;
                };
                for (p, q) in x.iter().zip(y.iter()) {
                    match compare_depth(p, q, depth + 1)? {
                        Ordering::Equal => continue,
                        o => return Some(o),
                    }
                }
                Some(x.len().cmp(&y.len()))
            }
            (RValue::Nil, RValue::Nil) => Some(Ordering::Equal),
            (RValue::Bool(x), RValue::Bool(y)) if x == y => Some(Ordering::Equal),
            (RValue::IpAddr(x), RValue::IpAddr(y)) if x.v6 == y.v6 => Some(x.addr.cmp(&y.addr)),
            _ => {
                if equal(a, b) {
                    Some(Ordering::Equal)
                } else {
                    None
                }
            }
        }
    })
}

/// Converts a Puppet value as the template wrapper's variables see it.
pub fn from_puppet(v: &Value) -> RValue {
    from_puppet_depth(v, 0, false)
}

/// [`from_puppet`] with the strings frozen down to the depth `freeze_strings` walks (64), as
/// a scope variable reads in a template: the same as converting, then freezing.
pub(crate) fn from_puppet_frozen(v: &Value) -> RValue {
    from_puppet_depth(v, 0, true)
}

fn from_puppet_depth(v: &Value, depth: usize, freeze: bool) -> RValue {
    crate::with_stack_at(depth, || {
        if depth > 256 {
            return RValue::Nil;
        }
        match v {
            Value::Undef => RValue::Nil,
            Value::Default => RValue::sym("default"),
            Value::Boolean(b) => RValue::Bool(*b),
            Value::Integer(i) => RValue::Int(*i),
            Value::Float(f) => RValue::Float(*f),
            Value::String(s) => {
                let r = RValue::str(s);
                if let RValue::Str(x) = &r {
                    if s.is_binary() {
                        x.set_binary();
                    }
                    if freeze && depth <= 64 {
                        x.freeze();
                    }
                }
                r
            }
            Value::Array(a) => RValue::array(
                a.iter()
                    .map(|x| from_puppet_depth(x, depth + 1, freeze))
                    .collect(),
            ),
            Value::Hash(h) => {
                let mut rh = RHash::default();
                rh.map.reserve(h.len());
                for (k, v) in h.iter() {
                    if let Value::String(text) = k {
                        // What converting the key and `insert` do (the value converted
                        // first, then the key counted as one element walked), keyed by the
                        // text without a string object to read it from.
                        let v = from_puppet_depth(v, depth + 1, freeze);
                        let key = if walk_step() {
                            HKey::Str(text.clone().into())
                        } else {
                            HKey::Nil
                        };
                        match rh.map.entry(key) {
                            indexmap::map::Entry::Occupied(mut slot) => slot.get_mut().1 = v,
                            indexmap::map::Entry::Vacant(slot) => {
                                let k = RValue::str(text);
                                if let RValue::Str(s) = &k {
                                    s.freeze();
                                }
                                slot.insert((k, v));
                            }
                        }
                        continue;
                    }
                    let k = from_puppet_depth(k, depth + 1, freeze);
                    // Frozen as `insert` would copy it to freeze it (a new string nothing else
                    // holds: freezing it in place is the same).
                    if let RValue::Str(s) = &k {
                        s.freeze();
                    }
                    rh.insert(k, from_puppet_depth(v, depth + 1, freeze));
                }
                RValue::hash(rh)
            }
            Value::Regexp(r) => match compile_regex(r.source(), "") {
                Ok(re) => RValue::Regexp(Rc::new(re)),
                Err(_) => RValue::Puppet(Rc::new(v.clone())),
            },
            other => RValue::Puppet(Rc::new(other.clone())),
        }
    })
}

/// Converts a Ruby value back to Puppet (function arguments and results).
pub fn to_puppet(v: &RValue) -> Result<Value, String> {
    to_puppet_depth(v, 0)
}

fn to_puppet_depth(v: &RValue, depth: usize) -> Result<Value, String> {
    crate::with_stack_at(depth, || {
        if depth > MAX_DEPTH {
            return Err("value nested too deeply".into());
        }
        if !walk_step() {
            return Err(format!("value of more than {WALK_LIMIT} elements"));
        }
        Ok(match v {
            RValue::Nil => Value::Undef,
            RValue::Bool(b) => Value::Boolean(*b),
            RValue::Int(i) => Value::Integer(*i),
            RValue::Big(b) => return Err(crate::bigint::puppet_range_error(b)),
            RValue::Float(f) => Value::Float(*f),
            RValue::Str(s) => Value::String(puppet_types::Str::with_binary(
                s.borrow().as_str(),
                s.is_binary(),
            )),
            RValue::Sym(s) => match &**s {
                "undef" => Value::Undef,
                "default" => Value::Default,
                other => Value::string(other),
            },
            RValue::Array(a) => {
                let a = a.try_borrow().map_err(|_| "array in use".to_string())?;
                Value::array(
                    a.iter()
                        .map(|x| to_puppet_depth(x, depth + 1))
                        .collect::<Result<_, _>>()?,
                )
            }
            RValue::Hash(h) => {
                let h = h.try_borrow().map_err(|_| "hash in use".to_string())?;
                let mut pairs = Vec::new();
                for (k, v) in h.map.values() {
                    pairs.push((
                        to_puppet_depth(k, depth + 1)?,
                        to_puppet_depth(v, depth + 1)?,
                    ));
                }
                Value::hash(pairs)
            }
            RValue::Regexp(r) => puppet_types::Regexp::new(&r.source)
                .map(Value::Regexp)
                .map_err(|e| e.to_string())?,
            RValue::Puppet(p) => (**p).clone(),
            // A catalog resource (stdlib's `str2resource` returns one): its reference.
            other => match other {
                RValue::Object(o) => crate::catalog::resource_value(o),
                _ => None,
            }
            .ok_or_else(|| format!("cannot pass a {} to Puppet", other.class_name()))?,
        })
    })
}

/// True when [`to_puppet`] would give `orig` for `v`, found without building the value
/// (`false` also when unsure: the caller converts then). Counts the elements walked as
/// `to_puppet` does.
pub fn converts_to(v: &RValue, orig: &Value) -> bool {
    let mut walked = 0;
    let same = converts_to_depth(v, orig, 0, &mut walked);
    if same {
        WALKED.with(|w| w.set(w.get().saturating_add(walked)));
    }
    same
}

fn converts_to_depth(v: &RValue, orig: &Value, depth: usize, walked: &mut u64) -> bool {
    crate::with_stack_at(depth, || {
        if depth > MAX_DEPTH {
            return false;
        }
        *walked += 1;
        match (v, orig) {
            (RValue::Nil, Value::Undef) => true,
            (RValue::Bool(a), Value::Boolean(b)) => a == b,
            (RValue::Int(a), Value::Integer(b)) => a == b,
            (RValue::Float(a), Value::Float(_)) => Value::Float(*a) == *orig,
            (RValue::Str(a), Value::String(b)) => {
                a.is_binary() == b.is_binary() && a.try_borrow().is_ok_and(|a| a.as_str() == b)
            }
            (RValue::Sym(a), _) => match &**a {
                "undef" => matches!(orig, Value::Undef),
                "default" => matches!(orig, Value::Default),
                a => matches!(orig, Value::String(b) if a == b),
            },
            (RValue::Array(a), Value::Array(b)) => a.try_borrow().is_ok_and(|a| {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| converts_to_depth(x, y, depth + 1, walked))
            }),
            (RValue::Hash(h), Value::Hash(m)) => h.try_borrow().is_ok_and(|h| {
                h.map.len() == m.len()
                    && h.map.values().zip(m.iter()).all(|((k, x), (k2, y))| {
                        converts_to_depth(k, k2, depth + 1, walked)
                            && converts_to_depth(x, y, depth + 1, walked)
                    })
            }),
            _ => false,
        }
    })
}

/// Compiles a Ruby regexp (source between the slashes, options `imx`) with puppet-types'
/// translation and cache (the one of the workspace).
pub fn compile_regex(source: &str, flags: &str) -> Result<RRegex, String> {
    let pattern = puppet_types::regexp::RubyPattern::new(source, flags)?;
    Ok(RRegex {
        source: source.to_string(),
        flags: ['m', 'i', 'x']
            .iter()
            .filter(|f| flags.contains(**f))
            .collect(),
        pattern,
        literal: Literal::of(source, flags),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<RValue> {
        let mut h = RHash::default();
        h.insert(RValue::str("a"), RValue::Int(1));
        vec![
            RValue::Nil,
            RValue::Bool(true),
            RValue::Bool(false),
            RValue::Int(1),
            RValue::Float(1.0),
            RValue::Float(0.0),
            RValue::Float(-0.0),
            RValue::str("a"),
            RValue::str("b"),
            RValue::sym("a"),
            RValue::array(vec![RValue::Int(1)]),
            RValue::array(vec![RValue::Float(1.0)]),
            RValue::hash(h),
            RValue::Scope,
        ]
    }

    #[test]
    fn flat_values_compare_and_key_as_on_a_checked_stack() {
        // The shortcut skips the stack check only: the same answers, the same walk counts.
        for a in samples() {
            for b in samples() {
                let outer = walk_begin();
                let fast = equal(&a, &b);
                let n_fast = WALKED.with(|w| w.get());
                walk_begin();
                let slow = crate::with_stack(|| equal_here(&a, &b, 0));
                let n_slow = WALKED.with(|w| w.get());
                walk_end(outer);
                assert_eq!((fast, n_fast), (slow, n_slow), "{a:?} == {b:?}");
            }
            let outer = walk_begin();
            let fast = HKey::of(&a);
            walk_begin();
            let slow = crate::with_stack(|| HKey::of_here(&a, 0));
            walk_end(outer);
            assert_eq!(fast, slow, "{a:?}");
        }
    }

    #[test]
    fn puppet_hashes_convert_as_inserting_their_converted_keys_does() {
        let nested = Value::hash(vec![(Value::string("x"), Value::Integer(1))]);
        let h = Value::hash(vec![
            (Value::string("b"), Value::string("2")),
            (Value::string("a"), nested),
            (Value::Integer(3), Value::Undef),
            (
                Value::string("a_key_longer_than_twenty_three_bytes"),
                Value::Boolean(true),
            ),
            (Value::Default, Value::string("d")),
        ]);
        let Value::Hash(pairs) = &h else {
            panic!("a hash")
        };
        for freeze in [false, true] {
            let outer = walk_begin();
            let fast = from_puppet_depth(&h, 0, freeze);
            let n_fast = WALKED.with(|w| w.get());
            // The general path: each key converted, frozen, and inserted.
            walk_begin();
            let mut slow = RHash::default();
            for (k, v) in pairs.iter() {
                let k = from_puppet_depth(k, 1, freeze);
                if let RValue::Str(s) = &k {
                    s.freeze();
                }
                slow.insert(k, from_puppet_depth(v, 1, freeze));
            }
            let n_slow = WALKED.with(|w| w.get());
            walk_end(outer);
            assert_eq!(n_fast, n_slow);
            let slow = RValue::hash(slow);
            assert_eq!(inspect(&fast), inspect(&slow));
            let (RValue::Hash(fast), RValue::Hash(slow)) = (&fast, &slow) else {
                panic!("hashes")
            };
            let (fast, slow) = (fast.borrow(), slow.borrow());
            assert_eq!(
                fast.map.keys().collect::<Vec<_>>(),
                slow.map.keys().collect::<Vec<_>>()
            );
            let frozen = |v: &RValue| match v {
                RValue::Str(s) => Some(s.is_frozen()),
                _ => None,
            };
            for ((k1, v1), (k2, v2)) in fast.map.values().zip(slow.map.values()) {
                assert!(equal(k1, k2) && equal(v1, v2));
                assert_eq!(frozen(k1), frozen(k2));
                assert_eq!(frozen(v1), frozen(v2));
            }
        }
    }

    #[test]
    fn floats_print_like_ruby() {
        assert_eq!(float_to_s(1e16), "1.0e+16");
        assert_eq!(float_to_s(1e15), "1.0e+15");
        assert_eq!(float_to_s(123456789012345.0), "123456789012345.0");
        assert_eq!(float_to_s(0.0001), "0.0001");
        assert_eq!(float_to_s(0.00001), "1.0e-05");
        assert_eq!(float_to_s(2.5e-10), "2.5e-10");
        assert_eq!(float_to_s(100.0), "100.0");
        assert_eq!(float_to_s(-1.5), "-1.5");
        assert_eq!(float_to_s(123_456_789.123_456_79), "123456789.12345679");
    }

    /// A value's shape, with the frozen flag of every string, in walk order (keys and
    /// values), at any depth.
    fn frozen_flags(v: &RValue, out: &mut Vec<(String, bool)>) {
        match v {
            RValue::Str(s) => out.push((s.borrow().clone(), s.is_frozen())),
            RValue::Array(a) => {
                out.push(("[".into(), false));
                a.borrow().iter().for_each(|x| frozen_flags(x, out));
            }
            RValue::Hash(h) => {
                out.push(("{".into(), false));
                h.borrow().map.values().for_each(|(k, x)| {
                    frozen_flags(k, out);
                    frozen_flags(x, out);
                });
            }
            other => out.push((inspect(other), false)),
        }
    }

    /// Converting frozen is converting, then freezing the strings (down to the depth
    /// `freeze_strings` walks): the same values with the same frozen flags.
    #[test]
    fn converting_frozen_is_converting_then_freezing() {
        let mut deep = Value::string("bottom");
        for i in 0..70 {
            deep = if i % 2 == 0 {
                Value::array(vec![deep, Value::string(format!("a{i}"))])
            } else {
                Value::hash(vec![(Value::string(format!("k{i}")), deep)])
            };
        }
        let samples = [
            Value::string("x"),
            Value::Integer(3),
            Value::Undef,
            Value::array(vec![Value::string("a"), Value::Boolean(true)]),
            Value::hash(vec![
                (Value::string("k"), Value::string("v")),
                (Value::Integer(1), Value::array(vec![Value::string("n")])),
            ]),
            deep,
        ];
        for v in &samples {
            let general = from_puppet(v);
            crate::interp::freeze_strings(&general, 0);
            let fast = from_puppet_frozen(v);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            frozen_flags(&general, &mut a);
            frozen_flags(&fast, &mut b);
            assert_eq!(a, b, "{v:?}");
        }
    }

    #[test]
    fn borrowed_keys_hash_and_compare_as_their_hkey() {
        use std::hash::BuildHasher;
        let pairs = [
            (KeyRef::Str("port"), HKey::Str("port".into())),
            (KeyRef::Sym("port"), HKey::Sym("port".into())),
            (KeyRef::Int(-7), HKey::Int(-7)),
            (KeyRef::Str(""), HKey::Str(Default::default())),
        ];
        let fx = rustc_hash::FxBuildHasher;
        let sip =
            std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
        for (r, k) in &pairs {
            assert_eq!(fx.hash_one(r), fx.hash_one(k));
            assert_eq!(sip.hash_one(r), sip.hash_one(k));
            assert!(indexmap::Equivalent::equivalent(r, k));
        }
        assert!(!indexmap::Equivalent::equivalent(
            &KeyRef::Str("a"),
            &HKey::Sym("a".into())
        ));
        assert!(!indexmap::Equivalent::equivalent(
            &KeyRef::Int(1),
            &HKey::Float(1)
        ));
        // Lookups by every kind of key find what inserts put there.
        let mut h = RHash::default();
        h.insert(RValue::str("a"), RValue::Int(1));
        h.insert(RValue::sym("a"), RValue::Int(2));
        h.insert(RValue::Int(3), RValue::Int(3));
        h.insert(RValue::array(vec![RValue::Int(1)]), RValue::Int(4));
        assert!(matches!(h.get(&RValue::str("a")), Some(RValue::Int(1))));
        assert!(matches!(h.get(&RValue::sym("a")), Some(RValue::Int(2))));
        assert!(matches!(h.get(&RValue::Int(3)), Some(RValue::Int(3))));
        assert!(matches!(
            h.get(&RValue::array(vec![RValue::Int(1)])),
            Some(RValue::Int(4))
        ));
        assert!(h.get(&RValue::Float(3.0)).is_none());
        assert!(h.get(&RValue::str("b")).is_none());
    }

    #[test]
    fn converts_to_agrees_with_to_puppet() {
        use puppet_types::Regexp;
        let puppet = [
            Value::Undef,
            Value::Default,
            Value::Boolean(true),
            Value::Integer(3),
            Value::Float(0.5),
            Value::Float(f64::NAN),
            Value::string("x"),
            Value::string("undef"),
            Value::Regexp(Regexp::new("a+").unwrap()),
            Value::array(vec![Value::Undef, Value::string("a"), Value::Default]),
            Value::hash(vec![
                (Value::string("k"), Value::array(vec![Value::Integer(1)])),
                (
                    Value::Integer(2),
                    Value::hash(vec![(Value::string("z"), Value::Undef)]),
                ),
            ]),
        ];
        let ruby: Vec<RValue> = puppet
            .iter()
            .map(from_puppet)
            .chain([
                RValue::sym("x"),
                RValue::sym("undef"),
                RValue::Int(4),
                RValue::array(vec![RValue::Nil]),
                RValue::array(vec![
                    RValue::Nil,
                    RValue::str("a"),
                    RValue::sym("default"),
                    RValue::Int(1),
                ]),
            ])
            .collect();
        for r in &ruby {
            for p in &puppet {
                if converts_to(r, p) {
                    assert_eq!(to_puppet(r).as_ref(), Ok(p), "{r:?} {p:?}");
                }
            }
            // A value converted from Puppet and left alone is recognised as unchanged.
        }
        for p in &puppet {
            let r = from_puppet(p);
            let back = to_puppet(&r).unwrap();
            assert_eq!(
                converts_to(&r, &back),
                !matches!(p, Value::Regexp(_)),
                "{p:?}"
            );
        }
        // A changed array or hash is not.
        let r = from_puppet(&puppet[10]);
        if let RValue::Hash(h) = &r {
            h.borrow_mut().insert(RValue::str("new"), RValue::Int(1));
        }
        assert!(!converts_to(&r, &puppet[10]));
    }

    #[test]
    fn inspect_like_ruby() {
        let mut h = RHash::default();
        h.insert(RValue::str("a"), RValue::Int(1));
        h.insert(RValue::sym("b"), RValue::Nil);
        assert_eq!(inspect(&RValue::hash(h)), "{\"a\"=>1, :b=>nil}");
        assert_eq!(inspect_str("\u{1}#{x}"), "\"\\u0001\\#{x}\"");
        assert_eq!(inspect(&RValue::sym("a b")), ":\"a b\"");
    }

    /// A plain-text regexp (maybe anchored) is matched without the engine: the same spans
    /// as the engine finds, from every start, in texts with and without line breaks; other
    /// regexps are left to the engine.
    #[test]
    fn literal_regexps_match_as_the_engine_does() {
        let patterns = [
            "ssl", "^ssl", "^ssl-", "\\Assl", "ssl-ca", "a", "^a", "\\Aa", "ab", "^ab", "b=c",
            "x y", "'q'", "a/b", "^-", "-", "é", "^é",
        ];
        let texts = [
            "",
            "ssl",
            "ssl-ca",
            "xssl",
            "x\nssl",
            "ssl\nssl-ca",
            "\nssl",
            "ssl\n",
            "abab",
            "a\na\nab",
            "b=c",
            "a b x y",
            "'q'",
            "a/b\n^a/b",
            "--",
            "\n-",
            "é\né",
            "xé",
            "aa\n\nab\r\nab",
        ];
        for flags in ["", "m"] {
            for p in patterns {
                let re = compile_regex(p, flags).unwrap();
                let engine = re.re(crate::Pos::default()).unwrap().clone();
                // Patterns outside the plain set (non-ASCII here) use the engine only.
                assert_eq!(re.literal.is_some(), p.is_ascii(), "{p}");
                for t in texts {
                    for from in (0..=t.len()).filter(|&i| t.is_char_boundary(i)) {
                        let want = engine
                            .find_from_pos(t, from)
                            .unwrap()
                            .map(|m| (m.start(), m.end()));
                        if let Some(got) = re.find_literal(t, from) {
                            assert_eq!(got, want, "/{p}/{flags} in {t:?} from {from}");
                        }
                    }
                }
            }
        }
        for (p, flags) in [
            ("a.b", ""),
            ("a+", ""),
            ("ssl", "i"),
            ("ssl", "x"),
            ("a b", "x"),
            ("^", ""),
            ("\\A", ""),
            ("a$", ""),
            ("a|b", ""),
            ("(a)", ""),
            ("[a]", ""),
            ("a{2}", ""),
            ("a?", ""),
            ("a*", ""),
            ("\\d", ""),
            ("a#b", ""),
            ("", ""),
        ] {
            assert!(
                compile_regex(p, flags).unwrap().literal.is_none(),
                "/{p}/{flags}"
            );
        }
    }

    /// The first match found on the automata is the full regexp's: the same span and
    /// groups (unmatched ones `None`), for patterns with and without groups, anchors,
    /// options and non-ASCII text; named groups are left to the full regexp.
    #[test]
    fn first_matches_on_the_automata_are_the_full_regexps() {
        let patterns = [
            ("^ssl", ""),
            ("(\\w+)=(\\d+)?", ""),
            ("a(b)?c|(x)", ""),
            ("^(\\S+)\\s+(.*)$", ""),
            ("\\A[a-z]+\\z", ""),
            ("\\h+\\Z", ""),
            ("é(.)", ""),
            ("SSL", "i"),
            ("a . c", "x"),
            ("a.c", "m"),
            ("[[:alpha:]]+", ""),
            ("(?:ab)+", ""),
            ("\\d{2,}", ""),
            ("(?<name>a)", ""),
            ("(?<=a)b", ""),
        ];
        let texts = [
            "",
            "ssl-ca",
            "x\nssl",
            "key=12 k=",
            "abc x",
            "ac",
            "first  second rest\nnext",
            "abc",
            "ff\n",
            "éa éb",
            "SsL",
            "a\nc",
            "abab",
            "x123y",
            "ab",
        ];
        let mut on_automata = 0;
        for (p, flags) in patterns {
            let re = compile_regex(p, flags).unwrap();
            let full = re.re(crate::Pos::default()).unwrap().clone();
            for t in texts {
                let want = full
                    .captures(t)
                    .unwrap()
                    .map(|c| Captures::of(&full, &c, t))
                    .map(|c| (c.span(), c.groups.clone()));
                if let Some(got) = re.first_match_on_automata(t) {
                    on_automata += 1;
                    assert!(!p.contains("(?<"), "/{p}/");
                    assert_eq!(
                        got.map(|c| (c.span(), c.groups.clone())),
                        want,
                        "/{p}/{flags} {t:?}"
                    );
                }
            }
        }
        assert!(on_automata > 100, "{on_automata}");
    }
}
