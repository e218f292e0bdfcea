//! The floating-point family: `add sub mul div min max`, `fma`/`mad`, `abs neg rcp sqrt` on
//! `.f32`, `.f64` and the half types (PTX ISA 9.7.3 and 9.7.4), and the canonical NaNs; see the
//! [parent module](super) for the rounding and NaN rules.

use ptxsim_isa::Rounding;
use ptxsim_isa::Type;
use ptxsim_isa::ops::{FloatModifiers, FloatOp, FloatUnaryOp};
use ptxsim_softfloat::format as sf;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, Round};

use super::approx::{self, Approx32};
use super::mask;

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

/// The four formats `.f16`, `.bf16`, `.f32`, `.f64` arithmetic runs in (on `rustc_apfloat`'s
/// types); their widths are `ptxsim-softfloat`'s format data, the one description of each
/// number format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Half,
    BFloat,
    Single,
    Double,
}

impl Format {
    pub(super) const fn of(ty: Type) -> Option<Format> {
        match ty {
            Type::F16 | Type::F16x2 => Some(Format::Half),
            Type::Bf16 | Type::Bf16x2 => Some(Format::BFloat),
            Type::F32 => Some(Format::Single),
            Type::F64 => Some(Format::Double),
            _ => None,
        }
    }

    /// The format's description in `ptxsim-softfloat`.
    const fn data(self) -> &'static sf::Format {
        match self {
            Format::Half => &sf::F16,
            Format::BFloat => &sf::BF16,
            Format::Single => &sf::F32,
            Format::Double => &sf::F64,
        }
    }

    pub(super) const fn width(self) -> u32 {
        self.data().value_bits()
    }

    const fn mantissa_bits(self) -> u32 {
        self.data().mantissa_bits
    }

    const fn sign(self) -> u64 {
        self.data().sign_bit()
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
        (self.data().bias as u64) << self.mantissa_bits()
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
    pub(super) const fn has_ftz(self) -> bool {
        matches!(self, Format::Single | Format::Half)
    }

    /// Flushes a subnormal to sign-preserving zero.
    #[inline]
    pub(super) const fn flush(self, x: u64) -> u64 {
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

/// The `rustc_apfloat` rounding of a [`FloatModifiers::rounding`]. `decode_op` gives
/// arithmetic only the [`Rounding::FLOAT`] modes; the others map to the direction they round
/// in (`.rs`, which arithmetic never takes, toward zero) so that the function is total.
const fn apfloat_round(rounding: Rounding) -> Round {
    match rounding {
        Rounding::Rn | Rounding::Rni => Round::NearestTiesToEven,
        Rounding::Rna => Round::NearestTiesToAway,
        Rounding::Rz | Rounding::Rzi | Rounding::Rs => Round::TowardZero,
        Rounding::Rm | Rounding::Rmi => Round::TowardNegative,
        Rounding::Rp | Rounding::Rpi => Round::TowardPositive,
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
fn arith_raw(format: Format, op: Arith, rounding: Rounding, a: u64, b: u64) -> u64 {
    match (format, rounding) {
        (Format::Single, Rounding::Rn) => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let r = match op {
                Arith::Add => x + y,
                Arith::Sub => x - y,
                Arith::Mul => x * y,
                Arith::Div => x / y,
            };
            u64::from(r.to_bits())
        }
        (Format::Double, Rounding::Rn) => {
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

/// Correctly rounded `.f64` `a * b + c`, rounded once by `rounding` (NaN results not yet
/// canonical): the step of `mma`'s and `wmma.mma`'s `.f64` forms.
pub fn fma_f64(a: u64, b: u64, c: u64, rounding: Rounding) -> u64 {
    fma_raw(Format::Double, rounding, a, b, c)
}

/// Correctly rounded `a * b + c`, rounded once (no modifiers applied).
#[inline]
fn fma_raw(format: Format, rounding: Rounding, a: u64, b: u64, c: u64) -> u64 {
    match (format, rounding) {
        (Format::Single, Rounding::Rn) => {
            let (x, y, z) = (
                f32::from_bits(a as u32),
                f32::from_bits(b as u32),
                f32::from_bits(c as u32),
            );
            u64::from(x.mul_add(y, z).to_bits())
        }
        (Format::Double, Rounding::Rn) => f64::from_bits(a)
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
    if modifiers.xorsign_abs {
        // 9.7.3.11-12 `.xorsign.abs`: "the sign bit of the result is XOR of the sign bits of
        // the inputs, and the absolute value of the result is the min/max of the absolute
        // values of the inputs" (a NaN result stays the canonical NaN).
        let sign = (a ^ b) & format.sign();
        let plain = FloatModifiers {
            xorsign_abs: false,
            ..modifiers
        };
        let r = min_max(
            format,
            is_max,
            plain,
            a & !format.sign(),
            b & !format.sign(),
        );
        return if format.is_nan(r) { r } else { r | sign };
    }
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
        // 9.7.3.2: "Copy sign bit of a into value of b": only the sign bit changes.
        FloatOp::Copysign => return (b & !format.sign()) | (a & format.sign()),
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
    // `div.approx{.ftz}.f32` and `div.full{.ftz}.f32`: the models of [`super::approx`].
    if op == FloatOp::Div && modifiers.approx && ty == Type::F32 {
        let (a, b) = (a as u32, b as u32);
        return u64::from(if modifiers.full {
            approx::div_full_f32(a, b, modifiers.ftz)
        } else {
            approx::div_approx_f32(a, b, modifiers.ftz)
        });
    }
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
    if modifiers.oob && (is_oob_nan(a & m) || is_oob_nan(b & m)) {
        return 0;
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

/// The 16-bit NaN an out-of-bounds tensor load leaves in its destination (`fma.oob`, PTX ISA
/// 9.7.4.5: such an operand makes the result zero): `0x7ff7` or `0xfff7`, for `.f16` and
/// `.bf16` alike. Measured on the H200 (`scripts/hardware/oob/oob.cu`, every 16-bit pattern in
/// each operand of the eight `fma.rn.oob{.relu}` forms): exactly these two patterns in `a` or
/// `b` give `+0` whatever `c` is; in `c` they are an ordinary NaN (canonical NaN result), as is
/// every other NaN anywhere.
fn is_oob_nan(lane: u64) -> bool {
    lane == 0x7ff7 || lane == 0xfff7
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

/// `ex2 lg2 sin cos tanh rsqrt .approx` on one lane: the models of [`super::approx`] (the
/// 16-bit forms are the H200's measured tables; see `docs/approx.md` for what is bit-exact).
/// The decoder admits `.f32` for all of them, `.f64` for `rsqrt`, `.f16`/`.bf16` lanes for
/// `ex2` and `tanh`; any other combination gives the format's canonical NaN.
fn approx_lane(format: Format, op: FloatUnaryOp, ftz: bool, a: u64) -> u64 {
    let f = match op {
        FloatUnaryOp::Ex2 => Approx32::Ex2,
        FloatUnaryOp::Lg2 => Approx32::Lg2,
        FloatUnaryOp::Sin => Approx32::Sin,
        FloatUnaryOp::Cos => Approx32::Cos,
        FloatUnaryOp::Tanh => Approx32::Tanh,
        FloatUnaryOp::Rsqrt => Approx32::Rsqrt,
        _ => return format.canonical_nan(),
    };
    match (format, f) {
        (Format::Single, f) => u64::from(approx::approx_f32(f, a as u32, ftz)),
        (Format::Double, Approx32::Rsqrt) => approx::rsqrt_approx_f64(a, ftz),
        (Format::Half, Approx32::Ex2) => u64::from(approx::ex2_approx_f16(a as u16)),
        (Format::Half, Approx32::Tanh) => u64::from(approx::tanh_approx_f16(a as u16)),
        (Format::BFloat, Approx32::Ex2) => u64::from(approx::ex2_approx_ftz_bf16(a as u16)),
        (Format::BFloat, Approx32::Tanh) => u64::from(approx::tanh_approx_bf16(a as u16)),
        _ => format.canonical_nan(),
    }
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
        // `rcp.approx{.ftz}.f32` and `rcp.approx.ftz.f64`: the models of [`super::approx`].
        FloatUnaryOp::Rcp if modifiers.approx && format == Format::Single => {
            u64::from(approx::approx_f32(Approx32::Rcp, a as u32, modifiers.ftz))
        }
        FloatUnaryOp::Rcp if modifiers.approx && format == Format::Double => {
            approx::rcp_approx_ftz_f64(a)
        }
        FloatUnaryOp::Sqrt if modifiers.approx && format == Format::Single => {
            u64::from(approx::approx_f32(Approx32::Sqrt, a as u32, modifiers.ftz))
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
            } else if modifiers.rounding == Rounding::Rn {
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
                Rounding::Rn
            } else {
                modifiers.rounding
            };
            let r = arith_raw(format, Arith::Div, rounding, format.one(), a);
            let r = finish(format, modifiers, r);
            if ftz64 { format.flush(r) } else { r }
        }
        FloatUnaryOp::Rsqrt
        | FloatUnaryOp::Sin
        | FloatUnaryOp::Cos
        | FloatUnaryOp::Lg2
        | FloatUnaryOp::Ex2
        | FloatUnaryOp::Tanh => approx_lane(format, op, modifiers.ftz, a),
        FloatUnaryOp::Sqrt => {
            let a = flush_input(format, modifiers, a);
            let rounding = if modifiers.approx {
                Rounding::Rn
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
                    (Format::Single, Rounding::Rn) => {
                        u64::from(f32::from_bits(a as u32).sqrt().to_bits())
                    }
                    (Format::Double, Rounding::Rn) => f64::from_bits(a).sqrt().to_bits(),
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
