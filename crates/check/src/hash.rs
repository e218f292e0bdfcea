//! Hashing for name tables: rustc's Fx hash (the `rustc-hash` crate), and the word a name's head
//! is read as.

/// A `HashMap` with the Fx hash: fast, not cryptographic (names come from the module being
/// checked, and a module that collides on purpose only makes its own check slower).
pub(crate) use rustc_hash::{FxHashMap, FxHashSet};

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
