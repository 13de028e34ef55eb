//! A small `IPAddr`: parsing IPv4/IPv6 addresses with an optional prefix length, and the
//! methods templates use (`to_s`, `to_range`-free queries, `mask`, `include?`, `ipv4?`...).

use crate::interp::{raise, unsupported, R};
use crate::value::{ip_to_s, IpAddr, RValue};
use crate::Pos;
use std::rc::Rc;

/// Parses `addr` or `addr/prefix` (prefix as a length or an IPv4 netmask). The address is
/// masked by the prefix, as IPAddr does.
pub fn parse(s: &str) -> Option<IpAddr> {
    let (a, p) = match s.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (s, None),
    };
    let (v6, addr) = if let Ok(v4) = a.parse::<std::net::Ipv4Addr>() {
        (false, u32::from(v4) as u128)
    } else if let Ok(v6) = a.parse::<std::net::Ipv6Addr>() {
        (true, u128::from(v6))
    } else {
        return None;
    };
    let bits = if v6 { 128 } else { 32 };
    let prefix = match p {
        None => bits,
        Some(p) => match p.parse::<u32>() {
            Ok(n) if n <= bits => n,
            _ => {
                if v6 {
                    return None;
                }
                let m = u32::from(p.parse::<std::net::Ipv4Addr>().ok()?);
                if m.leading_ones() + m.trailing_zeros() != 32 {
                    return None;
                }
                m.leading_ones()
            }
        },
    };
    Some(IpAddr {
        v6,
        addr: addr & mask(v6, prefix),
        prefix,
    })
}

fn mask(v6: bool, prefix: u32) -> u128 {
    let bits = if v6 { 128 } else { 32 };
    let all: u128 = if v6 { !0 } else { 0xffff_ffff };
    if prefix == 0 {
        0
    } else {
        (all << (bits - prefix)) & all
    }
}

/// IPAddr methods.
pub fn ip_method(ip: &Rc<IpAddr>, name: &str, args: Vec<RValue>, pos: Pos) -> R {
    match name {
        "to_s" | "to_string" => Ok(RValue::string(ip_to_s(ip))),
        "ipv4?" => Ok(RValue::Bool(!ip.v6)),
        "ipv6?" => Ok(RValue::Bool(ip.v6)),
        "prefix" => Ok(RValue::Int(ip.prefix as i64)),
        "to_i" => Ok(if ip.addr <= i64::MAX as u128 {
            RValue::Int(ip.addr as i64)
        } else {
            return unsupported("IPv6 address as Integer (Bignum)", pos);
        }),
        "mask" => {
            let Some(RValue::Int(n)) = args.first() else {
                return unsupported("IPAddr#mask with a netmask string", pos);
            };
            let bits = if ip.v6 { 128 } else { 32 };
            if *n < 0 || *n as u32 > bits {
                return raise("IPAddr::InvalidPrefixError", "invalid length", pos);
            }
            let p = *n as u32;
            Ok(RValue::IpAddr(Rc::new(IpAddr {
                v6: ip.v6,
                addr: ip.addr & mask(ip.v6, p),
                prefix: p,
            })))
        }
        "include?" | "===" => {
            let other = match args.first() {
                Some(RValue::IpAddr(o)) => (**o).clone(),
                Some(RValue::Str(s)) => match parse(&s.borrow()) {
                    Some(o) => o,
                    None => return Ok(RValue::Bool(false)),
                },
                _ => return Ok(RValue::Bool(false)),
            };
            Ok(RValue::Bool(
                other.v6 == ip.v6 && other.addr & mask(ip.v6, ip.prefix) == ip.addr,
            ))
        }
        "netmask" => Ok(RValue::string(ip_to_s(&IpAddr {
            v6: ip.v6,
            addr: mask(ip.v6, ip.prefix),
            prefix: if ip.v6 { 128 } else { 32 },
        }))),
        _ => unsupported(format!("method `{name}' on IPAddr"), pos),
    }
}
