//! `wgmma.mma_async` (PTX ISA 9.7.15.5.2) as the sm_90a tensor core does it: the matrix
//! descriptors and the canonical shared-memory layouts they describe, the accumulator fragment
//! of each thread of the warpgroup, and the arithmetic, fitted to the H100 measurements of
//! `tests/hardware/wgmma` (`crates/exec/tests/suite/wgmma.rs` lists the tiles that match).
//!
//! Arithmetic:
//!
//! * `.f16`, `.bf16`, `.tf32`: the model of `mma.sync` ([`super::mma::dot_float`]): exact
//!   products, aligned to the largest exponent among the addends (products and `c`), each
//!   truncated to [`super::mma::FRACTION_BITS`] (25) fraction bits below it, summed exactly, one
//!   rounding (toward zero to `.f32`, to nearest even to `.f16`);
//! * `.e4m3`/`.e5m2`: the same alignment with only [`FP8_FRACTION_BITS`] (13) fraction bits
//!   below the largest exponent; to `.f32` the sum is then cut (toward zero) to 13 fraction bits
//!   below its own leading bit, so every `.f32` result has its low 10 fraction bits clear (as
//!   every finite measured one does); to `.f16` it is rounded once to nearest even (MMA-Sim,
//!   arXiv 2511.10909, reports a narrower FP8 accumulator on Hopper; the widths here are the
//!   ones that match all measured tiles, not taken from it);
//! * `.s8`/`.u8`: exact, wrapping or (`.satfinite`) clamped ([`super::mma::dot_integer`]);
//! * `imm-scale-a/b = -1` negates each element of A/B (its sign bit) before the product;
//!   `scale-d` false gives `D = A * B` (the accumulator is `+0`);
//! * `.sp` ([`expand_sparse`]): the product of the dense A the metadata describes, with the
//!   arithmetic of the dense form over the whole `k` (assumed, not measured: the zeros of A add
//!   exact zero products; MMA-Sim has no sparse model).

use ptxsim_isa::mma::{MmaForm, MmaType};
use ptxsim_isa::wgmma::{M, WARPGROUP_THREADS, WgmmaForm};

use super::mma;

/// Fraction bits kept below the largest exponent on the FP8 path (fitted: 12 and 14 leave
/// mismatches in every random tile, 13 none).
pub const FP8_FRACTION_BITS: i32 = 13;

/// The swizzling mode of a matrix descriptor (bits 62-63: "0: No swizzle, 1: 128-Byte
/// swizzle, 2: 64-Byte swizzle, 3: 32-Byte swizzle").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// No swizzle ("interleaved").
    None,
    /// 32-byte swizzle (CuTe `Swizzle<1,4,3>`).
    B32,
    /// 64-byte swizzle (`Swizzle<2,4,3>`).
    B64,
    /// 128-byte swizzle (`Swizzle<3,4,3>`).
    B128,
}

impl Swizzle {
    /// Bytes of one row of the swizzle atom (16 for no swizzle: one core-matrix row).
    pub fn row_bytes(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// The mask of the address bits 7.. XORed into bits 4..: `Swizzle<B,4,3>` with `B` = 0,
    /// 1, 2, 3.
    fn mask(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 3,
            Swizzle::B128 => 7,
        }
    }
}

/// A decoded matrix descriptor (9.7.15.5.1.2.2, "Matrix Descriptor Format"): bits 0-13 the
/// start address, 16-29 the leading dimension byte offset, 32-45 the stride dimension byte
/// offset (each `(x & 0x3FFFF) >> 4`), 49-51 the base offset, 62-63 the swizzling mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// The start address in shared memory (bytes).
    pub start: u64,
    /// The leading dimension byte offset.
    pub leading: u64,
    /// The stride dimension byte offset.
    pub stride: u64,
    /// The matrix base offset (`(pattern start addr >> 7) & 7`).
    pub base_offset: u64,
    /// The swizzling mode.
    pub swizzle: Swizzle,
}

impl Descriptor {
    /// Decodes a descriptor's 64 bits (the other bits are ignored).
    pub fn decode(bits: u64) -> Descriptor {
        let field = |shift: u32| ((bits >> shift) & 0x3fff) << 4;
        Descriptor {
            start: field(0),
            leading: field(16),
            stride: field(32),
            base_offset: (bits >> 49) & 7,
            swizzle: match bits >> 62 {
                0 => Swizzle::None,
                1 => Swizzle::B128,
                2 => Swizzle::B64,
                _ => Swizzle::B32,
            },
        }
    }

    /// Decodes a tcgen05 shared-memory descriptor (PTX ISA 9.7.16.4.1, Table 40): the start
    /// address, leading and stride dimension byte offsets and base offset where wgmma's are;
    /// bits 61-63 the swizzling mode, "0 = No swizzling; 1 = 128-Byte with 32B atomic
    /// swizzling; 2 = 128-Byte swizzling; 4 = 64-Byte swizzling; 6 = 32-Byte swizzling";
    /// bit 52 the leading dimension stride mode (1: "byte address absolute", sm_103a). The
    /// canonical layouts are wgmma's ([`Descriptor::address`]). Errors for the modes ptxsim
    /// does not model (absolute leading addresses, 128-byte swizzling with 32-byte atoms) and
    /// the invalid ones ("Values 3, 5 and 7 are invalid").
    pub fn decode_tcgen05(bits: u64) -> Result<Descriptor, String> {
        let swizzle = match bits >> 61 {
            0 => Swizzle::None,
            2 => Swizzle::B128,
            4 => Swizzle::B64,
            6 => Swizzle::B32,
            1 => {
                return Err(
                    "128-byte swizzling with 32-byte atoms (mode 1) is not supported \
                            by ptxsim yet"
                        .to_string(),
                );
            }
            mode => return Err(format!("swizzling mode {mode} is invalid (bits 61-63)")),
        };
        if bits >> 52 & 1 == 1 {
            return Err(
                "the absolute leading-dimension address mode (bit 52) is not supported by \
                 ptxsim yet"
                    .to_string(),
            );
        }
        Ok(Descriptor {
            swizzle,
            ..Descriptor::decode(bits & !(7 << 61))
        })
    }

    /// The shared-memory address of element `(row, k)` of an operand of `size`-byte elements:
    /// `row` is A's `m` or B's `n`. The canonical layouts (9.7.15.5.1.2.1.3, in units of `T =
    /// 16 / size` elements, then the swizzle on the byte address):
    ///
    /// * K-major, no swizzle: `((8,m),(T,2k)):((1T,SBO),(1,LBO))` — 8 rows of 16 bytes, row
    ///   blocks `SBO` apart, 16-byte column blocks `LBO` apart (confirmed exactly on the small
    ///   integer tiles of `tests/hardware/wgmma`);
    /// * K-major, swizzled: `((8,m),(T,2k)):((sT,SBO),(1,T))` — rows of `16 s` bytes
    ///   (`s` = 2, 4, 8 for 32/64/128-byte swizzling), column blocks 16 bytes apart ("Swizzled
    ///   layouts: not used, assumed to be 1" for LBO);
    /// * MN-major, no swizzle: `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))` — 16 contiguous bytes
    ///   along M/N, blocks of them `SBO` apart, `k` rows of 16 bytes, blocks of 8 `k` `LBO`
    ///   apart (confirmed on the `imm-trans` tiles);
    /// * MN-major, swizzled: `((T,s,m),(8,k)):((1,T,LBO),(sT,SBO))` — `16 s` contiguous bytes
    ///   along M/N, blocks of them `LBO` apart, blocks of 8 `k` `SBO` apart.
    ///
    /// The swizzle XORs the address bits `7..7+B` into bits `4..4+B` (`Swizzle<B,4,3>` on
    /// bytes), taken relative to the repeating pattern's start: the base offset is subtracted
    /// from bits 7-9 first ("base offset = (pattern start addr >> 0x7) & 0x7"; only base
    /// offset 0 has been measured, by the Triton matmul).
    pub fn address(&self, mn_major: bool, row: usize, k: usize, size: usize) -> u64 {
        let (row, k, size) = (row as u64, k as u64, size as u64);
        let pitch = self.swizzle.row_bytes();
        let swizzled = self.swizzle != Swizzle::None;
        let offset = if mn_major {
            let per_row = pitch / size;
            let (block, inner) = if swizzled {
                (self.leading, self.stride)
            } else {
                (self.stride, self.leading)
            };
            (row / per_row) * block + (row % per_row) * size + (k % 8) * pitch + (k / 8) * inner
        } else {
            let per_chunk = 16 / size;
            let chunk = if swizzled { 16 } else { self.leading };
            (row / 8) * self.stride
                + (row % 8) * pitch
                + (k / per_chunk) * chunk
                + (k % per_chunk) * size
        };
        let address = self.start.wrapping_add(offset);
        let mask = self.swizzle.mask();
        let phase = ((address >> 7).wrapping_sub(self.base_offset)) & mask;
        address ^ (phase << 4)
    }
}

/// The bytes of one element of A or B in shared memory (`.tf32` takes 4).
pub fn element_bytes(ty: MmaType) -> usize {
    (ty.bits() / 8) as usize
}

/// The element with its sign bit flipped (`imm-scale = -1`).
pub fn negate(bits: u64, ty: MmaType) -> u64 {
    bits ^ 1 << (ty.bits() - 1)
}

/// The `mma` form whose element arithmetic is this form's (`dot_float`, `dot_integer` read
/// only the types and `.satfinite`).
fn as_mma(form: &WgmmaForm) -> MmaForm {
    MmaForm {
        m: 16,
        n: 8,
        k: form.k,
        a_row: true,
        b_col: true,
        satfinite: form.satfinite,
        kind_f8f6f4: false,
        block_scale: None,
        bit_op: form.bit_op,
        sparse: None,
        d: form.d,
        a: form.a,
        b: form.b,
        c: form.d,
        rounding: ptxsim_isa::Rounding::Rn,
    }
}

/// The dense `64 x k` A of `wgmma.mma_async.sp` (PTX ISA 9.7.15.6) from the stored `64 x k/2`
/// one (`stored[m]`, as read from registers or through the descriptor: "The matrix A is
/// stored in the packed format Mx(K/2)"), the 128 threads' `sp-meta` and the selector `sp-sel`:
/// "Each warp in the warpgroup provides sparsity information for 16 rows of matrix A" (warp
/// `w`, rows `16w .. 16w + 15`), each warp's block placed as [`mma::SparseA`] does for the
/// `mma.sp` of the same type and `k`. The other elements are zero (`+0`). An error for a
/// selector the ISA leaves undefined.
pub fn expand_sparse(
    form: &WgmmaForm,
    stored: &[Vec<u64>],
    metadata: &[u32],
    selector: u32,
) -> Result<Vec<Vec<u64>>, String> {
    let layout = mma::SparseA::new(&as_mma(form), selector)
        .map_err(|why| format!("{why} for wgmma.mma_async.{}", form.name()))?;
    let k = usize::from(form.k);
    let mut dense = vec![vec![0u64; k]; M];
    for (row, (elements, out)) in stored.iter().zip(dense.iter_mut()).enumerate() {
        let warp = row / 16;
        let lanes = metadata.get(32 * warp..32 * warp + 32).unwrap_or(&[]);
        for (index, &element) in elements.iter().enumerate() {
            if let Some(slot) = out.get_mut(layout.column(lanes, row % 16, index)) {
                *slot = element;
            }
        }
    }
    Ok(dense)
}

/// One element of D: `c + sum(a[i] * b[i])` (`c` in `.dtype`'s bits).
pub fn dot(form: &WgmmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    match form.a {
        MmaType::S8 | MmaType::U8 => mma::dot_integer(&as_mma(form), a, b, c),
        // "the AND ... of a k-bit row of A with a k-bit column of B, then counts the number
        // of set bits in the result (popc)", added to D (9.7.15.5.2).
        MmaType::B1 => mma::dot_single_bit(&as_mma(form), a, b, c),
        MmaType::E4m3 | MmaType::E5m2 => dot_fp8(form, a, b, c),
        _ => mma::dot_float(&as_mma(form), a, b, c),
    }
}

/// One element of D on the FP8 path (module docs). Specials as in `dot_float`: a NaN operand,
/// `inf * 0` or `inf - inf` give the canonical NaN, another infinity wins.
fn dot_fp8(form: &WgmmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    // Cut to 13 fraction bits below the sum's leading bit (toward zero) for `.f32`.
    mma::fused(
        (form.a, form.b, form.d),
        form.d,
        a,
        b,
        c,
        FP8_FRACTION_BITS,
        true,
    )
}

/// The D elements thread `thread` (0..128) of the warpgroup holds, as `(register, shift,
/// row, column)` (9.7.15.5.1.1, "Accumulator D"; confirmed on the small-integer tiles): for
/// each 8-column block `j`, elements `4j .. 4j+3` are D(16w+g, 8j+2q), D(16w+g, 8j+2q+1),
/// D(16w+g+8, 8j+2q), D(16w+g+8, 8j+2q+1) with `w` the warp, `g` = lane / 4, `q` = lane % 4;
/// one element per `.f32`/`.s32` register, two per `.f16x2` register (low half first).
pub fn d_fragment(
    form: &WgmmaForm,
    thread: usize,
) -> impl Iterator<Item = (usize, u32, usize, usize)> {
    let (w, lane) = (thread / 32, thread % 32);
    let (g, q) = (lane / 4, lane % 4);
    let packed = form.d == MmaType::F16;
    (0..usize::from(form.n) / 2).map(move |index| {
        let (j, i) = (index / 4, index % 4);
        let row = 16 * w + g + 8 * (i / 2);
        let column = 8 * j + 2 * q + i % 2;
        if packed {
            (index / 2, 16 * (index % 2) as u32, row, column)
        } else {
            (index, 0, row, column)
        }
    })
}

/// Runs one `wgmma.mma_async` for a warpgroup: `a[m][k]` and `b[n][k]` are the elements (bits,
/// already negated where `imm-scale` asks), `c[thread]` each thread's `d` registers before
/// (`None`: `scale-d` false). Returns each thread's `d` registers after.
pub fn wgmma(
    form: &WgmmaForm,
    a: &[Vec<u64>],
    b: &[Vec<u64>],
    c: Option<&[Vec<u64>]>,
) -> Vec<Vec<u64>> {
    let registers = form.d_registers();
    let mask = if form.d == MmaType::F16 {
        0xffff
    } else {
        0xffff_ffff
    };
    let empty = Vec::new();
    (0..WARPGROUP_THREADS)
        .map(|thread| {
            let before = c.and_then(|c| c.get(thread)).unwrap_or(&empty);
            let mut out = vec![0u64; registers];
            for (register, shift, row, column) in d_fragment(form, thread) {
                let accumulator = before.get(register).map_or(0, |&r| (r >> shift) & mask);
                let (Some(a_row), Some(b_row)) = (a.get(row), b.get(column)) else {
                    continue;
                };
                let value = dot(form, a_row, b_row, accumulator) & mask;
                if let Some(slot) = out.get_mut(register) {
                    *slot |= value << shift;
                }
            }
            out
        })
        .collect()
}

/// Rows of A (`M`), re-exported for the executor.
pub const ROWS: usize = M;
