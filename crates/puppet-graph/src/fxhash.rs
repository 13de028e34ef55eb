//! A small, fast, non-cryptographic hasher for the build phase's lookup tables (keys are
//! resource references and vertex pairs from one catalog, not attacker-chosen in bulk).
//!
//! Only used for lookups: no map hashed with it is ever iterated into output.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing in the style of rustc's FxHasher.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Whole words, then the tail as one word read from the end of `bytes` (overlapping
        // the last whole word) or, for short inputs, from two overlapping halves: no byte
        // copying into a stack buffer, which would stall the load that follows it.
        let n = bytes.len();
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let half = |at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(w))
        };
        if n >= 8 {
            let mut at = 0;
            while at + 8 <= n {
                self.add(word(at));
                at += 8;
            }
            if at < n {
                self.add(word(n - 8) ^ ((n - at) as u64) << 59);
            }
        } else if n >= 4 {
            self.add((half(0) | half(n - 4) << 32) ^ (n as u64) << 61);
        } else if n > 0 {
            let w = u64::from(bytes[0])
                | u64::from(bytes[n / 2]) << 8
                | u64::from(bytes[n - 1]) << 16 ^ (n as u64) << 61;
            self.add(w);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub(crate) type FxSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte of the input counts, whatever its length: the prefixes of a string, and
    /// the strings that differ from it in one byte, all hash apart.
    #[test]
    fn every_byte_counts() {
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        let mut seen = HashSet::new();
        let hash = |b: &[u8]| {
            let mut h = FxHasher::default();
            h.write(b);
            h.finish()
        };
        for n in 0..=base.len() {
            assert!(seen.insert(hash(&base[..n])), "prefix {n}");
            for i in 0..n {
                let mut b = base[..n].to_vec();
                b[i] ^= 0x20;
                assert!(seen.insert(hash(&b)), "length {n}, byte {i}");
            }
        }
    }
}
