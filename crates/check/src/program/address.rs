//! The address map a [`super::Program`] is built for: where `.global` variables go and where
//! each state space appears in the generic space. The executor's memory (crates/exec,
//! `memory.rs`, and `docs/executor.md`) implements this map; the builder needs it to give
//! variables their addresses and to encode `generic(var)` initializers.
//!
//! | space | its own addresses | generic window |
//! |---|---|---|
//! | `.global` | from [`GLOBAL_BASE`] | the same addresses |
//! | `.shared` | from `%cluster_ctarank` x [`CLUSTER_RANK_STRIDE`] | [`SHARED_WINDOW`] + address |
//! | `.local`  | from 0 | [`LOCAL_WINDOW`] + address |
//! | `.const`  | from 0 | [`CONST_WINDOW`] + address |
//! | `.param`  | kernel parameters from 0, call parameters from [`super::THREAD_PARAM_BASE`] | [`PARAM_WINDOW`] + address |

use ptxsim_isa::ops::Space;

/// The first global address handed out (buffers and `.global` variables).
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// The address of the first function of a module (`mov.u64 %rd, f;`, a function's name in a
/// `.global` initializer such as a C++ vtable): function `i`, in the order the module first
/// names them, is at `FUNCTION_BASE + i * FUNCTION_STRIDE`. No memory is there (a load from a
/// function's address faults); an indirect `call` through such an address calls the function.
pub const FUNCTION_BASE: u64 = 0x0000_7c00_0000_0000;
/// The distance between two functions' addresses.
pub const FUNCTION_STRIDE: u64 = 16;
/// Where `.shared` addresses appear in the generic space.
pub const SHARED_WINDOW: u64 = 0x0000_6000_0000_0000;
/// The `.shared::cluster` space (PTX ISA 9.0, 5.1.4: the shared memory of every CTA of the
/// cluster, in which the executing CTA's `.shared::cta` window lies): the CTA of cluster rank
/// `r` has its shared memory at `r * CLUSTER_RANK_STRIDE + offset`, and those are its own
/// `.shared` addresses too (a shared variable's address depends on the rank:
/// [`super::Source::SharedAddress`]). This is the GPU's layout as ptxas compiles for it
/// (`mov.u32 %r, var` becomes `(SR_CgaCtaId << 24) + offset`, `mapa` puts the rank in bits
/// 24 to 31, `getctarank` shifts right by 24) and as CUTLASS's sm_100 kernels rely on it
/// (`Sm100MmaPeerBitMask` clears bit 24 to reach the even CTA of a pair); rank 0's window
/// starts at 0, so launches without clusters see the same addresses as before. A CTA has at
/// most 227 KiB of shared memory and a cluster at most 16 CTAs, so every such address fits in
/// 32 bits. The generic window of `.shared` holds them all ([`SHARED_WINDOW`] + address).
pub const CLUSTER_RANK_STRIDE: u64 = 1 << 24;
/// Where `.local` addresses appear in the generic space.
pub const LOCAL_WINDOW: u64 = 0x0000_5000_0000_0000;
/// Where `.const` addresses appear in the generic space.
pub const CONST_WINDOW: u64 = 0x0000_4000_0000_0000;
/// Where `.param` addresses appear in the generic space.
pub const PARAM_WINDOW: u64 = 0x0000_3000_0000_0000;
/// The size of each non-global window.
pub const WINDOW_SIZE: u64 = 0x0000_1000_0000_0000;

/// Global buffers start at multiples of this, with at least this much unmapped space between
/// them, so that running off the end of one buffer faults instead of landing in the next.
pub const BUFFER_ALIGN: u64 = 256;

/// The address of the global buffer placed after one at `base` of `len` bytes (after nothing:
/// [`GLOBAL_BASE`]).
pub fn next_buffer(previous: Option<(u64, u64)>) -> u64 {
    match previous {
        // Saturating: a buffer too large for the address space is placed at the top, and the
        // executor's memory budget refuses the launch.
        Some((base, len)) => base
            .saturating_add(len.max(1))
            .div_ceil(BUFFER_ALIGN)
            .saturating_mul(BUFFER_ALIGN)
            .saturating_add(BUFFER_ALIGN),
        None => GLOBAL_BASE,
    }
}

/// The generic address of a space address (`cvta.space`, `generic(var)`).
pub fn to_generic(space: Space, address: u64) -> u64 {
    match space {
        Space::Generic | Space::Global => address,
        Space::Shared | Space::SharedCluster => SHARED_WINDOW.wrapping_add(address),
        Space::Local => LOCAL_WINDOW.wrapping_add(address),
        Space::Const => CONST_WINDOW.wrapping_add(address),
        Space::Param => PARAM_WINDOW.wrapping_add(address),
    }
}
