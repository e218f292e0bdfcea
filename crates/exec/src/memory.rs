//! Memory: the global space shared by every thread of a launch, and the byte arrays of the
//! per-CTA (`.shared`) and per-thread (`.local`, `.param`) spaces.
//!
//! Address map (see `docs/executor.md`). Global addresses are generic addresses; the other
//! spaces have their own addresses starting at 0 and appear in the generic space through a
//! window each (what `cvta` converts between):
//!
//! | space | its own addresses | generic window |
//! |---|---|---|
//! | `.global` | from [`GLOBAL_BASE`] | the same addresses |
//! | `.shared` | from `%cluster_ctarank` x [`CLUSTER_RANK_STRIDE`] | [`SHARED_WINDOW`] + address |
//! | `.local`  | from 0 | [`LOCAL_WINDOW`] + address |
//! | `.const`  | from 0 | [`CONST_WINDOW`] + address |
//! | `.param`  | kernel parameters from 0, call parameters from [`crate::ir::THREAD_PARAM_BASE`] | [`PARAM_WINDOW`] + address |
//!
//! Every access must be naturally aligned (PTX ISA 5.1: "all addresses must be aligned to a
//! multiple of the access size") and fall inside one buffer or variable; otherwise it faults.
//! Global memory is stored as atomic 64-bit words, so CTAs running on several host threads
//! share it without `unsafe`: an access of at most 8 aligned bytes lies inside one word and is
//! one atomic operation.

use std::fmt;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use ptxsim_isa::ops::Space;

use ptxsim_check::program::address::BUFFER_ALIGN;
pub use ptxsim_check::program::address::{
    CLUSTER_RANK_STRIDE, CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW,
    WINDOW_SIZE, next_buffer, to_generic,
};

/// Why an access faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Address 0 (a null pointer).
    Null,
    /// The address is not a multiple of the access size.
    Misaligned,
    /// The access runs past the end (or starts before the beginning) of its buffer or space.
    OutOfBounds,
    /// No buffer or window holds the address.
    Unmapped,
    /// A store to read-only memory (`.const`, kernel parameters).
    ReadOnly,
}

impl FaultKind {
    /// The fault in words.
    pub fn describe(self) -> &'static str {
        match self {
            FaultKind::Null => "null address",
            FaultKind::Misaligned => "misaligned address",
            FaultKind::OutOfBounds => "out-of-bounds address",
            FaultKind::Unmapped => "address outside every buffer",
            FaultKind::ReadOnly => "store to read-only memory",
        }
    }
}

/// A faulting access: what, where, how big.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Why.
    pub kind: FaultKind,
    /// The space the instruction addressed (`Generic` for generic addressing).
    pub space: Space,
    /// The address as the instruction computed it.
    pub address: u64,
    /// The access size in bytes.
    pub bytes: u32,
    /// `true` for a store.
    pub store: bool,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}-byte {} {} at {:#x}",
            self.kind.describe(),
            self.bytes,
            self.space.name(),
            if self.store { "store" } else { "load" },
            self.address
        )
    }
}

/// The space and space address a generic address falls in.
pub fn from_generic(address: u64) -> (Space, u64) {
    for (space, window) in [
        (Space::Shared, SHARED_WINDOW),
        (Space::Local, LOCAL_WINDOW),
        (Space::Const, CONST_WINDOW),
        (Space::Param, PARAM_WINDOW),
    ] {
        if (window..window + WINDOW_SIZE).contains(&address) {
            return (space, address - window);
        }
    }
    (Space::Global, address)
}

/// The space address of a generic address (`cvta.to.space`): the address minus the window's
/// base (wrapping, as the hardware's subtraction does for an address outside the window).
pub fn from_generic_to(space: Space, address: u64) -> u64 {
    match space {
        Space::Generic | Space::Global => address,
        Space::Shared | Space::SharedCluster => address.wrapping_sub(SHARED_WINDOW),
        Space::Local => address.wrapping_sub(LOCAL_WINDOW),
        Space::Const => address.wrapping_sub(CONST_WINDOW),
        Space::Param => address.wrapping_sub(PARAM_WINDOW),
    }
}

/// Checks the alignment of an access of `bytes` (a power of two, at most 8) at `address`.
fn aligned(address: u64, bytes: u32) -> Result<(), FaultKind> {
    // `bytes` is a power of two on every path (1..=16); a mask instead of `%` keeps a division
    // out of every load and store.
    if !bytes.is_power_of_two() || address & u64::from(bytes - 1) != 0 {
        Err(FaultKind::Misaligned)
    } else {
        Ok(())
    }
}

fn byte_mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    }
}

/// The initial contents of a buffer as little-endian 64-bit words (the last one padded with
/// zeros): the form global memory keeps, so that a buffer read from a file is not copied from
/// a byte array again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words {
    words: Vec<u64>,
    len: u64,
}

impl Words {
    /// `len` zero bytes.
    pub fn zeros(len: u64) -> Self {
        Self {
            words: vec![0; usize::try_from(len.div_ceil(8)).unwrap_or(usize::MAX)],
            len,
        }
    }

    /// The bytes of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = Self::default();
        words.extend(bytes);
        words
    }

    /// `len` bytes starting with `bytes` (at most `len` of them), zero after them: a `.global`
    /// variable with its initializer.
    pub fn padded(bytes: &[u8], len: u64) -> Self {
        let take = usize::try_from(len).map_or(bytes.len(), |len| len.min(bytes.len()));
        let mut words = Self::from_bytes(&bytes[..take]);
        if len > words.len {
            words
                .words
                .resize(usize::try_from(len.div_ceil(8)).unwrap_or(usize::MAX), 0);
            words.len = len;
        }
        words
    }

    /// Everything `reader` yields, read in chunks (a file's bytes without holding them twice);
    /// `expected` bytes (a file's size) are allocated at once. `most` is the most bytes the
    /// reader can yield (the caller's `take`): the buffer grows by doubling but never past it,
    /// so an endless reader (`/dev/zero`) cut at a 1 GiB limit costs 1 GiB, not the 2 GiB the
    /// next doubling would ask for.
    pub fn read_from(mut reader: impl Read, expected: u64, most: u64) -> io::Result<Self> {
        let most_words = usize::try_from(most.div_ceil(8)).unwrap_or(usize::MAX);
        let mut words = Self {
            words: Vec::with_capacity(
                usize::try_from(expected.div_ceil(8))
                    .unwrap_or(0)
                    .min(most_words),
            ),
            len: 0,
        };
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let read = match reader.read(&mut chunk) {
                Ok(0) => return Ok(words),
                Ok(read) => read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            let need = usize::try_from((words.len + read as u64).div_ceil(8)).unwrap_or(usize::MAX);
            if need > words.words.capacity() {
                // Doubling, but straight to the most when the next doubling would pass it, so
                // that the buffer is moved once at the end, not twice; an allocation that
                // fails is an error, not an abort.
                let grown = words.words.capacity().saturating_mul(2).max(need);
                let target = if grown.saturating_mul(2) > most_words {
                    most_words.max(need)
                } else {
                    grown
                };
                words
                    .words
                    .try_reserve_exact(target - words.words.len())
                    .map_err(|_| {
                        io::Error::new(
                            io::ErrorKind::OutOfMemory,
                            format!("out of memory after {} bytes", words.len),
                        )
                    })?;
            }
            words.extend(&chunk[..read]);
        }
    }

    /// Appends bytes.
    fn extend(&mut self, mut bytes: &[u8]) {
        // Complete a partial last word first.
        while self.len % 8 != 0 && !bytes.is_empty() {
            let shift = (self.len % 8) * 8;
            if let Some(last) = self.words.last_mut() {
                *last |= u64::from(bytes[0]) << shift;
            }
            self.len += 1;
            bytes = &bytes[1..];
        }
        let whole = bytes.chunks_exact(8);
        let rest = whole.remainder();
        self.words.extend(
            whole.map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])),
        );
        self.len += (bytes.len() - rest.len()) as u64;
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.words.push(u64::from_le_bytes(word));
            self.len += rest.len() as u64;
        }
    }

    /// The length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The words of a buffer: its own, or those of a [`PhysicalMemory`] that other buffers may
/// map too.
#[derive(Debug)]
enum Storage {
    Own(Vec<AtomicU64>),
    Shared(Arc<Vec<AtomicU64>>),
}

impl std::ops::Deref for Storage {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        match self {
            Storage::Own(words) => words,
            Storage::Shared(words) => words,
        }
    }
}

impl FromIterator<AtomicU64> for Storage {
    fn from_iter<I: IntoIterator<Item = AtomicU64>>(words: I) -> Self {
        Storage::Own(words.into_iter().collect())
    }
}

/// Physical memory that buffers at several addresses can map ([`DeviceMemory::map`]): CUDA's
/// virtual memory management, where one allocation (`cuMemCreate`) may be mapped
/// (`cuMemMap`) at more than one address and every mapping sees the same bytes. Cloning it
/// gives another reference to the same bytes.
#[derive(Clone, Debug)]
pub struct PhysicalMemory {
    words: Arc<Vec<AtomicU64>>,
    len: u64,
}

impl PhysicalMemory {
    /// `len` zero bytes (the host pages are committed when first touched).
    pub fn zeroed(len: u64) -> Self {
        let words = Words::zeros(len).words.into_iter().map(AtomicU64::new);
        Self {
            words: Arc::new(words.collect()),
            len,
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One global buffer: a launch argument or a `.global` variable.
#[derive(Debug)]
pub struct Buffer {
    /// What it is (`arg 1`, `counter`), for messages.
    pub name: String,
    /// Its first address.
    pub base: u64,
    /// Its length in bytes.
    pub len: u64,
    /// How many bytes from `base` kernels may load and store: `len`, or more for an
    /// allocation with slack ([`DeviceMemory::with_slack`]). Copies, frees and address queries
    /// see `len` only.
    pub reach: u64,
    words: Storage,
}

impl Buffer {
    /// Its bytes as little-endian 64-bit words (the last one padded), which may be read and
    /// written concurrently: what [`GlobalMemory::load`] reads.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// A copy of the buffer, its bytes as they are now. A mapping of physical memory is copied
    /// into the copy of that memory in `copies` (made on its first mapping), so that mappings
    /// of the same memory still share their bytes.
    fn duplicate(&self, copies: &mut Vec<(*const Vec<AtomicU64>, Arc<Vec<AtomicU64>>)>) -> Buffer {
        let copy = |words: &[AtomicU64]| -> Vec<AtomicU64> {
            words
                .iter()
                .map(|word| AtomicU64::new(word.load(Ordering::Relaxed)))
                .collect()
        };
        let words = match &self.words {
            Storage::Own(words) => Storage::Own(copy(words)),
            Storage::Shared(words) => {
                let key = Arc::as_ptr(words);
                match copies.iter().find(|(original, _)| *original == key) {
                    Some((_, copied)) => Storage::Shared(Arc::clone(copied)),
                    None => {
                        let copied = Arc::new(copy(words));
                        copies.push((key, Arc::clone(&copied)));
                        Storage::Shared(copied)
                    }
                }
            }
        };
        Buffer {
            name: self.name.clone(),
            base: self.base,
            len: self.len,
            reach: self.reach,
            words,
        }
    }

    /// Writes the buffer's bytes, as they are now, to `out`.
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        const WORDS: usize = 8192;
        let mut chunk = vec![0u8; WORDS * 8];
        let mut left = usize::try_from(self.len).unwrap_or(usize::MAX);
        for words in self.words.chunks(WORDS) {
            for (bytes, word) in chunk.chunks_exact_mut(8).zip(words) {
                bytes.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            let take = left.min(words.len() * 8);
            out.write_all(&chunk[..take])?;
            left -= take;
        }
        Ok(())
    }

    /// The buffer's bytes, as they are now.
    pub fn contents(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.words.len() * 8);
        // Writing into a vector cannot fail.
        let _ = self.write_to(&mut out);
        out
    }
}

/// The global space: buffers at increasing addresses from [`GLOBAL_BASE`], and, where
/// [`GlobalMemory::map_host`] gave it a [`HostMemory`], the host's memory at every other
/// address (see [`HostMemory`]).
#[derive(Debug, Default)]
pub struct GlobalMemory {
    buffers: Vec<Buffer>,
    host: Option<HostPages>,
    /// The index of the buffer of the last single access ([`GlobalMemory::word`]): a hint
    /// only, checked before use, so that lane-by-lane accesses to one buffer skip the binary
    /// search. Relaxed: a stale value costs a search, never a wrong word.
    last: AtomicUsize,
    /// Held by every 128-bit atomic ([`GlobalMemory::update_b128`]), whose two words no single
    /// 64-bit compare-and-swap covers.
    wide_atomics: std::sync::Mutex<()>,
}

impl GlobalMemory {
    /// An empty global space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a buffer holding `bytes` and returns its address (a multiple of 256).
    pub fn add(&mut self, name: impl Into<String>, bytes: &[u8]) -> u64 {
        self.add_words(name, Words::from_bytes(bytes))
    }

    /// Adds a buffer holding `words` and returns its address (a multiple of 256, after every
    /// buffer from [`GLOBAL_BASE`]).
    pub fn add_words(&mut self, name: impl Into<String>, words: Words) -> u64 {
        let last = self.buffers.last().filter(|last| last.base >= GLOBAL_BASE);
        let base = next_buffer(last.map(|last| (last.base, last.len)));
        let len = words.len;
        // Same size and alignment: the vector is converted in place.
        let words = words.words.into_iter().map(AtomicU64::new).collect();
        self.buffers.push(Buffer {
            name: name.into(),
            base,
            len,
            reach: len,
            words,
        });
        base
    }

    /// Adds a buffer holding `words` at `base` (below [`GLOBAL_BASE`], where no other buffer
    /// is: the device heap).
    pub fn add_at(&mut self, name: impl Into<String>, base: u64, words: Words) {
        let len = words.len;
        let words = words.words.into_iter().map(AtomicU64::new).collect();
        let at = self.buffers.partition_point(|b| b.base < base);
        self.buffers.insert(
            at,
            Buffer {
                name: name.into(),
                base,
                len,
                reach: len,
                words,
            },
        );
    }

    /// Maps the host's memory, through `backend`, at every global address that no buffer
    /// holds: an access there reads and writes a copy of the host page that holds it, read on
    /// the first access; [`GlobalMemory::write_back_host`] writes what changed back.
    pub fn map_host(&mut self, backend: Arc<dyn HostMemory>) {
        self.host = Some(HostPages::new(backend));
    }

    /// Writes the bytes of the host pages that the launch changed back to the host (bytes it
    /// did not change are not written, so that host data beside a kernel's buffers is left as
    /// it is). Returns the number of bytes written, or the first range the backend could not
    /// write (a read-only host page); the other ranges are written all the same.
    pub fn write_back_host(&self) -> Result<u64, HostWriteError> {
        match &self.host {
            Some(host) => host.write_back(),
            None => Ok(0),
        }
    }

    /// Every buffer, in address order.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The buffer whose range (with its slack, [`Buffer::reach`]) holds `address`, if any.
    pub fn buffer_at(&self, address: u64) -> Option<&Buffer> {
        let index = self.buffers.partition_point(|b| b.base <= address);
        let buffer = self.buffers.get(index.checked_sub(1)?)?;
        (address - buffer.base < buffer.reach).then_some(buffer)
    }

    /// The word holding an aligned access of `bytes` at `address`, and the bit shift of the
    /// access inside it.
    fn word(&self, address: u64, bytes: u32) -> Result<(&AtomicU64, u32), FaultKind> {
        let last = self.last.load(Ordering::Relaxed);
        let mut hint = last;
        let found = self.word_near(address, bytes, &mut hint);
        if hint != last {
            self.last.store(hint, Ordering::Relaxed);
        }
        found
    }

    /// [`GlobalMemory::word`] that first tries the buffer at index `hint` (the one of the
    /// previous access of a run of accesses) and sets `hint` to the buffer it found.
    #[inline]
    fn word_near(
        &self,
        address: u64,
        bytes: u32,
        hint: &mut usize,
    ) -> Result<(&AtomicU64, u32), FaultKind> {
        if address == 0 {
            return Err(FaultKind::Null);
        }
        aligned(address, bytes)?;
        match self.buffer_word(address, bytes, hint) {
            Err(FaultKind::Unmapped) => match &self.host {
                Some(host) => host.word(address),
                None => Err(FaultKind::Unmapped),
            },
            found => found,
        }
    }

    /// The word of an aligned, non-null access in one of the buffers.
    #[inline]
    fn buffer_word(
        &self,
        address: u64,
        bytes: u32,
        hint: &mut usize,
    ) -> Result<(&AtomicU64, u32), FaultKind> {
        let index = match self.buffers.get(*hint) {
            Some(b) if b.base <= address && address - b.base < b.reach => *hint,
            _ => {
                let found = self.buffers.partition_point(|b| b.base <= address);
                let Some(index) = found.checked_sub(1) else {
                    return Err(FaultKind::Unmapped);
                };
                *hint = index;
                index
            }
        };
        let Some(buffer) = self.buffers.get(index) else {
            return Err(FaultKind::Unmapped);
        };
        let offset = address - buffer.base;
        if offset >= buffer.reach.max(1) + BUFFER_ALIGN {
            return Err(FaultKind::Unmapped);
        }
        if offset + u64::from(bytes) > buffer.reach {
            return Err(FaultKind::OutOfBounds);
        }
        let word = buffer
            .words
            .get(usize::try_from(offset / 8).map_err(|_| FaultKind::OutOfBounds)?)
            .ok_or(FaultKind::OutOfBounds)?;
        Ok((word, ((offset % 8) * 8) as u32))
    }

    /// [`GlobalMemory::load`] of every address of `addresses` into `out`, in order; stops at
    /// the first fault and returns it with the index of its address.
    pub fn load_each(
        &self,
        addresses: impl Iterator<Item = u64>,
        bytes: u32,
        out: &mut Vec<u64>,
    ) -> Result<(), (usize, FaultKind)> {
        let mut hint = usize::MAX;
        for (index, address) in addresses.enumerate() {
            let (word, shift) = self
                .word_near(address, bytes, &mut hint)
                .map_err(|kind| (index, kind))?;
            out.push((word.load(Ordering::Relaxed) >> shift) & byte_mask(bytes));
        }
        Ok(())
    }

    /// Loads `bytes` (1, 2, 4 or 8) little-endian bytes.
    pub fn load(&self, address: u64, bytes: u32) -> Result<u64, FaultKind> {
        let (word, shift) = self.word(address, bytes)?;
        Ok((word.load(Ordering::Relaxed) >> shift) & byte_mask(bytes))
    }

    /// Stores the low `bytes` bytes of `value`.
    pub fn store(&self, address: u64, bytes: u32, value: u64) -> Result<(), FaultKind> {
        self.update(address, bytes, |_| value).map(|_| ())
    }

    /// The 16 bytes at the 16-byte aligned `address` replaced with `f(old)`, `old` returned,
    /// as one step under a lock every 128-bit atomic takes (`atom.exch.b128`/`atom.cas.b128`).
    pub fn update_b128(&self, address: u64, f: impl Fn(u128) -> u128) -> Result<u128, FaultKind> {
        aligned(address, 16)?;
        // Both words are found before anything is written: a fault leaves memory unchanged.
        let (low, _) = self.word(address, 8)?;
        let (high, _) = self.word(address + 8, 8)?;
        // A poisoned lock only means another thread panicked; the words are still whole.
        let _held = self
            .wide_atomics
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let old = u128::from(low.load(Ordering::Relaxed))
            | (u128::from(high.load(Ordering::Relaxed)) << 64);
        let new = f(old);
        low.store(new as u64, Ordering::Relaxed);
        high.store((new >> 64) as u64, Ordering::Relaxed);
        Ok(old)
    }

    /// Atomically replaces the value at `address` with `f(old)` and returns `old`.
    pub fn update(
        &self,
        address: u64,
        bytes: u32,
        f: impl Fn(u64) -> u64,
    ) -> Result<u64, FaultKind> {
        let (word, shift) = self.word(address, bytes)?;
        let mask = byte_mask(bytes);
        if bytes == 8 {
            let mut old = word.load(Ordering::Relaxed);
            loop {
                match word.compare_exchange_weak(old, f(old), Ordering::Relaxed, Ordering::Relaxed)
                {
                    Ok(_) => return Ok(old),
                    Err(actual) => old = actual,
                }
            }
        }
        let mut current = word.load(Ordering::Relaxed);
        loop {
            let old = (current >> shift) & mask;
            let new = (current & !(mask << shift)) | ((f(old) & mask) << shift);
            match word.compare_exchange_weak(current, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Ok(old),
                Err(actual) => current = actual,
            }
        }
    }
}

impl GlobalMemory {
    /// Stores `(address, value)` pairs of `bytes` each, in order, as [`GlobalMemory::store`]
    /// would one by one; consecutive stores into the same 8-byte word are merged into one
    /// atomic update (a later store of the same bytes wins, as in order). A store that faults
    /// stores nothing and is reported to `fault` with its index.
    pub fn store_each(
        &self,
        stores: impl Iterator<Item = (u64, u64)>,
        bytes: u32,
        mut fault: impl FnMut(usize, u64, FaultKind),
    ) {
        let mask = byte_mask(bytes);
        // The word being merged: its cell, the bits written so far and their values.
        let mut pending: Option<(&AtomicU64, u64, u64)> = None;
        let mut hint = usize::MAX;
        for (index, (address, value)) in stores.enumerate() {
            let (word, shift) = match self.word_near(address, bytes, &mut hint) {
                Ok(found) => found,
                Err(kind) => {
                    fault(index, address, kind);
                    continue;
                }
            };
            let (written, bits) = ((mask << shift), (value & mask) << shift);
            match &mut pending {
                Some((cell, pending_mask, pending_bits)) if std::ptr::eq(*cell, word) => {
                    *pending_bits = (*pending_bits & !written) | bits;
                    *pending_mask |= written;
                }
                _ => {
                    if let Some((cell, written, bits)) = pending.take() {
                        merge(cell, written, bits);
                    }
                    pending = Some((word, written, bits));
                }
            }
        }
        if let Some((cell, written, bits)) = pending {
            merge(cell, written, bits);
        }
    }
}

/// Where a cooperative launch's grid workspace is ([`crate::device::Device::set_cooperative`]):
/// below the device heap (`crate::runtime::HEAP_BASE`) and the module's `.global` variables
/// ([`GLOBAL_BASE`]), above the generic windows, and below [`ALLOCATION_BASE`], so that it
/// collides with no other buffer.
pub const GRID_WORKSPACE_BASE: u64 = 0x0000_7d00_0000_0000;

/// The grid workspace's size: CUDA's cooperative groups use the 32-bit word at offset 4 as the
/// grid barrier's counter; the rest is spare, zero.
pub const GRID_WORKSPACE_BYTES: u64 = 16;

/// Where [`DeviceMemory::allocations`] hands out addresses: far above the module's `.global`
/// variables, which start at [`GLOBAL_BASE`].
pub const ALLOCATION_BASE: u64 = 0x0000_8000_0000_0000;

/// Global buffers that outlive a launch: the allocations of a CUDA driver context, or the
/// `.global` variables of a loaded module. [`crate::api::Module::launch_in`] lends them to a
/// launch (the buffers move, their bytes are not copied) and takes them back after it. Each
/// holds buffers in its own address range, so several can be lent to one launch.
#[derive(Debug)]
pub struct DeviceMemory {
    /// In address order.
    buffers: Vec<Buffer>,
    range: std::ops::Range<u64>,
    /// The last buffer handed out (freed or not): the next one goes after it.
    last: Option<(u64, u64)>,
    /// The granule [`DeviceMemory::allocate`] rounds each buffer's [`Buffer::reach`] up to
    /// (0: none; [`DeviceMemory::with_slack`]).
    slack: u64,
}

impl DeviceMemory {
    /// No allocations yet; [`DeviceMemory::allocate`] hands out addresses from
    /// [`ALLOCATION_BASE`], each a multiple of 256 with at least 256 unmapped bytes after it
    /// (an access running off the end faults). Addresses are not reused after a free.
    pub fn allocations() -> Self {
        Self {
            buffers: Vec::new(),
            range: ALLOCATION_BASE..u64::MAX,
            last: None,
            slack: 0,
        }
    }

    /// No allocations yet; [`DeviceMemory::allocate`] hands out addresses in `range` (which
    /// should lie at or above [`ALLOCATION_BASE`], away from the module's variables), as
    /// [`DeviceMemory::allocations`] does from [`ALLOCATION_BASE`]. Memories of disjoint ranges
    /// can be lent to one launch together (a CUDA driver's devices).
    pub fn allocations_in(range: std::ops::Range<u64>) -> Self {
        Self {
            buffers: Vec::new(),
            range,
            last: None,
            slack: 0,
        }
    }

    /// A module's `.global` variables, at the addresses its program gives them, with their
    /// initial bytes.
    pub fn globals(variables: &[ptxsim_check::program::GlobalVariable]) -> Self {
        Self::globals_with_slack(variables, 0)
    }

    /// A module's `.global` variables as [`DeviceMemory::globals`] makes them, each of which
    /// kernels may load and store past its end up to the next variable, the last up to its
    /// end rounded up to a multiple of `granule` from the first variable (0: no slack, an
    /// access past a variable's end faults). A GPU places a module's variables side by side
    /// in its mapped data segment, so a kernel reading a little past the end of an array
    /// (HeCBench's `perlin` indexes its 256-entry `_hash` table up to 510) reads mapped memory
    /// and does not fault there (docs/divergences.md, D51). The bytes in the gaps read zero,
    /// not the next variable's.
    pub fn globals_with_slack(
        variables: &[ptxsim_check::program::GlobalVariable],
        granule: u64,
    ) -> Self {
        let mut buffers: Vec<Buffer> = variables
            .iter()
            .map(|variable| Buffer {
                name: variable.name.clone(),
                base: variable.address,
                len: variable.size,
                reach: variable.size,
                words: Words::padded(&variable.bytes, variable.size)
                    .words
                    .into_iter()
                    .map(AtomicU64::new)
                    .collect(),
            })
            .collect();
        buffers.sort_by_key(|buffer| buffer.base);
        if granule > 0 {
            let first = buffers.first().map_or(GLOBAL_BASE, |buffer| buffer.base);
            let nexts: Vec<Option<u64>> = buffers
                .iter()
                .skip(1)
                .map(|buffer| Some(buffer.base))
                .chain([None])
                .collect();
            for (buffer, next) in buffers.iter_mut().zip(nexts) {
                let end = next.unwrap_or_else(|| {
                    let end = buffer
                        .base
                        .saturating_add(buffer.len.max(1))
                        .saturating_sub(first);
                    first.saturating_add(end.checked_next_multiple_of(granule).unwrap_or(end))
                });
                buffer.reach = end.saturating_sub(buffer.base).max(buffer.len);
                let words = usize::try_from(buffer.reach.div_ceil(8)).unwrap_or(usize::MAX);
                if let Storage::Own(own) = &mut buffer.words {
                    own.resize_with(words, || AtomicU64::new(0));
                }
            }
        }
        Self {
            buffers,
            range: GLOBAL_BASE..ALLOCATION_BASE,
            last: None,
            slack: 0,
        }
    }

    /// The memory of a device heap ([`crate::runtime::HEAP_BYTES`] zero bytes at
    /// [`crate::runtime::HEAP_BASE`]) for a heap that lasts across launches
    /// ([`crate::api::LaunchOptions::heap`]).
    pub fn heap() -> Self {
        Self::heap_of(crate::runtime::HEAP_BYTES)
    }

    /// The memory of a device heap of `bytes` bytes (zeros at [`crate::runtime::HEAP_BASE`]),
    /// for a [`crate::runtime::Heap::with_capacity`] of the same size.
    pub fn heap_of(bytes: u64) -> Self {
        use crate::runtime::HEAP_BASE;
        let words = Words::zeros(bytes);
        Self {
            buffers: vec![Buffer {
                name: "malloc heap".to_string(),
                base: HEAP_BASE,
                len: words.len,
                reach: words.len,
                words: words.words.into_iter().map(AtomicU64::new).collect(),
            }],
            range: HEAP_BASE..HEAP_BASE + bytes,
            last: None,
            slack: 0,
        }
    }

    /// A zero-filled buffer of `bytes` bytes named `name`; its address, or `None` when the
    /// address range is exhausted.
    pub fn allocate(&mut self, name: impl Into<String>, bytes: u64) -> Option<u64> {
        if self.last.is_none() && self.slack > 0 {
            self.lead_in()?;
        }
        let base = match self.last {
            Some(last) => next_buffer(Some(last)),
            None => self.range.start,
        };
        let reach = self.reach(bytes)?;
        if self.slack > 0 {
            self.close_gap_before(base);
        }
        let end = base.checked_add(reach)?.checked_add(BUFFER_ALIGN)?;
        if end > self.range.end {
            return None;
        }
        let words = Words::zeros(reach).words.into_iter().map(AtomicU64::new);
        self.buffers.push(Buffer {
            name: name.into(),
            base,
            len: bytes,
            reach,
            words: words.collect(),
        });
        self.last = Some((base, reach));
        Some(base)
    }

    /// Gives every later [`DeviceMemory::allocate`] slack: kernels may load and store past
    /// the end of a buffer of `bytes` bytes up to `bytes` rounded up to a multiple of
    /// `granule` (0: no slack, an access past the end faults). A GPU maps device memory in
    /// pages (the CUDA Driver API's `cuMemGetAllocationGranularity`: 2 MiB on an H100) and
    /// `cudaMalloc` places small allocations side by side in them, so an access a little past
    /// the end of an allocation reaches mapped memory and does not fault there
    /// (docs/divergences.md, D40). Copies, frees and address queries still see `bytes`.
    /// Kernels reach before an allocation too: the bytes from the previous allocation's slack
    /// up to it, and one granule before the first ([`DeviceMemory::lead_in`], D60).
    pub fn with_slack(mut self, granule: u64) -> Self {
        self.slack = granule;
        self
    }

    /// With slack, the memory before the first allocation: a buffer of no bytes at the start
    /// of the range whose slack (one granule) kernels may load and store, so that the first
    /// allocation starts after it. On a GPU the driver's own allocations come first in the
    /// device's address space and `cudaMalloc` sub-allocates from mapped pages, so a kernel
    /// reading a little before the start of an allocation (Rodinia's `srad_v2` reads the row
    /// above its image, `J_cuda[tx - cols]`; `dwt2d`'s 5/3 transform the element before its
    /// input) reaches mapped memory and does not fault (docs/divergences.md, D60). Copies,
    /// frees and address queries see no bytes there.
    fn lead_in(&mut self) -> Option<()> {
        let base = self.range.start;
        let reach = self.slack;
        if base.checked_add(reach)?.checked_add(BUFFER_ALIGN)? > self.range.end {
            return None;
        }
        self.buffers.push(Buffer {
            name: "(before the first allocation)".to_string(),
            base,
            len: 0,
            reach,
            words: Words::zeros(reach)
                .words
                .into_iter()
                .map(AtomicU64::new)
                .collect(),
        });
        self.last = Some((base, reach));
        Some(())
    }

    /// With slack, lets the last buffer reach up to `base` (the next allocation's address):
    /// the [`BUFFER_ALIGN`] bytes [`next_buffer`] leaves between the two, which a kernel
    /// reading just before the new allocation lands in, are mapped memory on a GPU
    /// (D60, [`DeviceMemory::lead_in`]). Nothing changes where the last buffer is not right
    /// before `base` (it was freed, or the addresses in between were reserved).
    fn close_gap_before(&mut self, base: u64) {
        let Some(previous) = self.buffers.last_mut() else {
            return;
        };
        let Storage::Own(words) = &mut previous.words else {
            return;
        };
        let end = previous.base.saturating_add(previous.reach);
        if end >= base || base - end > BUFFER_ALIGN {
            return;
        }
        previous.reach = base - previous.base;
        let count = usize::try_from(previous.reach.div_ceil(8)).unwrap_or(usize::MAX);
        words.resize_with(count, || AtomicU64::new(0));
    }

    /// The bytes a buffer of `bytes` bytes reaches ([`DeviceMemory::with_slack`]).
    fn reach(&self, bytes: u64) -> Option<u64> {
        if self.slack == 0 {
            return Some(bytes);
        }
        bytes.max(1).checked_next_multiple_of(self.slack)
    }

    /// Reserves addresses for a buffer of `bytes` bytes without making it: the address that
    /// [`DeviceMemory::allocate`] would have given (later allocations go after it), or `None`
    /// when the range is exhausted. [`DeviceMemory::allocate_at`] makes the buffer there (a
    /// CUDA graph's allocation node: its address is fixed when the node is made, its memory
    /// exists while the graph's allocation is live).
    pub fn reserve(&mut self, bytes: u64) -> Option<u64> {
        let base = match self.last {
            Some(last) => next_buffer(Some(last)),
            None => self.range.start,
        };
        let end = base.checked_add(bytes)?.checked_add(BUFFER_ALIGN)?;
        if end > self.range.end {
            return None;
        }
        self.last = Some((base, bytes));
        Some(base)
    }

    /// A zero-filled buffer of `bytes` bytes named `name` at `base` (addresses
    /// [`DeviceMemory::reserve`] gave); `false`, and nothing made, where it would overlap a
    /// buffer or leave the memory's range.
    pub fn allocate_at(&mut self, name: impl Into<String>, base: u64, bytes: u64) -> bool {
        if !self.free_for(base, bytes) {
            return false;
        }
        let words = Words::zeros(bytes).words.into_iter().map(AtomicU64::new);
        self.insert(Buffer {
            name: name.into(),
            base,
            len: bytes,
            reach: bytes,
            words: words.collect(),
        });
        true
    }

    /// Whether `bytes` (more than 0) at `base` lie in the memory's range and overlap no buffer.
    fn free_for(&self, base: u64, bytes: u64) -> bool {
        let Some(end) = base.checked_add(bytes) else {
            return false;
        };
        if bytes == 0 || !self.range.contains(&base) || end > self.range.end {
            return false;
        }
        let at = self.buffers.partition_point(|b| b.base < base);
        let after_previous = at == 0 || {
            let previous = &self.buffers[at - 1];
            previous.base + previous.len <= base
        };
        after_previous && self.buffers.get(at).is_none_or(|next| end <= next.base)
    }

    /// Inserts `buffer` in address order.
    fn insert(&mut self, buffer: Buffer) {
        let at = self.buffers.partition_point(|b| b.base < buffer.base);
        self.buffers.insert(at, buffer);
    }

    /// Maps the first `bytes` bytes of `physical` at `base` as a buffer named `name`: loads,
    /// stores and copies there reach `physical`'s bytes, which every other mapping of it
    /// shares. `false`, and nothing mapped, where `bytes` is 0 or more than `physical` has, or
    /// the buffer would overlap another or leave the memory's range. Mappings may lie side by
    /// side, with no gap (a kernel's or a copy's bytes may then run from one into the next);
    /// [`DeviceMemory::free`] unmaps.
    pub fn map(
        &mut self,
        name: impl Into<String>,
        base: u64,
        bytes: u64,
        physical: &PhysicalMemory,
    ) -> bool {
        if bytes > physical.len || !self.free_for(base, bytes) {
            return false;
        }
        self.insert(Buffer {
            name: name.into(),
            base,
            len: bytes,
            reach: bytes,
            words: Storage::Shared(Arc::clone(&physical.words)),
        });
        true
    }

    /// Frees the buffer that starts at `address`; its length, or `None` if no buffer starts
    /// there.
    pub fn free(&mut self, address: u64) -> Option<u64> {
        let index = self
            .buffers
            .binary_search_by_key(&address, |b| b.base)
            .ok()?;
        Some(self.buffers.remove(index).len)
    }

    /// The buffer holding `address`: its first address, length and name.
    pub fn find(&self, address: u64) -> Option<(u64, u64, &str)> {
        let buffer = self.buffer(address)?;
        Some((buffer.base, buffer.len, &buffer.name))
    }

    /// The bytes of every buffer together.
    pub fn allocated_bytes(&self) -> u64 {
        self.buffers.iter().map(|buffer| buffer.len).sum()
    }

    fn buffer(&self, address: u64) -> Option<&Buffer> {
        let index = self.buffers.partition_point(|b| b.base <= address);
        let buffer = self.buffers.get(index.checked_sub(1)?)?;
        (address < buffer.base + buffer.len).then_some(buffer)
    }

    /// The pieces of `address..address + len`: each a buffer, the offset in it and the
    /// bytes it holds, in order. The range may run from one buffer into the next only where
    /// the next starts right where the first ends (physical memory mapped side by side,
    /// [`DeviceMemory::map`]); otherwise why not.
    fn pieces(&self, address: u64, len: usize) -> Result<Vec<(&Buffer, u64, usize)>, FaultKind> {
        if address == 0 {
            return Err(FaultKind::Null);
        }
        let first = self.buffer(address).ok_or(FaultKind::Unmapped)?;
        let mut pieces = Vec::with_capacity(1);
        let (mut buffer, mut offset, mut left) = (first, address - first.base, len as u64);
        loop {
            let take = left.min(buffer.len - offset);
            pieces.push((buffer, offset, take as usize));
            left -= take;
            if left == 0 {
                return Ok(pieces);
            }
            let end = buffer.base + buffer.len;
            buffer = self
                .buffer(end)
                .filter(|next| next.base == end)
                .ok_or(FaultKind::OutOfBounds)?;
            offset = 0;
        }
    }

    /// Whether `address..address + len` lies in one buffer, or in buffers side by side
    /// (what [`DeviceMemory::read`] and [`DeviceMemory::write`] accept).
    pub fn holds(&self, address: u64, len: u64) -> bool {
        usize::try_from(len).is_ok_and(|len| self.pieces(address, len).is_ok())
    }

    /// Copies `out.len()` bytes from `address`, which must lie in one buffer (or in buffers
    /// side by side, [`DeviceMemory::map`]).
    pub fn read(&self, address: u64, out: &mut [u8]) -> Result<(), FaultKind> {
        let mut done = 0;
        for (buffer, offset, len) in self.pieces(address, out.len())? {
            for (i, byte) in out[done..done + len].iter_mut().enumerate() {
                let at = offset + i as u64;
                let word = buffer.words[(at / 8) as usize].load(Ordering::Relaxed);
                *byte = (word >> ((at % 8) * 8)) as u8;
            }
            done += len;
        }
        Ok(())
    }

    /// Copies `bytes` to `address`; they must fit in one buffer (or in buffers side by side,
    /// [`DeviceMemory::map`]).
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), FaultKind> {
        let mut done = 0;
        for (buffer, offset, len) in self.pieces(address, bytes.len())? {
            write_words(&buffer.words, offset, &bytes[done..done + len]);
            done += len;
        }
        Ok(())
    }
}

/// Writes `bytes` into `words` from byte `offset`.
fn write_words(words: &[AtomicU64], offset: u64, bytes: &[u8]) {
    let mut at = offset;
    let mut rest = bytes;
    while !rest.is_empty() {
        let word = &words[(at / 8) as usize];
        let shift = at % 8;
        let take = rest.len().min(8 - shift as usize);
        if take == 8 {
            let whole = [
                rest[0], rest[1], rest[2], rest[3], rest[4], rest[5], rest[6], rest[7],
            ];
            word.store(u64::from_le_bytes(whole), Ordering::Relaxed);
        } else {
            let mut value = word.load(Ordering::Relaxed).to_le_bytes();
            value[shift as usize..shift as usize + take].copy_from_slice(&rest[..take]);
            word.store(u64::from_le_bytes(value), Ordering::Relaxed);
        }
        at += take as u64;
        rest = &rest[take..];
    }
}

impl GlobalMemory {
    /// A global space made of the buffers of `memories`, which are left empty until
    /// [`GlobalMemory::give_back`].
    pub fn lend(memories: &mut [&mut DeviceMemory]) -> Self {
        let mut buffers: Vec<Buffer> = memories
            .iter_mut()
            .flat_map(|memory| std::mem::take(&mut memory.buffers))
            .collect();
        buffers.sort_by_key(|buffer| buffer.base);
        Self {
            buffers,
            host: None,
            last: AtomicUsize::new(0),
            wide_atomics: std::sync::Mutex::new(()),
        }
    }

    /// A global space of copies of the buffers of `memories`, their bytes as they are now
    /// (for a debugger's session on a launch, [`crate::api::Module::prepare_copy`]).
    pub fn copy_of(memories: &[&DeviceMemory]) -> Self {
        let mut copies = Vec::new();
        let mut buffers: Vec<Buffer> = memories
            .iter()
            .flat_map(|memory| memory.buffers.iter())
            .map(|buffer| buffer.duplicate(&mut copies))
            .collect();
        buffers.sort_by_key(|buffer| buffer.base);
        Self {
            buffers,
            host: None,
            last: AtomicUsize::new(0),
            wide_atomics: std::sync::Mutex::new(()),
        }
    }

    /// Returns each buffer to the memory of `memories` whose address range holds it (the
    /// inverse of [`GlobalMemory::lend`]); other buffers are dropped.
    pub fn give_back(self, memories: &mut [&mut DeviceMemory]) {
        for buffer in self.buffers {
            if let Some(memory) = memories
                .iter_mut()
                .find(|memory| memory.range.contains(&buffer.base))
            {
                memory.buffers.push(buffer);
            }
        }
    }
}

/// The host's memory, as a launch's global space may reach it (the C ABI's `ptx_run`, whose
/// pointer parameters hold host addresses).
///
/// The executor never touches host memory itself: it calls `read` once per 4 KiB host page a
/// kernel accesses (the first time it does), keeps a copy of the page for the rest of the
/// launch (loads, stores and atomics act on the copy), and calls `write` at the end
/// ([`GlobalMemory::write_back_host`]) with the runs of bytes the kernel changed. An
/// implementation decides which addresses are readable and writable; it must not panic.
pub trait HostMemory: fmt::Debug + Send + Sync {
    /// Fills `out` with the bytes at `address`; `false` (and `out` unspecified) if any of them
    /// cannot be read: the access that asked faults as unmapped.
    fn read(&self, address: u64, out: &mut [u8]) -> bool;

    /// Writes `bytes` at `address`; `false` if they cannot all be written.
    fn write(&self, address: u64, bytes: &[u8]) -> bool;
}

/// The bytes of a host page.
pub const HOST_PAGE_BYTES: u64 = 4096;

/// Host addresses are below this (48-bit virtual addresses); an access at or above it faults as
/// unmapped.
pub const HOST_ADDRESS_LIMIT: u64 = 1 << 48;

/// Each of the four levels of the page table resolves 9 bits of the 36-bit page number. (Small
/// tables: a launch allocates one of each level for the first page it touches, so their size
/// is a cost of every launch; 4096 entries a level made it about 350 KB, 75 µs.)
const LEVEL_BITS: u32 = 9;
const LEVEL_ENTRIES: usize = 1 << LEVEL_BITS;

/// A copy of one host page: the words the launch reads and writes, and the bytes as read.
#[derive(Debug)]
struct HostPage {
    words: Box<[AtomicU64]>,
    original: Box<[u64]>,
}

type Leaves = Box<[OnceLock<Option<HostPage>>]>;
type Middles = Box<[OnceLock<Leaves>]>;
type Uppers = Box<[OnceLock<Middles>]>;

/// The host pages a launch has touched: a four-level table indexed by page number, filled
/// on first access (`OnceLock`, so that CTAs on several host threads share it without a lock
/// on the way to a page already read). `None` marks a page the backend could not read.
struct HostPages {
    backend: Arc<dyn HostMemory>,
    root: OnceLock<Box<[OnceLock<Uppers>]>>,
}

impl fmt::Debug for HostPages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostPages")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

/// A range of host memory that could not be written back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the kernel stored to host memory at {address:#x} ({bytes} bytes) that cannot be written")]
pub struct HostWriteError {
    /// The first address.
    pub address: u64,
    /// The length in bytes.
    pub bytes: u64,
}

fn table<T>() -> Box<[OnceLock<T>]> {
    (0..LEVEL_ENTRIES).map(|_| OnceLock::new()).collect()
}

impl HostPages {
    fn new(backend: Arc<dyn HostMemory>) -> Self {
        Self {
            backend,
            root: OnceLock::new(),
        }
    }

    /// The word holding an aligned access of at most 8 bytes at `address`, and its shift.
    fn word(&self, address: u64) -> Result<(&AtomicU64, u32), FaultKind> {
        if address >= HOST_ADDRESS_LIMIT {
            return Err(FaultKind::Unmapped);
        }
        let page = address / HOST_PAGE_BYTES;
        let index = |level: u32| (page >> (LEVEL_BITS * level)) as usize & (LEVEL_ENTRIES - 1);
        let copy = self
            .root
            .get_or_init(table)
            .get(index(3))
            .map(|uppers| uppers.get_or_init(table))
            .and_then(|uppers| uppers.get(index(2)))
            .map(|middles| middles.get_or_init(table))
            .and_then(|middles| middles.get(index(1)))
            .map(|leaves| leaves.get_or_init(table))
            .and_then(|leaves| leaves.get(index(0)))
            .ok_or(FaultKind::Unmapped)?
            .get_or_init(|| self.read_page(page * HOST_PAGE_BYTES));
        let page_copy = copy.as_ref().ok_or(FaultKind::Unmapped)?;
        let offset = address % HOST_PAGE_BYTES;
        let word = page_copy
            .words
            .get((offset / 8) as usize)
            .ok_or(FaultKind::Unmapped)?;
        Ok((word, ((offset % 8) * 8) as u32))
    }

    fn read_page(&self, base: u64) -> Option<HostPage> {
        let mut bytes = vec![0u8; HOST_PAGE_BYTES as usize];
        if !self.backend.read(base, &mut bytes) {
            return None;
        }
        let original: Box<[u64]> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        let words = original.iter().map(|&w| AtomicU64::new(w)).collect();
        Some(HostPage { words, original })
    }

    /// Every page read, with its base address, in address order.
    fn pages(&self) -> impl Iterator<Item = (u64, &HostPage)> {
        let root = self
            .root
            .get()
            .into_iter()
            .flat_map(|root| root.iter().enumerate());
        root.filter_map(|(top, uppers)| Some((top, uppers.get()?)))
            .flat_map(|(top, uppers)| {
                uppers
                    .iter()
                    .enumerate()
                    .filter_map(move |(upper, middles)| {
                        Some(((top << LEVEL_BITS) | upper, middles.get()?))
                    })
            })
            .flat_map(|(top, middles)| {
                middles
                    .iter()
                    .enumerate()
                    .filter_map(move |(middle, leaves)| Some(((top, middle), leaves.get()?)))
            })
            .flat_map(|((top, middle), leaves)| {
                leaves.iter().enumerate().filter_map(move |(leaf, page)| {
                    let page = page.get()?.as_ref()?;
                    let number = (((top << LEVEL_BITS) | middle) << LEVEL_BITS) | leaf;
                    Some((number as u64 * HOST_PAGE_BYTES, page))
                })
            })
    }

    fn write_back(&self) -> Result<u64, HostWriteError> {
        let mut written = 0;
        let mut first_error = None;
        let mut bytes = vec![0u8; HOST_PAGE_BYTES as usize];
        for (base, page) in self.pages() {
            let mut changed = [false; HOST_PAGE_BYTES as usize];
            let mut any = false;
            for (index, (word, &original)) in page.words.iter().zip(&page.original).enumerate() {
                let now = word.load(Ordering::Relaxed);
                bytes[index * 8..index * 8 + 8].copy_from_slice(&now.to_le_bytes());
                if now != original {
                    any = true;
                    let (now, original) = (now.to_le_bytes(), original.to_le_bytes());
                    for byte in 0..8 {
                        changed[index * 8 + byte] = now[byte] != original[byte];
                    }
                }
            }
            if !any {
                continue;
            }
            // Write each run of changed bytes.
            let mut start = 0;
            while start < changed.len() {
                if !changed[start] {
                    start += 1;
                    continue;
                }
                let end = changed[start..]
                    .iter()
                    .position(|c| !c)
                    .map_or(changed.len(), |run| start + run);
                let address = base + start as u64;
                if self.backend.write(address, &bytes[start..end]) {
                    written += (end - start) as u64;
                } else if first_error.is_none() {
                    first_error = Some(HostWriteError {
                        address,
                        bytes: (end - start) as u64,
                    });
                }
                start = end;
            }
        }
        match first_error {
            Some(error) => Err(error),
            None => Ok(written),
        }
    }
}

/// Replaces the bits `written` of `cell` with `bits`, atomically.
fn merge(cell: &AtomicU64, written: u64, bits: u64) {
    if written == u64::MAX {
        cell.store(bits, Ordering::Relaxed);
        return;
    }
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let new = (current & !written) | bits;
        match cell.compare_exchange_weak(current, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(actual) => current = actual,
        }
    }
}

/// The size of the constant bank a kernel's `.const` variables live in: PTX ISA 5.1.3,
/// "Constant State Space", restricts constant memory in size, currently to 64 KB.
pub const CONST_BANK_BYTES: u64 = 0x1_0000;

/// A `.const` load at `address` (an offset in the constant space): the declared variables'
/// bytes, and zero for the bytes past them that are still in the 64 KiB bank
/// ([`CONST_BANK_BYTES`]), where a GPU's load does not fault either (divergences.md, D48:
/// what a GPU reads there is not measured). Past the bank, or misaligned, it faults.
pub fn load_const(constants: &[u8], address: u64, bytes: u32) -> Result<u64, FaultKind> {
    match load_bytes(constants, 0, address, bytes) {
        Err(FaultKind::OutOfBounds)
            if address
                .checked_add(u64::from(bytes))
                .is_some_and(|end| end <= CONST_BANK_BYTES) =>
        {
            let mut word = [0u8; 8];
            for (offset, byte) in word.iter_mut().take(bytes as usize).enumerate() {
                let at = usize::try_from(address)
                    .unwrap_or(usize::MAX)
                    .saturating_add(offset);
                *byte = constants.get(at).copied().unwrap_or(0);
            }
            Ok(u64::from_le_bytes(word))
        }
        other => other,
    }
}

/// Loads from a byte array that starts at address `base` (a space's own memory).
pub fn load_bytes(memory: &[u8], base: u64, address: u64, bytes: u32) -> Result<u64, FaultKind> {
    aligned(address, bytes)?;
    let range = range(memory.len(), base, address, bytes)?;
    let at = &memory[range];
    // One fixed-size read per width: a variable-length copy into a stack word followed by a
    // full-width read stalls on store forwarding, which made this the hottest line of
    // shared-memory kernels.
    Ok(match *at {
        [a] => u64::from(a),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            let mut word = [0u8; 8];
            word[..at.len()].copy_from_slice(at);
            u64::from_le_bytes(word)
        }
    })
}

/// Stores into a byte array that starts at address `base`.
pub fn store_bytes(
    memory: &mut [u8],
    base: u64,
    address: u64,
    bytes: u32,
    value: u64,
) -> Result<(), FaultKind> {
    aligned(address, bytes)?;
    let range = range(memory.len(), base, address, bytes)?;
    let at = &mut memory[range];
    match at.len() {
        1 => at[0] = value as u8,
        2 => at.copy_from_slice(&(value as u16).to_le_bytes()),
        4 => at.copy_from_slice(&(value as u32).to_le_bytes()),
        8 => at.copy_from_slice(&value.to_le_bytes()),
        n => at.copy_from_slice(&value.to_le_bytes()[..n]),
    }
    Ok(())
}

fn range(
    len: usize,
    base: u64,
    address: u64,
    bytes: u32,
) -> Result<std::ops::Range<usize>, FaultKind> {
    let offset = address.checked_sub(base).ok_or(FaultKind::OutOfBounds)?;
    let end = offset
        .checked_add(u64::from(bytes))
        .ok_or(FaultKind::OutOfBounds)?;
    if end > len as u64 || bytes > 8 {
        return Err(FaultKind::OutOfBounds);
    }
    Ok(offset as usize..end as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxsim_check::program::GlobalVariable;

    #[test]
    fn buffers_are_separated_and_bounds_checked() {
        let mut memory = GlobalMemory::new();
        let a = memory.add("a", &[1, 2, 3, 4, 5, 6]);
        let b = memory.add("b", &[9; 16]);
        assert_eq!(a, GLOBAL_BASE);
        assert!(b >= a + 6 + BUFFER_ALIGN);
        assert_eq!(memory.load(a, 4), Ok(0x0403_0201));
        assert_eq!(memory.load(a + 4, 2), Ok(0x0605));
        assert_eq!(memory.load(a + 4, 4), Err(FaultKind::OutOfBounds));
        assert_eq!(memory.load(a + 1, 2), Err(FaultKind::Misaligned));
        assert_eq!(memory.load(0, 4), Err(FaultKind::Null));
        assert_eq!(memory.load(a + 1024, 4), Err(FaultKind::Unmapped));
        memory.store(a + 2, 2, 0xbeef).unwrap();
        assert_eq!(memory.buffers()[0].contents(), vec![1, 2, 0xef, 0xbe, 5, 6]);
        assert_eq!(
            memory.update(b + 8, 8, |v| v + 1),
            Ok(0x0909_0909_0909_0909)
        );
        assert_eq!(memory.load(b + 8, 8), Ok(0x0909_0909_0909_090a));
    }

    /// `store_each` does what the same stores one by one do: later stores of the same bytes
    /// win, a faulting store stores nothing and is reported with its index, stores into
    /// different words and whole words work.
    #[test]
    fn merged_stores_equal_stores_in_order() {
        let stores: Vec<(u64, u64)> = vec![
            (0, 0x11),
            (1, 0x22),
            (1, 0x44),
            (7, 0x4c),
            (9, 0x55),
            (3, 0x66),
            (17, 0x77), // out of bounds
            (2, 0x88),
            (8, 0x99),
        ];
        for bytes in [1u32, 2, 4, 8] {
            let mut merged = GlobalMemory::new();
            let mut single = GlobalMemory::new();
            let a = merged.add("a", &[0xa5; 16]);
            let b = single.add("a", &[0xa5; 16]);
            let scaled = |&(offset, value): &(u64, u64)| (offset * u64::from(bytes), value);
            let mut faults = Vec::new();
            merged.store_each(
                stores.iter().map(scaled).map(|(o, v)| (a + o, v)),
                bytes,
                |index, address, kind| faults.push((index, address - a, kind)),
            );
            let mut expected = Vec::new();
            for (index, (offset, value)) in stores.iter().map(scaled).enumerate() {
                if let Err(kind) = single.store(b + offset, bytes, value) {
                    expected.push((index, offset, kind));
                }
            }
            assert_eq!(faults, expected, "{bytes}-byte stores");
            assert!(!faults.is_empty());
            assert_eq!(
                merged.buffers()[0].contents(),
                single.buffers()[0].contents(),
                "{bytes}-byte stores"
            );
        }
    }

    /// A reader that hands out its bytes a few at a time, in chunks of varying length.
    struct Dribble<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.step = self.step % 7 + 1;
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Bytes read in chunks that split words anywhere land in the buffer as they were, and
    /// `write_to` gives them back; zeros are zeros.
    #[test]
    fn words_keep_bytes_whatever_the_chunks() {
        let bytes: Vec<u8> = (0..203u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in [0, 1, 7, 8, 9, 64, 203] {
            let part = &bytes[..len];
            let read = Words::read_from(
                Dribble {
                    bytes: part,
                    step: 0,
                },
                3,
                len as u64,
            )
            .unwrap();
            assert_eq!(read, Words::from_bytes(part), "{len} bytes");
            // The buffer never grows past the bytes the reader can give (rounded to words).
            assert!(
                read.words.capacity() <= len.div_ceil(8).max(1),
                "{len} bytes"
            );
            assert_eq!(read.len(), len as u64);
            let mut memory = GlobalMemory::new();
            memory.add_words("b", read);
            let buffer = &memory.buffers()[0];
            let mut out = Vec::new();
            buffer.write_to(&mut out).unwrap();
            assert_eq!(out, part, "{len} bytes");
            assert_eq!(buffer.contents(), part);
        }
        let mut memory = GlobalMemory::new();
        memory.add_words("z", Words::zeros(13));
        assert_eq!(memory.buffers()[0].contents(), vec![0; 13]);
    }

    /// Device memory keeps its bytes through a launch's lending, faults outside its buffers,
    /// and frees.
    #[test]
    fn device_memory_round_trips() {
        let mut memory = DeviceMemory::allocations();
        let a = memory.allocate("a", 13).unwrap();
        let b = memory.allocate("b", 8).unwrap();
        assert_eq!(a, ALLOCATION_BASE);
        assert!(b >= a + 13 + BUFFER_ALIGN);
        let bytes: Vec<u8> = (1..=13).collect();
        memory.write(a, &bytes).unwrap();
        memory.write(a + 3, &[0xee; 9]).unwrap();
        let mut out = [0u8; 13];
        memory.read(a, &mut out).unwrap();
        assert_eq!(
            out,
            [
                1, 2, 3, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 13
            ]
        );
        assert_eq!(memory.write(a + 10, &[0; 4]), Err(FaultKind::OutOfBounds));
        assert_eq!(memory.read(b + 4096, &mut out), Err(FaultKind::Unmapped));
        assert_eq!(memory.read(0, &mut out), Err(FaultKind::Null));
        let mut globals = DeviceMemory::globals(&[]);
        let global = GlobalMemory::lend(&mut [&mut memory, &mut globals]);
        assert_eq!(memory.allocated_bytes(), 0);
        global.store(b, 4, 0xdead_beef).unwrap();
        global.give_back(&mut [&mut memory, &mut globals]);
        assert_eq!(memory.allocated_bytes(), 21);
        let mut word = [0u8; 4];
        memory.read(b, &mut word).unwrap();
        assert_eq!(u32::from_le_bytes(word), 0xdead_beef);
        assert_eq!(
            memory.find(a + 5).map(|(base, len, _)| (base, len)),
            Some((a, 13))
        );
        assert_eq!(memory.free(a), Some(13));
        assert_eq!(memory.free(a), None);
        assert_eq!(memory.read(a, &mut word), Err(FaultKind::Unmapped));
    }

    /// With slack, a kernel's loads and stores reach past the end of an allocation up to the
    /// granule (a GPU page: an off-by-one store after a 1 KiB `cudaMalloc` does not fault on
    /// a GPU), and fault beyond it; copies, address queries and the memory's accounting still
    /// see the size asked for, and the next allocation starts after the slack.
    #[test]
    fn const_loads_past_the_variables_read_zero_within_the_bank() {
        // Eight declared bytes 1..=8: a load of them reads them (little-endian), one that
        // runs past them reads zeros for the rest, and one past 64 KiB faults (D48).
        let constants: Vec<u8> = (1..=8).collect();
        assert_eq!(load_const(&constants, 0, 8), Ok(0x0807_0605_0403_0201));
        assert_eq!(load_const(&constants, 4, 4), Ok(0x0807_0605));
        assert_eq!(load_const(&constants, 8, 8), Ok(0));
        assert_eq!(load_const(&constants, 0xfff8, 8), Ok(0));
        assert_eq!(
            load_const(&constants, 0x1_0000, 4),
            Err(FaultKind::OutOfBounds)
        );
        assert_eq!(
            load_const(&constants, 0xfffc, 8),
            Err(FaultKind::Misaligned)
        );
    }

    /// With slack, a kernel's loads before the start of an allocation reach mapped memory
    /// as on a GPU (D60): the bytes between one allocation's slack and the next allocation,
    /// and, before the first allocation, one granule. Reads there give zero (or what a
    /// store there left); copies and address queries still see only the allocations.
    #[test]
    fn slack_reaches_before_the_start_of_an_allocation() {
        let granule = 64 * 1024;
        let mut memory = DeviceMemory::allocations().with_slack(granule);
        let a = memory.allocate("a", 16 * 1024).unwrap();
        let b = memory.allocate("b", 16 * 1024).unwrap();
        assert_eq!(a, ALLOCATION_BASE + granule + BUFFER_ALIGN);
        assert_eq!(b, a + granule + BUFFER_ALIGN);
        assert_eq!(memory.find(a - 4), None);
        assert_eq!(memory.find(b - 4), None);
        assert_eq!(memory.allocated_bytes(), 32 * 1024);
        let mut word = [0u8; 4];
        assert_eq!(memory.read(b - 4, &mut word), Err(FaultKind::Unmapped));
        let mut globals = DeviceMemory::globals(&[]);
        let global = GlobalMemory::lend(&mut [&mut memory, &mut globals]);
        // srad_v2's `J_cuda[tx - cols]`: 512 bytes before the first allocation.
        assert_eq!(global.load(a - 512, 4), Ok(0));
        assert_eq!(global.load(ALLOCATION_BASE, 8), Ok(0));
        // dwt2d's element before its input, in the 256 bytes before the next allocation.
        global.store(b - 4, 4, 0x5a5a).unwrap();
        assert_eq!(global.load(b - 4, 4), Ok(0x5a5a));
        assert_eq!(global.load(b, 4), Ok(0));
        assert_eq!(
            global.load(ALLOCATION_BASE - 4, 4),
            Err(FaultKind::Unmapped)
        );
        global.give_back(&mut [&mut memory, &mut globals]);
        // Freed, an allocation's addresses fault again (just past the reach of the one
        // before it); the one before it is unchanged.
        assert_eq!(memory.free(b), Some(16 * 1024));
        let global = GlobalMemory::lend(&mut [&mut memory]);
        assert_eq!(global.load(b, 4), Err(FaultKind::OutOfBounds));
        assert_eq!(global.load(b - 4, 4), Ok(0x5a5a));
        global.give_back(&mut [&mut memory]);
        // Without slack, both faults remain (the strict check).
        let mut strict = DeviceMemory::allocations();
        let c = strict.allocate("c", 1024).unwrap();
        let d = strict.allocate("d", 1024).unwrap();
        assert_eq!(c, ALLOCATION_BASE);
        let global = GlobalMemory::lend(&mut [&mut strict]);
        assert_eq!(global.load(d - 4, 4), Err(FaultKind::OutOfBounds));
        global.give_back(&mut [&mut strict]);
    }

    #[test]
    fn slack_reaches_the_rest_of_the_granule() {
        let granule = 64 * 1024;
        let mut memory = DeviceMemory::allocations().with_slack(granule);
        let a = memory.allocate("a", 1024).unwrap();
        let b = memory.allocate("b", granule).unwrap();
        assert!(b >= a + granule + BUFFER_ALIGN);
        assert_eq!(memory.write(a + 1020, &[0; 8]), Err(FaultKind::OutOfBounds));
        assert_eq!(
            memory.find(a + 5).map(|(base, len, _)| (base, len)),
            Some((a, 1024))
        );
        assert_eq!(memory.allocated_bytes(), 1024 + granule);
        let mut globals = DeviceMemory::globals(&[]);
        let global = GlobalMemory::lend(&mut [&mut memory, &mut globals]);
        global.store(a + 1024, 4, 0x1234_5678).unwrap();
        assert_eq!(global.load(a + 1024, 4), Ok(0x1234_5678));
        global.store(a + granule - 8, 8, 7).unwrap();
        // An allocation whose size is a multiple of the granule has none; past the last
        // allocation's end, the next access faults.
        assert_eq!(global.store(b + granule, 4, 1), Err(FaultKind::OutOfBounds));
        global.give_back(&mut [&mut memory, &mut globals]);
        // Without slack, the store past the end faults (the default).
        let mut strict = DeviceMemory::allocations();
        let c = strict.allocate("c", 1024).unwrap();
        let global = GlobalMemory::lend(&mut [&mut strict]);
        assert_eq!(global.store(c + 1024, 4, 1), Err(FaultKind::OutOfBounds));
    }

    #[test]
    fn global_variables_with_slack_reach_the_next_variable_and_the_granule() {
        // Two variables as the checker places them: `table` (1 KiB, bytes 1, 2, 3, ...) and
        // `after` (8 bytes of 0xff) 256 unmapped bytes later. With slack, a load past
        // `table` reads zero up to `after`, `after` reads its own bytes, a store past it
        // lands within the 64 KiB granule, and past the granule it faults (D51).
        let granule = 64 * 1024;
        let variable = |name: &str, address: u64, bytes: Vec<u8>| GlobalVariable {
            name: name.to_string(),
            address,
            size: bytes.len() as u64,
            bytes,
            managed: false,
        };
        let table = variable(
            "table",
            GLOBAL_BASE,
            (0..1024).map(|i| (i % 251) as u8 + 1).collect(),
        );
        let after_base = next_buffer(Some((GLOBAL_BASE, 1024)));
        assert_eq!(after_base, GLOBAL_BASE + 1024 + BUFFER_ALIGN);
        let after = variable("after", after_base, vec![0xff; 8]);
        let variables = [table, after];
        let mut globals = DeviceMemory::globals_with_slack(&variables, granule);
        let global = GlobalMemory::lend(&mut [&mut globals]);
        assert_eq!(global.load(GLOBAL_BASE, 4), Ok(0x0403_0201));
        assert_eq!(global.load(GLOBAL_BASE + 1024, 4), Ok(0));
        assert_eq!(global.load(after_base - 4, 4), Ok(0));
        assert_eq!(global.load(after_base, 8), Ok(u64::MAX));
        assert_eq!(global.load(after_base + 8, 8), Ok(0));
        global.store(GLOBAL_BASE + granule - 8, 8, 7).unwrap();
        assert_eq!(global.load(GLOBAL_BASE + granule - 8, 8), Ok(7));
        assert_eq!(
            global.load(GLOBAL_BASE + granule, 4),
            Err(FaultKind::OutOfBounds)
        );
        global.give_back(&mut [&mut globals]);
        // Without slack (ptxsim run, and the default), a load past a variable faults.
        let mut strict = DeviceMemory::globals(&variables);
        let global = GlobalMemory::lend(&mut [&mut strict]);
        assert_eq!(
            global.load(GLOBAL_BASE + 1024, 4),
            Err(FaultKind::OutOfBounds)
        );
    }

    /// Physical memory mapped side by side reads and writes across the seam, kernels' loads
    /// and stores reach it, and two mappings of one physical memory see the same bytes (also
    /// in a debugger's copy); unmapping one leaves the other.
    #[test]
    fn mappings_share_physical_memory() {
        let mut memory = DeviceMemory::allocations();
        let (first, second) = (PhysicalMemory::zeroed(64), PhysicalMemory::zeroed(64));
        let base = ALLOCATION_BASE + 4096;
        assert!(memory.map("first", base, 64, &first));
        assert!(memory.map("second", base + 64, 64, &second));
        assert!(!memory.map("overlap", base + 32, 64, &second));
        assert!(!memory.map("too long", base + 4096, 65, &second));
        assert!(memory.map("alias", base + 8192, 32, &first));
        let bytes: Vec<u8> = (0..24).collect();
        memory.write(base + 52, &bytes).unwrap();
        assert!(memory.holds(base, 128));
        assert!(!memory.holds(base, 129));
        let mut out = [0u8; 28];
        memory.read(base + 48, &mut out).unwrap();
        assert_eq!(out[..4], [0; 4]);
        assert_eq!(out[4..], bytes[..]);
        memory.write(base + 8192 + 29, &[1, 2, 3]).unwrap();
        let mut tail = [0u8; 4];
        memory.read(base + 28, &mut tail).unwrap();
        assert_eq!(tail, [0, 1, 2, 3]);
        let mut global = GlobalMemory::lend(&mut [&mut memory]);
        assert_eq!(
            global.load(base + 64, 4),
            Ok(u32::from_le_bytes([12, 13, 14, 15]).into())
        );
        global
            .store(base + 8192 + 8, 8, 0x1122_3344_5566_7788)
            .unwrap();
        assert_eq!(global.load(base + 8, 8), Ok(0x1122_3344_5566_7788));
        let copy = GlobalMemory::copy_of(&[&memory]);
        assert_eq!(copy.buffers().len(), 0);
        global.give_back(&mut [&mut memory]);
        global = GlobalMemory::copy_of(&[&memory]);
        global.store(base + 8, 4, 7).unwrap();
        assert_eq!(global.load(base + 8192 + 8, 4), Ok(7));
        let mut word = [0u8; 4];
        memory.read(base + 8, &mut word).unwrap();
        assert_eq!(word, [0x88, 0x77, 0x66, 0x55]);
        assert_eq!(memory.free(base + 8192), Some(32));
        memory.read(base + 8, &mut word).unwrap();
        assert_eq!(word, [0x88, 0x77, 0x66, 0x55]);
        assert_eq!(memory.free(base + 64), Some(64));
        assert_eq!(
            memory.read(base + 62, &mut word),
            Err(FaultKind::OutOfBounds)
        );
    }

    #[test]
    fn windows_round_trip() {
        for space in [Space::Shared, Space::Local, Space::Const, Space::Param] {
            let generic = to_generic(space, 0x40);
            assert_eq!(from_generic(generic), (space, 0x40));
            assert_eq!(from_generic_to(space, generic), 0x40);
        }
        assert_eq!(
            from_generic(GLOBAL_BASE + 8),
            (Space::Global, GLOBAL_BASE + 8)
        );
    }

    #[test]
    fn byte_arrays_fault_outside() {
        let mut memory = vec![0u8; 8];
        store_bytes(&mut memory, 0x100, 0x104, 4, 0xdead_beef).unwrap();
        assert_eq!(load_bytes(&memory, 0x100, 0x104, 4), Ok(0xdead_beef));
        assert_eq!(
            load_bytes(&memory, 0x100, 0x108, 4),
            Err(FaultKind::OutOfBounds)
        );
        assert_eq!(
            load_bytes(&memory, 0x100, 0xfc, 4),
            Err(FaultKind::OutOfBounds)
        );
    }
}
