//! `tcgen05.mma` (PTX ISA 9.7.16.10.9) as the sm_100a tensor core does it: the instruction
//! descriptor and the arithmetic of one element of D.
//!
//! Arithmetic ([`dot`]): the `.kind::f16` and `.kind::tf32` products are the fused step of the
//! device's tensor-core model ([`super::mma::dot`]; on the default Blackwell model MMA-Sim's
//! "Blackwell": exact products aligned to the largest exponent, 25 fraction bits kept below
//! it, one rounding toward zero to `.f32`); `.kind::i8` is exact, wrapping or (saturate bit)
//! clamped ([`super::mma::dot_integer`]); `.kind::f8f6f4` (FP8, FP6, FP4) is one fused step of
//! the same width, as MMA-Sim's `tcgen05mma` for K = 32; `.kind::mxf8f6f4` the same step with
//! the factors' exponents ([`dot_scaled`]); `.kind::mxf4` and `.kind::mxf4nvf4` MMA-Sim's
//! grouped 35-bit step ([`dot_fp4_scaled`]).

use ptxsim_isa::mma::{MmaForm, MmaType};

use super::mma;
use super::tensor_cores::TensorCores;
use crate::ir::tcgen05::Kind;

/// Which form of `tcgen05.mma` an instruction descriptor is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `.cta_group::1`.
    One,
    /// `.cta_group::2`: a CTA pair.
    Pair,
    /// `.ws` (weight-stationary, `.cta_group::1`).
    WeightStationary,
}

/// A decoded instruction descriptor (9.7.16.4.2, Table 42 for `.kind::tf32`, `.kind::f16`,
/// `.kind::f8f6f4` and `.kind::i8`; Table 43, as CUTLASS's `InstrDescriptorBlockScaled`
/// spells it, for the block-scaled kinds).
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
    /// Block scaling: the scale-factor byte of A (bits 29-30) and of B (bits 4-5).
    pub scale_ids: Option<(u32, u32)>,
    /// Block scaling with `.ue4m3` factors (bit 23 clear, `.kind::mxf4nvf4`).
    pub scale_ue4m3: bool,
    /// `.cta_group::2`: M and N are the pair's, each CTA holding `M / 2` rows of A and D and
    /// `N / 2` columns of B.
    pub pair: bool,
    /// `.ws`: M = 32, 64 or 128 with D in CUTLASS's weight-stationary data-path layouts.
    pub ws: bool,
    /// Bit 2 (sparse, for `tcgen05.mma.sp`) and then the sparsity selector (bits 0-1).
    pub sparse: Option<u32>,
}

impl InstrDescriptor {
    /// Decodes `bits` for `kind`, of one CTA or (`pair`) of a CTA pair; an error names what
    /// ptxsim does not run or the ISA does not allow (Table 39's dense shapes: for
    /// `.cta_group::1` M = 64 or 128, N a multiple of 8 (M = 64) or 16 (M = 128) up to 256;
    /// for `.cta_group::2` M = 128 or 256, N a multiple of 16 up to 256, the bounds CUTLASS's
    /// `SM100_MMA_*_2x1SM_*` atoms assert).
    ///
    /// Row `m` of D is where [`InstrDescriptor::place`] puts it, row `m` of an A in tensor
    /// memory in lane [`InstrDescriptor::lane`].
    pub fn decode(kind: Kind, bits: u32, form: Form) -> Result<InstrDescriptor, String> {
        let pair = form == Form::Pair;
        let ws = form == Form::WeightStationary;
        let field = |shift: u32, width: u32| (bits >> shift) & ((1 << width) - 1);
        let sparse = (!kind.block_scaled() && field(2, 1) == 1).then(|| field(0, 2));
        if let Some(selector) = sparse {
            Self::check_sparse(kind, form, field(24, 5) << 4, selector)?;
        }
        let f8f6f4 = |t| match t {
            0 => Some(MmaType::E4m3),
            1 => Some(MmaType::E5m2),
            3 => Some(MmaType::E2m3),
            4 => Some(MmaType::E3m2),
            5 => Some(MmaType::E2m1),
            _ => None,
        };
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
            // "dtype ... F16 = 0, F32 = 1" for `.kind::f8f6f4` as for `.kind::f16` (Table 42).
            Kind::F8f6f4 if field(4, 2) == 0 => (MmaType::F16, &f8f6f4),
            Kind::F8f6f4 | Kind::Mxf8f6f4 => (MmaType::F32, &f8f6f4),
            // CUTLASS's `MXF4Format`: E2M1 = 1.
            Kind::Mxf4 | Kind::Mxf4nvf4 => (MmaType::F32, &|t| (t == 1).then_some(MmaType::E2m1)),
            Kind::I8 => (MmaType::S32, &|t| match t {
                0 => Some(MmaType::U8),
                1 => Some(MmaType::S8),
                _ => None,
            }),
        };
        let block_scaled = kind.block_scaled();
        // The block-scaled descriptor (CUTLASS's `InstrDescriptorBlockScaled`): bit 23 the
        // scale type, UE4M3 = 0 (`.kind::mxf4nvf4` only) or UE8M0 = 1; bit 31 K (0: K = 32
        // for `.kind::mxf8f6f4`, 64 for `.kind::mxf4*`; 1: K = 96, sm_103a).
        let scale_ue4m3 = block_scaled && field(23, 1) == 0;
        if scale_ue4m3 && kind != Kind::Mxf4nvf4 {
            return Err(
                "the scale type (bit 23) must be UE8M0 (1) for .kind::mxf8f6f4 and .kind::mxf4"
                    .into(),
            );
        }
        if block_scaled && field(31, 1) == 1 {
            return Err(
                "K = 96 (bit 31) is not supported by ptxsim yet (sm_103a's .kind::mxf4 form)"
                    .into(),
            );
        }
        if !matches!(kind, Kind::F16)
            && d != MmaType::F16
            && !block_scaled
            && field(4, 2) != if kind == Kind::I8 { 2 } else { 1 }
        {
            return Err(format!(
                "dtype {} (bits 4-5) is not allowed for this .kind",
                field(4, 2)
            ));
        }
        let types = (ab(field(7, 3)), ab(field(10, 3)));
        let (Some(a), Some(b)) = types else {
            return Err(format!(
                "atype {} / btype {} (bits 7-9, 10-12) is not allowed for this .kind",
                field(7, 3),
                field(10, 3)
            ));
        };
        // An `.f16` D takes `.f16` A and B (`.bf16` accumulates in `.f32` only: CUTLASS's
        // `MmaF16BF16Op` lists F32 for BF16 inputs; MMA-Sim's `tcgen05mma` asserts the same).
        if d == MmaType::F16 && (a == MmaType::Bf16 || b == MmaType::Bf16) {
            return Err(".bf16 A and B take an .f32 D (dtype 1, bits 4-5)".to_string());
        }
        // "Major value of 1 is only valid for E4M3, E5M2, INT8 (signed and unsigned), F16, BF16
        // and TF32 source formats" (CUTLASS's `InstrDescriptor`): FP6 and FP4 are K-major.
        for (ty, bit, name) in [(a, 15, "A"), (b, 16, "B")] {
            if field(bit, 1) == 1 && (ty.is_fp6_or_fp4() || kind.packed_fp4()) {
                return Err(format!(
                    "{name} is transposed (bit {bit}), which FP6 and FP4 operands cannot be \
                     (they are K-major)"
                ));
            }
        }
        let m = (field(24, 5) << 4) as usize;
        let n = (field(17, 6) << 3) as usize;
        // Over a CTA pair each CTA holds the scale factors of its M / 2 rows of A and of all N
        // columns of B in its own tensor memory: CUTLASS's 2x1SM block-scaled atoms copy them
        // with a one-CTA `MMA_ScaleFactor` atom of M / 2 rows and all of N
        // (`SM100_MMA_MXF8F6F4_2x1SM_SS`'s `SM100_MMA_MXF8F6F4_SS<.., M/2, round_up(N, 128)>`).
        // M = 64 in one CTA: CUTLASS's one-CTA atom of 64 rows (`MMA_ScaleFactor` with M = 64,
        // `tmem_sf_frg` with 64 rows: the same lanes and columns as 128, two columns).
        let rows = if pair { m / 2 } else { m };
        if block_scaled && rows != 128 && (pair || m != 64) {
            return Err(format!(
                "M = {m} with .block_scale: ptxsim runs M = 64 or 128, or 256 with \
                 .cta_group::2 (the scale factors' layout for 64 rows a CTA of a pair, \
                 CUTLASS's ScaleFactorDuplicated2by2, is not supported yet)"
            ));
        }
        if ws && (!matches!(m, 32 | 64 | 128) || !matches!(n, 64 | 128 | 256)) {
            return Err(format!(
                "M = {m}, N = {n} (bits 24-28, 17-22): .ws takes M = 32, 64 or 128 and N = 64, \
                 128 or 256"
            ));
        }
        let step = match (form, m) {
            (Form::WeightStationary, _) => 64,
            (Form::One, 64) => 8,
            (Form::One, 128) | (Form::Pair, 128 | 256) => 16,
            (Form::One, _) => {
                return Err(format!(
                    "M = {m} (bits 24-28): .cta_group::1 takes M = 64 or 128"
                ));
            }
            (Form::Pair, _) => {
                return Err(format!(
                    "M = {m} (bits 24-28): .cta_group::2 takes M = 128 or 256"
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
            scale_ue4m3,
            pair,
            ws,
            sparse,
        })
    }

    /// The sparse forms ptxsim runs: `.cta_group::1`, M = 128, `.kind::f16`, `.kind::tf32`,
    /// `.kind::f8f6f4` and `.kind::i8`. "The value of the sparsity selector ... must be 0 for
    /// .kind::i8 and .kind::f8f6f4" (9.7.16.10.8.4.5-6); for `.kind::f16` and `.kind::tf32` it
    /// picks one of four metadata columns ([`sparse_metadata_cell`]).
    fn check_sparse(kind: Kind, form: Form, m: u32, selector: u32) -> Result<(), String> {
        if form != Form::One || m != 128 {
            return Err(format!(
                "sparse tcgen05.mma.sp with {} and M = {m} is not supported by ptxsim yet \
                 (only .cta_group::1 with M = 128: the metadata layout of the others is not \
                 settled by the sources read)",
                match form {
                    Form::One => ".cta_group::1",
                    Form::Pair => ".cta_group::2",
                    Form::WeightStationary => ".ws",
                }
            ));
        }
        if matches!(kind, Kind::F8f6f4 | Kind::I8) && selector != 0 {
            return Err(format!(
                "the sparsity selector (bits 0-1) is {selector}: it must be 0 for .kind::i8 and \
                 .kind::f8f6f4"
            ));
        }
        Ok(())
    }

    /// The CTAs the product spans: 1, or 2 with `.cta_group::2`.
    pub fn ctas(&self) -> usize {
        if self.pair { 2 } else { 1 }
    }

    /// Rows of A and D in each CTA: M, or M / 2 over a pair (CUTLASS's 2x1SM atoms:
    /// `ALayout` and `CLayout` give CTA `v` of the pair rows `v M/2 .. (v + 1) M/2`).
    pub fn rows_per_cta(&self) -> usize {
        self.m / self.ctas()
    }

    /// Columns of B in each CTA's shared memory: N, or N / 2 over a pair (`BLayout` gives
    /// CTA `v` columns `v N/2 .. (v + 1) N/2`).
    pub fn columns_per_cta(&self) -> usize {
        self.n / self.ctas()
    }

    /// The lane offset of row `m` (of its CTA's rows) of an A in tensor memory: `m`, but for
    /// one CTA's M = 64, the first 16 lanes of each 32-lane quarter, `32 (m / 16) + m % 16` (the
    /// ISA's data-path layouts as CUTLASS's `tmem_frg` spells them for one CTA, M = 64: "Half
    /// subpartitions layout atom", shape `((16,4),N):((1,32),128)` in lanes and columns). A
    /// pair's M = 128 keeps A row `m` in lanes `m` and `64 + m` (CUTLASS's
    /// `TmemAllocMode::Duplicated`: "the input data must be duplicated between the
    /// subpartitions"); ptxsim reads lane `m`.
    pub fn lane(&self, m: usize) -> u32 {
        if self.m == 64 && !self.pair && !self.ws {
            (32 * (m / 16) + m % 16) as u32
        } else {
            m as u32
        }
    }

    /// The (lane, column) offsets of element `(m, n)` of D, `m` of its CTA's rows: `(lane(m),
    /// n)`, but for a pair's M = 128 (64 rows a CTA) CUTLASS's "2x2" layout atom,
    /// `(64,(N/2,2)):(1,(128,64))` in lanes and columns: columns `n < N/2` in lanes 0-63,
    /// the others in lanes 64-127 from column 0 again. `.ws` with M = 64 is the same "2x2"
    /// layout and M = 32 CUTLASS's "1x4" (`tmem_frg_ws`: `(32,(N/4,4)):(1,(128,32))`):
    /// quarter `q` of the columns in lanes `32 q ..`, from column 0.
    pub fn place(&self, m: usize, n: usize) -> (u32, u32) {
        let parts = match (self.pair, self.ws, self.m) {
            (true, _, 128) | (_, true, 64) => 2,
            (_, true, 32) => 4,
            _ => return (self.lane(m), n as u32),
        };
        let width = self.n / parts;
        ((m + 128 / parts * (n / width)) as u32, (n % width) as u32)
    }

    /// The `mma` form whose element arithmetic this is (the functions read only the types,
    /// `k` and `.satfinite`).
    fn as_mma(&self, k: usize) -> MmaForm {
        MmaForm {
            m: 16,
            n: 8,
            k: k as u16,
            a_row: true,
            b_col: true,
            satfinite: self.saturate,
            kind_f8f6f4: false,
            block_scale: None,
            bit_op: None,
            sparse: None,
            d: self.d,
            a: self.a,
            b: self.b,
            c: self.d,
            rounding: ptxsim_isa::Rounding::Rn,
        }
    }
}

/// Bytes of one element of A or B in shared memory (FP6 and FP4 of `.kind::f8f6f4` take the
/// room of one byte: [`SubByte`]).
pub fn element_bytes(ty: MmaType) -> usize {
    (ty.bits() / 8) as usize
}

/// How a sub-byte element lies in shared memory and in tensor memory.
///
/// * `.kind::f8f6f4` / `.kind::mxf8f6f4` FP6 and FP4: in shared memory 16 elements packed
///   into the low 12 (FP6) or 8 (FP4) bytes of each 16-byte unit, the rest padding (the
///   `.b6x16_p32` and `.b4x16_p64` formats of `tcgen05.cp`, 9.7.16.9.1, and of the tensor
///   maps' `16U6_ALIGN16B` / `16U4_ALIGN16B`), so the canonical layouts address them as
///   one-byte elements; in tensor memory one element per byte, the `.b8x16` form `tcgen05.cp`
///   decompresses them to, the bits placed as in `mma`'s 8-bit containers ("The matrix
///   element of type .e2m1 resides in central 4 bits of the 8-bit container ... .e3m2 or
///   .e2m3 ... in the lower 6 bits", 9.7.14.5.14; assumed for tensor memory).
/// * `.kind::mxf4` / `.kind::mxf4nvf4`: `.e2m1` packed two to a byte in both ("no explicit
///   padding is necessary"), the lower k in the low nibble.
///
/// The executor holds every FP6/FP4 element in its 8-bit container (FP4 in bits 2-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubByte {
    /// FP6 or FP4 in 16-element units of 16 bytes (`width` 6 or 4 bits).
    Padded(u32),
    /// FP4 packed two to a byte.
    Packed,
}

impl SubByte {
    /// The sub-byte format of A's or B's elements of type `ty` for `kind`, if they are
    /// sub-byte.
    pub fn of(kind: Kind, ty: MmaType) -> Option<SubByte> {
        if kind.packed_fp4() {
            Some(SubByte::Packed)
        } else if ty.is_fp6_or_fp4() {
            Some(SubByte::Padded(if ty == MmaType::E2m1 { 4 } else { 6 }))
        } else {
            None
        }
    }

    /// Element `k` as its 8-bit container, from the 16 bytes (little-endian) of the unit
    /// that holds it: unit elements `16 (k / 16)..` for `Padded`, `32 (k / 32)..` for `Packed`.
    pub fn extract(self, unit: u128, k: usize) -> u64 {
        match self {
            SubByte::Padded(width) => {
                let value = (unit >> (width as usize * (k % 16))) as u64 & ((1 << width) - 1);
                if width == 4 { value << 2 } else { value }
            }
            SubByte::Packed => ((unit >> (4 * (k % 32))) as u64 & 0xf) << 2,
        }
    }

    /// Elements in one 16-byte unit.
    pub fn per_unit(self) -> usize {
        match self {
            SubByte::Padded(_) => 16,
            SubByte::Packed => 32,
        }
    }
}

/// The element with its sign flipped (negate A / negate B of the instruction descriptor);
/// FP6 and FP4 in their 8-bit containers have the sign at bit 5.
pub fn negate(bits: u64, ty: MmaType) -> u64 {
    if ty.is_fp6_or_fp4() {
        bits ^ 0x20
    } else {
        bits ^ 1 << (ty.bits() - 1)
    }
}

/// One element of D for `.kind::mxf8f6f4` with `.scale_vec::1X`: D = (A x scale_A) (B x
/// scale_B) + D (the ISA's block scaling, as for `mma.sync`, 9.7.14.3), one `.ue8m0` factor
/// `2^(e - 127)` for the row's and one for the column's 32 elements of K. Every product gains
/// the same power of two `2^s`, so the fused step on the unscaled products with `c * 2^-s`,
/// its result times `2^s`, is the step on the scaled products (the alignment and truncation
/// are relative to the largest addend); `None` where a scaled value would leave the normal
/// range (not modelled); a NaN factor (`e` = 255) gives the canonical NaN, as in MMA-Sim.
pub fn dot_scaled(
    desc: &InstrDescriptor,
    a: &[u64],
    b: &[u64],
    c: u64,
    (scale_a, scale_b): (u32, u32),
) -> Option<u64> {
    mma::dot_mx((desc.a, desc.b), a, b, c, (scale_a, scale_b))
}

/// One element of D: `c + sum(a[i] * b[i])` (module docs).
pub fn dot(cores: TensorCores, desc: &InstrDescriptor, a: &[u64], b: &[u64], c: u64) -> u64 {
    let form = desc.as_mma(a.len());
    let low_precision = |t: MmaType| t.is_fp8() || t.is_fp6_or_fp4();
    match desc.a {
        _ if low_precision(desc.a) || low_precision(desc.b) => mma::fused(
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

/// The reduction of `tcgen05.ld.red` over one thread's loaded values (9.7.16.8.3: "the
/// reduction operation specified by .redOp is performed on the data that is loaded across
/// columns in each lane"): `.u32`/`.s32` the integer minimum or maximum; `.f32` `min`/`max`'s
/// rules (9.7.3.11-12: a NaN is passed over unless every value is one, the canonical NaN then;
/// with `.NaN` any NaN gives the canonical NaN; -0.0 < +0.0), over the absolute values with
/// `.abs`.
/// `(max, ty, abs, nan)` are `.max` (else `.min`), the type, `.abs` and `.NaN`.
pub fn load_reduction(
    (max, ty, abs, nan): (bool, ptxsim_isa::Type, bool, bool),
    values: &[u32],
) -> u32 {
    use ptxsim_isa::Type;
    use ptxsim_isa::ops::{FloatModifiers, FloatOp};
    let pick = |a: u32, b: u32| -> u32 {
        match ty {
            Type::S32 => {
                let (x, y) = (a as i32, b as i32);
                (if max { x.max(y) } else { x.min(y) }) as u32
            }
            Type::U32 => {
                if max {
                    a.max(b)
                } else {
                    a.min(b)
                }
            }
            _ => {
                let op = if max { FloatOp::Max } else { FloatOp::Min };
                let modifiers = FloatModifiers {
                    nan,
                    ..FloatModifiers::RN
                };
                super::float::float_binary(op, Type::F32, modifiers, a.into(), b.into()) as u32
            }
        }
    };
    let abs = |v: u32| if abs { v & 0x7fff_ffff } else { v };
    values
        .iter()
        .map(|&v| abs(v))
        .reduce(pick)
        .unwrap_or_default()
}

/// The accumulator of `scale-input-d`: "D = A*B+D * (2 ^ - scale-input-d)" (9.7.16.10.9.1;
/// "The valid range of values for argument scale-input-d is [0, 15]"), `c` an `.f32`. The
/// scaling is exact (the exponent lowered by `scale`) while the result stays a normal number
/// (zero, infinity and NaN unchanged); `None` when it would leave the normal range, which
/// ptxsim does not model (the ISA does not say how the tensor core rounds it).
pub fn scale_input_d(c: u64, scale: u32) -> Option<u64> {
    mma::scale_f32(c, -(scale as i32))
}

/// Where the 4-bit metadata of chunk `chunk` of row `m` of a sparse A lies, as (lane,
/// column, bit) offsets from `[sp-meta-tmem]` (`.cta_group::1`, M = 128).
///
/// "The value of the sparsity selector selects the sub-columns in the Tensor Memory to form
/// the sparsity metadata matrix" (9.7.16.10.8.4); the layouts themselves are in the ISA's
/// Figures 262-267 only, so ptxsim takes them from CUTLASS's `tmem_e_frg` (M = 128):
/// * `.kind::f16` (chunks of four, K = 32) and `.kind::tf32` (chunks of two, K = 16): eight
///   chunks a row, 32 bits, in one column: the `(8,2,8) x (16,2)` atom puts row `m`'s chunk
///   `c` in lane `m % 8 + 16 (m / 16) + 8 (c / 4)`, bits `4 (c % 4) + 16 ((m / 8) % 2)` (rows
///   `8..16` of each 16 in the high half, the second half of K eight lanes down); the
///   selector picks the column, `selector` from the address's (how JAX's Mosaic GPU issues
///   two `.kind::f16` instructions on one two-column metadata tile, selectors 0 and 1);
/// * `.kind::i8`, `.kind::f8f6f4` (chunks of four, K = 64): the `128 x 64` atom, row `m` in
///   lane `m`, chunk `c` in column `c / 8`, bits `4 (c % 8)`.
pub fn sparse_metadata_cell(kind: Kind, m: usize, chunk: usize, selector: u32) -> (u32, u32, u32) {
    match kind {
        Kind::F16 | Kind::Tf32 => (
            (m % 8 + 16 * (m / 16) + 8 * (chunk / 4)) as u32,
            selector,
            (4 * (chunk % 4) + 16 * ((m / 8) % 2)) as u32,
        ),
        _ => (m as u32, (chunk / 8) as u32, 4 * (chunk % 8) as u32),
    }
}

/// The dense columns (`0 .. 2 stored`) of the `stored` elements of one row of a sparse A,
/// from the metadata nibble of each chunk (`nibble(c)`) (9.7.16.10.8.1-2): `.kind::tf32` is
/// 1:2, "the 4-bit index in the metadata indicates the position of the non-zero element in
/// the two-wide chunk. The only meaningful values of the index are: 0b1110, 0b0100" (the low
/// two bits, 2 or 0, name the column); the others 2:4, "the two 2-bit indices in the
/// metadata indicates the position of the two non-zero elements in the four-wide chunk",
/// the first stored element's in the low two bits. "Rest of the values result in undefined
/// behavior": ptxsim reports them.
pub fn sparse_columns(
    kind: Kind,
    stored: usize,
    mut nibble: impl FnMut(usize) -> Result<u32, String>,
) -> Result<Vec<usize>, String> {
    let tf32 = kind == Kind::Tf32;
    let per_chunk = if tf32 { 1 } else { 2 };
    let mut columns = Vec::with_capacity(stored);
    for chunk in 0..stored / per_chunk {
        let bits = nibble(chunk)?;
        let meaningful: &[u32] = if tf32 {
            &[0b1110, 0b0100]
        } else {
            &[0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110]
        };
        if !meaningful.contains(&bits) {
            return Err(format!(
                "the sparsity metadata of chunk {chunk} is {bits:#06b}, which the PTX ISA \
                 leaves undefined (meaningful: {})",
                meaningful
                    .iter()
                    .map(|v| format!("{v:#06b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if tf32 {
            columns.push(2 * chunk + (bits & 3) as usize / 2);
        } else {
            columns.push(4 * chunk + (bits & 3) as usize);
            columns.push(4 * chunk + (bits >> 2 & 3) as usize);
        }
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::mma::dot_fp4_scaled;

    #[test]
    fn the_descriptor_fields_are_table_42s() {
        // .kind::f16, D f32 (bit 4), A and B bf16 (bits 7, 10), B transposed (bit 16),
        // N = 64 (8 << 17), M = 128 (8 << 24).
        let bits = 1 << 4 | 1 << 7 | 1 << 10 | 1 << 16 | 8 << 17 | 8 << 24;
        let desc = InstrDescriptor::decode(Kind::F16, bits, Form::One).unwrap();
        assert_eq!((desc.m, desc.n), (128, 64));
        assert_eq!(
            (desc.d, desc.a, desc.b),
            (MmaType::F32, MmaType::Bf16, MmaType::Bf16)
        );
        assert!(desc.transpose_b && !desc.transpose_a);
        // Sparsity (bit 2) with its selector (bits 0-1); sparse over a pair is refused, as is
        // a selector other than 0 for .kind::i8; M = 32 and N = 8 with M = 128 are refused.
        let sparse = InstrDescriptor::decode(Kind::F16, bits | 1 << 2 | 3, Form::One).unwrap();
        assert_eq!(sparse.sparse, Some(3));
        assert!(InstrDescriptor::decode(Kind::F16, bits | 1 << 2, Form::Pair).is_err());
        let i8_bits = 2 << 4 | 1 << 7 | 1 << 10 | 8 << 17 | 8 << 24 | 1 << 2;
        assert!(InstrDescriptor::decode(Kind::I8, i8_bits, Form::One).is_ok());
        assert!(InstrDescriptor::decode(Kind::I8, i8_bits | 1, Form::One).is_err());
        assert!(
            InstrDescriptor::decode(Kind::F16, bits & !(8 << 24) | 2 << 24, Form::One).is_err()
        );
        assert!(
            InstrDescriptor::decode(Kind::F16, bits & !(8 << 17) | 1 << 17, Form::One).is_err()
        );
        let m64 =
            InstrDescriptor::decode(Kind::F16, bits & !(8 << 24) | 4 << 24, Form::One).unwrap();
        assert_eq!(
            (m64.m, m64.lane(15), m64.lane(16), m64.lane(63)),
            (64, 15, 32, 111)
        );
        // dtype 0 is an .f16 D, for .f16 A and B only.
        assert!(InstrDescriptor::decode(Kind::F16, bits & !(1 << 4), Form::One).is_err());
        let f16 = bits & !(1 << 4 | 1 << 7 | 1 << 10);
        let f16 = InstrDescriptor::decode(Kind::F16, f16, Form::One).unwrap();
        assert_eq!(f16.d, MmaType::F16);
        // .cta_group::2: M = 256 (16 << 24) and 128 over the pair; M = 64 is refused. A
        // pair's M = 128 keeps columns N/2.. of a CTA's row m in lane 64 + m, from column 0
        // (CUTLASS's "2x2" atom `(64,(N/2,2)):(1,(128,64))`).
        let m256 = bits & !(8 << 24) | 16 << 24;
        let pair = InstrDescriptor::decode(Kind::F16, m256, Form::Pair).unwrap();
        assert_eq!(
            (pair.m, pair.rows_per_cta(), pair.columns_per_cta()),
            (256, 128, 32)
        );
        assert_eq!((pair.place(127, 63), pair.lane(127)), ((127, 63), 127));
        assert!(InstrDescriptor::decode(Kind::F16, m256, Form::One).is_err());
        let pair = InstrDescriptor::decode(Kind::F16, bits, Form::Pair).unwrap();
        assert_eq!(
            (pair.rows_per_cta(), pair.place(5, 31), pair.place(5, 32)),
            (64, (5, 31), (69, 0))
        );
        assert!(
            InstrDescriptor::decode(Kind::F16, bits & !(8 << 24) | 4 << 24, Form::Pair).is_err()
        );
        // .kind::tf32 needs atype 2.
        let tf32 = 1 << 4 | 2 << 7 | 2 << 10 | 2 << 17 | 8 << 24;
        assert_eq!(
            InstrDescriptor::decode(Kind::Tf32, tf32, Form::One)
                .unwrap()
                .a,
            MmaType::Tf32
        );
        assert!(InstrDescriptor::decode(Kind::Tf32, bits, Form::One).is_err());
        // .kind::mxf8f6f4: E5M2 A (bit 7), the UE8M0 scale type (bit 23), scale-factor ids 2
        // for A (bits 29-30) and 1 for B (bits 4-5); without bit 23 it is refused.
        let scaled = 1 << 7 | 4 << 17 | 1 << 23 | 8 << 24 | 2 << 29 | 1 << 4;
        let desc = InstrDescriptor::decode(Kind::Mxf8f6f4, scaled, Form::One).unwrap();
        assert_eq!((desc.a, desc.b), (MmaType::E5m2, MmaType::E4m3));
        assert_eq!(desc.scale_ids, Some((2, 1)));
        assert!(InstrDescriptor::decode(Kind::Mxf8f6f4, scaled & !(1 << 23), Form::One).is_err());
        // .ws: M = 32 (2 << 24) with N = 64 (8 << 17) puts the columns' quarters in the lane
        // quarters (CUTLASS's "1x4" atom); N = 32 is refused.
        let ws = 1 << 4 | 8 << 17 | 2 << 24;
        let desc = InstrDescriptor::decode(Kind::F16, ws, Form::WeightStationary).unwrap();
        assert_eq!(
            (desc.place(3, 15), desc.place(3, 16), desc.place(3, 63)),
            ((3, 15), (35, 0), (99, 15))
        );
        assert!(
            InstrDescriptor::decode(Kind::F16, ws & !(8 << 17) | 4 << 17, Form::WeightStationary)
                .is_err()
        );
        assert!(InstrDescriptor::decode(Kind::F16, ws, Form::One).is_err());
        // Not over a CTA pair yet.
        assert!(InstrDescriptor::decode(Kind::Mxf8f6f4, scaled, Form::Pair).is_err());
    }

    /// MMA-Sim's block-scaled FP4 step (`nv_fused_dot_add_with_block_scale`, 35 fraction bits
    /// below the largest of the groups' factor exponents and `c`'s), worked by hand where it
    /// differs from the exact sum.
    #[test]
    fn ld_red_reduces_by_min_and_maxs_rules() {
        use ptxsim_isa::Type;
        let f32 =
            |max, abs, nan, values: &[u32]| load_reduction((max, Type::F32, abs, nan), values);
        let (nan, neg_zero, two, minus_three) =
            (0x7fc0_0000, 0x8000_0000, 0x4000_0000, 0xc040_0000);
        // min/max pass a NaN over (9.7.3.11-12: "if (isNaN(x)) z = y"); -0.0 < +0.0.
        assert_eq!(f32(true, false, false, &[nan, minus_three, two]), two);
        assert_eq!(f32(false, false, false, &[0, nan, neg_zero]), neg_zero);
        assert_eq!(f32(true, false, false, &[nan, nan]), 0x7fff_ffff);
        // .NaN: "the result is canonical NaN if any of the inputs is NaN".
        assert_eq!(f32(false, false, true, &[two, nan]), 0x7fff_ffff);
        // .abs: the absolute values, |-3| = 3 the largest.
        assert_eq!(f32(true, true, false, &[two, minus_three]), 0x4040_0000);
        let integer = |max, ty, values: &[u32]| load_reduction((max, ty, false, false), values);
        let values = [5, 0xffff_fff0, 7];
        assert_eq!(integer(true, Type::U32, &values), 0xffff_fff0);
        assert_eq!(integer(true, Type::S32, &values), 7);
        assert_eq!(integer(false, Type::S32, &values), 0xffff_fff0);
        assert_eq!(integer(false, Type::U32, &values), 5);
    }

    #[test]
    fn an_f16_d_rounds_to_nearest_even_as_mma_sim() {
        // MMA-Sim's `tcgen05mma` with an f16 D: `nv_fused_dot_add(..., output_type="f16")`
        // sums exactly here (2^11 + 3, far inside 25 fraction bits) and rounds the sum to 10
        // fraction bits with Python's `round` (to nearest, ties to even): 2051 lies halfway
        // between 2050 and 2052, and goes to 2052 (fraction 0b10, even); toward zero would
        // give 2050. dtype F16 (bits 4-5 clear), A and B F16, N = 16, M = 128.
        let desc = InstrDescriptor::decode(Kind::F16, 2 << 17 | 8 << 24, Form::One).unwrap();
        assert_eq!(desc.d, MmaType::F16);
        let (a, b) = ([0x6800, 0x4200], [0x3c00, 0x3c00]);
        let d = dot(TensorCores::Blackwell, &desc, &a, &b, 0);
        assert_eq!(d, 0x6802, "2052 is 0x6802 in binary16");
        // With c = -4 (0xc400): 2047, exactly representable.
        assert_eq!(dot(TensorCores::Blackwell, &desc, &a, &b, 0xc400), 0x67ff);
    }

    #[test]
    fn the_fp4_block_scaled_step_is_mma_sims() {
        // .e2m1 containers (bits 2-5): 1.0 = 0b0010, -1.0 = 0b1010, 0.5 = 0b0001.
        let (one, minus_one, half) = (0b0010 << 2, 0b1010 << 2, 0b0001 << 2);
        let mut a = vec![0u64; 64];
        let mut b = vec![0u64; 64];
        // Group 0: -1 x 1 with factors 2^0; group 1: 1 x 1 with 2^-40 (.ue8m0 87) x 2^0.
        (a[0], b[0], a[16], b[16]) = (minus_one, one, one, one);
        let c = 1f32.to_bits() as u64;
        let ones = [127, 127, 127, 127];
        // The exact sum is 2^-40; MMA-Sim aligns to 2^0 (group 0's and c's exponent) and keeps
        // 2^-35 and up, so group 1 is cut to 0 and D = +0.
        let d = dot_fp4_scaled(&a, &b, c, (&[127, 87, 127, 127], &ones), false);
        assert_eq!(d, 0);
        // At 2^-30 group 1 survives: D = 2^-30 exactly.
        let d = dot_fp4_scaled(&a, &b, c, (&[127, 97, 127, 127], &ones), false);
        assert_eq!(d, (2f32.powi(-30)).to_bits() as u64);
        // A group whose products are all zero still sets the alignment with its factors'
        // exponent: group 2's 2^10 moves the cut to 2^-25 and 2^-30 is lost.
        let d = dot_fp4_scaled(&a, &b, c, (&[127, 97, 137, 127], &ones), false);
        assert_eq!(d, 0);
        // With c = 0 (exponent -126 in MMA-Sim) products far below 2^-126 are cut as well:
        // one group of 0.5 x 0.5 with factors 2^-100 x 2^-100 is 2^-202, below 2^-161.
        let (mut a, mut b) = (vec![0u64; 64], vec![0u64; 64]);
        (a[0], b[0]) = (half, half);
        let d = dot_fp4_scaled(
            &a,
            &b,
            0,
            (&[27, 127, 127, 127], &[27, 127, 127, 127]),
            false,
        );
        assert_eq!(d, 0);
        // .ue4m3 factors multiply the group's sum by their significands: 1.5 (0x3c) x 1.25
        // (0x3a) x (1 x 1) = 1.875; their sign bit is ignored; 0x7f is NaN.
        let (mut a, mut b) = (vec![0u64; 64], vec![0u64; 64]);
        (a[0], b[0]) = (one, one);
        let factors = ([0x3c, 0x38, 0x38, 0x38], [0xba, 0x38, 0x38, 0x38]);
        let d = dot_fp4_scaled(&a, &b, 0, (&factors.0, &factors.1), true);
        assert_eq!(d, 1.875f32.to_bits() as u64);
        let d = dot_fp4_scaled(&a, &b, 0, (&[0x7f, 0x38, 0x38, 0x38], &factors.1), true);
        assert_eq!(d, 0x7fff_ffff);
        // A .ue4m3 subnormal: 0x04 is 4/8 x 2^-6 = 2^-7.
        let d = dot_fp4_scaled(&a, &b, 0, (&[0x04, 0x38, 0x38, 0x38], &[0x38; 4]), true);
        assert_eq!(d, (2f32.powi(-7)).to_bits() as u64);
    }

    #[test]
    fn sub_byte_elements_come_out_of_their_units_in_containers() {
        // .b4x16_p64: element k in bits 4k..; as a container, bits 2-5.
        let unit = 0x0000_0000_0000_0000_fedc_ba98_7654_3210u128;
        assert_eq!(SubByte::Padded(4).extract(unit, 0), 0);
        assert_eq!(SubByte::Padded(4).extract(unit, 17), 1 << 2);
        assert_eq!(SubByte::Padded(4).extract(unit, 15), 0xf << 2);
        // .b6x16_p32: element k in bits 6k..6k+5.
        let unit = 0b101010u128 << 6 | 0b010101;
        assert_eq!(SubByte::Padded(6).extract(unit, 0), 0b010101);
        assert_eq!(SubByte::Padded(6).extract(unit, 1), 0b101010);
        // Packed: 32 to a unit, the lower k in the low nibble.
        assert_eq!(SubByte::Packed.extract(0xa5u128 << 120, 31), 0xa << 2);
        assert_eq!(SubByte::Packed.extract(0xa5u128 << 120, 30), 0x5 << 2);
        // FP6 and FP4 negate at bit 5 of the container.
        assert_eq!(negate(0b0010 << 2, MmaType::E2m1), 0b1010 << 2);
        assert_eq!(negate(0b001000, MmaType::E2m3), 0b101000);
    }

    #[test]
    fn block_scaled_descriptors_of_fp4_and_fp6() {
        // .kind::mxf4nvf4: E2M1 = 1 at bits 7 and 10, UE4M3 (bit 23 clear), N = 32, M = 128.
        let bits = 1 << 7 | 1 << 10 | 4 << 17 | 8 << 24;
        let desc = InstrDescriptor::decode(Kind::Mxf4nvf4, bits, Form::One).unwrap();
        assert_eq!(
            (desc.a, desc.b, desc.scale_ue4m3),
            (MmaType::E2m1, MmaType::E2m1, true)
        );
        // .kind::mxf4 needs UE8M0; K = 96 (bit 31) and a transposed FP4 A are refused.
        assert!(InstrDescriptor::decode(Kind::Mxf4, bits, Form::One).is_err());
        assert!(InstrDescriptor::decode(Kind::Mxf4, bits | 1 << 23, Form::One).is_ok());
        assert!(InstrDescriptor::decode(Kind::Mxf4nvf4, bits | 1 << 31, Form::One).is_err());
        assert!(InstrDescriptor::decode(Kind::Mxf4nvf4, bits | 1 << 15, Form::One).is_err());
        // .kind::f8f6f4: E2M3 = 3, E3M2 = 4, E2M1 = 5 (Table 42); 2 is no type.
        let f8 = |a: u32, b: u32| 1 << 4 | a << 7 | b << 10 | 4 << 17 | 8 << 24;
        let desc = InstrDescriptor::decode(Kind::F8f6f4, f8(3, 4), Form::One).unwrap();
        assert_eq!((desc.a, desc.b), (MmaType::E2m3, MmaType::E3m2));
        let desc = InstrDescriptor::decode(Kind::Mxf8f6f4, f8(5, 0) | 1 << 23, Form::One).unwrap();
        assert_eq!((desc.a, desc.b), (MmaType::E2m1, MmaType::E4m3));
        assert!(InstrDescriptor::decode(Kind::F8f6f4, f8(2, 0), Form::One).is_err());
    }
}
