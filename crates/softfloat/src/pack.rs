//! Packing helpers for the `x2`/`x4` instruction types (PTX ISA 9.7.9.21, Semantics), the
//! `.rs` random-bit layouts, the `.s2f6x2` scale factors, and `cvt.pack.sat` (9.7.9.22).
//!
//! Lane order everywhere follows the Semantics block: operand `a` (or the upper half of a
//! packed source) lands in the upper bits of `d`.

use crate::{Flags, Rounding, Type, convert, convert_each, convert_scaled};

/// Width in bits of one lane of a packed destination or source of element type `ty`:
/// 16 for `.f16`/`.bf16`, 4 for `.e2m1`, 8 for the fp8, fp6 (2 zero MSBs), `.ue8m0` and
/// `.s2f6` bytes.
#[must_use]
pub const fn lane_bits(ty: Type) -> u32 {
    match ty {
        Type::F16 | Type::Bf16 => 16,
        Type::E2m1 => 4,
        _ => 8,
    }
}

/// Random bits for operands `a` and `b` of `cvt.rs.f16x2.f32`: "13 LSBs from upper 16-bits
/// are used as random bits for operand `a` with 3 MSBs are 0 and 13 LSBs from lower 16-bits
/// are used as random bits for operand `b` with 3 MSBs are 0". Returns `[a, b]`.
#[must_use]
pub const fn rbits_f16x2(rbits: u32) -> [u32; 2] {
    [(rbits >> 16) & 0x1fff, rbits & 0x1fff]
}

/// Random bits for operands `a` and `b` of `cvt.rs.bf16x2.f32`: "upper 16-bits are used as
/// random bits for operand `a` and lower 16-bits are used as random bits for operand `b`".
#[must_use]
pub const fn rbits_bf16x2(rbits: u32) -> [u32; 2] {
    [rbits >> 16, rbits & 0xffff]
}

/// Random bits for operands `a`, `b`, `e`, `f` of the `.rs` `x4` forms.
///
/// * `.e4m3x4`/`.e5m2x4`/`.e2m3x4`/`.e3m2x4`: "lower 16-bits are used for operands `e`, `f`
///   and upper 16 bits are used for operands `a`, `b`". This crate reads it as: `a` and `b`
///   both use `rbits[31:16]`, `e` and `f` both use `rbits[15:0]` (see `docs/softfloat.md`).
/// * `.e2m1x4`: "lower 8-bits from both 16-bits half of `rbits` are used for operands `e`,
///   `f` and upper 8-bits from both 16-bits half of `rbits` are used for operands `a`, `b`":
///   `a` = `rbits[31:24]`, `b` = `rbits[15:8]`, `e` = `rbits[23:16]`, `f` = `rbits[7:0]`.
#[must_use]
pub const fn rbits_x4(to: Type, rbits: u32) -> [u32; 4] {
    match to {
        Type::E2m1 => [
            (rbits >> 24) & 0xff,
            (rbits >> 8) & 0xff,
            (rbits >> 16) & 0xff,
            rbits & 0xff,
        ],
        _ => {
            let hi = rbits >> 16;
            let lo = rbits & 0xffff;
            [hi, hi, lo, lo]
        }
    }
}

fn one(bits: u64, from: Type, to: Type, rounding: Rounding, flags: Flags, r: Option<u32>) -> u32 {
    convert(bits, from, to, rounding, flags, r).bits as u32
}

/// `cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b` and
/// `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits`: "the value converted from
/// input `a` is stored in the upper half of `d` and the value converted from input `b` is
/// stored in the lower half of `d`". `to` is [`Type::F16`] or [`Type::Bf16`]; `rbits` is only
/// read for [`Rounding::Rs`].
#[must_use]
pub fn cvt_f32x2_to_half2(
    a: u32,
    b: u32,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    rbits: u32,
) -> u32 {
    let [ra, rb] = if to == Type::F16 {
        rbits_f16x2(rbits)
    } else {
        rbits_bf16x2(rbits)
    };
    let hi = one(u64::from(a), Type::F32, to, rounding, flags, Some(ra));
    let lo = one(u64::from(b), Type::F32, to, rounding, flags, Some(rb));
    (hi << 16) | (lo & 0xffff)
}

/// Two `.f32` inputs to `.e4m3x2`/`.e5m2x2`/`.e2m3x2`/`.e3m2x2`/`.e2m1x2`/`.ue8m0x2`
/// (`d[15:8] = convert(a); d[7:0] = convert(b)`; for `.e2m1x2` `d[7:4] = convert(a);
/// d[3:0] = convert(b)`; fp6 bytes have "2 MSB bits padded with zeros").
#[must_use]
pub fn cvt_f32x2_to_x2(a: u32, b: u32, to: Type, rounding: Rounding, flags: Flags) -> u16 {
    let lane = lane_bits(to);
    let hi = one(u64::from(a), Type::F32, to, rounding, flags, None);
    let lo = one(u64::from(b), Type::F32, to, rounding, flags, None);
    ((hi << lane) | lo) as u16
}

/// An `.f16x2`/`.bf16x2` input to `.e4m3x2`/`.e5m2x2`/`.e2m3x2`/`.e3m2x2`/`.e2m1x2`/
/// `.ue8m0x2`: "the value converted from the upper 16 bits of input `a` is stored in the upper
/// 8 bits of `d` and the value converted from the lower 16 bits of input `a` is stored in the
/// lower 8 bits of `d`" (upper/lower 4 bits for `.e2m1x2`).
#[must_use]
pub fn cvt_half2_to_x2(a: u32, from: Type, to: Type, rounding: Rounding, flags: Flags) -> u16 {
    if from == Type::F16 && to == Type::E5m2 {
        let hi = crate::f16_to_e5m2((a >> 16) as u16, rounding, flags);
        let lo = crate::f16_to_e5m2(a as u16, rounding, flags);
        return (u16::from(hi) << 8) | u16::from(lo);
    }
    let lane = lane_bits(to);
    let hi = one(u64::from(a >> 16), from, to, rounding, flags, None);
    let lo = one(u64::from(a & 0xffff), from, to, rounding, flags, None);
    ((hi << lane) | lo) as u16
}

/// `.e4m3x2`/`.e5m2x2`/`.e2m3x2`/`.e3m2x2`/`.e2m1x2` to `.f16x2`, and `.ue8m0x2` to
/// `.bf16x2`: "the value converted from the upper 8 bits of `a` is stored in the upper 16 bits
/// of `d` and the value converted from the lower 8 bits of `a` is stored in the lower 16 bits
/// of `d`" (upper/lower 4 bits for `.e2m1x2`). For fp6 only the low 6 bits of each byte are
/// read ("Each 8-bit input value with 2 MSB bits 0").
#[must_use]
pub fn cvt_x2_to_half2(a: u16, from: Type, to: Type, flags: Flags) -> u32 {
    let lane = lane_bits(from);
    let mask = (1u32 << lane) - 1;
    let a = u32::from(a);
    let hi = one(
        u64::from((a >> lane) & mask),
        from,
        to,
        Rounding::Rn,
        flags,
        None,
    );
    let lo = one(u64::from(a & mask), from, to, Rounding::Rn, flags, None);
    (hi << 16) | (lo & 0xffff)
}

/// Converts the column `a` (the upper inputs) and the column `b` (the lower inputs) of a
/// two-input form and leaves `pack(hi, lo)` of each pair in `a`.
fn pairs_each(
    (a, b): (&mut [u64], &mut [u64]),
    (from, to): (Type, Type),
    rounding: Rounding,
    flags: Flags,
    pack: impl Fn(u32, u32) -> u32,
) {
    convert_each(a, from, to, rounding, flags);
    convert_each(b, from, to, rounding, flags);
    for (hi, &lo) in a.iter_mut().zip(b.iter()) {
        *hi = u64::from(pack(*hi as u32, lo as u32));
    }
}

/// [`cvt_f32x2_to_half2`] for many operand pairs, for every rounding but `.rs`: `a[i]` and
/// `b[i]` are the inputs (low 32 bits); on return `a[i]` holds the result. One dispatch on the
/// types for all of them (see [`convert_each`]); the results are those of the scalar function.
pub fn cvt_f32x2_to_half2_each(
    a: &mut [u64],
    b: &mut [u64],
    to: Type,
    rounding: Rounding,
    flags: Flags,
) {
    pairs_each((a, b), (Type::F32, to), rounding, flags, |hi, lo| {
        (hi << 16) | (lo & 0xffff)
    });
}

/// [`cvt_f32x2_to_x2`] for many operand pairs (see [`cvt_f32x2_to_half2_each`]).
pub fn cvt_f32x2_to_x2_each(
    a: &mut [u64],
    b: &mut [u64],
    to: Type,
    rounding: Rounding,
    flags: Flags,
) {
    let lane = lane_bits(to);
    pairs_each((a, b), (Type::F32, to), rounding, flags, |hi, lo| {
        u32::from(((hi << lane) | lo) as u16)
    });
}

/// [`cvt_half2_to_x2`] for many operands: `a[i]` is the input (low 32 bits) and on return
/// holds the result; `lo` is scratch space.
pub fn cvt_half2_to_x2_each(
    a: &mut [u64],
    lo: &mut Vec<u64>,
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
) {
    lo.clear();
    lo.extend(a.iter().map(|&x| x & 0xffff));
    for x in a.iter_mut() {
        *x = (*x >> 16) & 0xffff;
    }
    let lane = lane_bits(to);
    pairs_each((a, lo), (from, to), rounding, flags, |hi, lo| {
        u32::from(((hi << lane) | lo) as u16)
    });
}

/// [`cvt_x2_to_half2`] for many operands: `a[i]` is the input (low 16 bits) and on return
/// holds the result; `lo` is scratch space.
pub fn cvt_x2_to_half2_each(a: &mut [u64], lo: &mut Vec<u64>, from: Type, to: Type, flags: Flags) {
    let lane = lane_bits(from);
    let mask = (1u64 << lane) - 1;
    lo.clear();
    lo.extend(a.iter().map(|&x| x & mask));
    for x in a.iter_mut() {
        *x = ((*x & 0xffff) >> lane) & mask;
    }
    pairs_each((a, lo), (from, to), Rounding::Rn, flags, |hi, lo| {
        (hi << 16) | (lo & 0xffff)
    });
}

/// `cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32 d, {a, b, e, f}, rbits`:
/// "the converted values are packed in the destination operand `d` such that the value
/// converted from inputs `a`, `b`, `e`, `f` are stored in each 8 bits starting from upper bits
/// of `d`" (each 4 bits for `.e2m1x4`, whose result is the low 16 bits). `inputs` is
/// `[a, b, e, f]`; the random bits are split by [`rbits_x4`].
#[must_use]
pub fn cvt_f32x4_to_x4(
    inputs: [u32; 4],
    to: Type,
    rounding: Rounding,
    flags: Flags,
    rbits: u32,
) -> u32 {
    let lane = lane_bits(to);
    let r = rbits_x4(to, rbits);
    let mut d = 0u32;
    for (x, rb) in inputs.iter().zip(r) {
        d = (d << lane) | one(u64::from(*x), Type::F32, to, rounding, flags, Some(rb));
    }
    d
}

/// `cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.f32 d, a, b{, scale-factor}`:
/// `d[15:8] = convert(a / scale-factor[15:8]); d[7:0] = convert(b / scale-factor[7:0])`.
/// Without the operand pass `0x7f7f` ("If not specified explicitly, value of `scale-factor`
/// will be assumed to be `0x7f7f`").
#[must_use]
pub fn cvt_f32x2_to_s2f6x2(a: u32, b: u32, rounding: Rounding, flags: Flags, scale: u16) -> u16 {
    let (hi, lo) = convert_scaled_pair(
        [u64::from(a), u64::from(b)],
        Type::F32,
        Type::S2f6,
        rounding,
        flags,
        scale,
    );
    ((hi << 8) | lo) as u16
}

/// `cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.bf16x2 d, a{, scale-factor}`: "The
/// scaling factor of ... `.bf16` input from upper 16 bits of `a` is stored in the upper 8 bits
/// of operand `scale-factor`". The Semantics block writes `a[15:8]`/`a[7:0]` for the two
/// inputs; this crate follows the prose (upper and lower 16 bits), see `docs/softfloat.md`.
#[must_use]
pub fn cvt_bf16x2_to_s2f6x2(a: u32, rounding: Rounding, flags: Flags, scale: u16) -> u16 {
    let (hi, lo) = convert_scaled_pair(
        [u64::from(a >> 16), u64::from(a & 0xffff)],
        Type::Bf16,
        Type::S2f6,
        rounding,
        flags,
        scale,
    );
    ((hi << 8) | lo) as u16
}

/// `cvt.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.s2f6x2 d, a{, scale-factor}`:
/// `d[31:16] = convert(a[15:8]) * scale-factor[15:8]; d[15:0] = convert(a[7:0]) *
/// scale-factor[7:0]`.
#[must_use]
pub fn cvt_s2f6x2_to_bf16x2(a: u16, rounding: Rounding, flags: Flags, scale: u16) -> u32 {
    let (hi, lo) = convert_scaled_pair(
        [u64::from(a >> 8), u64::from(a & 0xff)],
        Type::S2f6,
        Type::Bf16,
        rounding,
        flags,
        scale,
    );
    ((hi as u32) << 16) | (lo as u32)
}

/// Converts the upper and lower input of an s2f6 pair with the scale factor of the same half of
/// `scale-factor` ("the scaling factor of input `a` ... is stored in the upper 8 bits of operand
/// `scale-factor` and the scaling factor of input `b` ... in the lower 8 bits").
fn convert_scaled_pair(
    [upper, lower]: [u64; 2],
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    scale: u16,
) -> (u64, u64) {
    let [scale_upper, scale_lower] = scale.to_be_bytes();
    let upper = convert_scaled(upper, from, to, rounding, flags, scale_upper);
    let lower = convert_scaled(lower, from, to, rounding, flags, scale_lower);
    (upper.bits, lower.bits)
}

/// The `.convertType` of `cvt.pack.sat` (PTX ISA 9.7.9.22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackType {
    /// `.u2`
    U2,
    /// `.s2`
    S2,
    /// `.u4`
    U4,
    /// `.s4`
    S4,
    /// `.u8`
    U8,
    /// `.s8`
    S8,
    /// `.u16`
    U16,
    /// `.s16`
    S16,
}

impl PackType {
    /// Width in bits and signedness.
    #[must_use]
    pub const fn width(self) -> (u32, bool) {
        match self {
            PackType::U2 => (2, false),
            PackType::S2 => (2, true),
            PackType::U4 => (4, false),
            PackType::S4 => (4, true),
            PackType::U8 => (8, false),
            PackType::S8 => (8, true),
            PackType::U16 => (16, false),
            PackType::S16 => (16, true),
        }
    }
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (PTX ISA 9.7.9.22): "The inputs `a` and
/// `b` are converted to values of type specified by `.convertType` with saturation and the
/// results after conversion are packed into lower bits of `d`. If operand `c` is specified
/// then remaining bits of `d` are copied from lower bits of `c`."
///
/// `b` lands in bits `[size-1:0]` and `a` in `[2*size-1:size]`; for `.u16`/`.s16` `c` is not
/// used. The Semantics block assigns `ta` twice, the second assignment overwriting the lower
/// clamp; this crate follows the prose ("`.sat` modifier limits the converted values to
/// `MIN(convertType)`..`MAX(convertedType)`"), clamping on both sides.
#[must_use]
pub fn cvt_pack_sat(ty: PackType, a: i32, b: i32, c: u32) -> u32 {
    let (size, signed) = ty.width();
    let (lo, hi): (i64, i64) = if signed {
        (-(1i64 << (size - 1)), (1i64 << (size - 1)) - 1)
    } else {
        (0, (1i64 << size) - 1)
    };
    let mask = (1u64 << size) - 1;
    let ta = (i64::from(a).clamp(lo, hi) as u64) & mask;
    let tb = (i64::from(b).clamp(lo, hi) as u64) & mask;
    let td = (ta << size) | tb;
    if size == 16 {
        td as u32
    } else {
        let low = 2 * size;
        ((td | (u64::from(c) << low)) & 0xffff_ffff) as u32
    }
}
