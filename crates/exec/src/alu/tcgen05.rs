//! `tcgen05.mma` (PTX ISA 9.7.16.10.9) as the sm_100a tensor core does it: the instruction
//! descriptor and the arithmetic of one element of D.
//!
//! Arithmetic ([`dot`]): the `.kind::f16` and `.kind::tf32` products are the fused step of the
//! device's tensor-core model ([`super::mma::dot`]; on the default Blackwell model MMA-Sim's
//! "Blackwell": exact products aligned to the largest exponent, 25 fraction bits kept below
//! it, one rounding toward zero to `.f32`); `.kind::i8` is exact, wrapping or (saturate bit)
//! clamped ([`super::mma::dot_integer`]); `.kind::f8f6f4` with `.e4m3`/`.e5m2` is one fused
//! step of the same width (not compared with MMA-Sim's Blackwell FP8 path yet).

use ptxsim_isa::mma::{MmaForm, MmaType};

use super::mma;
use super::tensor_cores::TensorCores;
use crate::ir::tcgen05::Kind;

/// A decoded instruction descriptor (9.7.16.4.2, Table 42, for `.kind::tf32`, `.kind::f16`,
/// `.kind::f8f6f4` and `.kind::i8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrDescriptor {
    /// Rows of A and D (bits 24-28: `M >> 4`).
    pub m: usize,
    /// Columns of B and D (bits 17-22: `N >> 3`).
    pub n: usize,
    /// D's type (bits 4-5).
    pub d: MmaType,
    /// A's type (bits 7-9).
    pub a: MmaType,
    /// B's type (bits 10-12).
    pub b: MmaType,
    /// Bit 13: negate A.
    pub negate_a: bool,
    /// Bit 14: negate B.
    pub negate_b: bool,
    /// Bit 15: transpose A (A is M-major in shared memory).
    pub transpose_a: bool,
    /// Bit 16: transpose B (B is N-major).
    pub transpose_b: bool,
    /// Bit 3: saturate (`.kind::i8`).
    pub saturate: bool,
    /// `.kind::mxf8f6f4`: the scale-factor byte of A (bits 29-30) and of B (bits 4-5).
    pub scale_ids: Option<(u32, u32)>,
}

impl InstrDescriptor {
    /// Decodes `bits` for `kind`; an error names what ptxsim does not run or the ISA does not
    /// allow (Table 39's shapes for `.cta_group::1`, dense: M = 64 or 128, N a multiple of 8
    /// (M = 64) or 16 (M = 128) up to 256).
    ///
    /// Row `m` of D (and of an A in tensor memory) is in lane [`InstrDescriptor::lane`].
    pub fn decode(kind: Kind, bits: u32) -> Result<InstrDescriptor, String> {
        let field = |shift: u32, width: u32| (bits >> shift) & ((1 << width) - 1);
        if field(2, 1) == 1 {
            return Err(
                "the instruction descriptor asks for sparsity (bit 2), which ptxsim does \
                        not support yet"
                    .to_string(),
            );
        }
        let (d, ab): (MmaType, &dyn Fn(u32) -> Option<MmaType>) = match kind {
            Kind::F16 => (
                match field(4, 2) {
                    1 => MmaType::F32,
                    0 => MmaType::F16,
                    other => return Err(format!("dtype {other} (bits 4-5) is not F16 or F32")),
                },
                &|t| match t {
                    0 => Some(MmaType::F16),
                    1 => Some(MmaType::Bf16),
                    _ => None,
                },
            ),
            Kind::Tf32 => (MmaType::F32, &|t| (t == 2).then_some(MmaType::Tf32)),
            Kind::F8f6f4 | Kind::Mxf8f6f4 => (MmaType::F32, &|t| match t {
                0 => Some(MmaType::E4m3),
                1 => Some(MmaType::E5m2),
                _ => None,
            }),
            Kind::I8 => (MmaType::S32, &|t| match t {
                0 => Some(MmaType::U8),
                1 => Some(MmaType::S8),
                _ => None,
            }),
        };
        let block_scaled = kind == Kind::Mxf8f6f4;
        if block_scaled && field(23, 1) != 1 {
            return Err("the scale type (bit 23) must be UE8M0 (1) for .kind::mxf8f6f4".into());
        }
        if !matches!(kind, Kind::F16 | Kind::Mxf8f6f4)
            && field(4, 2) != if kind == Kind::I8 { 2 } else { 1 }
        {
            return Err(format!(
                "dtype {} (bits 4-5) is not allowed for this .kind",
                field(4, 2)
            ));
        }
        if d == MmaType::F16 {
            return Err("an .f16 D in tensor memory is not supported by ptxsim yet".to_string());
        }
        let types = (ab(field(7, 3)), ab(field(10, 3)));
        let (Some(a), Some(b)) = types else {
            return Err(format!(
                "atype {} / btype {} (bits 7-9, 10-12) is not allowed for this .kind, or is a \
                 sub-byte type ptxsim does not support yet",
                field(7, 3),
                field(10, 3)
            ));
        };
        let m = (field(24, 5) << 4) as usize;
        let n = (field(17, 6) << 3) as usize;
        if block_scaled && m != 128 {
            return Err(format!(
                "M = {m} with .block_scale: ptxsim runs M = 128 only (the scale factors' \
                 layout for M = 64 is not supported yet)"
            ));
        }
        let step = match m {
            64 => 8,
            128 => 16,
            _ => {
                return Err(format!(
                    "M = {m} (bits 24-28): .cta_group::1 takes M = 64 or 128"
                ));
            }
        };
        if n == 0 || n > 256 || n % step != 0 {
            return Err(format!(
                "N = {n} (bits 17-22): M = {m} takes N = {step}, {}, ... 256",
                2 * step
            ));
        }
        Ok(InstrDescriptor {
            m,
            n,
            d,
            a,
            b,
            negate_a: field(13, 1) == 1,
            negate_b: field(14, 1) == 1,
            transpose_a: field(15, 1) == 1,
            transpose_b: field(16, 1) == 1,
            saturate: !block_scaled && field(3, 1) == 1,
            scale_ids: block_scaled.then(|| (field(29, 2), field(4, 2))),
        })
    }

    /// The lane offset of row `m` of D or of an A in tensor memory (from the address's lane):
    /// `m` for M = 128 (every data path); for M = 64 the first 16 lanes of each 32-lane
    /// quarter, `32 (m / 16) + m % 16` (the ISA's data-path layouts as CUTLASS's
    /// `tmem_frg` spells them for one CTA, M = 64: "Half subpartitions layout atom", shape
    /// `((16,4),N):((1,32),128)` in lanes and columns).
    pub fn lane(&self, m: usize) -> u32 {
        if self.m == 128 {
            m as u32
        } else {
            (32 * (m / 16) + m % 16) as u32
        }
    }

    /// The `mma` form whose element arithmetic this is (the functions read only the types,
    /// `k` and `.satfinite`).
    fn as_mma(&self, k: usize) -> MmaForm {
        MmaForm {
            m: 16,
            n: 8,
            k: k as u8,
            a_row: true,
            b_col: true,
            satfinite: self.saturate,
            kind_f8f6f4: false,
            d: self.d,
            a: self.a,
            b: self.b,
            c: self.d,
        }
    }
}

/// Bytes of one element of A or B in shared memory.
pub fn element_bytes(ty: MmaType) -> usize {
    (ty.bits() / 8) as usize
}

/// The element with its sign flipped (negate A / negate B of the instruction descriptor).
pub fn negate(bits: u64, ty: MmaType) -> u64 {
    bits ^ 1 << (ty.bits() - 1)
}

/// `bits` (an `.f32`) times `2^shift`, when that is exact and stays a normal number (or zero,
/// infinity, NaN); `None` otherwise.
fn scale_f32(bits: u64, shift: i32) -> Option<u64> {
    let exponent = (bits >> 23 & 0xff) as i32;
    if bits & 0x7fff_ffff == 0 || exponent == 0xff {
        return Some(bits);
    }
    if exponent == 0 {
        return None;
    }
    let scaled = exponent + shift;
    (1..=254)
        .contains(&scaled)
        .then_some(bits & !(0xff << 23) | (scaled as u64) << 23)
}

/// One element of D for `.kind::mxf8f6f4` with `.scale_vec::1X`: D = (A x scale_A) (B x
/// scale_B) + D (the ISA's block scaling, as for `mma.sync`, 9.7.14.3), one `.ue8m0` factor
/// `2^(e - 127)` for the row's and one for the column's 32 elements of K. Every product gains
/// the same power of two `2^s`, so the fused step on the unscaled products with `c * 2^-s`,
/// its result times `2^s`, is the step on the scaled products (the alignment and truncation
/// are relative to the largest addend); `None` where a scaled value would leave the normal
/// range (not modelled), or for a NaN factor (`e` = 255).
pub fn dot_scaled(
    cores: TensorCores,
    desc: &InstrDescriptor,
    a: &[u64],
    b: &[u64],
    c: u64,
    (scale_a, scale_b): (u32, u32),
) -> Option<u64> {
    if scale_a == 255 || scale_b == 255 {
        return None;
    }
    let shift = scale_a as i32 + scale_b as i32 - 254;
    let c = scale_f32(c, -shift)?;
    scale_f32(dot(cores, desc, a, b, c), shift)
}

/// One element of D: `c + sum(a[i] * b[i])` (module docs).
pub fn dot(cores: TensorCores, desc: &InstrDescriptor, a: &[u64], b: &[u64], c: u64) -> u64 {
    let form = desc.as_mma(a.len());
    match desc.a {
        MmaType::E4m3 | MmaType::E5m2 => mma::fused(
            (form.a, form.b, form.c),
            form.d,
            a,
            b,
            c,
            cores.fraction_bits(),
            false,
        ),
        _ => mma::dot(cores, &form, a, b, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_descriptor_fields_are_table_42s() {
        // .kind::f16, D f32 (bit 4), A and B bf16 (bits 7, 10), B transposed (bit 16),
        // N = 64 (8 << 17), M = 128 (8 << 24).
        let bits = 1 << 4 | 1 << 7 | 1 << 10 | 1 << 16 | 8 << 17 | 8 << 24;
        let desc = InstrDescriptor::decode(Kind::F16, bits).unwrap();
        assert_eq!((desc.m, desc.n), (128, 64));
        assert_eq!(
            (desc.d, desc.a, desc.b),
            (MmaType::F32, MmaType::Bf16, MmaType::Bf16)
        );
        assert!(desc.transpose_b && !desc.transpose_a);
        // Sparsity, M = 32, N = 8 with M = 128 and an .f16 D are refused with a reason.
        assert!(InstrDescriptor::decode(Kind::F16, bits | 1 << 2).is_err());
        assert!(InstrDescriptor::decode(Kind::F16, bits & !(8 << 24) | 2 << 24).is_err());
        assert!(InstrDescriptor::decode(Kind::F16, bits & !(8 << 17) | 1 << 17).is_err());
        let m64 = InstrDescriptor::decode(Kind::F16, bits & !(8 << 24) | 4 << 24).unwrap();
        assert_eq!(
            (m64.m, m64.lane(15), m64.lane(16), m64.lane(63)),
            (64, 15, 32, 111)
        );
        assert!(InstrDescriptor::decode(Kind::F16, bits & !(1 << 4)).is_err());
        // .kind::tf32 needs atype 2.
        let tf32 = 1 << 4 | 2 << 7 | 2 << 10 | 2 << 17 | 8 << 24;
        assert_eq!(
            InstrDescriptor::decode(Kind::Tf32, tf32).unwrap().a,
            MmaType::Tf32
        );
        assert!(InstrDescriptor::decode(Kind::Tf32, bits).is_err());
        // .kind::mxf8f6f4: E5M2 A (bit 7), the UE8M0 scale type (bit 23), scale-factor ids 2
        // for A (bits 29-30) and 1 for B (bits 4-5); without bit 23 it is refused.
        let scaled = 1 << 7 | 4 << 17 | 1 << 23 | 8 << 24 | 2 << 29 | 1 << 4;
        let desc = InstrDescriptor::decode(Kind::Mxf8f6f4, scaled).unwrap();
        assert_eq!((desc.a, desc.b), (MmaType::E5m2, MmaType::E4m3));
        assert_eq!(desc.scale_ids, Some((2, 1)));
        assert!(InstrDescriptor::decode(Kind::Mxf8f6f4, scaled & !(1 << 23)).is_err());
    }
}
