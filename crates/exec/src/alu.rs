//! Semantics of the integer, logic, floating-point, comparison, permutation and atomic
//! instructions as pure functions on bits (style rule 5). The executor decodes an instruction
//! once ([`ptxsim_isa::ops::decode_op`]), fetches operands and calls one of these.
//!
//! Values are `u64`s holding the low [`Type::bits`] bits of the operand; higher input bits are
//! ignored and results are chopped to the result width.
//!
//! Floating point follows PTX ISA 9.1 section 9.7.3 ("Floating-Point Instructions") and 9.7.4
//! ("Half Precision Floating-Point Instructions"): IEEE 754 arithmetic rounded once with the
//! instruction's rounding. Correctly rounded results for every rounding come from host
//! arithmetic (`.rn` on `.f32`/`.f64`, which Rust guarantees IEEE round-to-nearest-even) or from
//! `rustc_apfloat` (directed roundings and the half types); `sqrt` with a directed rounding is an
//! exact integer square root rounded by `rustc_apfloat`.
//!
//! NaN results are canonical:
//! * `.f32`: `0x7fffffff` — CUDA C++ Programming Guide, "Floating-Point Standard": "The result
//!   of a single-precision floating-point operation involving one or more input NaNs is the
//!   quiet NaN of bit pattern 0x7fffffff";
//! * `.f16`/`.bf16` (per lane of the x2 forms): `0x7fff`, the "canonical NaN" of 9.7.4;
//! * `.f64`: what an sm_90 GPU does (measured on every `.f64` form ptxsim runs,
//!   `tests/hardware/ops`; docs/divergences.md H3): a NaN operand comes out quieted, sign and
//!   payload kept (the first NaN of `a`, `b`; of `b`, `c`, `a` for `fma`); an invalid operation
//!   of numbers (`sqrt` of a negative, `0/0`, `inf - inf`) gives `0xfff8000000000000`; `abs`
//!   and `neg` of a NaN quiet it and leave its sign. `min`/`max` of two NaNs give
//!   `0x7fffffffffffffff` (not measured).

use ptxsim_isa::ops::{
    AtomOp, BoolOp, Compare, FloatModifiers, FloatOp, FloatRounding, FloatUnaryOp, IntOp,
    IntTernaryOp, IntUnaryOp, MulMode, PrmtMode,
};
use ptxsim_isa::{Type, TypeKind};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, Round};

/// The canonical `.f32` NaN (CUDA C++ Programming Guide, "Floating-Point Standard").
pub const F32_CANONICAL_NAN: u32 = 0x7fff_ffff;
/// The `.f64` NaN of `min`/`max` of two NaNs (a choice; see the module documentation).
pub const F64_CANONICAL_NAN: u64 = 0x7fff_ffff_ffff_ffff;
/// The `.f64` NaN an sm_90 GPU returns for an invalid operation of numbers.
pub const F64_DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// The `.f64` result of an operation with these operands (in the order the GPU picks a NaN
/// from) if one of them is NaN: that NaN, quieted (bit 51 set), sign and payload kept.
#[inline]
fn f64_nan_operand(operands: &[u64]) -> Option<u64> {
    operands
        .iter()
        .find(|&&x| Format::Double.is_nan(x))
        .map(|&x| x | 1 << 51)
}

/// An `.f64` result: a NaN the operation made from numbers becomes [`F64_DEFAULT_NAN`].
#[inline]
fn f64_result(r: u64) -> u64 {
    if Format::Double.is_nan(r) {
        F64_DEFAULT_NAN
    } else {
        r
    }
}
/// The canonical `.f16`/`.bf16` NaN (PTX ISA 9.7.4).
pub const HALF_CANONICAL_NAN: u16 = 0x7fff;

#[inline]
const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
const fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// The operand width (`.b128` is not an ALU type; it is treated as 64 bits).
#[inline]
const fn width(ty: Type) -> u32 {
    let bits = ty.bits();
    if bits > 64 { 64 } else { bits }
}

/// Clamps to the range of a signed `bits`-bit integer ("`.sat` limits the result to
/// `MININT..MAXINT`").
#[inline]
fn clamp_signed(v: i128, bits: u32) -> u64 {
    let max = (1i128 << (bits - 1)) - 1;
    let min = -(1i128 << (bits - 1));
    v.clamp(min, max) as u64
}

/// `add sub mul div rem min max and or xor shl shr` on integer, bit-size and `.pred` types
/// (PTX ISA 9.7.1 and 9.7.8).
///
/// * `add`/`sub` wrap; with `sat` (`add.sat.s32`) "the result is clamped to `MININT..MAXINT`
///   ... instead of wrapping" (9.7.1.1).
/// * `mul.lo`/`mul.hi` keep "the lower / upper n bits" of the 2n-bit product; `mul.wide`
///   returns the whole 2n-bit product: "`.wide` ... the result is twice the width of the
///   operands" (9.7.1.3). Signed types multiply as signed.
/// * `div` truncates toward zero, `rem` takes the sign of the dividend (9.7.1.8-9: "`d = a /
///   b`", "`d = a % b`" with C semantics). `MIN / -1` wraps to `MIN` and `MIN % -1` is 0.
///   Division (and `rem`) by zero is not defined by the spec; like NVIDIA hardware it returns
///   a value with all bits set ("the integer division operators on NVIDIA GPUs return a result
///   with all bits set to 1 ... The same applies to a modulo operator", N. Juffa,
///   stackoverflow.com/questions/12960005).
/// * `min`/`max` compare as signed for `.s` types, else unsigned; `.relu` (`min.relu.s32`)
///   "clamps the result to 0 if negative" (9.7.1.12).
/// * `shl`/`shr`: `b` is the unsigned 32-bit shift amount; "Shift amounts greater than the
///   register width N are clamped to N" (9.7.8.8-9); `shr` on signed types "fills with the
///   sign bit", on unsigned and bit types with 0.
/// * `.pred`: only bit 0 takes part.
#[inline(always)]
pub fn int_binary(op: IntOp, ty: Type, sat: bool, relu: bool, a: u64, b: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let signed = ty.kind() == TypeKind::Signed;
    let shift = b as u32;
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, w) as i128, sext(b, w) as i128);
    let result = match op {
        IntOp::Add if sat && signed => clamp_signed(sa + sb, w),
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub if sat && signed => clamp_signed(sa - sb, w),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::Mul(MulMode::Lo) => a.wrapping_mul(b),
        IntOp::Mul(MulMode::Hi) => {
            if signed {
                ((sa * sb) >> w) as u64
            } else {
                ((a as u128 * b as u128) >> w) as u64
            }
        }
        IntOp::Mul(MulMode::Wide) => {
            let product = if signed {
                (sa * sb) as u64
            } else {
                (a as u128 * b as u128) as u64
            };
            return product & mask(2 * w);
        }
        IntOp::Mul24 { hi } => mul24(hi, signed, a, b),
        IntOp::Div if b == 0 => u64::MAX,
        IntOp::Div if signed => (sa / sb) as u64,
        IntOp::Div => a / b,
        IntOp::Rem if b == 0 => u64::MAX,
        IntOp::Rem if signed => (sa % sb) as u64,
        IntOp::Rem => a % b,
        IntOp::Min | IntOp::Max => {
            let a_less = if signed { sa < sb } else { a < b };
            let pick_a = a_less == (op == IntOp::Min);
            let r = if pick_a { a } else { b };
            if relu && signed && sext(r, w) < 0 {
                0
            } else {
                r
            }
        }
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl => {
            if shift >= w {
                0
            } else {
                a << shift
            }
        }
        IntOp::Shr => {
            if signed {
                (sext(a, w) >> shift.min(w - 1)) as u64
            } else if shift >= w {
                0
            } else {
                a >> shift
            }
        }
    };
    result & m
}

/// `mul24.{lo,hi}` (PTX ISA 9.7.1.5): "the product of two 24-bit integer values held in 32-bit
/// source registers" (the low 24 bits of each, sign-extended for `.s32`), "`t = a * b; d =
/// t<47..16>` for `.hi`, `d = t<31..0>` for `.lo`".
fn mul24(hi: bool, signed: bool, a: u64, b: u64) -> u64 {
    let (x, y) = if signed {
        (sext(a & 0xff_ffff, 24), sext(b & 0xff_ffff, 24))
    } else {
        ((a & 0xff_ffff) as i64, (b & 0xff_ffff) as i64)
    };
    let t = (x * y) as u64;
    let bits = if hi { t >> 16 } else { t };
    bits & 0xffff_ffff
}

/// `mad24`, `sad`, `shf` (PTX ISA 9.7.1.6, 9.7.1.7, 9.7.8.7):
///
/// * `mad24.{lo,hi}`: "`t = a * b; d = t<47..16> + c` (`.hi`), `d = t<31..0> + c` (`.lo`)",
///   with `a` and `b` 24-bit values as in [`mul24`]; `.sat` ("applies only to `.s32` type in
///   `.hi` mode") clamps the 32-bit signed addition to `MININT..MAXINT`.
/// * `sad`: "`d = c + ((a<b) ? b-a : a-b)`", the comparison signed for signed types, the sum
///   wrapping in the type's width.
/// * `shf.l`/`shf.r`: "`n = (.mode == .clamp) ? min(c, 32) : c & 0x1f`"; the 64-bit value
///   `b:a` shifted left (the upper 32 bits kept) or right (the lower 32 bits kept) by `n`.
pub fn int_ternary(op: IntTernaryOp, ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let signed = ty.kind() == TypeKind::Signed;
    let (a, b, c) = (a & m, b & m, c & m);
    let result = match op {
        IntTernaryOp::Mad24 { hi, sat } => {
            let product = mul24(hi, signed, a, b);
            if sat && signed {
                clamp_signed(i128::from(sext(product, 32)) + i128::from(sext(c, 32)), 32)
            } else {
                product.wrapping_add(c)
            }
        }
        IntTernaryOp::Sad => {
            let a_less = if signed {
                sext(a, w) < sext(b, w)
            } else {
                a < b
            };
            let difference = if a_less {
                b.wrapping_sub(a)
            } else {
                a.wrapping_sub(b)
            };
            c.wrapping_add(difference)
        }
        IntTernaryOp::Shf { left, clamp } => {
            let n = if clamp { c.min(32) } else { c & 0x1f } as u32;
            let value = (u128::from(b) << 32) | u128::from(a);
            if left {
                ((value << n) >> 32) as u64
            } else {
                (value >> n) as u64
            }
        }
    };
    result & m
}

/// `slct.dtype.s32 d, a, b, c` / `slct{.ftz}.dtype.f32` (PTX ISA 9.7.7.5): "If `c >= 0`, `a` is
/// stored in `d`, otherwise `b`" ("The selected input is copied to the output without
/// modification"). For an `.f32` `c`, `-0.0 >= 0` holds and a NaN compares false; `.ftz`
/// flushes a subnormal `c` to a zero of its sign, which then selects `a`.
pub fn slct(float_selector: bool, ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    let c = c as u32;
    let take_a = if float_selector {
        let magnitude = c & 0x7fff_ffff;
        let nan = magnitude > 0x7f80_0000;
        let flushed_zero = ftz && magnitude < 0x0080_0000;
        !nan && (c >> 31 == 0 || magnitude == 0 || flushed_zero)
    } else {
        (c as i32) >= 0
    };
    if take_a { a } else { b }
}

/// `abs neg not cnot popc clz brev` (PTX ISA 9.7.1.10-17, 9.7.8.4-5).
///
/// * `abs`/`neg` on signed types wrap: `abs(MIN)` and `neg(MIN)` are `MIN` (two's complement,
///   "`d = |a|`", "`d = -a`").
/// * `not`: "Invert the bits in `a`"; on `.pred` bit 0 only.
/// * `cnot`: "`d = (a==0) ? 1 : 0`".
/// * `popc`: "Count the number of one bits in `a`"; `clz`: "Count the number of leading zeros
///   in `a` starting with the most-significant bit"; both give a `.u32` result.
/// * `brev`: "Perform bitwise reversal of input" within the type width.
#[inline]
pub fn int_unary(op: IntUnaryOp, ty: Type, a: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let a = a & m;
    match op {
        IntUnaryOp::Abs => (sext(a, w).unsigned_abs()) & m,
        IntUnaryOp::Neg => a.wrapping_neg() & m,
        IntUnaryOp::Not => !a & m,
        IntUnaryOp::Cnot => u64::from(a == 0),
        IntUnaryOp::Popc => u64::from(a.count_ones()),
        IntUnaryOp::Clz => u64::from(a.leading_zeros() - (64 - w)),
        IntUnaryOp::Brev => {
            if w == 0 {
                0
            } else {
                a.reverse_bits() >> (64 - w)
            }
        }
    }
}

/// `mad.mode{.sat}.type d, a, b, c` (PTX ISA 9.7.1.4): "Multiplies two values, optionally
/// extracts the high or low half of the intermediate result, and adds a third value".
///
/// * `.lo`/`.hi`: `d = lo/hi(a * b) + c`, all n bits, wrapping.
/// * `.wide`: `c` and `d` are 2n bits: `d = a * b + c` on 2n bits.
/// * `sat` (`mad.hi.sat.s32` only): "the result is saturated to `MININT..MAXINT`"; the
///   saturation applies to the final addition. It is ignored in other modes.
#[inline(always)]
pub fn int_mad(mode: MulMode, ty: Type, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    let w = width(ty);
    match mode {
        MulMode::Wide => {
            let product = int_binary(IntOp::Mul(MulMode::Wide), ty, false, false, a, b);
            product.wrapping_add(c) & mask(2 * w)
        }
        MulMode::Lo => {
            let p = int_binary(IntOp::Mul(MulMode::Lo), ty, false, false, a, b);
            p.wrapping_add(c) & mask(w)
        }
        MulMode::Hi => {
            let p = int_binary(IntOp::Mul(MulMode::Hi), ty, false, false, a, b);
            if sat && ty.kind() == TypeKind::Signed {
                clamp_signed(sext(p, w) as i128 + sext(c, w) as i128, w) & mask(w)
            } else {
                p.wrapping_add(c) & mask(w)
            }
        }
    }
}

/// A binary floating-point format described by its widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Half,
    BFloat,
    Single,
    Double,
}

impl Format {
    const fn of(ty: Type) -> Option<Format> {
        match ty {
            Type::F16 | Type::F16x2 => Some(Format::Half),
            Type::Bf16 | Type::Bf16x2 => Some(Format::BFloat),
            Type::F32 => Some(Format::Single),
            Type::F64 => Some(Format::Double),
            _ => None,
        }
    }

    const fn width(self) -> u32 {
        match self {
            Format::Half | Format::BFloat => 16,
            Format::Single => 32,
            Format::Double => 64,
        }
    }

    const fn mantissa_bits(self) -> u32 {
        match self {
            Format::Half => 10,
            Format::BFloat => 7,
            Format::Single => 23,
            Format::Double => 52,
        }
    }

    const fn sign(self) -> u64 {
        1 << (self.width() - 1)
    }

    const fn exponent_mask(self) -> u64 {
        mask(self.width() - 1) & !mask(self.mantissa_bits())
    }

    const fn canonical_nan(self) -> u64 {
        match self {
            Format::Half | Format::BFloat => HALF_CANONICAL_NAN as u64,
            Format::Single => F32_CANONICAL_NAN as u64,
            Format::Double => F64_CANONICAL_NAN,
        }
    }

    /// The bits of 1.0.
    const fn one(self) -> u64 {
        let bias = (1u64 << (self.width() - 2 - self.mantissa_bits())) - 1;
        bias << self.mantissa_bits()
    }

    #[inline]
    const fn is_nan(self, x: u64) -> bool {
        x & !self.sign() & mask(self.width()) > self.exponent_mask()
    }

    #[inline]
    const fn is_negative(self, x: u64) -> bool {
        x & self.sign() != 0
    }

    /// Whether `.ftz` exists for the format: "`.ftz` ... flush single-precision subnormal
    /// inputs and results to sign-preserving zero" (9.7.3) and the `.f16` forms of 9.7.4;
    /// `.f64` and `.bf16` arithmetic have no `.ftz`.
    const fn has_ftz(self) -> bool {
        matches!(self, Format::Single | Format::Half)
    }

    /// Flushes a subnormal to sign-preserving zero.
    #[inline]
    const fn flush(self, x: u64) -> u64 {
        if x & self.exponent_mask() == 0 {
            x & self.sign()
        } else {
            x
        }
    }

    /// A total-order key of a non-NaN value in which -0.0 < +0.0.
    #[inline]
    const fn order_key(self, x: u64) -> i128 {
        let magnitude = (x & !self.sign() & mask(self.width())) as i128;
        if self.is_negative(x) {
            -magnitude - 1
        } else {
            magnitude
        }
    }
}

/// The four arithmetic operations rounded by `rustc_apfloat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

const fn apfloat_round(rounding: FloatRounding) -> Round {
    match rounding {
        FloatRounding::Rn => Round::NearestTiesToEven,
        FloatRounding::Rz => Round::TowardZero,
        FloatRounding::Rm => Round::TowardNegative,
        FloatRounding::Rp => Round::TowardPositive,
    }
}

fn apfloat_arith<F: Float>(op: Arith, a: u64, b: u64, round: Round) -> u64 {
    let (x, y) = (F::from_bits(u128::from(a)), F::from_bits(u128::from(b)));
    let r = match op {
        Arith::Add => x.add_r(y, round),
        Arith::Sub => x.sub_r(y, round),
        Arith::Mul => x.mul_r(y, round),
        Arith::Div => x.div_r(y, round),
    };
    r.value.to_bits() as u64
}

fn apfloat_fma<F: Float>(a: u64, b: u64, c: u64, round: Round) -> u64 {
    let (x, y, z) = (
        F::from_bits(u128::from(a)),
        F::from_bits(u128::from(b)),
        F::from_bits(u128::from(c)),
    );
    x.mul_add_r(y, z, round).value.to_bits() as u64
}

/// Correctly rounded `a op b` (no modifiers applied; NaN results not yet canonical).
#[inline]
fn arith_raw(format: Format, op: Arith, rounding: FloatRounding, a: u64, b: u64) -> u64 {
    match (format, rounding) {
        (Format::Single, FloatRounding::Rn) => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let r = match op {
                Arith::Add => x + y,
                Arith::Sub => x - y,
                Arith::Mul => x * y,
                Arith::Div => x / y,
            };
            u64::from(r.to_bits())
        }
        (Format::Double, FloatRounding::Rn) => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let r = match op {
                Arith::Add => x + y,
                Arith::Sub => x - y,
                Arith::Mul => x * y,
                Arith::Div => x / y,
            };
            r.to_bits()
        }
        _ => {
            let round = apfloat_round(rounding);
            match format {
                Format::Half => apfloat_arith::<Half>(op, a, b, round),
                Format::BFloat => apfloat_arith::<BFloat>(op, a, b, round),
                Format::Single => apfloat_arith::<Single>(op, a, b, round),
                Format::Double => apfloat_arith::<Double>(op, a, b, round),
            }
        }
    }
}

/// Correctly rounded `a * b + c`, rounded once (no modifiers applied).
#[inline]
fn fma_raw(format: Format, rounding: FloatRounding, a: u64, b: u64, c: u64) -> u64 {
    match (format, rounding) {
        (Format::Single, FloatRounding::Rn) => {
            let (x, y, z) = (
                f32::from_bits(a as u32),
                f32::from_bits(b as u32),
                f32::from_bits(c as u32),
            );
            u64::from(x.mul_add(y, z).to_bits())
        }
        (Format::Double, FloatRounding::Rn) => f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits(),
        _ => {
            let round = apfloat_round(rounding);
            match format {
                Format::Half => apfloat_fma::<Half>(a, b, c, round),
                Format::BFloat => apfloat_fma::<BFloat>(a, b, c, round),
                Format::Single => apfloat_fma::<Single>(a, b, c, round),
                Format::Double => apfloat_fma::<Double>(a, b, c, round),
            }
        }
    }
}

/// Applies `.ftz` to an input, if the format has it.
#[inline]
fn flush_input(format: Format, modifiers: FloatModifiers, x: u64) -> u64 {
    if modifiers.ftz && format.has_ftz() {
        format.flush(x)
    } else {
        x
    }
}

/// Canonical NaN, then `.ftz`, `.sat` and `.relu` on a result.
///
/// * `.sat`: "clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0" (9.7.3.1);
///   a result with the sign bit set (including -0.0) becomes +0.0, as in `cvt` (see
///   `ptxsim_softfloat`).
/// * `.relu`: "clamps the result to 0 if negative. NaN result is converted to canonical NaN"
///   (9.7.4.5).
#[inline]
fn finish(format: Format, modifiers: FloatModifiers, r: u64) -> u64 {
    if format.is_nan(r) {
        return if modifiers.sat {
            0
        } else {
            format.canonical_nan()
        };
    }
    let mut r = flush_input(format, modifiers, r);
    if modifiers.sat {
        if format.is_negative(r) {
            r = 0;
        } else if r > format.one() {
            r = format.one();
        }
    }
    if modifiers.relu && format.is_negative(r) {
        r = 0;
    }
    r
}

/// `min`/`max` of one lane (9.7.3.11-12, 9.7.4.7-8): "if (isNaN(x) && isNaN(y)) z = NaN; else
/// if (isNaN(x)) z = y; else if (isNaN(y)) z = x; else z = (x < y) ? x : y" with "note: -0.0
/// < +0.0 here"; with `.NaN` "the result is canonical NaN if any of the inputs is NaN".
fn min_max(format: Format, is_max: bool, modifiers: FloatModifiers, a: u64, b: u64) -> u64 {
    let a = flush_input(format, modifiers, a);
    let b = flush_input(format, modifiers, b);
    let (a_nan, b_nan) = (format.is_nan(a), format.is_nan(b));
    let r = if (a_nan && b_nan) || (modifiers.nan && (a_nan || b_nan)) {
        format.canonical_nan()
    } else if a_nan {
        b
    } else if b_nan {
        a
    } else {
        let a_less = format.order_key(a) < format.order_key(b);
        if a_less != is_max { a } else { b }
    };
    let relu_only = FloatModifiers {
        sat: false,
        ..modifiers
    };
    finish(format, relu_only, r)
}

/// One lane of [`float_binary`].
fn binary_lane(format: Format, op: FloatOp, modifiers: FloatModifiers, a: u64, b: u64) -> u64 {
    let m = mask(format.width());
    let (a, b) = (a & m, b & m);
    let arith = match op {
        FloatOp::Add => Arith::Add,
        FloatOp::Sub => Arith::Sub,
        FloatOp::Mul => Arith::Mul,
        FloatOp::Div => Arith::Div,
        FloatOp::Min => return min_max(format, false, modifiers, a, b),
        FloatOp::Max => return min_max(format, true, modifiers, a, b),
    };
    if format == Format::Double {
        if let Some(nan) = f64_nan_operand(&[a, b]) {
            return nan;
        }
        return f64_result(arith_raw(format, arith, modifiers.rounding, a, b));
    }
    if !modifiers.ftz && !modifiers.sat && !modifiers.relu {
        let r = arith_raw(format, arith, modifiers.rounding, a, b);
        return if format.is_nan(r) {
            format.canonical_nan()
        } else {
            r
        };
    }
    let a = flush_input(format, modifiers, a);
    let b = flush_input(format, modifiers, b);
    finish(
        format,
        modifiers,
        arith_raw(format, arith, modifiers.rounding, a, b),
    )
}

/// Applies `lane` to both 16-bit halves (low lane = bits 15:0).
#[inline]
fn lanes2(a: u64, b: u64, c: u64, lane: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let lo = lane(a & 0xffff, b & 0xffff, c & 0xffff) & 0xffff;
    let hi = lane((a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff) & 0xffff;
    lo | hi << 16
}

/// `add sub mul div min max` on `.f32`, `.f64`, `.f16`, `.bf16`, `.f16x2`, `.bf16x2` (PTX ISA
/// 9.7.3.1-3, 9.7.3.8, 9.7.3.11-12, 9.7.4.1-3, 9.7.4.7-8).
///
/// * The result is the exact result rounded once with `modifiers.rounding` ("`.rn` mantissa
///   LSB rounds to nearest even", "`.rz` ... towards zero", "`.rm` ... negative infinity",
///   "`.rp` ... positive infinity").
/// * `.ftz` flushes subnormal inputs and results to sign-preserving zero (`.f32` and the `.f16`
///   forms only: `.f64` and `.bf16` have no `.ftz`, the flag is ignored for them).
/// * `.sat` clamps to [0.0, 1.0], NaN to +0.0; `.relu` clamps negative results to +0.0.
/// * `div.approx` / `div.full` (`modifiers.approx`) return the correctly rounded `.rn`
///   quotient. The hardware's approximations differ by up to 2 ulp (`.full`) or more
///   (`.approx`, "max relative error 2^-23 ... for |b| in [2^-126, 2^126]").
/// * `min`/`max`: see the module documentation; -0.0 < +0.0.
/// * x2 types operate lane by lane, the low lane in bits 15:0.
///
/// Other types give 0.
pub fn float_binary(op: FloatOp, ty: Type, modifiers: FloatModifiers, a: u64, b: u64) -> u64 {
    let Some(format) = Format::of(ty) else {
        return 0;
    };
    let modifiers = if op == FloatOp::Div && modifiers.approx {
        FloatModifiers {
            rounding: FloatRounding::Rn,
            ..modifiers
        }
    } else {
        modifiers
    };
    match ty {
        Type::F16x2 | Type::Bf16x2 => {
            lanes2(a, b, 0, |x, y, _| binary_lane(format, op, modifiers, x, y))
        }
        _ => binary_lane(format, op, modifiers, a, b),
    }
}

/// One lane of [`float_fma`].
fn fma_lane(format: Format, modifiers: FloatModifiers, a: u64, b: u64, c: u64) -> u64 {
    let m = mask(format.width());
    if format == Format::Double {
        // ptxas emits DFMA with the product's operands swapped: the GPU takes a NaN from `b`,
        // then `c`, then `a` (measured).
        if let Some(nan) = f64_nan_operand(&[b, c, a]) {
            return nan;
        }
        return f64_result(fma_raw(format, modifiers.rounding, a, b, c));
    }
    let a = flush_input(format, modifiers, a & m);
    let b = flush_input(format, modifiers, b & m);
    let c = flush_input(format, modifiers, c & m);
    finish(
        format,
        modifiers,
        fma_raw(format, modifiers.rounding, a, b, c),
    )
}

/// `fma.rnd{.ftz}{.sat}{.relu}.type d, a, b, c` and `mad.rnd` on floats (PTX ISA 9.7.3.5,
/// 9.7.4.5): "Performs a fused multiply-add with no loss of precision in the intermediate
/// product and addition": `d = a * b + c` computed "to infinite precision and then rounded"
/// once. Modifiers as in [`float_binary`]; x2 types lane by lane.
pub fn float_fma(ty: Type, modifiers: FloatModifiers, a: u64, b: u64, c: u64) -> u64 {
    let Some(format) = Format::of(ty) else {
        return 0;
    };
    match ty {
        Type::F16x2 | Type::Bf16x2 => {
            lanes2(a, b, c, |x, y, z| fma_lane(format, modifiers, x, y, z))
        }
        _ => fma_lane(format, modifiers, a, b, c),
    }
}

/// The correctly rounded square root of a positive, finite, non-zero value: the exact integer
/// square root of the scaled significand with a sticky bit, rounded by `rustc_apfloat`.
fn sqrt_positive<F: Float>(format: Format, x: u64, round: Round) -> u64 {
    let mb = format.mantissa_bits();
    let biased = ((x & format.exponent_mask()) >> mb) as i32;
    let bias = (1i32 << (format.width() - 2 - mb)) - 1;
    let fraction = u128::from(x & mask(mb));
    // x = significand * 2^exponent with an integer significand.
    let (mut significand, mut exponent) = if biased == 0 {
        (fraction, 1 - bias - mb as i32)
    } else {
        (fraction | 1 << mb, biased - bias - mb as i32)
    };
    // At least 2 * (precision + 3) bits, and an even exponent.
    let target = 2 * (mb as i32 + 4);
    let mut shift = target - (128 - significand.leading_zeros() as i32);
    if (exponent - shift) % 2 != 0 {
        shift += 1;
    }
    significand <<= shift;
    exponent -= shift;
    let root = significand.isqrt();
    let sticky = u128::from(root * root != significand);
    // sqrt(x) = (root + fraction) * 2^(exponent/2); 2*root + sticky carries the rounding.
    let value = F::from_u128_r(root << 1 | sticky, round).value;
    value.scalbn(exponent / 2 - 1).to_bits() as u64
}

/// One lane of [`float_unary`].
fn unary_lane(format: Format, op: FloatUnaryOp, modifiers: FloatModifiers, a: u64) -> u64 {
    let m = mask(format.width());
    let a = a & m;
    match op {
        FloatUnaryOp::Abs | FloatUnaryOp::Neg => {
            if format.is_nan(a) {
                // f64: the CUDA C++ Programming Guide ("Floating-Point Standard") says NaNs
                // are "passed through unchanged"; an sm_90 GPU quiets a signalling NaN and
                // leaves the sign (measured, docs/divergences.md H3). Other formats: PTX says
                // "NaN inputs yield an unspecified NaN"; the canonical one.
                return if format == Format::Double {
                    a | 1 << 51
                } else {
                    format.canonical_nan()
                };
            }
            let a = flush_input(format, modifiers, a);
            if op == FloatUnaryOp::Abs {
                a & !format.sign()
            } else {
                a ^ format.sign()
            }
        }
        FloatUnaryOp::Rcp if format == Format::Double && !modifiers.approx => {
            if let Some(nan) = f64_nan_operand(&[a]) {
                return nan;
            }
            f64_result(arith_raw(
                format,
                Arith::Div,
                modifiers.rounding,
                format.one(),
                a,
            ))
        }
        FloatUnaryOp::Sqrt if format == Format::Double && !modifiers.approx => {
            if let Some(nan) = f64_nan_operand(&[a]) {
                return nan;
            }
            if format.is_negative(a) && a & !format.sign() != 0 {
                return F64_DEFAULT_NAN;
            }
            let r = if a & !format.sign() == 0 || a == format.exponent_mask() {
                a
            } else if modifiers.rounding == FloatRounding::Rn {
                f64::from_bits(a).sqrt().to_bits()
            } else {
                sqrt_positive::<Double>(format, a, apfloat_round(modifiers.rounding))
            };
            f64_result(r)
        }
        FloatUnaryOp::Rcp => {
            // `rcp.approx.ftz.f64` is the one `.f64` instruction that flushes subnormals.
            let ftz64 = format == Format::Double && modifiers.ftz && modifiers.approx;
            let a = if ftz64 {
                format.flush(a)
            } else {
                flush_input(format, modifiers, a)
            };
            let rounding = if modifiers.approx {
                FloatRounding::Rn
            } else {
                modifiers.rounding
            };
            let r = arith_raw(format, Arith::Div, rounding, format.one(), a);
            let r = finish(format, modifiers, r);
            if ftz64 { format.flush(r) } else { r }
        }
        FloatUnaryOp::Sqrt => {
            let a = flush_input(format, modifiers, a);
            let rounding = if modifiers.approx {
                FloatRounding::Rn
            } else {
                modifiers.rounding
            };
            let r = if format.is_nan(a) || (format.is_negative(a) && a & !format.sign() != 0) {
                // "sqrt(-x) = NaN" for x > 0, and NaN inputs give NaN.
                format.canonical_nan()
            } else if a & !format.sign() == 0 || a == format.exponent_mask() {
                // sqrt(+-0) = +-0, sqrt(+Inf) = +Inf.
                a
            } else {
                match (format, rounding) {
                    (Format::Single, FloatRounding::Rn) => {
                        u64::from(f32::from_bits(a as u32).sqrt().to_bits())
                    }
                    (Format::Double, FloatRounding::Rn) => f64::from_bits(a).sqrt().to_bits(),
                    _ => {
                        let round = apfloat_round(rounding);
                        match format {
                            Format::Half => sqrt_positive::<Half>(format, a, round),
                            Format::BFloat => sqrt_positive::<BFloat>(format, a, round),
                            Format::Single => sqrt_positive::<Single>(format, a, round),
                            Format::Double => sqrt_positive::<Double>(format, a, round),
                        }
                    }
                }
            };
            finish(format, modifiers, r)
        }
    }
}

/// `abs neg rcp sqrt` on floating-point types (PTX ISA 9.7.3.6-7 `abs`/`neg`, 9.7.3.8 `rcp`,
/// 9.7.3.10 `sqrt`, 9.7.4.4 and 9.7.4.6 half `abs`/`neg`).
///
/// * `abs`/`neg` change the sign bit only ("`d = |a|`", "`d = -a`"), after `.ftz`. NaN inputs:
///   `.f64` passes them through unchanged, the other formats give the canonical NaN.
/// * `rcp.rnd` is `1.0 / a` rounded once; `sqrt.rnd` the correctly rounded square root
///   ("`sqrt(-x) = NaN`", "`sqrt(-0.0) = -0.0`"). `.approx` forms give the correctly rounded
///   `.rn` value; the hardware's approximations ("max ulp error 1" for `rcp.approx.f32`,
///   relative error 2^-23 for `sqrt.approx.f32`) may differ in the last bits.
/// * x2 types lane by lane; other types give 0.
pub fn float_unary(op: FloatUnaryOp, ty: Type, modifiers: FloatModifiers, a: u64) -> u64 {
    let Some(format) = Format::of(ty) else {
        return 0;
    };
    match ty {
        Type::F16x2 | Type::Bf16x2 => {
            lanes2(a, 0, 0, |x, _, _| unary_lane(format, op, modifiers, x))
        }
        _ => unary_lane(format, op, modifiers, a),
    }
}

/// The exact value of a floating-point number (f16, bf16 and f32 are subsets of f64).
fn to_f64(format: Format, x: u64) -> f64 {
    match format {
        Format::Double => f64::from_bits(x),
        Format::Single => f64::from(f32::from_bits(x as u32)),
        Format::BFloat => f64::from(f32::from_bits((x as u32 & 0xffff) << 16)),
        Format::Half => {
            let x = x & 0xffff;
            let negative = x & 0x8000 != 0;
            let exponent = ((x >> 10) & 0x1f) as i32;
            let fraction = (x & 0x3ff) as f64;
            let magnitude = match exponent {
                0 => fraction * 2f64.powi(-24),
                31 if fraction == 0.0 => f64::INFINITY,
                31 => f64::NAN,
                e => (1024.0 + fraction) * 2f64.powi(e - 25),
            };
            if negative { -magnitude } else { magnitude }
        }
    }
}

/// The comparison of `setp.CmpOp{.ftz}.type` (PTX ISA 9.7.7.2 and the tables "Operators for
/// signed integer, unsigned integer, and bit-size types" and "Floating-point comparison
/// operators").
///
/// * Integers: `.eq .ne` on the bits; `.lt .le .gt .ge` signed for `.s` types and unsigned for
///   `.u` and `.b` types; `.lo .ls .hi .hs` always unsigned. The float-only operators map to
///   their ordered counterparts (`.num` is true, `.nan` false).
/// * Floats (`.f32 .f64 .f16 .bf16`; for the x2 types, the low lane): "`.eq .ne .lt .le .gt
///   .ge` ... If either operand is NaN, the result is False"; "`.equ .neu .ltu .leu .gtu .geu`
///   ... If either operand is NaN, the result is True"; "`.num` ... True if both operands are
///   numeric values (not NaN)", "`.nan` ... True if either operand is NaN". `.ftz` flushes
///   subnormal `.f32`/`.f16` inputs; +0.0 == -0.0. `.lo .ls .hi .hs` act as `.lt .le .gt .ge`.
#[inline(always)]
pub fn compare(compare: Compare, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    if let Some(format) = Format::of(ty) {
        let flush = |x: u64| {
            let x = x & mask(format.width());
            if ftz && format.has_ftz() {
                format.flush(x)
            } else {
                x
            }
        };
        let (x, y) = (to_f64(format, flush(a)), to_f64(format, flush(b)));
        let unordered = x.is_nan() || y.is_nan();
        return match compare {
            Compare::Eq => x == y,
            Compare::Ne => !unordered && x != y,
            Compare::Lt | Compare::Lo => x < y,
            Compare::Le | Compare::Ls => x <= y,
            Compare::Gt | Compare::Hi => x > y,
            Compare::Ge | Compare::Hs => x >= y,
            Compare::Equ => unordered || x == y,
            Compare::Neu => x != y,
            Compare::Ltu => unordered || x < y,
            Compare::Leu => unordered || x <= y,
            Compare::Gtu => unordered || x > y,
            Compare::Geu => unordered || x >= y,
            Compare::Num => !unordered,
            Compare::Nan => unordered,
        };
    }
    let w = width(ty);
    let (a, b) = (a & mask(w), b & mask(w));
    let signed = ty.kind() == TypeKind::Signed;
    let ordering = if signed {
        sext(a, w).cmp(&sext(b, w))
    } else {
        a.cmp(&b)
    };
    let unsigned = a.cmp(&b);
    match compare {
        Compare::Eq | Compare::Equ => a == b,
        Compare::Ne | Compare::Neu => a != b,
        Compare::Lt | Compare::Ltu => ordering.is_lt(),
        Compare::Le | Compare::Leu => ordering.is_le(),
        Compare::Gt | Compare::Gtu => ordering.is_gt(),
        Compare::Ge | Compare::Geu => ordering.is_ge(),
        Compare::Lo => unsigned.is_lt(),
        Compare::Ls => unsigned.is_le(),
        Compare::Hi => unsigned.is_gt(),
        Compare::Hs => unsigned.is_ge(),
        Compare::Num => true,
        Compare::Nan => false,
    }
}

/// The combination of `setp.CmpOp.BoolOp`: "`p = BoolOp(t, c)`" (PTX ISA 9.7.7.2).
#[inline]
pub fn combine(op: BoolOp, a: bool, b: bool) -> bool {
    match op {
        BoolOp::And => a && b,
        BoolOp::Or => a || b,
        BoolOp::Xor => a != b,
    }
}

/// `prmt.b32{.mode} d, a, b, c` (PTX ISA 9.7.9.7): "Pick four arbitrary bytes from two 32-bit
/// registers, and reassemble them into a 32-bit destination register."
///
/// * No mode: "The bytes in the two source registers are numbered from 0 to 7: {b, a} = {{b7,
///   b6, b5, b4}, {b3, b2, b1, b0}}. For each byte in the target register, a 4-bit selection
///   value is defined. The 3 lsbs of the selection value specify which of the 8 source bytes
///   should be moved into the target position. The msb defines if the byte value should be
///   copied, or if the sign (msb of the byte) should be replicated over all 8 bits".
/// * Modes: "uses the two lsb's of operand c" to pick a row of the spec's table (bytes of d
///   from b3 down to b0): `.f4e` 3210/4321/5432/6543, `.b4e` 5670/6701/7012/0123, `.rc8`
///   0000/1111/2222/3333, `.ecl` 3210/3211/3222/3333, `.ecr` 0000/1110/2210/3210, `.rc16`
///   1010/3232/1010/3232.
pub fn prmt(mode: PrmtMode, a: u32, b: u32, selector: u32) -> u32 {
    let source = u64::from(b) << 32 | u64::from(a);
    let byte = |i: u32| ((source >> (8 * (i & 7))) & 0xff) as u32;
    let row: [u32; 4] = match mode {
        PrmtMode::Default => {
            let mut d = 0;
            for position in 0..4 {
                let control = (selector >> (4 * position)) & 0xf;
                let mut value = byte(control);
                if control & 8 != 0 {
                    value = if value & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= value << (8 * position);
            }
            return d;
        }
        // Rows are [d.b0, d.b1, d.b2, d.b3].
        PrmtMode::F4e => {
            let s = selector & 3;
            [s, s + 1, s + 2, s + 3]
        }
        PrmtMode::B4e => {
            let s = selector & 3;
            [s, s + 7, s + 6, s + 5]
        }
        PrmtMode::Rc8 => [selector & 3; 4],
        PrmtMode::Ecl => {
            let s = selector & 3;
            [s, s.max(1), s.max(2), 3]
        }
        PrmtMode::Ecr => {
            let s = selector & 3;
            [0, s.min(1), s.min(2), s]
        }
        PrmtMode::Rc16 => {
            let s = (selector & 1) * 2;
            [s, s + 1, s, s + 1]
        }
    };
    row.iter()
        .enumerate()
        .fold(0, |d, (position, &i)| d | byte(i) << (8 * position))
}

/// `lop3.b32 d, a, b, c, immLut` (PTX ISA 9.7.8.6): "Compute bitwise logical operation on
/// inputs a, b, c and store the result in destination d", where `immLut` is the truth table
/// `F(0xF0, 0xCC, 0xAA)`: bit `4a + 2b + c` of `lut` is the result for input bits `a, b, c`.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..8u32 {
        if lut >> i & 1 != 0 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            d |= x & y & z;
        }
    }
    d
}

/// `bfe.type d, a, b, c` (PTX ISA 9.7.1.19): "Extract bit field from a and place the
/// zero or sign-extended result in d", with `pos = b & 0xff`, `len = c & 0xff`; "`sbit = 0`"
/// for `.u` types or `len == 0`, else "`a[min(pos+len-1, msb)]`"; "`d[i] = (i<len &&
/// pos+i<=msb) ? a[pos+i] : sbit`".
///
/// Hardware over text: an sm_90 GPU takes the whole 32-bit `b` and `c` as position and length
/// for the 64-bit types (only the 32-bit types keep 8 bits of each), measured on every input of
/// `tests/hardware/ops` (docs/divergences.md, "Hardware over text").
pub fn bfe(ty: Type, a: u64, position: u32, length: u32) -> u64 {
    let msb = u64::from(width(ty) - 1);
    let (position, length) = field(ty, position, length);
    let bit = |i: u64| if i > msb { 0 } else { (a >> i) & 1 };
    let sign = if ty.kind() != TypeKind::Signed || length == 0 {
        0
    } else {
        bit((position + length - 1).min(msb))
    };
    let mut d = 0;
    for i in 0..=msb {
        let value = if i < length && position + i <= msb {
            bit(position + i)
        } else {
            sign
        };
        d |= value << i;
    }
    d
}

/// The position and length operands of `bfe`/`bfi`: 8 bits of each for the 32-bit types (the
/// ISA's `& 0xff`), the whole 32-bit values for the 64-bit types (what an sm_90 GPU does).
fn field(ty: Type, position: u32, length: u32) -> (u64, u64) {
    if width(ty) == 64 {
        (u64::from(position), u64::from(length))
    } else {
        (u64::from(position & 0xff), u64::from(length & 0xff))
    }
}

/// `bfi.type f, a, b, c, d` (PTX ISA 9.7.1.20): "Align and insert a bit field from a into b,
/// and place the result in f", `pos = c & 0xff`, `len = d & 0xff`; "`f = b; for (i=0; i<len &&
/// pos+i<=msb; i++) f[pos+i] = a[i]`". For `.b64` the position and length are the whole 32-bit
/// operands, as for [`bfe`] (measured on an sm_90 GPU).
pub fn bfi(ty: Type, a: u64, b: u64, position: u32, length: u32) -> u64 {
    let msb = u64::from(width(ty) - 1);
    let (position, length) = field(ty, position, length);
    let mut f = b & mask(width(ty));
    let mut i = 0;
    while i < length && position + i <= msb {
        f = (f & !(1 << (position + i))) | ((a >> i) & 1) << (position + i);
        i += 1;
    }
    f
}

/// The new memory value of `atom.op.type` / `red.op.type` (PTX ISA 9.7.13.5-6): "`*a =
/// (operation == cas) ? operation(*a, b, c) : operation(*a, b)`" with "`inc(r, s) = (r >= s) ?
/// 0 : r+1; dec(r, s) = (r==0 || r > s) ? s : r-1; exch(r, s) = s; cas(r,s,t) = (r == s) ? t :
/// r`".
///
/// * Integer `.add` wraps; `.min`/`.max` are signed for `.s` types.
/// * Floating-point `.add` "rounds to nearest even" and keeps subnormals (the shared-memory
///   and `.noftz` behaviour). "Current implementation of atom.add.f32 on global memory flushes
///   subnormal inputs and results to sign-preserving zero": the caller applies that by
///   passing `.ftz` inputs, this function has no state space. x2 types lane by lane.
/// * Float `.min`/`.max` follow [`float_binary`].
pub fn atom(op: AtomOp, ty: Type, old: u64, b: u64, c: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let (old, b, c) = (old & m, b & m, c & m);
    let rn = FloatModifiers {
        rounding: FloatRounding::Rn,
        ftz: false,
        sat: false,
        relu: false,
        approx: false,
        nan: false,
        oob: false,
        xorsign_abs: false,
    };
    let float = ty.is_float();
    match op {
        AtomOp::Add if float => float_binary(FloatOp::Add, ty, rn, old, b),
        AtomOp::Min if float => float_binary(FloatOp::Min, ty, rn, old, b),
        AtomOp::Max if float => float_binary(FloatOp::Max, ty, rn, old, b),
        AtomOp::Add => old.wrapping_add(b) & m,
        AtomOp::Min => int_binary(IntOp::Min, ty, false, false, old, b),
        AtomOp::Max => int_binary(IntOp::Max, ty, false, false, old, b),
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    }
}
