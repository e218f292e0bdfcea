//! `mma.sync.aligned` arithmetic (PTX ISA 9.7.14.5.14) as the tensor cores of each modelled
//! GPU generation do it ([`TensorCores`]), and the fragment layouts that place matrix elements
//! in the lanes' registers (9.7.14.5.x, "Matrix Fragments for mma.m16n8k*"; 9.7.14.5.1 for the
//! quad-pair `m8n8k4` `.f16` form).
//!
//! The generations differ only in the floating-point forms but `.f64` ([`dot_float_on`]): the
//! alignment width ([`TensorCores::fraction_bits`]: 24 on Ampere and Ada Lovelace, 25 from
//! Hopper on), the split-k grouping of Ampere and Ada Lovelace ([`TensorCores::splits_k`]) and
//! the FP8 path (Ada Lovelace's 13-bit accumulator, RTX Blackwell's fused one, ptxas's
//! two-step lowering on Hopper and Blackwell), as MMA-Sim describes them; the integer forms,
//! `.f64` (`DMMA` on every generation, ptxas 13) and the quad-pair `m8n8k4` `.f16` (emulated
//! with `FFMA` by ptxas 13 for sm_80, sm_86, sm_89, sm_90, sm_100a and sm_120a alike) are the
//! same everywhere. The rest of this comment is the Hopper model, which the others vary:
//!
//! The floating-point model follows the findings of MMA-Sim (Microsoft, "MMA-Sim: Bit-Accurate
//! Reference Model of Tensor Cores and Matrix Cores", arXiv 2511.10909,
//! <https://github.com/microsoft/MMA-Sim>), re-implemented here on integers and fitted to the
//! H200 measurements of `tests/hardware/mma` (`crates/exec/tests/suite/mma.rs` lists the tiles that
//! match):
//!
//! * every product `a*b` is exact; each addend (products and `c`) is a significand with the
//!   exponent of its operands' exponent fields (a subnormal keeps the minimum exponent);
//! * the addends are aligned to the largest exponent among the non-zero ones and truncated
//!   (toward zero) to [`FRACTION_BITS`] fraction bits below it, but never below
//!   `2^`[`LOWEST_BIT`] (fitted to the golden tiles, not in MMA-Sim), then summed exactly;
//! * the sum is rounded once to the destination: toward zero for `.f32`, to nearest even for
//!   `.f16`; overflow gives an infinity, a result that rounds to zero is `+0`, an exact zero sum
//!   is `+0`;
//! * a NaN operand, `inf * 0` or `inf - inf` gives the canonical NaN (`0x7fffffff`, `0x7fff`);
//!   an infinite product or `c` otherwise gives that infinity.
//!
//! The FP8 forms are two chained f16 operations of half the depth plus an add of `c`, as ptxas
//! lowers them for sm_90 ([`dot_fp8`]; not MMA-Sim's Hopper model, which fuses `c`).
//!
//! `.s8`/`.u8` and `.s4`/`.u4` products are summed exactly in 32-bit two's complement
//! (wrapping), or clamped to the `.s32` range with `.satfinite`; the single-bit `.b1` forms add
//! the population count of `a AND b` or `a XOR b` to `c` ([`dot_single_bit`]). `.f64` is a chain of fused multiply-adds in `k` order
//! (MMA-Sim's model), with the NaN propagation the H200 shows ([`dot_f64`]).
//!
//! The quad-pair `m8n8k4` with `.f16` operands (Volta's form) has no tensor-core instruction on
//! sm_90: ptxas emulates it with f32 `FFMA`/`FADD` chains, and so does ptxsim (`quad_pair`).

use ptxsim_isa::mma::{BitOp, MmaForm, MmaType};

pub use super::tensor_cores::TensorCores;

/// Fraction bits of the sm_90 accumulator (MMA-Sim: 25 on Hopper).
pub const FRACTION_BITS: i32 = 25;

/// The lowest bit the sm_90 accumulator keeps: an addend is truncated (toward zero) at
/// `2^max(emax - FRACTION_BITS, LOWEST_BIT)`, so when every addend is far below the smallest
/// normal `.f32` (largest exponent below -133) the bits under `2^-158` are dropped too. Not in
/// MMA-Sim; fitted to `tests/hardware/mma/mma-golden.bin.xz`: in tile 269 of
/// `m16n8k8.row.col.f32.tf32.tf32.f32` (class `subnormal`; lane 6, element 3, `c = +0`) eight
/// products of magnitude 2^-143..2^-148 sum exactly to 154.9986 units of 2^-149 and the H200
/// gives 155 units (`0x9b`), which truncating at `2^-168` (the window of `FRACTION_BITS`
/// alone) cannot give; dropping the bits under `2^-158` gives exactly 155. Of the floors from
/// `2^-150` to `2^-180`, only `2^-156` and `2^-158` keep every tile of every form matching
/// (`2^-157` breaks one `.bf16` k8 tile, `2^-155` two, higher floors more `.bf16` and `.tf32`
/// tiles; `2^-159` and below leave tile 269), so the data could not tell those two apart. A
/// targeted H100 measurement settles it (`scripts/hardware/wmma/wmma2.cu`, the `lowest-bit`
/// tiles of `tests/hardware/wmma/wmma2.txt.xz`, `HMMA.16816.F32.BF16` and
/// `HMMA.1684.F32.TF32`): `2^-134` plus one negative product `-(1 + i/16) 2^-(152 + j)` for
/// 16 x 16 (i, j); of the floors `2^-150` .. `2^-171` only `2^-158` gives all 256 elements of
/// both (`2^-157` and `2^-159`: 240). The floor binds only for `.bf16`/`.tf32` operands with an
/// `.f32` accumulator: `.f16` and FP8 products are never that small.
pub const LOWEST_BIT: i32 = -158;

/// A decoded finite element: `(-1)^sign * significand * 2^(exponent - fraction_bits)`.
#[derive(Clone, Copy)]
pub(crate) struct Finite {
    pub(crate) sign: bool,
    pub(crate) significand: u64,
    pub(crate) exponent: i32,
    pub(crate) fraction_bits: i32,
}

#[derive(Clone, Copy)]
pub(crate) enum Value {
    Nan,
    Infinity(bool),
    Finite(Finite),
}

/// A row of A or a column of B for one element of D: the registers' elements with their type,
/// or their values decoded once ([`decode`]) for all the elements of D that read them.
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    Bits(&'a [u64], MmaType),
    Decoded(&'a [Value]),
    /// Decoded, none of them a NaN or an infinity.
    Finite(&'a [Finite]),
}

/// A row of A or a column of B decoded once ([`Operand::Decoded`], [`Operand::Finite`]).
enum DecodedRow {
    Values(Vec<Value>),
    Finite(Vec<Finite>),
}

impl DecodedRow {
    fn new(bits: &[u64], ty: MmaType) -> Self {
        let mut finite = Vec::with_capacity(bits.len());
        for &element in bits {
            match decode(element, ty) {
                Value::Finite(value) => finite.push(value),
                _ => {
                    return DecodedRow::Values(
                        bits.iter().map(|&element| decode(element, ty)).collect(),
                    );
                }
            }
        }
        DecodedRow::Finite(finite)
    }

    fn operand(&self) -> Operand<'_> {
        match self {
            DecodedRow::Values(values) => Operand::Decoded(values),
            DecodedRow::Finite(finite) => Operand::Finite(finite),
        }
    }
}

impl<'a> Operand<'a> {
    #[inline]
    fn len(self) -> usize {
        match self {
            Operand::Bits(bits, _) => bits.len(),
            Operand::Decoded(values) => values.len(),
            Operand::Finite(values) => values.len(),
        }
    }

    #[inline(always)]
    fn get(self, index: usize) -> Value {
        match self {
            Operand::Bits(bits, ty) => decode(bits[index], ty),
            Operand::Decoded(values) => values[index],
            Operand::Finite(values) => Value::Finite(values[index]),
        }
    }

    /// The first `half` elements and the rest.
    fn split(self, half: usize) -> (Self, Self) {
        match self {
            Operand::Bits(bits, ty) => (
                Operand::Bits(&bits[..half], ty),
                Operand::Bits(&bits[half..], ty),
            ),
            Operand::Decoded(values) => (
                Operand::Decoded(&values[..half]),
                Operand::Decoded(&values[half..]),
            ),
            Operand::Finite(values) => (
                Operand::Finite(&values[..half]),
                Operand::Finite(&values[half..]),
            ),
        }
    }
}

/// (exponent bits, fraction bits, has infinities, width of the value).
fn format(ty: MmaType) -> (u32, u32, bool, u32) {
    match ty {
        MmaType::E3m2 => (3, 2, false, 6),
        MmaType::E2m3 => (2, 3, false, 6),
        MmaType::E2m1 => (2, 1, false, 4),
        MmaType::F16 => (5, 10, true, 16),
        MmaType::Bf16 => (8, 7, true, 16),
        MmaType::Tf32 => (8, 10, true, 32),
        MmaType::E4m3 => (4, 3, false, 8),
        MmaType::E5m2 => (5, 2, true, 8),
        MmaType::F32 => (8, 23, true, 32),
        MmaType::F64 => (11, 52, true, 64),
        MmaType::S8 | MmaType::U8 | MmaType::S4 | MmaType::U4 | MmaType::B1 | MmaType::S32 => {
            (0, 0, false, 32)
        }
    }
}

pub(crate) fn decode(bits: u64, ty: MmaType) -> Value {
    let (ebits, mbits, ieee, width) = format(ty);
    // `.tf32` uses the top 19 bits of its `.f32` register (the low 13 are ignored); in the
    // 8-bit containers of `.kind::f8f6f4`, "the matrix element of type .e2m1 resides in central
    // 4 bits", ".e3m2 or .e2m3 ... in the lower 6 bits" (9.7.14.5.14).
    let (bits, width) = match ty {
        MmaType::Tf32 => (bits >> 13, 19),
        MmaType::E2m1 => ((bits >> 2) & 0xf, width),
        MmaType::E3m2 | MmaType::E2m3 => (bits & 0x3f, width),
        _ => (bits, width),
    };
    let sign = (bits >> (width - 1)) & 1 == 1;
    let field = (bits >> mbits) & ((1 << ebits) - 1);
    let fraction = bits & ((1 << mbits) - 1);
    let bias = (1i32 << (ebits - 1)) - 1;
    let all_ones = (1 << ebits) - 1;
    if field == all_ones {
        if ieee {
            return if fraction != 0 {
                Value::Nan
            } else {
                Value::Infinity(sign)
            };
        }
        if ty == MmaType::E4m3 && fraction == (1 << mbits) - 1 {
            return Value::Nan; // e4m3: S.1111.111 (FP6 and FP4 have no NaN)
        }
    }
    let (significand, exponent) = if field == 0 {
        (fraction, 1 - bias)
    } else {
        (fraction | 1 << mbits, field as i32 - bias)
    };
    Value::Finite(Finite {
        sign,
        significand,
        exponent,
        fraction_bits: mbits as i32,
    })
}

/// Rounds `(-1)^sign * magnitude * 2^lsb` to `ty` (`.f32` toward zero, `.f16` to nearest even).
pub(crate) fn round(sign: bool, magnitude: u128, lsb: i32, ty: MmaType) -> u64 {
    let (ebits, mbits, _, width) = format(ty);
    let (mbits, width) = (mbits as i32, width as i32);
    let bias = (1i32 << (ebits - 1)) - 1;
    let sign_bit = u64::from(sign) << (width - 1);
    if magnitude == 0 {
        return 0;
    }
    let leading = 127 - magnitude.leading_zeros() as i32 + lsb;
    let mut exponent = leading.max(1 - bias);
    let shift = exponent - mbits - lsb;
    let mut q = if shift > 127 {
        // Far below the smallest subnormal (tiny products and a zero accumulator): the
        // magnitude is below half of the smallest step, so the result is zero either way.
        0
    } else if shift > 0 {
        let q = magnitude >> shift;
        let rest = magnitude - (q << shift);
        let half = 1u128 << (shift - 1);
        if ty == MmaType::F16 && (rest > half || (rest == half && q & 1 == 1)) {
            q + 1
        } else {
            q
        }
    } else {
        magnitude << -shift
    };
    if q >> (mbits + 1) != 0 {
        q >>= 1;
        exponent += 1;
    }
    if q == 0 {
        return 0;
    }
    if exponent > bias {
        return sign_bit | (((1u64 << ebits) - 1) << mbits);
    }
    let field = if q >> mbits != 0 { exponent + bias } else { 0 } as u64;
    sign_bit | field << mbits | (q as u64 & ((1 << mbits) - 1))
}

thread_local! {
    /// [`fused`]'s addends.
    static TERMS: std::cell::RefCell<Vec<Finite>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The addends of `c + sum(a[i] * b[i])` (`c` of type `c_type`): every product exact and `c`, as [`Finite`] terms without the zeros, into `terms` (cleared first). A NaN operand, `inf * 0` or `inf - inf` is
/// `Err(None)` (the canonical NaN); otherwise an infinite product or `c` is `Err(Some(sign))`.
fn addends(
    a: Operand<'_>,
    b: Operand<'_>,
    (c, c_type): (u64, MmaType),
    terms: &mut Vec<Finite>,
) -> Result<(), Option<bool>> {
    terms.clear();
    let (mut nan_seen, mut positive_infinity, mut negative_infinity) = (false, false, false);
    let mut infinity = |sign: bool| {
        if sign {
            negative_infinity = true;
        } else {
            positive_infinity = true;
        }
    };
    let product = |x: &Finite, y: &Finite| Finite {
        sign: x.sign ^ y.sign,
        significand: x.significand * y.significand,
        exponent: x.exponent + y.exponent,
        fraction_bits: x.fraction_bits + y.fraction_bits,
    };
    if let (Operand::Finite(a), Operand::Finite(b)) = (a, b) {
        // No NaN or infinity among the products (the common case, and the fast one).
        terms.extend(a.iter().zip(b).map(|(x, y)| product(x, y)));
    } else {
        for index in 0..a.len().min(b.len()) {
            match (a.get(index), b.get(index)) {
                (Value::Nan, _) | (_, Value::Nan) => nan_seen = true,
                (Value::Infinity(s), Value::Finite(f)) | (Value::Finite(f), Value::Infinity(s)) => {
                    if f.significand == 0 {
                        nan_seen = true;
                    } else {
                        infinity(s ^ f.sign);
                    }
                }
                (Value::Infinity(s), Value::Infinity(t)) => infinity(s ^ t),
                (Value::Finite(x), Value::Finite(y)) => terms.push(product(&x, &y)),
            }
        }
    }
    match decode(c, c_type) {
        Value::Nan => nan_seen = true,
        Value::Infinity(s) => infinity(s),
        Value::Finite(f) => terms.push(f),
    }
    if nan_seen || (positive_infinity && negative_infinity) {
        return Err(None);
    }
    if positive_infinity || negative_infinity {
        return Err(Some(negative_infinity));
    }
    terms.retain(|t| t.significand != 0);
    Ok(())
}

/// The exact sum of `terms`, each aligned to units of `2^lsb` and truncated toward zero there.
pub(crate) fn aligned_sum(terms: &[Finite], lsb: i32) -> i128 {
    let mut sum: i128 = 0;
    for t in terms {
        let shift = t.exponent - t.fraction_bits - lsb;
        let aligned = if shift >= 0 {
            i128::from(t.significand) << shift
        } else if -shift >= 64 {
            0
        } else {
            i128::from(t.significand >> -shift)
        };
        sum += if t.sign { -aligned } else { aligned };
    }
    sum
}

/// One element of D for the floating-point forms but `.f64` on Hopper: `c + sum(a[i] * b[i])`
/// with [`FRACTION_BITS`] ([`fused`]).
pub fn dot_float(form: &MmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    fused(
        (form.a, form.b, form.c),
        form.d,
        a,
        b,
        c,
        FRACTION_BITS,
        false,
    )
}

/// `c + sum(a[i] * b[i])` as one fused tensor-core step (MMA-Sim's `nv_fused_dot_add`):
/// `types` = (A's, B's, C's); the addends aligned to the largest exponent and truncated to
/// `fraction_bits` below it (never below `2^`[`LOWEST_BIT`]), summed exactly and rounded once to
/// `d` (toward zero to `.f32`, to nearest even to `.f16`). With `e8m13`, an `.f32` sum is first
/// cut (toward zero) to 13 fraction bits below its own leading bit (MMA-Sim's `f32_e8m13`
/// output of the FP8 path). Specials as in the module docs.
pub(crate) fn fused(
    types: (MmaType, MmaType, MmaType),
    d: MmaType,
    a: &[u64],
    b: &[u64],
    c: u64,
    fraction_bits: i32,
    e8m13: bool,
) -> u64 {
    fused_operands(
        Operand::Bits(a, types.0),
        Operand::Bits(b, types.1),
        (c, types.2),
        d,
        fraction_bits,
        e8m13,
    )
}

/// [`fused`] of two [`Operand`]s and `c` of its type.
fn fused_operands(
    a: Operand<'_>,
    b: Operand<'_>,
    c: (u64, MmaType),
    d: MmaType,
    fraction_bits: i32,
    e8m13: bool,
) -> u64 {
    let (ebits, mbits, _, width) = format(d);
    let nan = if d == MmaType::F32 {
        0x7fff_ffff
    } else {
        0x7fff
    };
    // The addends go into a buffer kept per host thread: one `fused` step is one element of
    // D, and a tensor-core instruction has hundreds of them.
    let sum = TERMS.with_borrow_mut(|terms| -> Result<_, Option<bool>> {
        addends(a, b, c, terms)?;
        let Some(emax) = terms.iter().map(|t| t.exponent).max() else {
            return Ok(None);
        };
        let lsb = (emax - fraction_bits).max(LOWEST_BIT);
        Ok(Some((aligned_sum(terms, lsb), lsb)))
    });
    let (sum, mut lsb) = match sum {
        Ok(Some(sum)) => sum,
        Ok(None) => return 0,
        Err(None) => return nan,
        Err(Some(negative)) => {
            return u64::from(negative) << (width - 1) | ((1u64 << ebits) - 1) << mbits;
        }
    };
    let mut magnitude = sum.unsigned_abs();
    if e8m13 && d == MmaType::F32 {
        let significant = 128 - magnitude.leading_zeros() as i32;
        let excess = significant - 14;
        if excess > 0 {
            magnitude >>= excess;
            lsb += excess;
        }
    }
    round(sum < 0, magnitude, lsb, d)
}

/// One element of D for the floating-point forms but `.f64` on `cores`: one [`fused`] step of
/// the generation's width, or two of half the depth where it splits `k`
/// ([`TensorCores::splits_k`]): the first from `c`, rounded to D's type, accumulated by the
/// second (MMA-Sim's `mma.__call__`). FP8 on Hopper and Blackwell is [`dot_fp8`] (ptxas's
/// lowering); on Ada Lovelace it keeps 13 fraction bits and an `.f32` D is cut to 13
/// ([`fused`]'s `e8m13`); on RTX Blackwell it is fused like the other types.
pub fn dot_float_on(cores: TensorCores, form: &MmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    if fp8_lowered(cores, form) {
        return dot_fp8(form, a, b, c);
    }
    dot_float_operands(
        cores,
        form,
        Operand::Bits(a, form.a),
        Operand::Bits(b, form.b),
        c,
    )
}

/// Whether `form`'s FP8 (or FP6/FP4) products on `cores` take ptxas's two-step lowering
/// ([`dot_fp8`]) rather than one [`fused`] step.
fn fp8_lowered(cores: TensorCores, form: &MmaForm) -> bool {
    narrow_float(form) && matches!(cores, TensorCores::Hopper | TensorCores::Blackwell)
}

/// Whether A or B is FP8, FP6 or FP4.
fn narrow_float(form: &MmaForm) -> bool {
    [form.a, form.b]
        .iter()
        .any(|t| t.is_fp8() || t.is_fp6_or_fp4())
}

/// [`dot_float_on`] but for the FP8 lowering, on [`Operand`]s.
fn dot_float_operands(
    cores: TensorCores,
    form: &MmaForm,
    a: Operand<'_>,
    b: Operand<'_>,
    c: u64,
) -> u64 {
    let (bits, e8m13) = if narrow_float(form) && cores == TensorCores::Ada {
        (ADA_FP8_FRACTION_BITS, true)
    } else {
        (cores.fraction_bits(), false)
    };
    if !cores.splits_k(form) {
        return fused_operands(a, b, (c, form.c), form.d, bits, e8m13);
    }
    let half = a.len() / 2;
    let (a_first, a_second) = a.split(half);
    let (b_first, b_second) = b.split(half);
    let first = fused_operands(a_first, b_first, (c, form.c), form.d, bits, e8m13);
    fused_operands(a_second, b_second, (first, form.d), form.d, bits, e8m13)
}

/// Fraction bits of Ada Lovelace's FP8 accumulator (MMA-Sim: 13, with an `f32_e8m13` output).
pub const ADA_FP8_FRACTION_BITS: i32 = 13;

/// One element of D for any form on `cores`: [`dot_integer`], [`dot_single_bit`], [`dot_f64`]
/// (the same on every generation) or [`dot_float_on`].
pub fn dot(cores: TensorCores, form: &MmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    match form.a {
        MmaType::S8 | MmaType::U8 | MmaType::S4 | MmaType::U4 => dot_integer(form, a, b, c),
        MmaType::B1 => dot_single_bit(form, a, b, c),
        MmaType::F64 => dot_f64(a, b, c, form.rounding),
        _ => dot_float_on(cores, form, a, b, c),
    }
}

/// One element of D for `.s8`/`.u8` and `.s4`/`.u4`: the exact sum, wrapped or (`.satfinite`)
/// clamped to s32 (9.7.14.5.14, "Integer operations": "The .satfinite qualifier indicates that
/// on overflow, the accumulated value is limited to the range MIN_INT32.. MAX_INT32 ... If
/// .satfinite is not specified, the accumulated value is wrapped instead").
pub fn dot_integer(form: &MmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    let element = |bits: u64, ty: MmaType| -> i64 {
        match ty {
            MmaType::S8 => i64::from(bits as u8 as i8),
            // Sign-extend the low four bits.
            MmaType::S4 => i64::from(((bits as u8) << 4) as i8 >> 4),
            MmaType::U4 => i64::from(bits as u8 & 0xf),
            _ => i64::from(bits as u8),
        }
    };
    let sum = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| element(x, form.a) * element(y, form.b))
        .sum::<i64>()
        + i64::from(c as u32 as i32);
    let result = if form.satfinite {
        sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        sum
    };
    u64::from(result as i32 as u32)
}

/// One element of D for the single-bit `.b1` forms (9.7.14.5.14): "mma.xor.popc and
/// mma.and.popc computes the XOR, AND respectively of a k-bit row of A with a k-bit column of
/// B, then counts the number of set bits in the result (popc). This result is added to the
/// corresponding element of C and written into D" (`.s32`, wrapping: the forms take no
/// `.satfinite`). `a` and `b` hold one bit per element.
pub fn dot_single_bit(form: &MmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    let count = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| match form.bit_op {
            Some(BitOp::And) => x & y & 1,
            _ => (x ^ y) & 1,
        })
        .sum::<u64>();
    u64::from((c as u32).wrapping_add(count as u32))
}

/// One element of D for the FP8 forms (`.e4m3`/`.e5m2`, sm_89+). sm_90 has no FP8 `mma.sync`:
/// ptxas 13 unpacks the operands to f16 (`F2FP.F16.E4M3.UNPACK_B`, exact) and runs two f16
/// tensor-core operations of half the depth (`HMMA.16816` for k32, `HMMA.1688` for k16; `.F32`
/// or `.F16` like D), the first from a zero accumulator, the second accumulating onto the
/// first, then adds `c` with `FADD` / `HADD2` (round to nearest even)
/// (`tests/hardware/mma/fp8-sass.txt`, `scripts/hardware/mma/fp8-sass.sh`). Each 32-bit
/// register holds four consecutive `k` of a row; the first operation takes the low two bytes of
/// every register (`k` with bit 1 clear), the second the high two.
pub fn dot_fp8(form: &MmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    use ptxsim_softfloat::{Flags, Rounding, Type, convert};
    let mut half_form = *form;
    half_form.c = form.d;
    let pick = |values: &[u64], high: bool| -> Vec<u64> {
        values
            .iter()
            .enumerate()
            .filter(|(k, _)| (k & 2 != 0) == high)
            .map(|(_, &v)| v)
            .collect()
    };
    let first = dot_float(&half_form, &pick(a, false), &pick(b, false), 0);
    let products = dot_float(&half_form, &pick(a, true), &pick(b, true), first);
    if form.d == MmaType::F32 {
        let sum = f32::from_bits(products as u32) + f32::from_bits(c as u32);
        return if sum.is_nan() {
            0x7fff_ffff
        } else {
            u64::from(sum.to_bits())
        };
    }
    // .f16: the exact sum of two f16 values fits an f64; one rounding to f16 (HADD2).
    let half = |h: u64| f64::from(f32::from_bits(ptxsim_softfloat::f16_to_f32(h as u16)));
    let sum = half(products) + half(c);
    if sum.is_nan() {
        return 0x7fff;
    }
    convert(
        sum.to_bits(),
        Type::F64,
        Type::F16,
        Rounding::Rn,
        Flags::default(),
        None,
    )
    .bits
}

/// The NaN the f64 tensor-core path gives for an invalid operation (`inf * 0`, `inf - inf`)
/// without a NaN operand: `0xfff8000000000000` (measured on the H200: every such element of
/// `tests/hardware/mma/mma-golden.bin.xz`).
const F64_MMA_INVALID_NAN: u64 = 0xfff8_0000_0000_0000;

/// One element of D for `.f64`: `fma` in `k` order starting from `c` (MMA-Sim's model), each
/// step rounded by `rounding` ("Precision of the element-wise multiplication and addition
/// operation is identical to that of .f64 precision fused multiply-add", with the `.rnd` of
/// the instruction, 9.7.14.4.1; `.rn` unless `.rz`/`.rm`/`.rp` is written). NaN operands
/// propagate quieted, the one of `b`, then the accumulator, then `a` winning (measured: of the
/// six orders only this one gives the GPU's payload and sign in every tile of the four `.f64`
/// shapes); an invalid operation gives [`F64_MMA_INVALID_NAN`].
pub fn dot_f64(a: &[u64], b: &[u64], c: u64, rounding: ptxsim_isa::Rounding) -> u64 {
    let is_nan = |v: u64| v & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000;
    let mut acc = c;
    for (&x, &y) in a.iter().zip(b) {
        if let Some(nan) = [y, acc, x].into_iter().find(|&v| is_nan(v)) {
            acc = nan | 0x0008_0000_0000_0000;
            continue;
        }
        let r = super::float::fma_f64(x, y, acc, rounding);
        acc = if is_nan(r) { F64_MMA_INVALID_NAN } else { r };
    }
    acc
}

/// Runs one `mma` for a warp on `cores`' arithmetic: `registers[operand][lane]` are the lanes' fragment registers of
/// a, b and c (64-bit values; 32-bit registers in the low half). Returns each lane's d
/// registers (`None` for a layout other than `.row.col` outside the quad-pair form, which the
/// ISA does not have).
pub fn mma(
    cores: TensorCores,
    form: &MmaForm,
    a: &[Vec<u64>],
    b: &[Vec<u64>],
    c: &[Vec<u64>],
) -> Option<Vec<Vec<u64>>> {
    mma_scaled(cores, form, a, b, c, None)
}

/// The block scale factors of one `mma ... .block_scale`: `vec` bytes for each row of A and
/// for each column of B.
pub type ScaleFactors = (Vec<Vec<u32>>, Vec<Vec<u32>>);

/// [`mma`] with the factors of `.block_scale` (9.7.14.3, "D = (A * scale_A) * (B * scale_B) +
/// C"), in MMA-Sim's `mma_block_scale` arithmetic (the same as `tcgen05.mma`'s block-scaled
/// kinds: [`dot_fp4_scaled`] for `.kind::mxf4*`, a 25-bit step with the
/// factors' exponents for `.kind::mxf8f6f4`). `None` also where a scaled `.kind::mxf8f6f4`
/// value would leave the normal `.f32` range (not modelled).
pub fn mma_scaled(
    cores: TensorCores,
    form: &MmaForm,
    a: &[Vec<u64>],
    b: &[Vec<u64>],
    c: &[Vec<u64>],
    scales: Option<&ScaleFactors>,
) -> Option<Vec<Vec<u64>>> {
    if form.is_quad_pair() {
        return Some(quad_pair(form, a, b, c));
    }
    if !form.a_row || !form.b_col {
        return None;
    }
    let (m, n, k) = (form.m as usize, form.n as usize, form.k as usize);
    let mut am = vec![vec![0u64; k]; m];
    let mut bm = vec![vec![0u64; n]; k];
    let mut cm = vec![vec![0u64; n]; m];
    // The packed `.e2m1` of `.kind::mxf4*`, 8 to a register, as 8-bit containers (bits 2-5).
    let operand = |registers: &[u64], ty: MmaType, index: usize| {
        if ty == MmaType::E2m1 && form.element_bits(ty) == 4 {
            (registers.get(index / 8).copied().unwrap_or(0) >> (4 * (index % 8)) & 0xf) << 2
        } else {
            element(registers, ty, index)
        }
    };
    for lane in 0..32 {
        for (index, row, col) in a_layout(form, lane) {
            am[row][col] = operand(&a[lane], form.a, index);
        }
        for (index, row, col) in b_layout(form, lane) {
            bm[row][col] = operand(&b[lane], form.b, index);
        }
        for (index, row, col) in c_layout(form, lane) {
            cm[row][col] = element(&c[lane], form.c, index);
        }
    }
    product(cores, form, &am, &bm, &cm, scales)
}

/// `D = A * B + C` from the whole matrices (element bits; `am` is m x k, `bm` k x n, `cm`
/// m x n), returned as each lane's d registers.
fn product(
    cores: TensorCores,
    form: &MmaForm,
    am: &[Vec<u64>],
    bm: &[Vec<u64>],
    cm: &[Vec<u64>],
    scales: Option<&ScaleFactors>,
) -> Option<Vec<Vec<u64>>> {
    let (n, k) = (form.n as usize, form.k as usize);
    // B by columns, so that each element of D reads its column as one slice.
    let b_columns: Vec<Vec<u64>> = (0..n)
        .map(|col| (0..k).map(|i| bm[i][col]).collect())
        .collect();
    // The floating-point forms of one fused step (or two) decode each row of A and column of
    // B once, not once for every element of D that reads it.
    let decoded = (form.block_scale.is_none()
        && !form.a.is_integer()
        && form.a != MmaType::F64
        && !fp8_lowered(cores, form))
    .then(|| {
        let rows: Vec<DecodedRow> = am.iter().map(|row| DecodedRow::new(row, form.a)).collect();
        let columns: Vec<DecodedRow> = b_columns
            .iter()
            .map(|column| DecodedRow::new(column, form.b))
            .collect();
        (rows, columns)
    });
    let mut out: Vec<Vec<u64>> = (0..32).map(|_| vec![0; d_registers(form)]).collect();
    for (lane, registers) in out.iter_mut().enumerate() {
        for (index, row, col) in c_layout(form, lane) {
            if let Some((rows, columns)) = &decoded {
                let value = dot_float_operands(
                    cores,
                    form,
                    rows[row].operand(),
                    columns[col].operand(),
                    cm[row][col],
                );
                store(registers, form.d, index, value);
                continue;
            }
            let column = &b_columns[col];
            let value = match (form.block_scale, scales) {
                (Some(scale), Some((rows, columns))) if scale.packed_fp4 => dot_fp4_scaled(
                    &am[row],
                    column,
                    cm[row][col],
                    (&rows[row], &columns[col]),
                    scale.ue4m3,
                ),
                (Some(_), Some((rows, columns))) => dot_mx(
                    (form.a, form.b),
                    &am[row],
                    column,
                    cm[row][col],
                    (rows[row][0], columns[col][0]),
                )?,
                (Some(_), None) => return None,
                (None, _) => dot(cores, form, &am[row], column, cm[row][col]),
            };
            store(registers, form.d, index, value);
        }
    }
    Some(out)
}

/// Which lanes of a group of four (`4g .. 4g+3`, rows `g` and `g + 8`) hold the metadata of a
/// sparse `mma`, and which part of the two rows each one covers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum MetadataLanes {
    /// "One thread within a group of four consecutive threads contributes the metadata for the
    /// entire group", lane `4g + f`: bits 0-15 row `g`, bits 16-31 row `g + 8`, all of `k`
    /// (`.f16`/`.bf16` `.m16n8k16`, `.tf32` `.m16n8k8`).
    One,
    /// "A thread-pair ... the sparsity selector must be either 0 (threads T0, T1) or 1 (threads
    /// T2, T3)": lane `4g + 2f + h` covers columns `h k/2 ..` of both rows, row `g` in bits
    /// 0-15, `g + 8` in bits 16-31 (`.f16`/`.bf16` `.m16n8k32`, `.tf32` `.m16n8k16`).
    PairByColumns,
    /// A thread pair, lane `4g + 2f + h` covering row `g + 8h`, all of `k`, in 32 bits
    /// (`.s8`/`.u8` `.m16n8k32`, `.s4`/`.u4` `.m16n8k64`).
    PairByRows,
    /// "All threads within a group of four consecutive threads contribute the sparsity
    /// metadata. Hence, the sparsity selector in this case must be 0": lane `4g + h + 2q` covers
    /// row `g + 8h`, columns `q k/2 ..` (`.s8`/`.u8` and FP8 `.m16n8k64`, `.s4`/`.u4`
    /// `.m16n8k128`).
    All,
}

impl MetadataLanes {
    fn of(form: &MmaForm) -> MetadataLanes {
        match (form.a, form.k) {
            (MmaType::F16 | MmaType::Bf16, 16) | (MmaType::Tf32, 8) => MetadataLanes::One,
            (MmaType::F16 | MmaType::Bf16 | MmaType::Tf32, _) => MetadataLanes::PairByColumns,
            (MmaType::S8 | MmaType::U8, 32) | (MmaType::S4 | MmaType::U4, 64) => {
                MetadataLanes::PairByRows
            }
            _ => MetadataLanes::All,
        }
    }

    /// The selectors the ISA defines for these lanes (9.7.14.6.1).
    fn selectors(self) -> u32 {
        match self {
            MetadataLanes::One => 4,
            MetadataLanes::PairByColumns | MetadataLanes::PairByRows => 2,
            MetadataLanes::All => 1,
        }
    }

    /// The lane and the bit at which the 4-bit metadata of the chunk of row `row` starting at
    /// column `column` lies (`chunk` columns to a chunk, `k` columns in all).
    fn place(
        self,
        selector: usize,
        row: usize,
        column: usize,
        chunk: usize,
        k: usize,
    ) -> (usize, u32) {
        let (group, high_row) = (row % 8, row / 8);
        let (half, within_half) = (column / (k / 2), column % (k / 2));
        let (lane, nibble) = match self {
            MetadataLanes::One => (4 * group + selector, 4 * high_row + column / chunk),
            MetadataLanes::PairByColumns => (
                4 * group + 2 * selector + half,
                4 * high_row + within_half / chunk,
            ),
            MetadataLanes::PairByRows => (4 * group + 2 * selector + high_row, column / chunk),
            MetadataLanes::All => (4 * group + high_row + 2 * half, within_half / chunk),
        };
        (lane, 4 * nibble as u32)
    }
}

/// Where the stored elements of a structured-sparse A go in the dense `16 x k` block of one warp
/// (PTX ISA 9.7.14.6.1 and, for `wgmma.mma_async.sp`, 9.7.15.6.1, "Sparse matrix storage"):
/// the granularity of the type and the lanes that hold the metadata (`MetadataLanes`), for a
/// selector the ISA defines.
///
/// `.f16`, `.bf16`, `.s8`/`.u8` and FP8 are 2:4 ("their positions in the four-wide chunk in
/// matrix A are indicated by two 2-bit indices in the metadata", the first stored element's in
/// the low two bits); `.tf32` is 1:2 ("0b1110 and 0b0100 are the only meaningful index
/// values": ptxsim reads the low two bits, 0 for the first element of the two-wide chunk, 2
/// for the second); `.s4`/`.u4` are pairwise 4:8 (the two indices name the two-wide sub-chunks
/// of the eight-wide chunk that hold the four stored elements). Which lane's metadata holds
/// which rows and columns is in the ISA's figures only; ptxsim takes it from CUTLASS's
/// `ELayout`s of the same instructions (`cute/atom/mma_traits_sm80_sparse.hpp`, and for
/// `wgmma` `mma_traits_sm90_gmma_sparse.hpp`, whose `ELayout_64x32`, `_64x16` and `_64x64` give
/// each warp's 16 rows the layout of `mma.sp`'s `.m16n8k32`, `.m16n8k16` and `.m16n8k64`),
/// chunk `c` of a covered row in bits `4c .. 4c+3`.
#[derive(Clone, Copy, Debug)]
pub struct SparseA {
    lanes: MetadataLanes,
    selector: usize,
    ty: MmaType,
    k: usize,
}

impl SparseA {
    /// The layout of the sparse `form` (its `a` and dense `k`) with sparsity selector
    /// `selector`; an error for a selector outside the range the ISA gives the form ("any other
    /// value results in an undefined behavior").
    pub fn new(form: &MmaForm, selector: u32) -> Result<SparseA, String> {
        let lanes = MetadataLanes::of(form);
        if selector >= lanes.selectors() {
            return Err(format!(
                "the sparsity selector {selector} is undefined (the PTX ISA allows {})",
                match lanes.selectors() {
                    4 => "0 to 3",
                    2 => "0 or 1",
                    _ => "0 only",
                }
            ));
        }
        Ok(SparseA {
            lanes,
            selector: selector as usize,
            ty: form.a,
            k: form.k as usize,
        })
    }

    /// The dense column of stored element `stored` (`0 .. k/2`) of row `row` (`0 .. 16`) of the
    /// warp's block, from the 32 lanes' metadata. Two equal indices (undefined) put two
    /// elements in one column; the caller's later write wins.
    pub fn column(&self, metadata: &[u32], row: usize, stored: usize) -> usize {
        // Columns to a chunk and stored elements to a chunk.
        let (chunk, per_chunk) = match self.ty {
            MmaType::Tf32 => (2, 1),
            MmaType::S4 | MmaType::U4 => (8, 4),
            _ => (4, 2),
        };
        let start = (stored / per_chunk) * chunk;
        let j = stored % per_chunk;
        let (holder, bit) = self.lanes.place(self.selector, row, start, chunk, self.k);
        let nibble = metadata.get(holder).map_or(0, |m| m >> bit & 0xf);
        match self.ty {
            MmaType::Tf32 => start + (nibble & 3) as usize / 2,
            MmaType::S4 | MmaType::U4 => start + 2 * (nibble >> (2 * (j / 2)) & 3) as usize + j % 2,
            _ => start + (nibble >> (2 * j) & 3) as usize,
        }
    }
}

/// Runs one sparse `mma.sp` / `mma.sp::ordered_metadata` (PTX ISA 9.7.14.6) for a warp:
/// `metadata[lane]` is each lane's `e`, `selector` the constant `f`. A's stored elements are
/// put at the columns their metadata names ([`SparseA`]), the other elements of A are zero,
/// and the dense product of that M x K matrix follows the dense form's arithmetic on `cores`
/// ([`dot`]: the same accumulation for the floating-point forms, an exact integer sum for the
/// others). Register `r` of a lane holds row `g + 8 (r % 2)`, stored elements `p t + 4p (r / 2)`
/// onward, `p` stored elements to a register, `2p` columns of A (9.7.14.6.2: e.g. `.m16n8k32`
/// `.f16`, "firstcol = threadID_in_group * 4 for ai where i < 4, (threadID_in_group * 4) + 16
/// for ai where i >= 4").
///
/// A selector outside the range the ISA gives the form is an error ("any other value results
/// in an undefined behavior").
pub fn mma_sparse(
    cores: TensorCores,
    form: &MmaForm,
    a: &[Vec<u64>],
    b: &[Vec<u64>],
    c: &[Vec<u64>],
    metadata: &[u32],
    selector: u32,
) -> Result<Vec<Vec<u64>>, String> {
    let layout =
        SparseA::new(form, selector).map_err(|why| format!("{why} for mma.sp.{}", form.name()))?;
    let (m, n, k) = (form.m as usize, form.n as usize, form.k as usize);
    let dense = MmaForm {
        sparse: None,
        ..*form
    };
    let mut am = vec![vec![0u64; k]; m];
    let mut bm = vec![vec![0u64; n]; k];
    let mut cm = vec![vec![0u64; n]; m];
    let p = per_register(form.a);
    for lane in 0..32 {
        let (group, thread) = (lane / 4, lane % 4);
        for register in 0..form.registers(ptxsim_isa::mma::MmaOperand::A) {
            let row = group + 8 * (register % 2);
            let first = p * thread + 4 * p * (register / 2);
            for j in 0..p {
                let column = layout.column(metadata, row, first + j);
                am[row][column] = element(&a[lane], form.a, register * p + j);
            }
        }
        for (index, row, col) in b_layout(&dense, lane) {
            bm[row][col] = element(&b[lane], form.b, index);
        }
        for (index, row, col) in c_layout(&dense, lane) {
            cm[row][col] = element(&c[lane], form.c, index);
        }
    }
    product(cores, &dense, &am, &bm, &cm, None)
        .ok_or_else(|| format!("mma.sp.{} is not supported by ptxsim yet", form.name()))
}

fn d_registers(form: &MmaForm) -> usize {
    form.registers(ptxsim_isa::mma::MmaOperand::D)
}

/// Elements per 32-bit register (1 for `.tf32`, `.f32`, `.s32`; `.f64` has one per register).
fn per_register(ty: MmaType) -> usize {
    (32 / ty.bits().min(32)) as usize
}

/// Elements of A or B per register: [`per_register`], or 8 for the packed `.e2m1` of
/// `.kind::mxf4*` (whose `m16n8k64` fragments are the 8-bit `m16n8k32` ones with two elements
/// to a byte: CUTLASS's `SM120_16x8x64_TN_VS` `ALayout`/`BLayout`).
fn operand_per_register(form: &MmaForm, ty: MmaType) -> usize {
    (32 / form.element_bits(ty).min(32)) as usize
}

fn element(registers: &[u64], ty: MmaType, index: usize) -> u64 {
    let p = per_register(ty);
    let width = ty.bits().min(32);
    let register = registers.get(index / p).copied().unwrap_or(0);
    if ty == MmaType::F64 {
        return register;
    }
    (register >> ((index % p) as u32 * width)) & ((1u64 << width) - 1)
}

fn store(registers: &mut [u64], ty: MmaType, index: usize, value: u64) {
    let p = per_register(ty);
    let width = ty.bits().min(32);
    if ty == MmaType::F64 {
        registers[index] = value;
        return;
    }
    let shift = (index % p) as u32 * width;
    let mask = ((1u64 << width) - 1) << shift;
    registers[index / p] = (registers[index / p] & !mask) | (value << shift & mask);
}

/// `(element index in the lane, row, column)` of A for a lane: element j of register r is row
/// `g + 8*(r % 2)`, column `t*p + j + (r / 2)*4p` (g = lane / 4, t = lane % 4, p elements per
/// register); the m8 shapes have row g only. With p = 8 (`.s4`/`.u4`) and p = 32 (`.b1`) this is
/// the ISA's formula for every sub-byte and single-bit shape (9.7.14.5.4, .5, .10 to .13: e.g.
/// `.m16n8k64` "row = groupID for ai where 0 <= i < 8 || 16 <= i < 24, groupID + 8 otherwise;
/// col = (threadID_in_group * 8) + (i & 0x7) for ai where i < 16, + 32 for ai where i >= 16");
/// for `.m16n8k256` the ISA prints `(threadID_in_group * 32) + i for ai where i < 64`, which
/// would put a32..a63 in the next thread's columns: read as `i & 0x1F`, as in `.m16n8k128`.
fn a_layout(form: &MmaForm, lane: usize) -> Vec<(usize, usize, usize)> {
    let (g, t, p) = (lane / 4, lane % 4, operand_per_register(form, form.a));
    let count = form.m as usize * form.k as usize / 32;
    (0..count)
        .map(|index| {
            let (r, j) = (index / p, index % p);
            if form.m == 8 {
                (index, g, t * p + j + r * 4 * p)
            } else {
                (index, g + 8 * (r % 2), t * p + j + (r / 2) * 4 * p)
            }
        })
        .collect()
}

/// B: element j of register r is row (k) `t*p + j + r*4p`, column g.
fn b_layout(form: &MmaForm, lane: usize) -> Vec<(usize, usize, usize)> {
    let (g, t, p) = (lane / 4, lane % 4, operand_per_register(form, form.b));
    let count = form.k as usize * form.n as usize / 32;
    (0..count)
        .map(|index| {
            let (r, j) = (index / p, index % p);
            (index, t * p + j + r * 4 * p, g)
        })
        .collect()
}

/// C and D: element i of the lane is row `g + 8*(i / 2)`, column `2t + i % 2`.
fn c_layout(form: &MmaForm, lane: usize) -> Vec<(usize, usize, usize)> {
    let (g, t) = (lane / 4, lane % 4);
    let count = form.m as usize * form.n as usize / 32;
    (0..count)
        .map(|i| (i, g + 8 * (i / 2), 2 * t + i % 2))
        .collect()
}

/// Where element `index` of a lane's fragment lies in the quad-pair `m8n8k4` `.f16` form
/// (PTX ISA 9.7.14.5.1, "Matrix Fragments for mma.m8n8k4 with .f16 floating point type"):
/// `(quad pair, row, column)` of its 8x8x4 product. The four products are computed by lanes
/// `4q..4q+3` (the low group, rows or columns 0-3) and `4q+16..4q+19` (the high group, 4-7),
/// `q = (lane / 4) % 4`.
fn quad_pair_place(operand: QuadOperand, lane: usize, index: usize) -> (usize, usize, usize) {
    let (q, high, l4) = ((lane / 4) % 4, 4 * (lane / 16), lane % 4);
    let (row, col) = match operand {
        // A row-major: row = laneid % 4 (+ 4), col = i; column-major: row = i % 4 (+ 4),
        // col = laneid % 4.
        QuadOperand::A { row: true } => (l4 + high, index),
        QuadOperand::A { row: false } => (index % 4 + high, l4),
        // B row-major: row (k) = laneid % 4, col = i (+ 4); column-major: row = i,
        // col = laneid % 4 (+ 4).
        QuadOperand::B { col: false } => (l4, index + high),
        QuadOperand::B { col: true } => (index, l4 + high),
        // `.f16` C/D: row = laneid % 4 (+ 4), col = i.
        QuadOperand::Accumulator(MmaType::F16) => (l4 + high, index),
        // `.f32` C/D: row = (laneid & 1) + (i & 2) (+ 4), col = (i & 4) + (laneid & 2) + (i & 1).
        QuadOperand::Accumulator(_) => (
            (lane & 1) + (index & 2) + high,
            (index & 4) + (lane & 2) + (index & 1),
        ),
    };
    (q, row, col)
}

/// An operand of the quad-pair form, with what decides its fragment layout.
#[derive(Clone, Copy)]
enum QuadOperand {
    A { row: bool },
    B { col: bool },
    Accumulator(MmaType),
}

/// The quad-pair `mma.sync.aligned.m8n8k4` with `.f16` A and B (PTX ISA 9.7.14.5.1): four
/// independent 8x8x4 products per warp, one per quad pair ([`quad_pair_place`]).
///
/// sm_90 has no tensor-core instruction for it: ptxas 13 emulates it on the FP32 units
/// (`tests/hardware/mma/more-sass.txt`, kernels `k2` and `k3`; `mma-log.txt`, `k46` and
/// `k47`), and the arithmetic here is that SASS, element by element ([`quad_pair_f32`],
/// [`quad_pair_f16`]). (The kernels of `more-sass.txt` load the same words in every lane, so
/// ptxas left out the exchange between lanes there and each lane multiplies its own A row by its
/// own B column; which elements meet is the ISA's fragment layout, confirmed by the tiles.) It
/// gives the H200's D words in all 48 tiles of each of
/// `m8n8k4.row.col.f32.f16.f16.f32` and `m8n8k4.row.col.f16.f16.f16.f16`
/// (`tests/hardware/mma/mma-golden.bin.xz`; the `.f32` chain in the reverse `k` order matches
/// no tile, the `.f16` form with `c + (s0 + s1)` misses one). Only `.row.col` was measured;
/// the other layouts take the ISA's fragment layouts with the same arithmetic in `k` order.
fn quad_pair(form: &MmaForm, a: &[Vec<u64>], b: &[Vec<u64>], c: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let mut am = [[[0u64; 4]; 8]; 4];
    let mut bm = [[[0u64; 8]; 4]; 4];
    let mut cm = [[[0u64; 8]; 8]; 4];
    for lane in 0..32 {
        for index in 0..4 {
            let (q, row, col) = quad_pair_place(QuadOperand::A { row: form.a_row }, lane, index);
            am[q][row][col] = element(&a[lane], MmaType::F16, index);
            let (q, row, col) = quad_pair_place(QuadOperand::B { col: form.b_col }, lane, index);
            bm[q][row][col] = element(&b[lane], MmaType::F16, index);
        }
        for index in 0..8 {
            let (q, row, col) = quad_pair_place(QuadOperand::Accumulator(form.c), lane, index);
            cm[q][row][col] = element(&c[lane], form.c, index);
        }
    }
    let half = |bits: u64| f32::from_bits(ptxsim_softfloat::f16_to_f32(bits as u16));
    (0..32)
        .map(|lane| {
            let mut registers = vec![0; d_registers(form)];
            for index in 0..8 {
                let (q, row, col) = quad_pair_place(QuadOperand::Accumulator(form.d), lane, index);
                let x: [f32; 4] = std::array::from_fn(|k| half(am[q][row][k]));
                let y: [f32; 4] = std::array::from_fn(|k| half(bm[q][k][col]));
                let c = cm[q][row][col];
                let c = if form.c == MmaType::F16 {
                    half(c)
                } else {
                    f32::from_bits(c as u32)
                };
                let value = if form.d == MmaType::F16 {
                    quad_pair_f16(x, y, c)
                } else {
                    quad_pair_f32(x, y, c)
                };
                store(&mut registers, form.d, index, value);
            }
            registers
        })
        .collect()
}

/// One `.f32` element of the quad-pair form as ptxas lowers it for sm_90
/// (`tests/hardware/mma/more-sass.txt`, `k2`): the `.f16` operands widened exactly to f32
/// (`HADD2.F32 -RZ, x`), a chain of `FFMA` in `k` order from `+0`
/// (`p = a0*b0 + 0; p = a1*b1 + p; ...`), then `FADD c, p`; each step rounds to nearest even
/// with subnormals kept. A NaN result is the canonical `0x7fffffff` (the golden tiles).
fn quad_pair_f32(a: [f32; 4], b: [f32; 4], c: f32) -> u64 {
    let products = a.iter().zip(&b).fold(0.0f32, |p, (&x, &y)| x.mul_add(y, p));
    let d = c + products;
    if d.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(d.to_bits())
    }
}

/// One `.f16` element of the quad-pair form as ptxas lowers it for sm_90
/// (`tests/hardware/mma/more-sass.txt`, `k3`): in f32, the pair sums
/// `s0 = a1*b1 + a0*b0` and `s1 = a3*b3 + a2*b2` (`FMUL`, then `FFMA`), then
/// `(c + s0) + s1` (two `FADD`, `c` widened exactly), rounded once to `.f16` to nearest even
/// (`F2FP.F16.F32.PACK_AB`). A NaN result is the canonical `0x7fff` (the golden tiles).
fn quad_pair_f16(a: [f32; 4], b: [f32; 4], c: f32) -> u64 {
    use ptxsim_softfloat::{Flags, Rounding, Type, convert};
    let s0 = a[1].mul_add(b[1], a[0] * b[0]);
    let s1 = a[3].mul_add(b[3], a[2] * b[2]);
    let d = (c + s0) + s1;
    if d.is_nan() {
        return 0x7fff;
    }
    convert(
        u64::from(d.to_bits()),
        Type::F32,
        Type::F16,
        Rounding::Rn,
        Flags::default(),
        None,
    )
    .bits
}

// The block-scaled dot products of `mma.sync`'s `.block_scale` forms and of `tcgen05.mma`'s
// `.kind::mxf8f6f4` / `.kind::mxf4*` (both use MMA-Sim's Blackwell algorithms).

/// `bits` (an `.f32`) times `2^shift`, when that is exact and stays a normal number (or zero,
/// infinity, NaN); `None` otherwise.
pub(crate) fn scale_f32(bits: u64, shift: i32) -> Option<u64> {
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

/// `tcgen05.mma`'s `dot_scaled` (and `mma.sync`'s block scaling) for A and B of `types` (FP8, FP6, FP4 in 8-bit containers) and an `.f32`
/// `c` and D, with the 25-bit step of MMA-Sim's Blackwell and RTX Blackwell block-scaled
/// `k32` (`nv_fused_dot_add` with the factors); a NaN factor gives the canonical NaN.
pub(crate) fn dot_mx(
    types: (MmaType, MmaType),
    a: &[u64],
    b: &[u64],
    c: u64,
    (scale_a, scale_b): (u32, u32),
) -> Option<u64> {
    if scale_a == 255 || scale_b == 255 {
        return Some(0x7fff_ffff);
    }
    let shift = scale_a as i32 + scale_b as i32 - 254;
    let c = scale_f32(c, -shift)?;
    let sum = fused(
        (types.0, types.1, MmaType::F32),
        MmaType::F32,
        a,
        b,
        c,
        25,
        false,
    );
    scale_f32(sum, shift)
}

/// A scale factor as `(significand, exponent)`, worth `significand * 2^(exponent - 3)`:
/// `.ue8m0` `2^(e - 127)`; `.ue4m3` an E4M3 magnitude (bias 7, 3 fraction bits; the top bit
/// ignored, a subnormal keeps the exponent -6); `None` for a NaN (`.ue8m0` 255, `.ue4m3`
/// 0x7f).
fn scale_factor(bits: u32, ue4m3: bool) -> Option<(i128, i32)> {
    if ue4m3 {
        let bits = bits & 0x7f;
        let (field, fraction) = ((bits >> 3) as i32, i128::from(bits & 7));
        match field {
            _ if bits == 0x7f => None,
            0 => Some((fraction, -6)),
            _ => Some((8 | fraction, field - 7)),
        }
    } else {
        (bits != 255).then_some((8, bits as i32 - 127))
    }
}

/// An `.e2m1` element in its 8-bit container (bits 2-5) as a signed count of halves.
fn fp4_halves(container: u64) -> i128 {
    let bits = container >> 2 & 0xf;
    let (field, fraction) = (bits >> 1 & 3, i128::from(bits as u8 & 1));
    let halves = if field == 0 {
        fraction
    } else {
        (2 | fraction) << (field - 1)
    };
    if bits & 8 != 0 { -halves } else { halves }
}

/// One element of D for `.kind::mxf4` and `.kind::mxf4nvf4` (K = 64, `.e2m1` A and B):
/// MMA-Sim's Blackwell block-scaled FP4 algorithm (`nv_fused_dot_add_with_block_scale`,
/// `n_accum_fractional_bits = 35`): the K elements in groups of 16, each group's products
/// summed exactly and multiplied by the significands of its row's and column's factors
/// (`scale_a[g / (4 / vec)]`, one per 32 or 16 elements), the group carrying only the
/// factors' exponents; `c` with its own (`-126` for a zero or subnormal `c`); every addend
/// aligned to the largest of those exponents and truncated toward zero 35 fraction bits below
/// it, summed exactly and rounded toward zero to `.f32`. A NaN factor or `c` gives the
/// canonical NaN; an infinite `c` is returned as it is (MMA-Sim does not model it).
pub fn dot_fp4_scaled(
    a: &[u64],
    b: &[u64],
    c: u64,
    (scale_a, scale_b): (&[u32], &[u32]),
    ue4m3: bool,
) -> u64 {
    const NAN: u64 = 0x7fff_ffff;
    const BITS: i32 = 35;
    let exponent = (c >> 23 & 0xff) as i32;
    if exponent == 0xff {
        return if c & 0x7f_ffff != 0 { NAN } else { c };
    }
    // c: units of 2^(ec - 23).
    let c_significand = i128::from(c as u32 & 0x7f_ffff) | if exponent == 0 { 0 } else { 1 << 23 };
    let c_exponent = exponent.max(1) - 127;
    let c_term = if c >> 31 & 1 == 1 {
        -c_significand
    } else {
        c_significand
    };
    // Each group: units of 2^(e - 8) (halves times halves, two 3-bit factor fractions).
    let groups = a.len() / 16;
    let mut terms = Vec::with_capacity(groups);
    for g in 0..groups {
        let block = g * scale_a.len() / groups;
        let (Some((sa, ea)), Some((sb, eb))) = (
            scale_factor(scale_a[block], ue4m3),
            scale_factor(scale_b[block], ue4m3),
        ) else {
            return NAN;
        };
        let products: i128 = (16 * g..16 * g + 16)
            .map(|k| fp4_halves(a[k]) * fp4_halves(b[k]))
            .sum();
        terms.push((products * sa * sb, ea + eb));
    }
    let max = terms.iter().map(|&(_, e)| e).fold(c_exponent, i32::max);
    let align = |value: i128, shift: i32| -> i128 {
        let magnitude = value.unsigned_abs();
        let aligned = if shift >= 0 {
            (magnitude << shift) as i128
        } else if -shift >= 128 {
            0
        } else {
            (magnitude >> -shift) as i128
        };
        if value < 0 { -aligned } else { aligned }
    };
    // Units of 2^(max - 35).
    let mut sum = align(c_term, c_exponent - 23 - max + BITS);
    for &(value, e) in &terms {
        sum += align(value, e - 8 - max + BITS);
    }
    round(sum < 0, sum.unsigned_abs(), max - BITS, MmaType::F32)
}
