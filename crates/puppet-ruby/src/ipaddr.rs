//! Ruby's `IPAddr` (ipaddr 1.2.4 of Ruby 3.1): the one implementation of the workspace.
//!
//! [`parse`] follows `IPAddr.new(string)`: dotted IPv4 (no leading zeros, octets below 256),
//! IPv6 in full, compressed and IPv4-tailed forms, `[v6]` brackets, `%zone` suffixes, and a
//! `/prefix` given as a length or as a netmask, with Ruby's error classes and messages.
//! [`IpAddr::to_s`] is Ruby's text (IPv6 groups without leading zeros, the leftmost longest
//! run of zero groups as `::`, a dotted tail for `::a.b.c.d` and `::ffff:a.b.c.d`). The
//! interpreter's `IPAddr` objects and puppet-stdlib's IP functions both use this module.

use crate::interp::{raise, unsupported, R};
use crate::value::RValue;
use crate::Pos;
use std::rc::Rc;

/// An `IPAddr`: family, address (masked), mask and zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpAddr {
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// The address, masked by its prefix.
    pub addr: u128,
    /// The mask.
    pub mask: u128,
    /// An IPv6 zone (`%eth0`).
    pub zone: Option<String>,
}

/// Why `IPAddr.new` refused a text: Ruby's exception class and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpError {
    /// `IPAddr::InvalidAddressError`, `IPAddr::InvalidPrefixError`, ...
    pub class: &'static str,
    /// Ruby's message.
    pub message: String,
}

fn invalid_address() -> IpError {
    // Ruby 3.1 formats the message before the address is known: it ends with ": ".
    IpError {
        class: "IPAddr::InvalidAddressError",
        message: "invalid address: ".into(),
    }
}

fn invalid_prefix(message: String) -> IpError {
    IpError {
        class: "IPAddr::InvalidPrefixError",
        message,
    }
}

fn full(v6: bool) -> u128 {
    if v6 {
        u128::MAX
    } else {
        u32::MAX as u128
    }
}

impl IpAddr {
    /// The prefix length.
    pub fn prefix(&self) -> u32 {
        self.mask.count_ones()
    }

    /// Ruby's `IPAddr#include?`: same family and `other`'s range inside this one's.
    pub fn include(&self, other: &IpAddr) -> bool {
        if self.v6 != other.v6 {
            return false;
        }
        let full = full(self.v6);
        let (b, e) = (self.addr & self.mask, self.addr | (full ^ self.mask));
        let (ob, oe) = (other.addr & other.mask, other.addr | (full ^ other.mask));
        b <= ob && e >= oe
    }

    /// Ruby's `IPAddr#to_s` (the zone included).
    pub fn to_s(&self) -> String {
        let base = if self.v6 {
            ipv6_to_s(self.addr)
        } else {
            std::net::Ipv4Addr::from(self.addr as u32).to_string()
        };
        match &self.zone {
            Some(z) => format!("{base}%{z}"),
            None => base,
        }
    }

    /// The mask as an address text (`255.255.255.0`).
    pub fn mask_s(&self) -> String {
        if self.v6 {
            ipv6_to_s(self.mask)
        } else {
            std::net::Ipv4Addr::from(self.mask as u32).to_string()
        }
    }
}

/// Ruby's `IPAddr#to_s` of an IPv6 address: groups without leading zeros, the leftmost
/// longest run of two or more zero groups written `::`, and `::a.b.c.d` for an address of
/// the forms `::x:y` and `::ffff:x:y`.
///
/// ```
/// use puppet_ruby::ipaddr::ipv6_to_s;
/// assert_eq!(ipv6_to_s(1), "::1");
/// assert_eq!(ipv6_to_s(0x0001_0002), "::0.1.0.2");
/// assert_eq!(ipv6_to_s(0x0001_0000_0000_0002_0000_0000_0000_0003), "1:0:0:2::3");
/// ```
pub fn ipv6_to_s(addr: u128) -> String {
    let groups: Vec<u16> = (0..8).map(|i| (addr >> (112 - 16 * i)) as u16).collect();
    if groups.iter().all(|g| *g == 0) {
        return "::".to_string();
    }
    let (mut best, mut best_len) = (0, 0);
    let mut i = 0;
    while i < 8 {
        if groups[i] == 0 {
            let start = i;
            while i < 8 && groups[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                (best, best_len) = (start, i - start);
            }
        } else {
            i += 1;
        }
    }
    let hex = |gs: &[u16]| -> Vec<String> { gs.iter().map(|g| format!("{g:x}")).collect() };
    let text = if best_len >= 2 {
        format!(
            "{}::{}",
            hex(&groups[..best]).join(":"),
            hex(&groups[best + best_len..]).join(":")
        )
    } else {
        hex(&groups).join(":")
    };
    let dotted = |ffff: &str, rest: &str| -> Option<String> {
        let (x, y) = rest.split_once(':')?;
        let parse = |t: &str| {
            (!t.is_empty() && t.len() <= 4)
                .then(|| u16::from_str_radix(t, 16).ok())
                .flatten()
        };
        let (x, y) = (parse(x)?, parse(y)?);
        Some(format!(
            "::{ffff}{}.{}.{}.{}",
            x >> 8,
            x & 0xff,
            y >> 8,
            y & 0xff
        ))
    };
    let tail = text.strip_prefix("::").and_then(|rest| {
        rest.strip_prefix("ffff:")
            .and_then(|r| dotted("ffff:", r))
            .or_else(|| dotted("", rest))
    });
    tail.unwrap_or(text)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `in_addr` over octet texts.
fn octets_value(octets: &[&str]) -> Result<u128, IpError> {
    let mut n: u128 = 0;
    for s in octets {
        if !all_digits(s) {
            return Err(invalid_address());
        }
        if s.len() > 1 && s.starts_with('0') {
            return Err(IpError {
                class: "IPAddr::InvalidAddressError",
                message: "zero-filled number in IPv4 address is ambiguous: ".into(),
            });
        }
        let v: u32 = s.parse().unwrap_or(u32::MAX);
        if v >= 256 {
            return Err(invalid_address());
        }
        n = (n << 8) | v as u128;
    }
    Ok(n)
}

/// A dotted IPv4 address: `None` when the text is not of that shape.
fn in_addr(s: &str) -> Result<Option<u128>, IpError> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 || !parts.iter().all(|p| all_digits(p)) {
        return Ok(None);
    }
    octets_value(&parts).map(Some)
}

fn hex_group(g: &str) -> bool {
    !g.is_empty() && g.len() <= 4 && g.bytes().all(|b| b.is_ascii_hexdigit())
}

/// An IPv6 address in any of Ruby's accepted forms.
fn in6_addr(s: &str) -> Result<u128, IpError> {
    // An IPv4 tail (`::ffff:1.2.3.4`, `1:2:3:4:5:6:1.2.3.4`).
    let (head, v4) = match s.rfind(':') {
        Some(i) if s[i + 1..].contains('.') => {
            let parts: Vec<&str> = s[i + 1..].split('.').collect();
            if parts.len() != 4 {
                return Err(invalid_address());
            }
            (&s[..=i], Some(octets_value(&parts)?))
        }
        _ => (s, None),
    };
    let tail_groups = if v4.is_some() { 2 } else { 0 };
    let groups_of = |t: &str| -> Result<Vec<u16>, IpError> {
        if t.is_empty() {
            return Ok(Vec::new());
        }
        t.split(':')
            .map(|g| {
                if hex_group(g) {
                    u16::from_str_radix(g, 16).map_err(|_| invalid_address())
                } else {
                    Err(invalid_address())
                }
            })
            .collect()
    };
    let groups: Vec<u16> = match head.find("::") {
        Some(i) => {
            if head[i + 2..].contains("::") {
                return Err(invalid_address());
            }
            let left = &head[..i];
            let mut right = &head[i + 2..];
            if v4.is_some() {
                right = right.strip_suffix(':').unwrap_or(right);
            }
            let l = groups_of(left)?;
            let r = groups_of(right)?;
            let used = l.len() + r.len() + tail_groups;
            let limit = if left.is_empty() || right.is_empty() {
                8
            } else {
                7
            };
            if used > limit || s.matches(':').count() > 8 {
                return Err(invalid_address());
            }
            let mut g = l;
            g.extend(std::iter::repeat_n(0, 8 - used));
            g.extend(r);
            g
        }
        None => {
            let body = if v4.is_some() {
                head.strip_suffix(':').ok_or_else(invalid_address)?
            } else {
                head
            };
            let g = groups_of(body)?;
            if g.len() + tail_groups != 8 {
                return Err(invalid_address());
            }
            g
        }
    };
    let mut n: u128 = 0;
    for g in groups {
        n = (n << 16) | g as u128;
    }
    if let Some(v4) = v4 {
        n = (n << 32) | v4;
    }
    Ok(n)
}

/// Ruby's `IPAddr.new(text)`.
///
/// ```
/// use puppet_ruby::ipaddr::parse;
/// let a = parse("192.168.1.10/24").unwrap();
/// assert_eq!((a.to_s(), a.prefix()), ("192.168.1.0".to_string(), 24));
/// assert_eq!(parse("fe80::1%eth0").unwrap().to_s(), "fe80::1%eth0");
/// assert_eq!(parse("1.2.3.4/33").unwrap_err().message, "invalid length: 16909060");
/// assert!(parse("01.2.3.4").is_err());
/// ```
pub fn parse(text: &str) -> Result<IpAddr, IpError> {
    if text.is_empty() {
        return Err(invalid_address());
    }
    let (mut prefix, prefixlen) = match text.split_once('/') {
        Some((p, l)) => (p.to_string(), Some(l)),
        None => (text.to_string(), None),
    };
    let mut v6_only = false;
    if let Some(inner) = prefix.strip_prefix('[').and_then(|p| p.strip_suffix(']')) {
        prefix = inner.to_string();
        v6_only = true;
    }
    let mut zone = None;
    if let Some(i) = prefix.rfind('%') {
        let z = &prefix[i + 1..];
        if !z.is_empty() && z.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            zone = Some(z.to_string());
            prefix.truncate(i);
            v6_only = true;
        }
    }
    let (v6, addr) = match if v6_only { Ok(None) } else { in_addr(&prefix) } {
        Err(e) => return Err(e),
        Ok(Some(a)) => (false, a),
        Ok(None) => (true, in6_addr(&prefix)?),
    };
    let fullm = full(v6);
    let Some(len) = prefixlen else {
        return Ok(IpAddr {
            v6,
            addr,
            mask: fullm,
            zone,
        });
    };
    if len.is_empty() {
        return Err(invalid_address());
    }
    if all_digits(len) {
        if len.len() > 1 && len.starts_with('0') {
            return Err(invalid_prefix("leading zeros in prefix".into()));
        }
        let bits = if v6 { 128 } else { 32 };
        let n: u32 = len.parse().unwrap_or(u32::MAX);
        if n > bits {
            return Err(invalid_prefix(format!("invalid length: {addr}")));
        }
        let masklen = bits - n;
        let mask = if masklen == bits {
            0
        } else {
            (fullm >> masklen) << masklen
        };
        return Ok(IpAddr {
            v6,
            addr: addr & mask,
            mask,
            zone,
        });
    }
    let m = parse(len)?;
    if m.v6 != v6 {
        return Err(invalid_prefix(format!(
            "address family is not same: {addr}"
        )));
    }
    let n = m.addr ^ fullm;
    if n.wrapping_add(1) & n != 0 {
        return Err(invalid_prefix(format!("invalid mask {len}: {addr}")));
    }
    Ok(IpAddr {
        v6,
        addr: addr & m.addr,
        mask: m.addr,
        zone,
    })
}

/// `IPAddr.new(text)` in Ruby: the object or Ruby's exception.
/// `IPAddr.new(n, family)`: an integer address (`Socket::AF_INET` 2 or `AF_INET6` 10) with
/// the full mask, as Ruby's ipaddr builds one (its `to_range` ends are made so too).
pub(crate) fn from_integer(n: i128, family: i64, pos: Pos) -> R {
    let v6 = match family {
        2 => false,
        10 => true,
        0 => {
            return raise(
                "IPAddr::AddressFamilyError",
                "address family must be specified",
                pos,
            )
        }
        f => {
            return raise(
                "IPAddr::AddressFamilyError",
                format!("unsupported address family: {f}"),
                pos,
            )
        }
    };
    if n < 0 || n as u128 > full(v6) {
        // Ruby formats the message with the address not yet set: it ends with ": ".
        return raise("IPAddr::InvalidAddressError", "invalid address: ", pos);
    }
    Ok(RValue::IpAddr(Rc::new(IpAddr {
        v6,
        addr: n as u128,
        mask: full(v6),
        zone: None,
    })))
}

/// The addresses of `first..last` (`...` without `last`), as iterating a Range of IPAddr
/// does (`succ` from the first, which keeps its mask and zone); `None` for different
/// families (Ruby's `<=>` gives nil: the range is empty).
pub(crate) fn range_addresses<'a>(
    first: &'a IpAddr,
    last: &IpAddr,
    exclusive: bool,
) -> Option<impl Iterator<Item = IpAddr> + 'a> {
    if first.v6 != last.v6 {
        return None;
    }
    let end = if exclusive {
        last.addr.checked_sub(1)
    } else {
        Some(last.addr)
    };
    let span = match end {
        Some(end) if end >= first.addr => Some((first.addr, end)),
        _ => None,
    };
    Some(span.into_iter().flat_map(move |(a, b)| {
        (0..=(b - a)).map(move |i| IpAddr {
            v6: first.v6,
            addr: a + i,
            mask: first.mask,
            zone: first.zone.clone(),
        })
    }))
}

pub(crate) fn new_value(text: &str, pos: Pos) -> R {
    match parse(text) {
        Ok(ip) => Ok(RValue::IpAddr(Rc::new(ip))),
        Err(e) => raise(e.class, e.message, pos),
    }
}

fn ip_arg(v: &RValue, pos: Pos) -> Result<IpAddr, crate::interp::Ctrl> {
    match v {
        RValue::IpAddr(o) => Ok((**o).clone()),
        RValue::Str(s) => parse(&s.borrow()).or_else(|e| raise(e.class, e.message, pos)),
        other => raise(
            "IPAddr::AddressFamilyError",
            format!(
                "unsupported address family: {}",
                crate::value::inspect(other)
            ),
            pos,
        ),
    }
}

/// `IPAddr` methods.
pub fn ip_method(ip: &Rc<IpAddr>, name: &str, args: Vec<RValue>, pos: Pos) -> R {
    match name {
        "to_s" => Ok(RValue::string(ip.to_s())),
        // Every group, four digits each.
        "to_string" if ip.v6 => {
            let groups: Vec<String> = (0..8)
                .rev()
                .map(|k| format!("{:04x}", (ip.addr >> (16 * k)) & 0xffff))
                .collect();
            let base = groups.join(":");
            Ok(RValue::string(match &ip.zone {
                Some(z) => format!("{base}%{z}"),
                None => base,
            }))
        }
        "to_string" => Ok(RValue::string(ip.to_s())),
        "ipv4?" => Ok(RValue::Bool(!ip.v6)),
        "ipv6?" => Ok(RValue::Bool(ip.v6)),
        "prefix" => Ok(RValue::Int(i64::from(ip.prefix()))),
        "to_i" | "hash" => Ok(if ip.addr <= i64::MAX as u128 {
            RValue::Int(ip.addr as i64)
        } else {
            return unsupported("IPv6 address as Integer (Bignum)", pos);
        }),
        "netmask" => Ok(RValue::string(ip.mask_s())),
        "mask" => {
            let Some(a) = args.first() else {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                    pos,
                );
            };
            let bits = if ip.v6 { 128 } else { 32 };
            let mask = match a {
                RValue::Int(n) if *n >= 0 && *n as u32 <= bits => {
                    let n = *n as u32;
                    if n == 0 {
                        0
                    } else {
                        (full(ip.v6) << (bits - n)) & full(ip.v6)
                    }
                }
                RValue::Int(_) => {
                    return raise(
                        "IPAddr::InvalidPrefixError",
                        format!("invalid length: {}", ip.addr),
                        pos,
                    )
                }
                RValue::Str(s) => {
                    let text = format!("{}/{}", ip.to_s(), s.borrow());
                    return new_value(&text, pos);
                }
                _ => return unsupported("IPAddr#mask with this argument", pos),
            };
            Ok(RValue::IpAddr(Rc::new(IpAddr {
                v6: ip.v6,
                addr: ip.addr & mask,
                mask,
                zone: ip.zone.clone(),
            })))
        }
        "include?" | "===" | "member?" => {
            let Some(a) = args.first() else {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                    pos,
                );
            };
            let other = match a {
                RValue::IpAddr(_) | RValue::Str(_) => match ip_arg(a, pos) {
                    Ok(o) => o,
                    Err(_) => return Ok(RValue::Bool(false)),
                },
                _ => return Ok(RValue::Bool(false)),
            };
            Ok(RValue::Bool(ip.include(&other)))
        }
        "to_range" => {
            let f = full(ip.v6);
            let lo = IpAddr {
                v6: ip.v6,
                addr: ip.addr & ip.mask,
                mask: f,
                zone: None,
            };
            let hi = IpAddr {
                v6: ip.v6,
                addr: ip.addr | (f ^ ip.mask),
                mask: f,
                zone: None,
            };
            Ok(RValue::Range(Rc::new((
                RValue::IpAddr(Rc::new(lo)),
                RValue::IpAddr(Rc::new(hi)),
                false,
            ))))
        }
        "ipv4_mapped?" => Ok(RValue::Bool(ip.v6 && ip.addr >> 32 == 0xffff)),
        "ipv4_compat?" => Ok(RValue::Bool(ip.v6 && ip.addr >> 32 == 0 && ip.addr > 1)),
        "loopback?" => Ok(RValue::Bool(if ip.v6 {
            ip.addr == 1
        } else {
            ip.addr >> 24 == 127
        })),
        "private?" => Ok(RValue::Bool(if ip.v6 {
            ip.addr >> 121 == 0x7e
        } else {
            ip.addr >> 24 == 10 || ip.addr >> 20 == 0xac1 || ip.addr >> 16 == 0xc0a8
        })),
        "link_local?" => Ok(RValue::Bool(if ip.v6 {
            ip.addr >> 118 == 0x3fa
        } else {
            ip.addr >> 16 == 0xa9fe
        })),
        "family" => Ok(RValue::Int(if ip.v6 { 10 } else { 2 })),
        "succ" => Ok(RValue::IpAddr(Rc::new(IpAddr {
            v6: ip.v6,
            addr: ip.addr.wrapping_add(1) & full(ip.v6),
            mask: ip.mask,
            zone: ip.zone.clone(),
        }))),
        "<" | "<=" | ">" | ">=" => match args.first() {
            Some(RValue::IpAddr(o)) if o.v6 == ip.v6 => {
                let c = ip.addr.cmp(&o.addr);
                Ok(RValue::Bool(match name {
                    "<" => c.is_lt(),
                    "<=" => c.is_le(),
                    ">" => c.is_gt(),
                    _ => c.is_ge(),
                }))
            }
            _ => raise("ArgumentError", "comparison of IPAddr failed", pos),
        },
        "<=>" => Ok(match args.first() {
            Some(RValue::IpAddr(o)) if o.v6 == ip.v6 => RValue::Int(match ip.addr.cmp(&o.addr) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }),
            _ => RValue::Nil,
        }),
        "reverse" => {
            if ip.v6 {
                let hex = format!("{:032x}", ip.addr);
                let nibbles: Vec<String> = hex.chars().rev().map(|c| c.to_string()).collect();
                Ok(RValue::string(format!("{}.ip6.arpa", nibbles.join("."))))
            } else {
                let a = ip.addr as u32;
                Ok(RValue::string(format!(
                    "{}.{}.{}.{}.in-addr.arpa",
                    a & 255,
                    (a >> 8) & 255,
                    (a >> 16) & 255,
                    a >> 24
                )))
            }
        }
        _ => unsupported(format!("method `{name}' on IPAddr"), pos),
    }
}
