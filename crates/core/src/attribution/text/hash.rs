//! A fast deterministic hasher and hash for the analysis' identity maps.

/// A fast, deterministic hasher for the analysis' identity maps (FxHash's mixing step and a
/// splitmix64 finaliser): keys are our own hashes and short ids.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        // splitmix64's finaliser: every input bit reaches the low bits the table indexes with.
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// A deterministic 64-bit hash of a list of strings (the same on every platform and run), for
/// the analysis' identity keys (an action's command, a program). Eight bytes at a time, each
/// part's length mixed in (so `["ab", "c"]` and `["a", "bc"]` differ), and a splitmix64
/// finaliser; byte at a time (FNV) was a third of the trigger scan. Each word is mixed in by a
/// folded multiply (the high and low halves of a 128-bit product), which carries every bit of
/// the word into every bit of the state: FxHash's step (rotate, xor, multiply) carries a bit only
/// upwards, so two ids differing in a word's last byte and in the next word's first
/// (`a-1-10308` and `a-1-10385`) often hashed the same, and two commands were one action.
pub fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |w: u64| h = folded_multiply(h ^ w, 0x51_7c_c1_b7_27_22_0a_95);
    for p in parts {
        let mut words = p.as_bytes().chunks_exact(8);
        for w in &mut words {
            mix(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        tail[..words.remainder().len()].copy_from_slice(words.remainder());
        mix(u64::from_le_bytes(tail));
        mix(p.len() as u64);
    }
    use std::hash::Hasher as _;
    FxHasher(h).finish()
}

/// The xor of the two halves of `x * y` in 128 bits.
fn folded_multiply(x: u64, y: u64) -> u64 {
    let full = u128::from(x) * u128::from(y);
    (full as u64) ^ ((full >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_keeps_part_boundaries_and_every_byte() {
        assert_eq!(hash(&["make", "test"]), hash(&["make", "test"]));
        assert_ne!(hash(&["ab", "c"]), hash(&["a", "bc"]));
        assert_ne!(hash(&["", "x"]), hash(&["x", ""]));
        assert_ne!(hash(&["x"]), hash(&["x", ""]));
        let long = "pytest -x tests/test_api.py::test_login";
        for i in 0..long.len() {
            let mut other = long.as_bytes().to_vec();
            other[i] ^= 1;
            let other = String::from_utf8(other).unwrap();
            assert_ne!(hash(&[long]), hash(&[&other]), "byte {i}");
        }
        // A trailing NUL is not the same as the word's zero padding.
        assert_ne!(hash(&["abc"]), hash(&["abc\0"]));
    }

    /// Numbered ids and file names (a word's last byte and the next word's first differ):
    /// FxHash's step gave 2,227 pairs of 300,000 action ids of a generated run one hash.
    #[test]
    fn numbered_ids_hash_apart() {
        assert_ne!(hash(&["a-1-10308"]), hash(&["a-1-10385"]));
        assert_ne!(hash(&["out/report-119314.txt"]), hash(&["out/report-119399.txt"]));
        let mut seen = std::collections::HashMap::new();
        for prefix in ["a-1-", "s-1-", "out/report-", "tests/test_", "a-12-"] {
            for n in 0..200_000u32 {
                let id = format!("{prefix}{n}.txt");
                if let Some(other) = seen.insert(hash(&[&id]), id.clone()) {
                    panic!("{id} and {other} hash the same");
                }
            }
        }
    }
}
