//! A small, fast, non-cryptographic hasher for name tables (the Fx hash used by rustc).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash: multiply-rotate over machine words.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(le_word(rest));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// The first eight bytes of `bytes` (all of them if fewer) as a zero-padded little-endian word,
/// byte by byte: a copy of a variable length would call `memcpy`, which costs more than these
/// few shifts.
#[inline]
pub(crate) fn le_word(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .rev()
        .fold(0, |word, &byte| (word << 8) | u64::from(byte))
}

/// A `HashMap` using [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
