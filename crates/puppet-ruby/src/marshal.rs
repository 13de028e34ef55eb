//! Ruby's `Marshal.dump` and `Marshal.load` in format 4.8, for the data module code passes
//! through them (`Marshal.load(Marshal.dump(h))` is Ruby's deep copy): nil, true, false,
//! Integers (fixnums and bignums), Floats, Strings (UTF-8 and binary), Symbols, Arrays,
//! Hashes (with a default value) and instances of the code's own classes with their instance
//! variables; an object met twice is written once and linked, so that a copy shares what the
//! original shared. What else Ruby can dump (Structs, Ranges, Regexps, Time, classes,
//! objects with `marshal_dump`) is refused by name; what Ruby cannot dump (procs, hashes with
//! a default proc, singletons) raises Ruby's TypeError.

use crate::interp::{raise, unsupported, Interp, R};
use crate::object::{ObjData, Object};
use crate::value::{RHash, RValue};
use crate::Pos;
use std::rc::Rc;

/// `Marshal.dump(value)`: the bytes, as a binary String.
pub(crate) fn dump(it: &mut Interp, v: &RValue, pos: Pos) -> R {
    let mut w = Writer {
        out: vec![4, 8],
        symbols: Vec::new(),
        objects: Default::default(),
        count: 0,
        pos,
    };
    w.value(it, v, 0)?;
    Ok(crate::methods::binary_string(&w.out))
}

/// `Marshal.load(string)`.
pub(crate) fn load(it: &mut Interp, v: &RValue, pos: Pos) -> R {
    let bytes = match v {
        RValue::Str(_) => crate::methods::str_bytes(v),
        other => {
            return raise(
                "TypeError",
                format!("instance of IO needed, got {}", other.class_name()),
                pos,
            )
        }
    };
    if bytes.len() < 2 {
        return raise("ArgumentError", "marshal data too short", pos);
    }
    if bytes[0] != 4 || bytes[1] > 8 {
        return raise(
            "TypeError",
            format!(
                "incompatible marshal file format (can't be read)\n\tformat version 4.8 required; {}.{} given",
                bytes[0], bytes[1]
            ),
            pos,
        );
    }
    let mut r = Reader {
        bytes: &bytes,
        at: 2,
        symbols: Vec::new(),
        objects: Vec::new(),
        pos,
    };
    r.value(it, 0)
}

/// Nesting beyond which a dump or load stops (Ruby's own limit is the stack).
const MAX_DEPTH: usize = 1000;

struct Writer {
    out: Vec<u8>,
    symbols: Vec<String>,
    /// Objects written so far: their index by address (for `@` links).
    objects: rustc_hash::FxHashMap<usize, usize>,
    /// Entries of Ruby's object table (every non-immediate written, linked or not).
    count: usize,
    pos: Pos,
}

impl Writer {
    fn long(&mut self, x: i64) {
        if x == 0 {
            self.out.push(0);
        } else if 0 < x && x < 123 {
            self.out.push((x + 5) as u8);
        } else if -124 < x && x < 0 {
            self.out.push(((x - 5) & 0xff) as u8);
        } else {
            let mut buf = Vec::new();
            let mut y = x;
            for _ in 0..8 {
                buf.push((y & 0xff) as u8);
                y >>= 8;
                if (x >= 0 && y == 0) || (x < 0 && y == -1) {
                    break;
                }
            }
            let n = buf.len() as i64;
            self.out
                .push(if x >= 0 { n as u8 } else { (-n & 0xff) as u8 });
            self.out.extend(buf);
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        self.long(b.len() as i64);
        self.out.extend_from_slice(b);
    }

    fn symbol(&mut self, s: &str) {
        if let Some(i) = self.symbols.iter().position(|x| x == s) {
            self.out.push(b';');
            self.long(i as i64);
            return;
        }
        self.symbols.push(s.to_string());
        if s.is_ascii() {
            self.out.push(b':');
            self.bytes(s.as_bytes());
        } else {
            self.out.extend_from_slice(b"I:");
            self.bytes(s.as_bytes());
            self.long(1);
            self.symbol("E");
            self.out.push(b'T');
        }
    }

    /// Writes a link when the object at `addr` was written before; else registers it.
    fn link(&mut self, addr: usize) -> bool {
        if let Some(&i) = self.objects.get(&addr) {
            self.out.push(b'@');
            self.long(i as i64);
            return true;
        }
        self.objects.insert(addr, self.count);
        self.count += 1;
        false
    }

    fn value(&mut self, it: &mut Interp, v: &RValue, depth: usize) -> Res<()> {
        crate::with_stack_at(depth, || self.value_at(it, v, depth))
    }

    fn value_at(
        &mut self,
        it: &mut Interp,
        v: &RValue,
        depth: usize,
    ) -> Result<(), crate::interp::Ctrl> {
        if depth > MAX_DEPTH {
            return raise("ArgumentError", "exceed depth limit", self.pos);
        }
        match v {
            RValue::Nil => self.out.push(b'0'),
            RValue::Bool(true) => self.out.push(b'T'),
            RValue::Bool(false) => self.out.push(b'F'),
            // Ruby writes a fixnum of 31 bits as one (`i`), a larger one as a bignum.
            RValue::Int(n) if (-(1 << 30)..(1 << 30)).contains(n) => {
                self.out.push(b'i');
                self.long(*n);
            }
            RValue::Int(n) => {
                self.count += 1;
                self.bignum(&num_bigint::BigInt::from(*n));
            }
            RValue::Big(b) => {
                self.count += 1;
                self.bignum(b);
            }
            RValue::Float(f) => {
                if !is_flonum(*f) {
                    self.count += 1;
                }
                self.out.push(b'f');
                self.bytes(float_text(*f).as_bytes());
            }
            RValue::Sym(s) => self.symbol(s),
            RValue::Str(s) => {
                if self.link(Rc::as_ptr(s) as *const u8 as usize) {
                    return Ok(());
                }
                let binary = s.is_binary();
                let bytes = crate::methods::str_bytes(v);
                if binary {
                    self.out.push(b'"');
                    self.bytes(&bytes);
                } else {
                    self.out.extend_from_slice(b"I\"");
                    self.bytes(&bytes);
                    self.long(1);
                    self.symbol("E");
                    self.out.push(b'T');
                }
            }
            RValue::Array(a) => {
                if self.link(Rc::as_ptr(a) as *const u8 as usize) {
                    return Ok(());
                }
                let items = a.borrow().clone();
                self.out.push(b'[');
                self.long(items.len() as i64);
                for x in &items {
                    self.value(it, x, depth + 1)?;
                }
            }
            RValue::Hash(h) => {
                if self.link(Rc::as_ptr(h) as *const u8 as usize) {
                    return Ok(());
                }
                let (pairs, default, has_proc, identity) = {
                    let h = h.borrow();
                    (
                        h.pairs(),
                        h.default.clone(),
                        h.default_proc.is_some(),
                        h.identity,
                    )
                };
                if has_proc {
                    return raise("TypeError", "can't dump hash with default proc", self.pos);
                }
                if identity {
                    return unsupported("Marshal.dump of a compare_by_identity Hash", self.pos);
                }
                let with_default = !matches!(default, RValue::Nil);
                self.out.push(if with_default { b'}' } else { b'{' });
                self.long(pairs.len() as i64);
                for (k, x) in &pairs {
                    self.value(it, k, depth + 1)?;
                    self.value(it, x, depth + 1)?;
                }
                if with_default {
                    self.value(it, &default, depth + 1)?;
                }
            }
            RValue::Object(o) => self.object(it, o, depth)?,
            RValue::Proc(_) => {
                return raise(
                    "TypeError",
                    "no _dump_data is defined for class Proc",
                    self.pos,
                )
            }
            other => {
                return unsupported(
                    format!("Marshal.dump of a {}", other.class_name()),
                    self.pos,
                )
            }
        }
        Ok(())
    }

    fn bignum(&mut self, b: &num_bigint::BigInt) {
        let (sign, mut mag) = b.to_bytes_le();
        self.out.push(b'l');
        self.out.push(if sign == num_bigint::Sign::Minus {
            b'-'
        } else {
            b'+'
        });
        if mag.len() % 2 == 1 {
            mag.push(0);
        }
        self.long((mag.len() / 2) as i64);
        self.out.extend(mag);
    }

    fn object(
        &mut self,
        it: &mut Interp,
        o: &Rc<Object>,
        depth: usize,
    ) -> Result<(), crate::interp::Ctrl> {
        let class = o.class.clone();
        let name = class.name();
        let value = RValue::Object(o.clone());
        for hook in ["marshal_dump", "_dump"] {
            if it.find_user_method(&value, hook).is_some() {
                return unsupported(format!("Marshal.dump of an object with `{hook}'"), self.pos);
            }
        }
        if !matches!(&*o.data.borrow(), ObjData::None)
            || class.ancestors().iter().any(|a| a.name_is("Struct"))
        {
            return unsupported(format!("Marshal.dump of a {name}"), self.pos);
        }
        if o.singleton
            .borrow()
            .as_ref()
            .is_some_and(|s| !s.methods.borrow().is_empty())
        {
            return raise("TypeError", "singleton can't be dumped", self.pos);
        }
        if name.is_empty() || name.starts_with('#') {
            return raise(
                "TypeError",
                format!(
                    "can't dump anonymous class {}",
                    crate::value::inspect(&RValue::Module(class))
                ),
                self.pos,
            );
        }
        if self.link(Rc::as_ptr(o) as *const u8 as usize) {
            return Ok(());
        }
        let ivars: Vec<(String, RValue)> = o
            .ivars
            .borrow()
            .iter()
            .filter(|(k, _)| !k.starts_with(' '))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.out.push(b'o');
        self.symbol(&name);
        self.long(ivars.len() as i64);
        for (k, v) in &ivars {
            self.symbol(&format!("@{k}"));
            self.value(it, v, depth + 1)?;
        }
        Ok(())
    }
}

/// Whether Ruby (64-bit) holds the Float as an immediate (a flonum), which its object table
/// does not count.
fn is_flonum(f: f64) -> bool {
    let v = f.to_bits();
    let bits = (v >> 60) & 0x7;
    (v != 0x3000_0000_0000_0000 && (bits == 3 || bits == 4)) || v == 0
}

/// A Float as Marshal writes it: `inf`, `-inf`, `nan`, else the shortest digits that read
/// back as the same number, with an exponent when the point is far away.
fn float_text(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let decpt = exp.parse::<i64>().unwrap_or(0) + 1;
    let digs = digits.len() as i64;
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if decpt < -3 || decpt > digs {
        out.push_str(&digits[..1]);
        if digs > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push_str(&format!("e{}", decpt - 1));
    } else if decpt > 0 {
        out.push_str(&digits[..decpt as usize]);
        if digs > decpt {
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        }
    } else {
        out.push_str("0.");
        out.push_str(&"0".repeat((-decpt) as usize));
        out.push_str(&digits);
    }
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    symbols: Vec<String>,
    objects: Vec<RValue>,
    pos: Pos,
}

type Res<T> = Result<T, crate::interp::Ctrl>;

impl Reader<'_> {
    fn short<T>(&self) -> Res<T> {
        raise("ArgumentError", "marshal data too short", self.pos)
    }

    fn byte(&mut self) -> Res<u8> {
        match self.bytes.get(self.at) {
            Some(b) => {
                self.at += 1;
                Ok(*b)
            }
            None => self.short(),
        }
    }

    fn long(&mut self) -> Res<i64> {
        let c = self.byte()? as i8 as i64;
        Ok(match c {
            0 => 0,
            5..=127 => c - 5,
            -128..=-5 => c + 5,
            1..=4 => {
                let mut x: i64 = 0;
                for i in 0..c {
                    x |= (self.byte()? as i64) << (8 * i);
                }
                x
            }
            _ => {
                let n = -c;
                let mut x: i64 = -1;
                for i in 0..n {
                    x &= !(0xff << (8 * i));
                    x |= (self.byte()? as i64) << (8 * i);
                }
                x
            }
        })
    }

    fn bytes(&mut self) -> Res<Vec<u8>> {
        let n = self.long()?;
        let Ok(n) = usize::try_from(n) else {
            return raise(
                "ArgumentError",
                "negative string size (or size too big)",
                self.pos,
            );
        };
        match self.bytes.get(self.at..self.at.saturating_add(n)) {
            Some(b) => {
                self.at += n;
                Ok(b.to_vec())
            }
            None => self.short(),
        }
    }

    fn symbol(&mut self) -> Res<String> {
        match self.byte()? {
            b':' => {
                let s = String::from_utf8_lossy(&self.bytes()?).into_owned();
                self.symbols.push(s.clone());
                Ok(s)
            }
            b';' => {
                let i = self.long()?;
                match usize::try_from(i).ok().and_then(|i| self.symbols.get(i)) {
                    Some(s) => Ok(s.clone()),
                    None => raise("ArgumentError", "bad symbol", self.pos),
                }
            }
            b'I' => {
                let s = self.symbol()?;
                self.ivars()?;
                Ok(s)
            }
            c => raise(
                "ArgumentError",
                format!("dump format error for symbol(0x{c:x})"),
                self.pos,
            ),
        }
    }

    /// The instance variables after an `I`: the encoding (`E`: true for UTF-8, false for
    /// US-ASCII; `encoding`: a name). Returns whether the text is UTF-8 (else binary).
    fn ivars(&mut self) -> Res<bool> {
        let n = self.long()?;
        let mut utf8 = false;
        for _ in 0..n.max(0) {
            let k = self.symbol()?;
            let v = self.byte()?;
            match (k.as_str(), v) {
                ("E", b'T' | b'F') => utf8 = true,
                _ => {
                    return unsupported(
                        "Marshal.load of a string with instance variables or an encoding other than UTF-8",
                        self.pos,
                    )
                }
            }
        }
        Ok(utf8)
    }

    fn value(&mut self, it: &mut Interp, depth: usize) -> R {
        crate::with_stack_at(depth, || self.value_at(it, depth))
    }

    fn value_at(&mut self, it: &mut Interp, depth: usize) -> R {
        if depth > MAX_DEPTH {
            return raise("ArgumentError", "exceed depth limit", self.pos);
        }
        let c = self.byte()?;
        Ok(match c {
            b'0' => RValue::Nil,
            b'T' => RValue::Bool(true),
            b'F' => RValue::Bool(false),
            b'i' => RValue::Int(self.long()?),
            b':' | b';' => {
                self.at -= 1;
                RValue::sym(&self.symbol()?)
            }
            b'@' => {
                let i = self.long()?;
                match usize::try_from(i).ok().and_then(|i| self.objects.get(i)) {
                    Some(v) => v.clone(),
                    None => {
                        return raise("ArgumentError", "dump format error (unlinked)", self.pos)
                    }
                }
            }
            b'l' => {
                let sign = self.byte()?;
                let n = self.long()?;
                let Ok(n) = usize::try_from(n) else {
                    return raise("ArgumentError", "marshal data too short", self.pos);
                };
                let len = n.saturating_mul(2);
                let Some(mag) = self.bytes.get(self.at..self.at.saturating_add(len)) else {
                    return self.short();
                };
                self.at += len;
                let s = if sign == b'-' {
                    num_bigint::Sign::Minus
                } else {
                    num_bigint::Sign::Plus
                };
                let b = num_bigint::BigInt::from_bytes_le(s, mag);
                let v = crate::bigint::checked(b, self.pos)?;
                self.objects.push(v.clone());
                v
            }
            b'f' => {
                let t = String::from_utf8_lossy(&self.bytes()?).into_owned();
                let f = match t.as_str() {
                    "nan" => f64::NAN,
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    t => t.parse::<f64>().unwrap_or(0.0),
                };
                let v = RValue::Float(f);
                self.objects.push(v.clone());
                v
            }
            b'"' => {
                let v = crate::methods::binary_string(&self.bytes()?);
                self.objects.push(v.clone());
                v
            }
            b'I' if self.bytes.get(self.at) == Some(&b':') => RValue::sym(&{
                self.at -= 1;
                self.symbol()?
            }),
            b'I' => {
                if self.bytes.get(self.at) != Some(&b'"') {
                    return unsupported(
                        "Marshal.load of an object with instance variables other than a string",
                        self.pos,
                    );
                }
                self.at += 1;
                let raw = self.bytes()?;
                let index = self.objects.len();
                self.objects.push(RValue::Nil);
                let utf8 = self.ivars()?;
                let v = if utf8 {
                    match String::from_utf8(raw) {
                        Ok(s) => RValue::string(s),
                        Err(e) => crate::methods::binary_string(e.as_bytes()),
                    }
                } else {
                    crate::methods::binary_string(&raw)
                };
                self.objects[index] = v.clone();
                v
            }
            b'[' => {
                let n = self.long()?.max(0);
                let v = RValue::array(Vec::new());
                self.objects.push(v.clone());
                for _ in 0..n {
                    let x = self.value(it, depth + 1)?;
                    it.charge(16, self.pos)?;
                    if let RValue::Array(a) = &v {
                        a.borrow_mut().push(x);
                    }
                }
                v
            }
            b'{' | b'}' => {
                let n = self.long()?.max(0);
                let v = RValue::hash(RHash::default());
                self.objects.push(v.clone());
                for _ in 0..n {
                    let k = self.value(it, depth + 1)?;
                    let x = self.value(it, depth + 1)?;
                    it.charge(32, self.pos)?;
                    if let RValue::Hash(h) = &v {
                        h.borrow_mut().insert(k, x);
                    }
                }
                if c == b'}' {
                    let d = self.value(it, depth + 1)?;
                    if let RValue::Hash(h) = &v {
                        h.borrow_mut().default = d;
                    }
                }
                v
            }
            b'o' => {
                let name = self.symbol()?;
                let Some(class) = it.module_by_path(&name) else {
                    return raise(
                        "ArgumentError",
                        format!("undefined class/module {name}"),
                        self.pos,
                    );
                };
                if !class.is_class {
                    return raise(
                        "ArgumentError",
                        format!("dump format error: {name} is not a class"),
                        self.pos,
                    );
                }
                // Only the code's own classes are made from their instance variables here
                // (a built-in class's objects hold native data: Ruby has no allocator for
                // most, this engine makes none).
                let native = class
                    .builtin
                    .is_some_and(|b| !matches!(b, crate::value::Builtin::Object))
                    || class.ancestors().iter().any(|a| a.name_is("Exception"));
                if native {
                    return unsupported(
                        format!("Marshal.load of an object of the built-in class {name}"),
                        self.pos,
                    );
                }
                let o = Rc::new(Object::new(class));
                it.track_object(&o);
                let v = RValue::Object(o.clone());
                self.objects.push(v.clone());
                let n = self.long()?.max(0);
                for _ in 0..n {
                    let k = self.symbol()?;
                    let x = self.value(it, depth + 1)?;
                    let k = k.strip_prefix('@').unwrap_or(&k).to_string();
                    o.ivars.borrow_mut().insert(k, x);
                }
                v
            }
            c => {
                return unsupported(
                    format!("Marshal.load of the type '{}'", c as char),
                    self.pos,
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_codes_own_classes_are_loaded_from_instance_variables() {
        let own = crate::eval_inspect(
            "class P; end\nMarshal.load(\"\\x04\\x08o:\\x06P\\x06:\\x07@ai\\x06\").instance_variable_get(:@a)",
        );
        assert_eq!(own.unwrap(), "1");
        for class in ["\\x0cInteger", "\\x12StandardError"] {
            let r = crate::eval_inspect(&format!("Marshal.load(\"\\x04\\x08o:{class}\\x00\")"));
            assert!(
                matches!(r, Err(crate::RubyError::Unsupported { .. })),
                "{class}: {r:?}"
            );
        }
    }

    #[test]
    fn floats_are_written_as_ruby_writes_them() {
        for (f, t) in [
            (1.5, "1.5"),
            (100.0, "1e2"),
            (1e20, "1e20"),
            (1.0e-5, "1e-5"),
            (1.25e-7, "1.25e-7"),
            (0.001, "0.001"),
            (-2.5, "-2.5"),
            (123456.789, "123456.789"),
            (0.1, "0.1"),
        ] {
            assert_eq!(float_text(f), t, "{f}");
        }
    }
}
