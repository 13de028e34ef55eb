//! Compact tables for the build phase: the resource lookup index (lookup key bytes ->
//! resource index), an index of references by their exact text (the fast path for
//! references written as the agent prints them) and an append-only string arena, so that
//! a 20,000-resource catalog costs a handful of allocations instead of one or more per
//! resource.
//!
//! Only lookups: nothing here decides an order or an output.

use std::hash::Hasher;

use crate::fxhash::{FxHasher, FxMap};

/// A 64-bit hash of `key`, well mixed in every bit (FxHash, then a murmur3 finaliser).
pub(crate) fn hash_key(key: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(key);
    h.write_usize(key.len());
    let mut x = h.finish();
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Maps lookup keys (bytes, see `reference::key_bytes`) to resource indices. Keys live in
/// one byte arena; the hash table maps a key's 64-bit hash to where the key is and its
/// value (one probe and one compare per lookup), and the rare key whose hash collides
/// with a different key goes to a plain map.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyIndex {
    by_hash: FxMap<u64, Entry>,
    text: Vec<u8>,
    collided: FxMap<Vec<u8>, u32>,
}

/// Keys up to this long are kept in the hash entry itself, so a lookup reads one cache
/// line instead of two.
const INLINE: usize = 20;

#[derive(Debug, Clone, Copy)]
struct Entry {
    start: u32,
    len: u32,
    value: u32,
    inline: [u8; INLINE],
}

impl KeyIndex {
    /// An empty index sized for `n` keys of about `avg_len` bytes.
    pub(crate) fn with_capacity(n: usize, avg_len: usize) -> KeyIndex {
        let mut by_hash = FxMap::default();
        by_hash.reserve(n);
        KeyIndex {
            by_hash,
            text: Vec::with_capacity(n * avg_len),
            collided: FxMap::default(),
        }
    }

    fn key<'s>(&'s self, e: &'s Entry) -> &'s [u8] {
        let len = e.len as usize;
        if len <= INLINE {
            &e.inline[..len]
        } else {
            &self.text[e.start as usize..e.start as usize + len]
        }
    }

    /// The value of `key`, if present.
    #[inline]
    pub(crate) fn get(&self, key: &[u8]) -> Option<u32> {
        let e = self.by_hash.get(&hash_key(key))?;
        if self.key(e) == key {
            Some(e.value)
        } else {
            self.collided.get(key).copied()
        }
    }

    /// Inserts `key -> value` unless `key` is present; returns the value already there.
    pub(crate) fn insert_if_absent(&mut self, key: &[u8], value: u32) -> Option<u32> {
        let mut entry = Entry {
            start: self.text.len() as u32,
            len: key.len() as u32,
            value,
            inline: [0; INLINE],
        };
        if key.len() <= INLINE {
            entry.inline[..key.len()].copy_from_slice(key);
        }
        match self.by_hash.entry(hash_key(key)) {
            std::collections::hash_map::Entry::Occupied(o) => {
                let existing = *o.get();
                if self.key(&existing) == key {
                    return Some(existing.value);
                }
                match self.collided.entry(key.to_vec()) {
                    std::collections::hash_map::Entry::Occupied(o) => Some(*o.get()),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(value);
                        None
                    }
                }
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(entry);
                if key.len() > INLINE {
                    self.text.extend_from_slice(key);
                }
                None
            }
        }
    }
}

/// Finds strings of a [`StrArena`] by their exact text: open addressing over the 64-bit
/// hash of the text, each slot holding 32 bits of that hash and the string's index (plus
/// one; zero is an empty slot), so a lookup is one hash, usually one probe and one
/// compare with the arena. Holds no text of its own.
#[derive(Debug, Clone, Default)]
pub(crate) struct TextIndex {
    slots: Vec<(u32, u32)>,
    mask: usize,
    len: usize,
}

impl TextIndex {
    /// An empty index for up to `n` strings (the table stays at most half full).
    pub(crate) fn with_capacity(n: usize) -> TextIndex {
        let size = (2 * n).next_power_of_two().max(16);
        TextIndex {
            slots: vec![(0, 0); size],
            mask: size - 1,
            len: 0,
        }
    }

    /// Adds string `i` of `arena` unless an equal string is indexed already (the first
    /// one stays) or the table is half full (then the string is simply not found).
    pub(crate) fn insert(&mut self, arena: &StrArena, i: u32) {
        if i == u32::MAX || 2 * (self.len + 1) > self.slots.len() {
            return;
        }
        let text = arena.get(i);
        let h = hash_key(text.as_bytes());
        let tag = (h >> 32) as u32;
        let mut at = h as usize & self.mask;
        loop {
            let (t, v) = self.slots[at];
            if v == 0 {
                self.slots[at] = (tag, i + 1);
                self.len += 1;
                return;
            }
            if t == tag && arena.is(v - 1, text) {
                return;
            }
            at = (at + 1) & self.mask;
        }
    }

    /// The index of the string of `arena` equal to `text`, if it was inserted.
    #[inline]
    pub(crate) fn get(&self, arena: &StrArena, text: &str) -> Option<u32> {
        self.get_hashed(arena, text, hash_key(text.as_bytes()))
    }

    /// [`TextIndex::get`] with `h`, the [`hash_key`] of `text`, already computed.
    #[inline]
    pub(crate) fn get_hashed(&self, arena: &StrArena, text: &str, h: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let tag = (h >> 32) as u32;
        let mut at = h as usize & self.mask;
        loop {
            let (t, v) = self.slots[at];
            if v == 0 {
                return None;
            }
            if t == tag && arena.is(v - 1, text) {
                return Some(v - 1);
            }
            at = (at + 1) & self.mask;
        }
    }
}

/// `a == b` for the short strings of the lookup tables, a word at a time (the last word
/// overlapping), without a call to `memcmp`.
#[inline]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a == b;
    }
    let word = |s: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let mut at = 0;
    while at + 8 <= n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    at == n || word(a, n - 8) == word(b, n - 8)
}

/// Append-only strings in one buffer, addressed by index.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrArena {
    text: String,
    ends: Vec<u32>,
}

impl StrArena {
    /// An empty arena sized for `n` strings of about `avg_len` bytes.
    pub(crate) fn with_capacity(n: usize, avg_len: usize) -> StrArena {
        StrArena {
            text: String::with_capacity(n * avg_len),
            ends: Vec::with_capacity(n),
        }
    }

    /// Appends the string `write` writes to the buffer it is given; returns its index.
    pub(crate) fn push_with(&mut self, write: impl FnOnce(&mut String)) -> u32 {
        write(&mut self.text);
        self.ends.push(self.text.len() as u32);
        (self.ends.len() - 1) as u32
    }

    /// String `i`.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> &str {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// Whether string `i` is `text` (compares bytes: no character-boundary checks).
    #[inline]
    pub(crate) fn is(&self, i: u32, text: &str) -> bool {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text
            .as_bytes()
            .get(start..self.ends[i] as usize)
            .is_some_and(|s| bytes_eq(s, text.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_arena() {
        let mut k = KeyIndex::with_capacity(4, 8);
        assert_eq!(k.insert_if_absent(b"a\0x", 1), None);
        assert_eq!(k.insert_if_absent(b"a\0y", 2), None);
        assert_eq!(k.insert_if_absent(b"a\0x", 3), Some(1));
        assert_eq!(k.get(b"a\0x"), Some(1));
        assert_eq!(k.get(b"a\0y"), Some(2));
        assert_eq!(k.get(b"a\0z"), None);
        let long = b"file\0/a/rather/long/path/beyond/the/inline/size";
        assert_eq!(k.insert_if_absent(long, 5), None);
        assert_eq!(
            k.insert_if_absent(b"file\0/another/long/path/beyond/inline", 6),
            None
        );
        assert_eq!(k.get(long), Some(5));
        assert_eq!(k.get(b"file\0/another/long/path/beyond/inline"), Some(6));
        assert_eq!(k.get(b"file\0/another/long/path/beyond/inlinX"), None);
        // Force a collision: make `other`'s hash point at the entry of `a\0x`.
        let entry = k.by_hash[&hash_key(b"a\0x")];
        assert_eq!(k.key(&entry), b"a\0x");
        k.by_hash.insert(hash_key(b"other"), entry);
        assert_eq!(k.get(b"other"), None);
        assert_eq!(k.insert_if_absent(b"other", 7), None);
        assert_eq!(k.insert_if_absent(b"other", 8), Some(7));
        assert_eq!(k.get(b"other"), Some(7));
        assert_eq!(k.get(b"a\0x"), Some(1));
        for (x, y) in [
            ("", ""),
            ("abc", "abd"),
            ("Notify[n17]", "Notify[n17]"),
            ("Notify[n17]", "Notify[n18]"),
            ("File[/srv/mod3/f1234]", "File[/srv/mod3/f1234]"),
            ("File[/srv/mod3/f1234]", "Filf[/srv/mod3/f1234]"),
            ("File[/srv/mod3/f1234]", "File[/srv/mod3/f1235]"),
            ("12345678", "12345678"),
            ("12345678", "12345679"),
            ("1234567", "12345678"),
        ] {
            assert_eq!(bytes_eq(x.as_bytes(), y.as_bytes()), x == y, "{x} {y}");
        }
        let mut a = StrArena::with_capacity(2, 4);
        assert_eq!(a.push_with(|s| s.push('x')), 0);
        assert_eq!(a.push_with(|s| s.push_str("ÿz")), 1);
        assert_eq!(a.push_with(|_| {}), 2);
        assert_eq!((a.get(0), a.get(1), a.get(2)), ("x", "ÿz", ""));
    }
}
