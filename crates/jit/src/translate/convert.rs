//! The `cvt` forms generated inline (PTX ISA 9.7.9.21), where the host's instruction computes
//! exactly what `ptxsim_softfloat::convert` computes (the interpreter's `cvt`), or a few
//! integer operations do; every other form calls the conversion of one element
//! ([`super::Translator::conversion`]).
//!
//! Why each host operation is the PTX operation:
//! * Integer to `.f32`/`.f64` with `.rn`: the host's conversion of a 64-bit integer rounds once,
//!   to nearest with ties to even (IEEE 754 5.4.1, `convertFromInt`, in the default rounding
//!   attribute), which is `.rn` ("rounding to nearest, with ties to even"). A conversion whose
//!   result is exact (8- and 16-bit integers to `.f32`, integers of up to 32 bits to `.f64`)
//!   gives that result in any rounding mode.
//! * Float to integer (`.rni`, `.rzi`, `.rmi`, `.rpi`): the host rounds to an integral value
//!   in the same format (IEEE 754 5.3.1 `roundToIntegralTiesToEven`, `roundToIntegralTowardZero`,
//!   `...TowardNegative`, `...TowardPositive`: exact), then converts that integral value with
//!   saturation (Cranelift's `fcvt_to_*_sat`: NaN to 0, out-of-range values to the nearest
//!   bound): "For float-to-integer conversions, the result is clamped to the destination range
//!   by default"; a NaN gives "Zero if source is not `.f64` and destination is not `.s64`,
//!   `.u64`. Otherwise 1 << (BitWidth(dst) - 1)", selected here.
//! * Float to the same float type with an integer rounding: the host's round to integral; a
//!   NaN gives the canonical `.f32` NaN, or an `.f64` NaN quieted (the rule softfloat measured
//!   on an sm_90 GPU, `NanPropagation`).
//! * `.f32` to `.f64` is exact (IEEE 754 5.4.2 `convertFormat`); `.f64` to `.f32` with `.rn`
//!   rounds as the host does. A NaN keeps its sign and payload, quieted (measured on sm_90, as
//!   softfloat's `NanPropagation::Payload`), computed here with integer operations rather than
//!   left to the host.
//! * `.f32` to `.f16`, `.bf16`, `.e4m3` and `.e5m2` with `.rn` ("ties to even") on the bits,
//!   as softfloat's fast path computes it: the mantissa's discarded bits rounded with an
//!   addition (a carry moves into the exponent by itself), and for subnormal results the
//!   host's `|x| + 2^q`, whose unit in the last place is the format's subnormal quantum (for
//!   `.f16`, `0.5`: `2^-24`), so that IEEE 754 addition rounds `|x|` to a multiple of it, to
//!   nearest even; overflow, `.satfinite`, `.relu` and NaN as softfloat applies them (PTX
//!   ISA 9.7.9.21: "If the absolute value of input (ignoring sign) is greater than MAX_NORM of
//!   the specified destination format, then the result is sign-preserved MAX_NORM").
//!   `.f16` to `.f32` is exact: the bits moved into place and scaled by `2^112` (an
//!   exact multiplication by a power of two); `.bf16` to `.f32` (without `.ftz`) is the shift
//!   by 16 bits that keeps a NaN's payload, as softfloat does.
//!
//! The host's floating-point operations run with IEEE 754 defaults (round to nearest even,
//! subnormals neither flushed nor treated as zero), as the generated `add`/`mul`/`fma` already
//! assume.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use ptxsim_softfloat::format::{Encoding, F32, Format};
use ptxsim_softfloat::{Flags, Rounding, Type as Sf};

use super::Translator;

/// An integer rounding's direction, the same for its floating-point modifier (softfloat's
/// `Dir`: `.rni` and `.rn` both round to nearest even).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    Nearest,
    Zero,
    Down,
    Up,
}

impl Round {
    fn of(rounding: Rounding) -> Option<Round> {
        Some(match rounding {
            Rounding::Rn | Rounding::Rni => Round::Nearest,
            Rounding::Rz | Rounding::Rzi => Round::Zero,
            Rounding::Rm | Rounding::Rmi => Round::Down,
            Rounding::Rp | Rounding::Rpi => Round::Up,
            Rounding::Rna | Rounding::Rs => return None,
        })
    }
}

/// A conversion generated inline ([`inline_form`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// An integer of `width` bits to `.f32` (`double` false) or `.f64`.
    IntToFloat {
        width: u32,
        signed: bool,
        double: bool,
    },
    /// `.f32` (`double` false) or `.f64` to an integer of `width` bits; `ftz` flushes an `.f32`
    /// subnormal source to zero first.
    FloatToInt {
        double: bool,
        width: u32,
        signed: bool,
        round: Round,
        ftz: bool,
    },
    /// `.f32` to `.f32` or `.f64` to `.f64` with an integer rounding.
    Integral {
        double: bool,
        round: Round,
        ftz: bool,
    },
    /// `.f32` to `.f64`.
    Widen { ftz: bool },
    /// `.f64` to `.f32` with `.rn`; `ftz` flushes a subnormal result.
    Narrow { ftz: bool },
    /// `.f32` to `.f16`, `.bf16`, `.e4m3` or `.e5m2` (a format [`small_float`] accepts) with
    /// `.rn`.
    Small {
        format: &'static Format,
        ftz: bool,
        relu: bool,
        satfinite: bool,
    },
    /// `.f16` to `.f32`.
    FromF16,
    /// `.bf16` to `.f32` without `.ftz`.
    FromBf16,
}

/// The inline form of `cvt{rounding}{flags}.to.from` (one element), or `None` when the
/// conversion of one element is called instead.
pub(crate) fn inline_form(from: Sf, to: Sf, rounding: Rounding, flags: Flags) -> Option<Form> {
    // `.sat` on a float destination clamps to [0, 1]; not generated here.
    let plain = !flags.sat && !flags.relu && !flags.satfinite;
    let float_rounding = matches!(
        rounding,
        Rounding::Rn | Rounding::Rz | Rounding::Rm | Rounding::Rp
    );
    match (from, to) {
        (Sf::F32 | Sf::F64, _) if to.integer().is_some() => {
            let (width, signed) = to.integer()?;
            // softfloat's float-to-integer conversion reads only `.ftz` of the flags.
            Some(Form::FloatToInt {
                double: from == Sf::F64,
                width,
                signed,
                round: Round::of(rounding)?,
                ftz: flags.ftz && from == Sf::F32,
            })
        }
        (_, Sf::F32 | Sf::F64) if from.integer().is_some() && plain => {
            let (width, signed) = from.integer()?;
            let double = to == Sf::F64;
            let exact = width <= if double { 32 } else { 16 };
            (exact || rounding == Rounding::Rn).then_some(Form::IntToFloat {
                width,
                signed,
                double,
            })
        }
        (Sf::F32, Sf::F32) | (Sf::F64, Sf::F64) if plain && rounding.is_integer() => {
            Some(Form::Integral {
                double: from == Sf::F64,
                round: Round::of(rounding)?,
                ftz: flags.ftz && from == Sf::F32,
            })
        }
        (Sf::F32, Sf::F64) if plain && float_rounding => Some(Form::Widen { ftz: flags.ftz }),
        (Sf::F64, Sf::F32) if plain && rounding == Rounding::Rn => {
            Some(Form::Narrow { ftz: flags.ftz })
        }
        (Sf::F32, _) if small_float(to).is_some() && !flags.sat && rounding == Rounding::Rn => {
            Some(Form::Small {
                format: small_float(to)?,
                ftz: flags.ftz,
                relu: flags.relu,
                satfinite: flags.satfinite,
            })
        }
        (Sf::F16, Sf::F32) if plain && float_rounding => Some(Form::FromF16),
        (Sf::Bf16, Sf::F32) if plain && float_rounding && !flags.ftz => Some(Form::FromBf16),
        _ => None,
    }
}

/// The format of `to` when [`Translator::narrow_float`] converts `.f32` to it: a signed float with
/// subnormals, a NaN, at most 16 bits and an exponent no wider than `.f32`'s (`.f16`, `.bf16`,
/// `.e4m3`, `.e5m2`).
fn small_float(to: Sf) -> Option<&'static Format> {
    let format = match to {
        Sf::F16 | Sf::Bf16 | Sf::E4m3 | Sf::E5m2 => to.format()?,
        _ => return None,
    };
    (matches!(format.encoding, Encoding::Float)
        && format.signed
        && format.subnormals
        && format.has_nan()
        && format.low_zero_bits == 0
        && format.container_bits <= 16
        && format.mantissa_bits < 23
        && format.bias <= 127)
        .then_some(format)
}

impl Translator<'_, '_> {
    /// The element `a` (its bits chopped to the source's width) converted as `form` says, in
    /// the low bits of the result (zero above, as softfloat returns it).
    pub(super) fn inline_conversion(&mut self, form: Form, a: Value) -> Value {
        match form {
            Form::IntToFloat {
                width,
                signed,
                double,
            } => {
                let ty = if double { types::F64 } else { types::F32 };
                let r = if signed {
                    let value = if width < 64 {
                        self.sign_extend(a, width)
                    } else {
                        a
                    };
                    self.builder.ins().fcvt_from_sint(ty, value)
                } else if width < 64 {
                    // Zero-extended: a non-negative 64-bit integer.
                    self.builder.ins().fcvt_from_sint(ty, a)
                } else {
                    self.builder.ins().fcvt_from_uint(ty, a)
                };
                self.float_bits(r)
            }
            Form::FloatToInt {
                double,
                width,
                signed,
                round,
                ftz,
            } => self.float_to_int(double, (width, signed), round, ftz, a),
            Form::Integral { double, round, ftz } => {
                let a = if ftz { self.flush_f32(a) } else { a };
                let x = if double {
                    self.f64_of(a)
                } else {
                    self.f32_of(a)
                };
                let r = self.round(round, x);
                let bits = self.float_bits(r);
                // The canonical `.f32` NaN; an `.f64` NaN quieted (`NanPropagation`).
                let nan = if double {
                    self.builder.ins().bor_imm_s(a, 1 << 51)
                } else {
                    self.builder
                        .ins()
                        .iconst(types::I64, F32.canonical_nan as i64)
                };
                self.unless_nan(x, nan, bits)
            }
            Form::Widen { ftz } => {
                let source = if ftz { self.flush_f32(a) } else { a };
                let x = self.f32_of(source);
                let wide = self.builder.ins().fpromote(types::F64, x);
                let bits = self.float_bits(wide);
                // With `.ftz` a NaN is the canonical `.f32` NaN first.
                let nan_source = if ftz {
                    self.builder
                        .ins()
                        .iconst(types::I64, F32.canonical_nan as i64)
                } else {
                    a
                };
                let sign = self.builder.ins().band_imm_s(nan_source, 0x8000_0000);
                let sign = self.builder.ins().ishl_imm_s(sign, 32);
                let payload = self.builder.ins().band_imm_s(nan_source, 0x007f_ffff);
                let payload = self.builder.ins().ishl_imm_s(payload, 29);
                let nan = self.builder.ins().bor(sign, payload);
                let nan = self.builder.ins().bor_imm_s(nan, 0x7ff8_0000_0000_0000);
                self.unless_nan(x, nan, bits)
            }
            Form::Narrow { ftz } => {
                let x = self.f64_of(a);
                let narrow = self.builder.ins().fdemote(types::F32, x);
                let bits = self.float_bits(narrow);
                // "flush ... results to sign-preserving zero".
                let bits = if ftz { self.flush_f32(bits) } else { bits };
                let high = self.builder.ins().ushr_imm_s(a, 32);
                let sign = self.builder.ins().band_imm_s(high, 0x8000_0000);
                let payload = self.builder.ins().ushr_imm_s(a, 29);
                let payload = self.builder.ins().band_imm_s(payload, 0x007f_ffff);
                let nan = self.builder.ins().bor(sign, payload);
                let nan = self.builder.ins().bor_imm_s(nan, 0x7fc0_0000);
                self.unless_nan(x, nan, bits)
            }
            Form::Small {
                format,
                ftz,
                relu,
                satfinite,
            } => self.narrow_float(format, ftz, relu, satfinite, a),
            Form::FromF16 => {
                let magnitude = self.builder.ins().band_imm_s(a, 0x7fff);
                let placed = self.builder.ins().ishl_imm_s(magnitude, 13);
                let x = self.f32_of(placed);
                let scale = self.builder.ins().iconst(types::I32, 0x7780_0000); // 2^112
                let scale = self
                    .builder
                    .ins()
                    .bitcast(types::F32, MemFlagsData::new(), scale);
                let scaled = self.builder.ins().fmul(x, scale);
                let finite = self.float_bits(scaled);
                let infinity = self.builder.ins().iconst(types::I64, 0x7f80_0000);
                let big = self.builder.ins().icmp_imm_s(
                    IntCC::UnsignedGreaterThanOrEqual,
                    magnitude,
                    0x7c00,
                );
                let value = self.builder.ins().select(big, infinity, finite);
                let sign = self.builder.ins().band_imm_s(a, 0x8000);
                let sign = self.builder.ins().ishl_imm_s(sign, 16);
                let value = self.builder.ins().bor(value, sign);
                self.nan_above(magnitude, 0x7c00, F32.canonical_nan, value)
            }
            Form::FromBf16 => {
                let low = self.builder.ins().band_imm_s(a, 0xffff);
                self.builder.ins().ishl_imm_s(low, 16)
            }
        }
    }

    /// `.f32`/`.f64` to an integer of `width` bits (`signed` or not): rounded to an integral
    /// value, converted with saturation, a NaN as [`inline_form`] says.
    fn float_to_int(
        &mut self,
        double: bool,
        (width, signed): (u32, bool),
        round: Round,
        ftz: bool,
        a: Value,
    ) -> Value {
        let a = if ftz { self.flush_f32(a) } else { a };
        let x = if double {
            self.f64_of(a)
        } else {
            self.f32_of(a)
        };
        // Truncation is the saturating conversion's own rounding.
        let r = if round == Round::Zero {
            x
        } else {
            self.round(round, x)
        };
        let wide = width == 64;
        let ty = if wide { types::I64 } else { types::I32 };
        let mut value = if signed {
            self.builder.ins().fcvt_to_sint_sat(ty, r)
        } else {
            self.builder.ins().fcvt_to_uint_sat(ty, r)
        };
        if width < 32 {
            // Clamped to 32 bits; now to the destination's range.
            let (low, high) = if signed {
                (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
            } else {
                (0, (1i64 << width) - 1)
            };
            let high = self.builder.ins().iconst(types::I32, high);
            value = if signed {
                let low = self.builder.ins().iconst(types::I32, low);
                let value = self.builder.ins().smin(value, high);
                self.builder.ins().smax(value, low)
            } else {
                self.builder.ins().umin(value, high)
            };
        }
        if !wide {
            value = self.builder.ins().uextend(types::I64, value);
            value = self.chop(value, width);
        }
        // "Zero if source is not `.f64` and destination is not `.s64`, `.u64`. Otherwise
        // 1 << (BitWidth(dst) - 1)": the saturating conversion gives zero.
        if double || wide {
            let nan = self
                .builder
                .ins()
                .iconst(types::I64, (1u64 << (width - 1)) as i64);
            value = self.unless_nan(x, nan, value);
        }
        value
    }

    /// `.f32` (bits in `a`) to the narrower float `format` with `.rn`, `.ftz`, `.relu` and
    /// `.satfinite` as softfloat's `fast_float` (the same quantities: the kept bits, the
    /// discarded ones, the rounding), `decode` and `finish_float` apply them.
    fn narrow_float(
        &mut self,
        format: &Format,
        ftz: bool,
        relu: bool,
        satfinite: bool,
        a: Value,
    ) -> Value {
        let a = if ftz { self.flush_f32(a) } else { a };
        let mantissa = format.mantissa_bits;
        let bias = i64::from(format.bias);
        let magnitude = self.builder.ins().band_imm_s(a, 0x7fff_ffff);
        let high = self
            .builder
            .ins()
            .ushr_imm_s(a, i64::from(32 - format.value_bits()));
        let sign = self
            .builder
            .ins()
            .band_imm_s(high, format.sign_bit() as i64);
        // A normal result: the discarded mantissa bits rounded to nearest even (add just under
        // one half, and the kept bits' lowest bit: a tie rounds up when it is odd; a carry
        // moves into the exponent), the exponent re-biased from 127.
        let shift = i64::from(23 - mantissa);
        let kept = self.builder.ins().ushr_imm_s(magnitude, shift);
        let odd = self.builder.ins().band_imm_s(kept, 1);
        let rounded = self.builder.ins().iadd(magnitude, odd);
        let rounded = self
            .builder
            .ins()
            .iadd_imm_s(rounded, (1 << (shift - 1)) - 1);
        let rounded = self.builder.ins().ushr_imm_s(rounded, shift);
        let normal = self
            .builder
            .ins()
            .iadd_imm_s(rounded, -((127 - bias) << mantissa));
        // Below the smallest normal, 2^(1 - bias), the result is subnormal: `|x| + 2^q` in
        // `.f32`, where 2^(q - 23) (its unit in the last place) is the subnormal quantum
        // 2^(1 - bias - mantissa), rounds `|x|` to a multiple of the quantum, which the
        // sum's mantissa counts.
        let q = 1 - bias - i64::from(mantissa) + 23;
        let offset = ((q + 127) as u64) << 23;
        let x = self.f32_of(magnitude);
        let offset_value = self.builder.ins().iconst(types::I32, offset as i64);
        let offset_value =
            self.builder
                .ins()
                .bitcast(types::F32, MemFlagsData::new(), offset_value);
        let sum = self.builder.ins().fadd(x, offset_value);
        let sum = self.float_bits(sum);
        let subnormal = self.builder.ins().iadd_imm_s(sum, -(offset as i64));
        let small = self.builder.ins().icmp_imm_s(
            IntCC::UnsignedLessThan,
            magnitude,
            (1 - bias + 127) << 23,
        );
        let value = self.builder.ins().select(small, subnormal, normal);
        // Past MAX_NORM: with `.satfinite` MAX_NORM ("the result is sign-preserved MAX_NORM"),
        // else infinity, or the NaN of a format without one.
        let max_normal = format.max_normal_bits();
        let overflow =
            self.builder
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThan, value, max_normal as i64);
        let limit = match format.infinity_bits() {
            _ if satfinite => max_normal,
            Some(infinity) => infinity,
            None => format.canonical_nan,
        };
        let limit = self.builder.ins().iconst(types::I64, limit as i64);
        let value = self.builder.ins().select(overflow, limit, value);
        let mut value = self.builder.ins().bor(value, sign);
        if relu {
            // ".relu clamps the result to 0 if negative" (-0 too, as softfloat does).
            let zero = self.builder.ins().iconst(types::I64, 0);
            value = self.builder.ins().select(sign, zero, value);
        }
        self.nan_above(magnitude, 0x7f80_0000, format.canonical_nan, value)
    }

    /// `nan` where the magnitude bits of a float (its bits less the sign) are above
    /// `infinity`'s (a NaN), else `value`.
    fn nan_above(&mut self, magnitude: Value, infinity: i64, nan: u64, value: Value) -> Value {
        let nan = self.builder.ins().iconst(types::I64, nan as i64);
        let is_nan = self
            .builder
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, magnitude, infinity);
        self.builder.ins().select(is_nan, nan, value)
    }

    /// `x` rounded to an integral value in its format.
    fn round(&mut self, round: Round, x: Value) -> Value {
        match round {
            Round::Nearest => self.builder.ins().nearest(x),
            Round::Zero => self.builder.ins().trunc(x),
            Round::Down => self.builder.ins().floor(x),
            Round::Up => self.builder.ins().ceil(x),
        }
    }

    /// The bits of a host float, zero-extended to 64.
    fn float_bits(&mut self, x: Value) -> Value {
        let ty = self.builder.func.dfg.value_type(x);
        if ty == types::F64 {
            self.builder
                .ins()
                .bitcast(types::I64, MemFlagsData::new(), x)
        } else {
            let bits = self
                .builder
                .ins()
                .bitcast(types::I32, MemFlagsData::new(), x);
            self.builder.ins().uextend(types::I64, bits)
        }
    }

    /// `nan` where the host float `x` is a NaN, else `value`.
    fn unless_nan(&mut self, x: Value, nan: Value, value: Value) -> Value {
        let is_nan = self.builder.ins().fcmp(FloatCC::Unordered, x, x);
        self.builder.ins().select(is_nan, nan, value)
    }

    /// The `.f32` bits `a` with a subnormal flushed to its sign's zero (`.ftz`: "flush
    /// single-precision subnormal inputs and results to sign-preserving zero").
    fn flush_f32(&mut self, a: Value) -> Value {
        let exponent = self.builder.ins().band_imm_s(a, 0x7f80_0000);
        let sign = self.builder.ins().band_imm_s(a, 0x8000_0000);
        let zero_exponent = self.builder.ins().icmp_imm_s(IntCC::Equal, exponent, 0);
        self.builder.ins().select(zero_exponent, sign, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(from: Sf, to: Sf, rounding: Rounding, flags: Flags) -> Option<Form> {
        inline_form(from, to, rounding, flags)
    }

    /// The forms real kernels use are inline; those whose rounding the host cannot do, and
    /// the modifiers not generated here, are not.
    #[test]
    fn which_forms_are_inline() {
        let none = Flags::NONE;
        let ftz = Flags {
            ftz: true,
            ..Flags::NONE
        };
        let sat = Flags {
            sat: true,
            ..Flags::NONE
        };
        assert!(form(Sf::S32, Sf::F32, Rounding::Rn, none).is_some());
        assert!(form(Sf::U64, Sf::F64, Rounding::Rn, none).is_some());
        assert!(form(Sf::S32, Sf::F32, Rounding::Rz, none).is_none());
        assert!(form(Sf::S32, Sf::F64, Rounding::Rz, none).is_some()); // exact
        assert!(form(Sf::S16, Sf::F32, Rounding::Rm, none).is_some()); // exact
        assert!(form(Sf::S32, Sf::F32, Rounding::Rn, sat).is_none());
        assert!(form(Sf::F32, Sf::S32, Rounding::Rzi, ftz).is_some());
        assert!(form(Sf::F64, Sf::U16, Rounding::Rni, none).is_some());
        assert!(form(Sf::F32, Sf::F32, Rounding::Rmi, ftz).is_some());
        assert!(form(Sf::F32, Sf::F32, Rounding::Rn, ftz).is_none());
        assert!(form(Sf::F32, Sf::F64, Rounding::Rn, ftz).is_some());
        assert!(form(Sf::F64, Sf::F32, Rounding::Rn, ftz).is_some());
        assert!(form(Sf::F64, Sf::F32, Rounding::Rz, none).is_none());
        assert!(form(Sf::F32, Sf::F16, Rounding::Rn, Flags::SATFINITE).is_some());
        assert!(form(Sf::F32, Sf::F16, Rounding::Rz, none).is_none());
        assert!(form(Sf::F32, Sf::F16, Rounding::Rn, sat).is_none());
        assert!(form(Sf::F16, Sf::F32, Rounding::Rn, none).is_some());
        assert!(form(Sf::Bf16, Sf::F32, Rounding::Rn, ftz).is_none());
        assert!(form(Sf::F16, Sf::S32, Rounding::Rzi, none).is_none());
        assert!(form(Sf::F32, Sf::E4m3, Rounding::Rn, Flags::SATFINITE).is_some());
        assert!(form(Sf::F32, Sf::E2m3, Rounding::Rn, Flags::SATFINITE).is_none());
        assert!(form(Sf::F32, Sf::Ue8m0, Rounding::Rn, Flags::SATFINITE).is_none());
    }
}
