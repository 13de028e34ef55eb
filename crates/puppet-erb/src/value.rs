//! Ruby values as templates see them, and their text forms.
//!
//! Strings, arrays and hashes are shared mutable objects (`Rc<RefCell<..>>`), as in Ruby,
//! so `a = []; @list.each { |x| a << x }` works. `to_s` and `inspect` print exactly what
//! Ruby 3.1 prints (`[1, "a", nil]`, `{"a"=>1, :b=>nil}`, `1.0e+16`), equality follows
//! `==` (numeric across Integer/Float) and hash keys follow `eql?`. The bridge to Puppet
//! values ([`from_puppet`], [`to_puppet`]) maps undef to nil and `default` to `:default`.

use indexmap::IndexMap;
use puppet_types::Value;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::rc::Rc;

/// Depth limit for printing and comparing (self-referencing containers).
const MAX_DEPTH: usize = 64;

/// A compiled Ruby regexp.
#[derive(Debug)]
pub struct RRegex {
    pub source: String,
    pub flags: String,
    pub re: fancy_regex::Regex,
}

/// A Ruby hash: insertion ordered, keys by `eql?`.
#[derive(Debug, Default, Clone)]
pub struct RHash {
    pub map: IndexMap<HKey, (RValue, RValue)>,
    pub default: RValue,
}

impl RHash {
    pub fn get(&self, k: &RValue) -> Option<&RValue> {
        self.map.get(&HKey::of(k)).map(|(_, v)| v)
    }
    pub fn insert(&mut self, k: RValue, v: RValue) {
        let key = HKey::of(&k);
        // Ruby dups and freezes string keys; keep the first key object on update.
        if let Some(slot) = self.map.get_mut(&key) {
            slot.1 = v;
        } else {
            let k = match &k {
                RValue::Str(s) => RValue::str(s.borrow().as_str()),
                _ => k,
            };
            self.map.insert(key, (k, v));
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
    Str(String),
    Sym(String),
    Array(Vec<HKey>),
    Other(String),
}

impl HKey {
    pub fn of(v: &RValue) -> HKey {
        Self::of_depth(v, 0)
    }
    fn of_depth(v: &RValue, depth: usize) -> HKey {
        match v {
            RValue::Nil => HKey::Nil,
            RValue::Bool(b) => HKey::Bool(*b),
            RValue::Int(i) => HKey::Int(*i),
            RValue::Float(f) => HKey::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
            RValue::Str(s) => HKey::Str(s.borrow().clone()),
            RValue::Sym(s) => HKey::Sym(s.to_string()),
            RValue::Array(a) if depth < MAX_DEPTH => HKey::Array(
                a.borrow()
                    .iter()
                    .map(|x| Self::of_depth(x, depth + 1))
                    .collect(),
            ),
            other => HKey::Other(inspect(other)),
        }
    }
}

/// Classes a template can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
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
}

impl Class {
    pub fn by_name(name: &str) -> Option<Class> {
        Some(match name {
            "Object" | "BasicObject" => Class::Object,
            "NilClass" => Class::NilClass,
            "TrueClass" => Class::TrueClass,
            "FalseClass" => Class::FalseClass,
            "Integer" | "Fixnum" | "Bignum" => Class::Integer,
            "Float" => Class::Float,
            "Numeric" => Class::Numeric,
            "String" => Class::String,
            "Symbol" => Class::Symbol,
            "Array" => Class::Array,
            "Hash" => Class::Hash,
            "Range" => Class::Range,
            "Regexp" => Class::Regexp,
            "MatchData" => Class::MatchData,
            "Comparable" => Class::Comparable,
            "Enumerable" => Class::Enumerable,
            "Kernel" => Class::Kernel,
            "Puppet" => Class::Puppet,
            "IPAddr" => Class::IPAddr,
            "JSON" => Class::Json,
            "File" => Class::File,
            "Math" => Class::Math,
            "StandardError" => Class::StandardError,
            "RuntimeError" => Class::RuntimeError,
            "ArgumentError" => Class::ArgumentError,
            "TypeError" => Class::TypeError,
            "NameError" => Class::NameError,
            "NoMethodError" => Class::NoMethodError,
            "KeyError" => Class::KeyError,
            "IndexError" => Class::IndexError,
            "ZeroDivisionError" => Class::ZeroDivisionError,
            "Exception" => Class::Exception,
            "Module" | "Class" => Class::Module,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Class::Object => "Object",
            Class::NilClass => "NilClass",
            Class::TrueClass => "TrueClass",
            Class::FalseClass => "FalseClass",
            Class::Integer => "Integer",
            Class::Float => "Float",
            Class::Numeric => "Numeric",
            Class::String => "String",
            Class::Symbol => "Symbol",
            Class::Array => "Array",
            Class::Hash => "Hash",
            Class::Range => "Range",
            Class::Regexp => "Regexp",
            Class::MatchData => "MatchData",
            Class::Comparable => "Comparable",
            Class::Enumerable => "Enumerable",
            Class::Kernel => "Kernel",
            Class::Puppet => "Puppet",
            Class::IPAddr => "IPAddr",
            Class::Json => "JSON",
            Class::File => "File",
            Class::Math => "Math",
            Class::StandardError => "StandardError",
            Class::RuntimeError => "RuntimeError",
            Class::ArgumentError => "ArgumentError",
            Class::TypeError => "TypeError",
            Class::NameError => "NameError",
            Class::NoMethodError => "NoMethodError",
            Class::KeyError => "KeyError",
            Class::IndexError => "IndexError",
            Class::ZeroDivisionError => "ZeroDivisionError",
            Class::Exception => "Exception",
            Class::Module => "Class",
        }
    }
    /// True when `self` is `other` or one of its ancestors (`other <= self`).
    pub fn includes(self, other: Class) -> bool {
        if self == other || self == Class::Object || self == Class::Kernel {
            return true;
        }
        match self {
            Class::Numeric | Class::Comparable => {
                matches!(other, Class::Integer | Class::Float | Class::String)
                    && (self == Class::Comparable || other != Class::String)
            }
            Class::Enumerable => matches!(other, Class::Array | Class::Hash | Class::Range),
            Class::Exception => other.is_error(),
            Class::StandardError => other.is_error() && other != Class::Exception,
            Class::NameError => other == Class::NoMethodError,
            Class::IndexError => other == Class::KeyError,
            _ => false,
        }
    }
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Class::StandardError
                | Class::RuntimeError
                | Class::ArgumentError
                | Class::TypeError
                | Class::NameError
                | Class::NoMethodError
                | Class::KeyError
                | Class::IndexError
                | Class::ZeroDivisionError
                | Class::Exception
        )
    }
}

/// An IPv4 or IPv6 address with prefix (IPAddr).
#[derive(Debug, Clone, PartialEq)]
pub struct IpAddr {
    pub v6: bool,
    pub addr: u128,
    pub prefix: u32,
}

/// A Ruby value.
#[derive(Debug, Clone, Default)]
pub enum RValue {
    #[default]
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<RefCell<String>>),
    Sym(Rc<str>),
    Array(Rc<RefCell<Vec<RValue>>>),
    Hash(Rc<RefCell<RHash>>),
    Range(Rc<(RValue, RValue, bool)>),
    Regexp(Rc<RRegex>),
    Class(Class),
    /// The Puppet scope object (`scope`).
    Scope,
    /// A match result: captures (group 0 is the whole match).
    MatchData(Rc<Vec<Option<String>>>),
    IpAddr(Rc<IpAddr>),
    /// A Puppet value with no Ruby counterpart (types, Sensitive, timestamps...).
    Puppet(Rc<Value>),
    /// A rescued exception (`rescue => e`): its class name and message.
    Exception(Rc<(String, String)>),
}

impl RValue {
    pub fn str(s: &str) -> RValue {
        RValue::Str(Rc::new(RefCell::new(s.to_string())))
    }
    pub fn string(s: String) -> RValue {
        RValue::Str(Rc::new(RefCell::new(s)))
    }
    pub fn sym(s: &str) -> RValue {
        RValue::Sym(Rc::from(s))
    }
    pub fn array(v: Vec<RValue>) -> RValue {
        RValue::Array(Rc::new(RefCell::new(v)))
    }
    pub fn hash(h: RHash) -> RValue {
        RValue::Hash(Rc::new(RefCell::new(h)))
    }
    pub fn truthy(&self) -> bool {
        !matches!(self, RValue::Nil | RValue::Bool(false))
    }
    pub fn class(&self) -> Class {
        match self {
            RValue::Nil => Class::NilClass,
            RValue::Bool(true) => Class::TrueClass,
            RValue::Bool(false) => Class::FalseClass,
            RValue::Int(_) => Class::Integer,
            RValue::Float(_) => Class::Float,
            RValue::Str(_) => Class::String,
            RValue::Sym(_) => Class::Symbol,
            RValue::Array(_) => Class::Array,
            RValue::Hash(_) => Class::Hash,
            RValue::Range(_) => Class::Range,
            RValue::Regexp(_) => Class::Regexp,
            RValue::Class(_) => Class::Module,
            RValue::MatchData(_) => Class::MatchData,
            RValue::IpAddr(_) => Class::IPAddr,
            RValue::Scope | RValue::Puppet(_) => Class::Object,
            RValue::Exception(e) => Class::by_name(&e.0).unwrap_or(Class::StandardError),
        }
    }
    /// The class name as Ruby error messages print it.
    pub fn class_name(&self) -> String {
        match self {
            RValue::Scope => "Puppet::Parser::Scope".into(),
            RValue::Puppet(v) => puppet_class_name(v),
            RValue::Exception(e) => e.0.clone(),
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
    match v {
        Value::Type(_) => "Puppet::Pops::Types::PAnyType".into(),
        Value::Sensitive(_) => "Puppet::Pops::Types::PSensitiveType::Sensitive".into(),
        Value::Timespan(_) => "Puppet::Pops::Time::Timespan".into(),
        Value::Timestamp(_) => "Puppet::Pops::Time::Timestamp".into(),
        Value::SemVer(_) => "SemanticPuppet::Version".into(),
        Value::SemVerRange(_) => "SemanticPuppet::VersionRange".into(),
        Value::Binary(_) => "Puppet::Pops::Types::PBinaryType::Binary".into(),
        Value::Uri(_) => "URI::Generic".into(),
        _ => "Object".into(),
    }
}

/// Ruby's `Float#to_s`.
pub fn float_to_s(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Shortest round-trip digits and decimal exponent.
    let e = format!("{:e}", f.abs());
    let (mant, exp) = e.split_once('e').unwrap_or((e.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let decpt = exp + 1;
    let sign = if f < 0.0 { "-" } else { "" };
    if -4 < decpt && decpt < 16 {
        if decpt <= 0 {
            format!("{sign}0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if (decpt as usize) >= digits.len() {
            format!(
                "{sign}{}{}.0",
                digits,
                "0".repeat(decpt as usize - digits.len())
            )
        } else {
            let (a, b) = digits.split_at(decpt as usize);
            format!("{sign}{a}.{b}")
        }
    } else {
        let (a, b) = digits.split_at(1);
        let b = if b.is_empty() { "0" } else { b };
        let x = decpt - 1;
        format!(
            "{sign}{a}.{b}e{}{:02}",
            if x < 0 { '-' } else { '+' },
            x.abs()
        )
    }
}

/// Ruby's `String#inspect` (UTF-8).
pub fn inspect_str(s: &str) -> String {
    puppet_types::convert::ruby_inspect_str(s)
}

fn sym_is_plain(s: &str) -> bool {
    let body = s.strip_prefix('@').unwrap_or(s);
    let body = body
        .strip_suffix('?')
        .or_else(|| body.strip_suffix('!'))
        .or_else(|| body.strip_suffix('='))
        .unwrap_or(body);
    let mut cs = body.chars();
    match cs.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => {
            return matches!(
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
                    | "!"
                    | "=~"
                    | "==="
            )
        }
    }
    cs.all(|c| c.is_alphanumeric() || c == '_')
}

/// Ruby's `inspect`.
pub fn inspect(v: &RValue) -> String {
    let mut out = String::new();
    inspect_into(v, &mut out, 0);
    out
}

fn inspect_into(v: &RValue, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        out.push_str("[...]");
        return;
    }
    match v {
        RValue::Nil => out.push_str("nil"),
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
            inspect_into(&r.0, out, depth + 1);
            out.push_str(if r.2 { "..." } else { ".." });
            if !matches!(r.1, RValue::Nil) {
                inspect_into(&r.1, out, depth + 1);
            }
        }
        RValue::Regexp(r) => {
            out.push('/');
            out.push_str(&r.source);
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
        RValue::IpAddr(ip) => {
            let _ = write!(
                out,
                "#<IPAddr: IPv{}:{}/{}>",
                if ip.v6 { 6 } else { 4 },
                ip_to_s(ip),
                ip_mask_s(ip)
            );
        }
        RValue::Exception(e) if e.1.is_empty() => out.push_str(&e.0),
        RValue::Exception(e) => {
            out.push_str("#<");
            out.push_str(&e.0);
            out.push_str(": ");
            out.push_str(&e.1);
            out.push('>');
        }
        _ => out.push_str(&to_s(v)),
    }
}

/// Ruby's `to_s`.
pub fn to_s(v: &RValue) -> String {
    match v {
        RValue::Nil => String::new(),
        RValue::Bool(b) => b.to_string(),
        RValue::Int(i) => i.to_string(),
        RValue::Float(f) => float_to_s(*f),
        RValue::Str(s) => s.borrow().clone(),
        RValue::Sym(s) => s.to_string(),
        RValue::Array(_) | RValue::Hash(_) | RValue::Range(_) => inspect(v),
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
            format!("(?{on}{off}:{})", r.source)
        }
        RValue::Class(c) => c.name().to_string(),
        RValue::Scope => "Scope()".into(),
        RValue::MatchData(m) => m.first().cloned().flatten().unwrap_or_default(),
        RValue::IpAddr(ip) => ip_to_s(ip),
        RValue::Puppet(p) => match &**p {
            Value::Sensitive(_) => "Sensitive [value redacted]".to_string(),
            other => other.to_plain_string(),
        },
        RValue::Exception(e) => e.1.clone(),
    }
}

/// IPAddr#to_s (compressed IPv6).
pub fn ip_to_s(ip: &IpAddr) -> String {
    if !ip.v6 {
        let a = ip.addr as u32;
        return format!(
            "{}.{}.{}.{}",
            a >> 24,
            (a >> 16) & 255,
            (a >> 8) & 255,
            a & 255
        );
    }
    std::net::Ipv6Addr::from(ip.addr).to_string()
}

fn ip_mask_s(ip: &IpAddr) -> String {
    let bits = if ip.v6 { 128 } else { 32 };
    let mask: u128 = if ip.prefix == 0 {
        0
    } else {
        (!0u128 << (bits - ip.prefix)) & if ip.v6 { !0u128 } else { 0xffff_ffff }
    };
    ip_to_s(&IpAddr {
        v6: ip.v6,
        addr: mask,
        prefix: bits,
    })
}

/// Ruby's `==`.
pub fn equal(a: &RValue, b: &RValue) -> bool {
    equal_depth(a, b, 0)
}

fn equal_depth(a: &RValue, b: &RValue, depth: usize) -> bool {
    if depth > MAX_DEPTH {
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
            x.2 == y.2 && equal_depth(&x.0, &y.0, depth + 1) && equal_depth(&x.1, &y.1, depth + 1)
        }
        (RValue::Regexp(x), RValue::Regexp(y)) => x.source == y.source && x.flags == y.flags,
        (RValue::Class(x), RValue::Class(y)) => x == y,
        (RValue::Scope, RValue::Scope) => true,
        (RValue::IpAddr(x), RValue::IpAddr(y)) => x.v6 == y.v6 && x.addr == y.addr,
        (RValue::Puppet(x), RValue::Puppet(y)) => x == y,
        (RValue::MatchData(x), RValue::MatchData(y)) => x == y,
        _ => false,
    }
}

/// Ruby's `eql?` (no Integer/Float mixing).
pub fn eql(a: &RValue, b: &RValue) -> bool {
    match (a, b) {
        (RValue::Int(_), RValue::Float(_)) | (RValue::Float(_), RValue::Int(_)) => false,
        _ => HKey::of(a) == HKey::of(b) && equal(a, b),
    }
}

/// Ruby's `<=>`; `None` when the values are not comparable.
pub fn compare(a: &RValue, b: &RValue) -> Option<Ordering> {
    compare_depth(a, b, 0)
}

fn compare_depth(a: &RValue, b: &RValue, depth: usize) -> Option<Ordering> {
    if depth > MAX_DEPTH {
        return None;
    }
    match (a, b) {
        (RValue::Int(x), RValue::Int(y)) => Some(x.cmp(y)),
        (RValue::Float(x), RValue::Float(y)) => x.partial_cmp(y),
        (RValue::Int(x), RValue::Float(y)) => (*x as f64).partial_cmp(y),
        (RValue::Float(x), RValue::Int(y)) => x.partial_cmp(&(*y as f64)),
        (RValue::Str(x), RValue::Str(y)) => Some(x.borrow().as_bytes().cmp(y.borrow().as_bytes())),
        (RValue::Sym(x), RValue::Sym(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
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
}

/// Converts a Puppet value as the template wrapper's variables see it.
pub fn from_puppet(v: &Value) -> RValue {
    from_puppet_depth(v, 0)
}

fn from_puppet_depth(v: &Value, depth: usize) -> RValue {
    if depth > 256 {
        return RValue::Nil;
    }
    match v {
        Value::Undef => RValue::Nil,
        Value::Default => RValue::sym("default"),
        Value::Boolean(b) => RValue::Bool(*b),
        Value::Integer(i) => RValue::Int(*i),
        Value::Float(f) => RValue::Float(*f),
        Value::String(s) => RValue::str(s),
        Value::Array(a) => {
            RValue::array(a.iter().map(|x| from_puppet_depth(x, depth + 1)).collect())
        }
        Value::Hash(h) => {
            let mut rh = RHash::default();
            for (k, v) in h.iter() {
                rh.insert(
                    from_puppet_depth(k, depth + 1),
                    from_puppet_depth(v, depth + 1),
                );
            }
            RValue::hash(rh)
        }
        Value::Regexp(r) => match compile_regex(r.source(), "") {
            Ok(re) => RValue::Regexp(Rc::new(re)),
            Err(_) => RValue::Puppet(Rc::new(v.clone())),
        },
        other => RValue::Puppet(Rc::new(other.clone())),
    }
}

/// Converts a Ruby value back to Puppet (function arguments and results).
pub fn to_puppet(v: &RValue) -> Result<Value, String> {
    to_puppet_depth(v, 0)
}

fn to_puppet_depth(v: &RValue, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("value nested too deeply".into());
    }
    Ok(match v {
        RValue::Nil => Value::Undef,
        RValue::Bool(b) => Value::Boolean(*b),
        RValue::Int(i) => Value::Integer(*i),
        RValue::Float(f) => Value::Float(*f),
        RValue::Str(s) => Value::string(s.borrow().as_str()),
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
        other => return Err(format!("cannot pass a {} to Puppet", other.class_name())),
    })
}

type RegexCache = std::sync::Mutex<std::collections::HashMap<(String, String), fancy_regex::Regex>>;

/// Compiled regexps by (source, flags), shared by the whole process (compiling is pure and
/// costly: templates use the same patterns on every render).
fn regex_cache() -> &'static RegexCache {
    static CACHE: std::sync::OnceLock<RegexCache> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Compiles a Ruby regexp (source between the slashes, flags `imx`); cached.
pub fn compile_regex(source: &str, flags: &str) -> Result<RRegex, String> {
    let key = (source.to_string(), flags.to_string());
    if let Some(re) = regex_cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(RRegex {
            source: source.to_string(),
            flags: flags.chars().filter(|c| "mix".contains(*c)).collect(),
            re,
        });
    }
    let r = compile_regex_uncached(source, flags)?;
    if let Ok(mut c) = regex_cache().lock() {
        if c.len() >= 4096 {
            c.clear();
        }
        c.insert(key, r.re.clone());
    }
    Ok(r)
}

fn compile_regex_uncached(source: &str, flags: &str) -> Result<RRegex, String> {
    let mut pat = String::from("(?m");
    if flags.contains('i') {
        pat.push('i');
    }
    if flags.contains('m') {
        pat.push('s');
    }
    if flags.contains('x') {
        pat.push('x');
    }
    pat.push(')');
    translate_regex(source, &mut pat);
    let re = fancy_regex::RegexBuilder::new(&pat)
        .backtrack_limit(1_000_000)
        .delegate_dfa_size_limit(0) // no full DFA: see puppet_types::Regexp
        .build()
        .map_err(|e| e.to_string())?;
    Ok(RRegex {
        source: source.to_string(),
        flags: flags.chars().filter(|c| "mix".contains(*c)).collect(),
        re,
    })
}

fn translate_regex(src: &str, out: &mut String) {
    let cs: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut class = 0usize;
    while i < cs.len() {
        let c = cs[i];
        if c == '\\' && i + 1 < cs.len() {
            let n = cs[i + 1];
            match n {
                'Z' if class == 0 => out.push_str("(?=\\n?\\z)"),
                'h' if class == 0 => out.push_str("[0-9a-fA-F]"),
                'h' => out.push_str("0-9a-fA-F"),
                'H' if class == 0 => out.push_str("[^0-9a-fA-F]"),
                '/' => out.push('/'),
                _ => {
                    out.push('\\');
                    out.push(n);
                }
            }
            i += 2;
            continue;
        }
        if c == '[' {
            class += 1;
        } else if c == ']' && class > 0 {
            class -= 1;
        } else if c == '(' && class == 0 && cs.get(i + 1) == Some(&'?') {
            let mut j = i + 2;
            let mut flags = String::new();
            while j < cs.len() && matches!(cs[j], 'i' | 'm' | 'x' | '-') {
                flags.push(if cs[j] == 'm' { 's' } else { cs[j] });
                j += 1;
            }
            if !flags.is_empty() && j < cs.len() && (cs[j] == ':' || cs[j] == ')') {
                out.push_str("(?");
                out.push_str(&flags);
                i = j;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn inspect_like_ruby() {
        let mut h = RHash::default();
        h.insert(RValue::str("a"), RValue::Int(1));
        h.insert(RValue::sym("b"), RValue::Nil);
        assert_eq!(inspect(&RValue::hash(h)), "{\"a\"=>1, :b=>nil}");
        assert_eq!(inspect_str("\u{1}#{x}"), "\"\\u0001\\#{x}\"");
        assert_eq!(inspect(&RValue::sym("a b")), ":\"a b\"");
    }
}
