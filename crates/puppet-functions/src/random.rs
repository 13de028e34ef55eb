//! Ruby's `Random` (MT19937) as Puppet's seeded functions use it: `fqdn_rand` computes
//! `Puppet::Util.deterministic_rand_int(seed, max)`, which is `Random.new(seed).rand(max)`
//! with a big Integer seed (a digest's hex value); stdlib's `fqdn_rotate`, `fqdn_rand_string`,
//! `seeded_rand` and `seeded_rand_string` do the same.
//!
//! The seeding follows Ruby 3.1's `rand_init`: the seed's absolute value is cut into 32-bit
//! words, least significant first; a most significant word equal to 1 is dropped (Ruby's
//! "leading-zero-guard", so `2**32 + 5` seeds as `5`); then one word seeds with
//! `init_genrand`, more with `init_by_array`. `rand(max)` for an Integer `max > 0` is `limited_rand(max - 1)`:
//! a masked draw of one or two 32-bit outputs (most significant first), retried while it
//! exceeds the limit.

const N: usize = 624;
const M: usize = 397;

/// Ruby's Mersenne Twister.
#[derive(Clone)]
pub struct RubyRandom {
    state: [u32; N],
    index: usize,
}

impl std::fmt::Debug for RubyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RubyRandom(index {})", self.index)
    }
}

impl RubyRandom {
    fn init_genrand(s: u32) -> RubyRandom {
        let mut state = [0u32; N];
        state[0] = s;
        for j in 1..N {
            state[j] = 1_812_433_253u32
                .wrapping_mul(state[j - 1] ^ (state[j - 1] >> 30))
                .wrapping_add(j as u32);
        }
        RubyRandom { state, index: N }
    }

    fn init_by_array(key: &[u32]) -> RubyRandom {
        let mut r = RubyRandom::init_genrand(19_650_218);
        let mt = &mut r.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        r
    }

    /// `Random.new(seed)` for the non-negative integer whose 32-bit words, least significant
    /// first, are `words` (leading zero words are ignored).
    pub fn from_words(words: &[u32]) -> RubyRandom {
        let mut len = words.len();
        while len > 0 && words[len - 1] == 0 {
            len -= 1;
        }
        if len > 1 && words[len - 1] == 1 {
            len -= 1;
        }
        if len <= 1 {
            return RubyRandom::init_genrand(words.first().copied().unwrap_or(0));
        }
        RubyRandom::init_by_array(&words[..len])
    }

    /// `Random.new(seed)` for a seed given in hexadecimal (Ruby's `String#hex`, as Puppet
    /// applies it to a digest). Characters that are not hex digits end the number, as in
    /// Ruby; a leading `-` is ignored since only the absolute value counts.
    pub fn from_hex(hex: &str) -> RubyRandom {
        let digits: Vec<u32> = hex
            .trim_start()
            .trim_start_matches(['-', '+'])
            .trim_start_matches("0x")
            .chars()
            .map_while(|c| c.to_digit(16))
            .collect();
        let mut words = Vec::with_capacity(digits.len() / 8 + 1);
        for chunk in digits.rchunks(8) {
            words.push(chunk.iter().fold(0u32, |acc, d| (acc << 4) | d));
        }
        RubyRandom::from_words(&words)
    }

    /// `Random.new(seed)` for a small integer seed.
    pub fn from_u64(seed: u64) -> RubyRandom {
        RubyRandom::from_words(&[seed as u32, (seed >> 32) as u32])
    }

    fn next_state(&mut self) {
        let mt = &mut self.state;
        for k in 0..N {
            let y = (mt[k] & 0x8000_0000) | (mt[(k + 1) % N] & 0x7fff_ffff);
            let mut v = mt[(k + M) % N] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            mt[k] = v;
        }
        self.index = 0;
    }

    /// The next 32-bit output (`genrand_int32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.next_state();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// Ruby's `limited_rand`: a number in `0..=limit`.
    fn limited(&mut self, limit: u64) -> u64 {
        if limit == 0 {
            return 0;
        }
        let mask = u64::MAX >> limit.leading_zeros();
        'retry: loop {
            let mut val = 0u64;
            for i in (0..2).rev() {
                if (mask >> (i * 32)) & 0xffff_ffff != 0 {
                    val |= u64::from(self.next_u32()) << (i * 32);
                    val &= mask;
                    if limit < val {
                        continue 'retry;
                    }
                }
            }
            return val;
        }
    }

    /// `Random#rand(max)` for an Integer `max`: a number in `0..max`; `None` when `max` is not
    /// positive (Ruby raises `ArgumentError`, "invalid argument - MAX").
    pub fn rand_int(&mut self, max: i64) -> Option<i64> {
        if max <= 0 {
            return None;
        }
        Some(self.limited(max as u64 - 1) as i64)
    }
}

/// `Puppet::Util.deterministic_rand_int(seed, max)` for a seed in hexadecimal:
/// `Random.new(seed.hex).rand(max)`. The error is Ruby's text for a `max` that is not
/// positive.
pub fn deterministic_rand_int(seed_hex: &str, max: i64) -> Result<i64, String> {
    RubyRandom::from_hex(seed_hex)
        .rand_int(max)
        .ok_or_else(|| format!("invalid argument - {max}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers of Ruby 3.1.2 (`ruby -e 'r = Random.new(SEED); p Array.new(5) { r.rand(MAX) }'`).
    #[test]
    fn ruby_sequences() {
        let cases: &[(RubyRandom, i64, [i64; 5])] = &[
            (RubyRandom::from_u64(0), 100, [44, 47, 64, 67, 67]),
            (RubyRandom::from_u64(42), 1000, [102, 435, 860, 270, 106]),
            (RubyRandom::from_u64(1 << 32), 10, [5, 0, 3, 3, 7]),
            (RubyRandom::from_u64(1 << 33), 10, [5, 0, 6, 3, 5]),
            (
                RubyRandom::from_hex("ffffffffffffffffffffffffffffffff"),
                1 << 40,
                [
                    862_353_680_256,
                    685_025_469_786,
                    780_406_925_552,
                    407_653_773_706,
                    720_370_568_194,
                ],
            ),
        ];
        for (r, max, want) in cases {
            let mut r = r.clone();
            let got: Vec<i64> = (0..5).map(|_| r.rand_int(*max).unwrap()).collect();
            assert_eq!(got, want, "max {max}");
        }
    }

    #[test]
    fn md5_seeds_as_puppet() {
        let seed = crate::digest::hex(&crate::digest::md5(b"web01.example.com:100:"));
        assert_eq!(deterministic_rand_int(&seed, 100), Ok(52));
        assert_eq!(
            deterministic_rand_int(&seed, 0),
            Err("invalid argument - 0".to_string())
        );
    }
}
