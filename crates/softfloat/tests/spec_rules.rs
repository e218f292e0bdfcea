//! Rules of PTX ISA 9.7.9.21 (`cvt`) and 9.7.9.22 (`cvt.pack`) checked on cases derived by
//! hand from the text. Each expected value carries its derivation; none comes from this crate.

use ptxsim_softfloat::pack::{
    PackType, cvt_bf16x2_to_s2f6x2, cvt_f32x2_to_half2, cvt_f32x2_to_s2f6x2, cvt_f32x2_to_x2,
    cvt_f32x4_to_x4, cvt_half2_to_x2, cvt_pack_sat, cvt_s2f6x2_to_bf16x2, cvt_x2_to_half2,
    rbits_bf16x2, rbits_f16x2, rbits_x4,
};
use ptxsim_softfloat::{Flags, Rounding, Type, convert, convert_scaled};

fn cvt(bits: u64, from: Type, to: Type, r: Rounding, flags: Flags) -> u64 {
    convert(bits, from, to, r, flags, None).bits
}

const fn flags(ftz: bool, sat: bool, relu: bool, satfinite: bool) -> Flags {
    Flags {
        ftz,
        sat,
        relu,
        satfinite,
    }
}
const SATF: Flags = flags(false, false, false, true);
const RELU: Flags = flags(false, false, true, false);
const SAT: Flags = flags(false, true, false, false);
const FTZ: Flags = flags(true, false, false, false);

const F32_ONE: u64 = 0x3f80_0000;
const F32_TWO: u64 = 0x4000_0000;
const F32_NAN: u64 = 0x7fc0_0000;
const F32_NEG_NAN: u64 = 0xffc0_0001;

/// "For `.f16x2` and `.bf16x2` instruction type ... the value converted from input `a` is
/// stored in the upper half of `d` and the value converted from input `b` is stored in the
/// lower half of `d`". 1.0 is f16 0x3c00 and bf16 0x3f80; 2.0 is f16 0x4000 and bf16 0x4000.
#[test]
fn f16x2_and_bf16x2_put_a_in_the_upper_half() {
    let f = Flags::NONE;
    assert_eq!(
        cvt_f32x2_to_half2(0x3f80_0000, 0x4000_0000, Type::F16, Rounding::Rn, f, 0),
        0x3c00_4000
    );
    assert_eq!(
        cvt_f32x2_to_half2(0x3f80_0000, 0x4000_0000, Type::Bf16, Rounding::Rn, f, 0),
        0x3f80_4000
    );
}

/// "`d[15:8] = convert(a); d[7:0] = convert(b)`" for `.e4m3x2`: 1.0 = 2^0 is e4m3 exponent
/// field 7 (bias 7), 0b0_0111_000 = 0x38; -2.0 is 0b1_1000_000 = 0xc0.
#[test]
fn e4m3x2_puts_a_in_the_upper_byte() {
    assert_eq!(
        cvt_f32x2_to_x2(0x3f80_0000, 0xc000_0000, Type::E4m3, Rounding::Rn, SATF),
        0x38c0
    );
}

/// "`d[7:4] = convert(a); d[3:0] = convert(b)`" for `.e2m1x2`: 1.0 is e2m1 0b0_01_0 = 0x2,
/// 6.0 = 1.5 * 2^2 is 0b0_11_1 = 0x7.
#[test]
fn e2m1x2_puts_a_in_the_upper_nibble() {
    assert_eq!(
        cvt_f32x2_to_x2(0x3f80_0000, 0x40c0_0000, Type::E2m1, Rounding::Rn, SATF),
        0x27
    );
}

/// "`d[15:14] = 0; d[13:8] = convert(a); d[7:6] = 0; d[5:0] = convert(b)`" for `.e2m3x2`:
/// 1.0 is 0b0_01_000 = 0x08; -7.5 = -1.875 * 2^2 is 0b1_11_111 = 0x3f (2 MSBs of the byte 0).
#[test]
fn fp6_bytes_have_two_zero_msbs() {
    assert_eq!(
        cvt_f32x2_to_x2(0x3f80_0000, 0xc0f0_0000, Type::E2m3, Rounding::Rn, SATF),
        0x083f
    );
}

/// "the value converted from the upper 16 bits of input `a` is stored in the upper 8 bits of
/// `d`": f16x2 {1.0 = 0x3c00, 2.0 = 0x4000} to e4m3x2 {0x38, 0x40}.
#[test]
fn f16x2_source_upper_half_goes_to_upper_byte() {
    assert_eq!(
        cvt_half2_to_x2(0x3c00_4000, Type::F16, Type::E4m3, Rounding::Rn, SATF),
        0x3840
    );
    assert_eq!(
        cvt_half2_to_x2(0x3f80_4000, Type::Bf16, Type::E2m1, Rounding::Rn, SATF),
        0x24
    );
}

/// "Each 8-bit input value with 2 MSB bits 0 in operand `a` is converted": the 2 MSBs are
/// not part of the value; 0xc8 reads as 0x08 = 1.0 (f16 0x3c00). And the e4m3x2 to f16x2
/// upper-to-upper order: {0x38, 0x40} gives {0x3c00, 0x4000}.
#[test]
fn x2_to_f16x2_upper_byte_goes_to_upper_half() {
    assert_eq!(
        cvt_x2_to_half2(0x3840, Type::E4m3, Type::F16, Flags::NONE),
        0x3c00_4000
    );
    assert_eq!(
        cvt_x2_to_half2(0xc8c8, Type::E2m3, Type::F16, Flags::NONE),
        0x3c00_3c00
    );
    // ue8m0 0x7f = 2^0 is bf16 0x3f80; 0x80 = 2^1 is bf16 0x4000.
    assert_eq!(
        cvt_x2_to_half2(0x7f80, Type::Ue8m0, Type::Bf16, Flags::NONE),
        0x3f80_4000
    );
}

/// `.relu` on the f16x2 result of `cvt.rn.relu.f16x2.e4m3x2`: -1.0 (e4m3 0xb8) becomes +0.
#[test]
fn relu_on_x2_to_f16x2() {
    assert_eq!(
        cvt_x2_to_half2(0xb838, Type::E4m3, Type::F16, RELU),
        0x0000_3c00
    );
}

/// "the value converted from inputs `a`, `b`, `e`, `f` are stored in each 8 bits starting from
/// upper bits of `d`": {1.0, 2.0, -1.0, 0.5} are exact in e4m3 ({0x38, 0x40, 0xb8, 0x30}), so
/// `.rs` cannot change them whatever the random bits.
#[test]
fn x4_forms_pack_a_b_e_f_from_the_top() {
    let v = [0x3f80_0000, 0x4000_0000, 0xbf80_0000, 0x3f00_0000];
    for rbits in [0, 0xffff_ffff, 0x1234_5678] {
        assert_eq!(
            cvt_f32x4_to_x4(v, Type::E4m3, Rounding::Rs, SATF, rbits),
            0x3840_b830
        );
        // e2m1: 1.0 = 0x2, 2.0 = 0x4, -1.0 = 0xa, 0.5 = 0x1 (subnormal), in 4-bit lanes.
        assert_eq!(
            cvt_f32x4_to_x4(v, Type::E2m1, Rounding::Rs, SATF, rbits),
            0x24a1
        );
        // e3m2 (bias 3): 1.0 = 0b0_011_00 = 0x0c, 2.0 = 0x10, -1.0 = 0x2c, 0.5 = 0x08.
        assert_eq!(
            cvt_f32x4_to_x4(v, Type::E3m2, Rounding::Rs, SATF, rbits),
            0x0c10_2c08
        );
    }
}

/// The random-bit layouts: "13 LSBs from upper 16-bits ... for operand `a` ... 13 LSBs from
/// lower 16-bits ... for operand `b`" (f16x2); "upper 16-bits ... for operand `a` and lower
/// 16-bits ... for operand `b`" (bf16x2); "lower 16-bits are used for operands `e`, `f` and
/// upper 16 bits are used for operands `a`, `b`" (fp8/fp6 x4); "lower 8-bits from both
/// 16-bits half of `rbits` are used for operands `e`, `f` and upper 8-bits from both 16-bits
/// half of `rbits` are used for operands `a`, `b`" (e2m1x4).
#[test]
fn rbits_layouts() {
    assert_eq!(rbits_f16x2(0xffff_ffff), [0x1fff, 0x1fff]);
    assert_eq!(rbits_f16x2(0xe000_e000), [0, 0]);
    assert_eq!(rbits_bf16x2(0xaaaa_5555), [0xaaaa, 0x5555]);
    assert_eq!(
        rbits_x4(Type::E4m3, 0xaaaa_5555),
        [0xaaaa, 0xaaaa, 0x5555, 0x5555]
    );
    assert_eq!(rbits_x4(Type::E2m1, 0xaabb_ccdd), [0xaa, 0xcc, 0xbb, 0xdd]);
}

/// `.rs`: "rounded in the direction toward zero or away from zero based on the carry out of the
/// integer addition of the supplied random bits (`rbits`) to the truncated off (discarded)
/// bits of mantissa". f32 1 + 2^-11 = 0x3f80_1000 to f16 discards 13 mantissa bits equal to
/// 0x1000; adding 0x0fff gives 0x1fff (no carry: toward zero, 0x3c00), adding 0x1000 gives
/// 0x2000 (carry: away from zero, 0x3c01). For -(1 + 2^-11) away from zero is 0xbc01.
#[test]
fn stochastic_rounding_uses_the_carry() {
    let rs =
        |x: u64, r: u32| convert(x, Type::F32, Type::F16, Rounding::Rs, Flags::NONE, Some(r)).bits;
    assert_eq!(rs(0x3f80_1000, 0x0fff), 0x3c00);
    assert_eq!(rs(0x3f80_1000, 0x1000), 0x3c01);
    assert_eq!(rs(0xbf80_1000, 0x1000), 0xbc01);
    // Packed: rbits[28:16] = 0x1000 for a, rbits[12:0] = 0x0fff for b.
    assert_eq!(
        cvt_f32x2_to_half2(
            0x3f80_1000,
            0x3f80_1000,
            Type::F16,
            Rounding::Rs,
            Flags::NONE,
            0x1000_0fff
        ),
        0x3c01_3c00
    );
}

/// "In float-to-integer conversions ... `NaN` input results in ... Zero if source is not
/// `.f64` and destination is not `.s64`, `.u64`. Otherwise 1 << (BitWidth(dst) - 1)".
#[test]
fn float_to_int_nan_values() {
    let z = Flags::NONE;
    assert_eq!(cvt(F32_NAN, Type::F32, Type::S32, Rounding::Rni, z), 0);
    assert_eq!(cvt(F32_NAN, Type::F32, Type::U16, Rounding::Rzi, z), 0);
    assert_eq!(
        cvt(F32_NAN, Type::F32, Type::S64, Rounding::Rzi, z),
        1 << 63
    );
    assert_eq!(
        cvt(F32_NAN, Type::F32, Type::U64, Rounding::Rzi, z),
        1 << 63
    );
    assert_eq!(
        cvt(
            0x7ff8_0000_0000_0000,
            Type::F64,
            Type::S32,
            Rounding::Rzi,
            z
        ),
        1 << 31
    );
    assert_eq!(
        cvt(0x7ff8_0000_0000_0000, Type::F64, Type::U8, Rounding::Rzi, z),
        1 << 7
    );
    assert_eq!(cvt(0x7e00, Type::F16, Type::S8, Rounding::Rzi, z), 0);
}

/// "For float-to-integer conversions, the result is clamped to the destination range by
/// default": 1e10 (0x501502f9) to s32 is 0x7fffffff; -1.0 to u32 is 0; -inf to s8 is -128.
#[test]
fn float_to_int_clamps_by_default() {
    let z = Flags::NONE;
    assert_eq!(
        cvt(0x5015_02f9, Type::F32, Type::S32, Rounding::Rzi, z),
        0x7fff_ffff
    );
    assert_eq!(cvt(0xbf80_0000, Type::F32, Type::U32, Rounding::Rni, z), 0);
    assert_eq!(
        cvt(0xff80_0000, Type::F32, Type::S8, Rounding::Rni, z),
        0x80
    );
    // .rni ties to even: 2.5 -> 2, 3.5 -> 4; .rmi -2.5 -> -3 (0xfd as s8).
    assert_eq!(cvt(0x4020_0000, Type::F32, Type::S32, Rounding::Rni, z), 2);
    assert_eq!(cvt(0x4060_0000, Type::F32, Type::S32, Rounding::Rni, z), 4);
    assert_eq!(
        cvt(0xc020_0000, Type::F32, Type::S8, Rounding::Rmi, z),
        0xfd
    );
}

/// Integer `.sat`: "limits the result to `MININT..MAXINT` for the size of the operation.
/// Note that saturation applies to both signed and unsigned integer types." Without it the
/// value is truncated: s32 -1 to u8 is 0xff; with `.sat` 0. u32 0xffffffff to s16 saturates
/// to 0x7fff. s8 -128 to s64 sign-extends to 0xffffffffffffff80.
#[test]
fn integer_to_integer_truncates_or_saturates() {
    let z = Flags::NONE;
    assert_eq!(cvt(0xffff_ffff, Type::S32, Type::U8, Rounding::Rn, z), 0xff);
    assert_eq!(cvt(0xffff_ffff, Type::S32, Type::U8, Rounding::Rn, SAT), 0);
    assert_eq!(
        cvt(0xffff_ffff, Type::U32, Type::S16, Rounding::Rn, SAT),
        0x7fff
    );
    assert_eq!(
        cvt(0x80, Type::S8, Type::S64, Rounding::Rn, z),
        0xffff_ffff_ffff_ff80
    );
    assert_eq!(cvt(0x80, Type::U8, Type::S64, Rounding::Rn, z), 0x80);
    // Source bits above the type width are ignored ("The lower `n` bits ... are used").
    assert_eq!(
        cvt(0xdead_0080, Type::S8, Type::S16, Rounding::Rn, z),
        0xff80
    );
}

/// Float `.sat`: "limits the result to the range [0.0, 1.0]. `NaN` results are flushed to
/// positive zero." f32 2.0 to f16 gives 1.0 (0x3c00); -0.5 gives +0; NaN gives +0; -0.0 gives
/// +0 (this crate treats -0.0 as negative, see docs/softfloat.md); 0.5 (0x3800) is unchanged.
#[test]
fn float_sat_clamps_to_unit_interval() {
    assert_eq!(
        cvt(F32_TWO, Type::F32, Type::F16, Rounding::Rn, SAT),
        0x3c00
    );
    assert_eq!(cvt(0xbf00_0000, Type::F32, Type::F16, Rounding::Rn, SAT), 0);
    assert_eq!(cvt(F32_NAN, Type::F32, Type::F16, Rounding::Rn, SAT), 0);
    assert_eq!(cvt(0x8000_0000, Type::F32, Type::F32, Rounding::Rn, SAT), 0);
    assert_eq!(
        cvt(0x3f00_0000, Type::F32, Type::F16, Rounding::Rn, SAT),
        0x3800
    );
    assert_eq!(
        cvt(
            0x4000_0000_0000_0000,
            Type::F64,
            Type::F32,
            Rounding::Rn,
            SAT
        ),
        F32_ONE
    );
}

/// `.ftz`: "flush single-precision subnormal inputs and results to sign-preserving zero".
/// f32 0x80000001 (-2^-149) to f64 becomes -0.0; `cvt.rpi.ftz.f32.f32` of +2^-149 is +0.0
/// where without `.ftz` it is 1.0; f64 2^-130 to f32 with `.ftz` is +0.0 (result flush).
#[test]
fn ftz_flushes_f32_inputs_and_results() {
    assert_eq!(
        cvt(0x8000_0001, Type::F32, Type::F64, Rounding::Rn, FTZ),
        0x8000_0000_0000_0000
    );
    assert_eq!(
        cvt(0x0000_0001, Type::F32, Type::F32, Rounding::Rpi, FTZ),
        0
    );
    assert_eq!(
        cvt(
            0x0000_0001,
            Type::F32,
            Type::F32,
            Rounding::Rpi,
            Flags::NONE
        ),
        F32_ONE
    );
    let two_m130 = (1023u64 - 130) << 52;
    assert_eq!(cvt(two_m130, Type::F64, Type::F32, Rounding::Rn, FTZ), 0);
    assert_eq!(
        cvt(two_m130, Type::F64, Type::F32, Rounding::Rn, Flags::NONE),
        1 << 19
    );
    // bf16 subnormal 0x0001 (2^-133) to f32 is an f32 subnormal result: flushed with .ftz.
    assert_eq!(
        cvt(0x8001, Type::Bf16, Type::F32, Rounding::Rn, FTZ),
        0x8000_0000
    );
}

/// `.relu`: "clamps the result to 0 if negative. `NaN` results are converted to canonical
/// `NaN`." -1.0 to f16 gives +0; a negative NaN gives the canonical f16 NaN 0x7fff; e4m3 NaN
/// is 0x7f; a tiny negative that rounds to -0 gives +0.
#[test]
fn relu_clamps_negatives_and_canonicalizes_nan() {
    assert_eq!(
        cvt(0xbf80_0000, Type::F32, Type::F16, Rounding::Rn, RELU),
        0
    );
    assert_eq!(
        cvt(F32_NEG_NAN, Type::F32, Type::F16, Rounding::Rn, RELU),
        0x7fff
    );
    assert_eq!(
        cvt(F32_NEG_NAN, Type::F32, Type::Bf16, Rounding::Rz, RELU),
        0x7fff
    );
    let relu_satf = flags(false, false, true, true);
    assert_eq!(
        cvt(F32_NEG_NAN, Type::F32, Type::E4m3, Rounding::Rn, relu_satf),
        0x7f
    );
    assert_eq!(
        cvt(0x8000_0001, Type::F32, Type::F16, Rounding::Rn, RELU),
        0
    );
    assert_eq!(
        cvt(0xbf80_0000, Type::F32, Type::Tf32, Rounding::Rn, RELU),
        0
    );
    assert_eq!(
        cvt(F32_ONE, Type::F32, Type::F16, Rounding::Rn, RELU),
        0x3c00
    );
}

/// `.satfinite`: "if the input value is `NaN`, then the result is `NaN` in the specified
/// destination format" (f16, bf16, tf32, e4m3, e5m2, ue8m0); "For `.e2m1x2`, `.e2m3x2`,
/// `.e3m2x2` ... `.s2f6x2` destination formats `NaN` results are converted to positive
/// *MAX_NORM*"; "If the absolute value of input ... is greater than *MAX_NORM* ... the result
/// is sign-preserved *MAX_NORM*" and "a positive *MAX_NORM* in `.ue8m0x2`".
#[test]
fn satfinite_nan_and_overflow() {
    let nan = F32_NEG_NAN;
    assert_eq!(cvt(nan, Type::F32, Type::F16, Rounding::Rn, SATF), 0x7fff);
    assert_eq!(cvt(nan, Type::F32, Type::Bf16, Rounding::Rn, SATF), 0x7fff);
    // tf32: a NaN, but not the canonical one: an sm_90 GPU clears the low 13 bits and takes
    // one unit in the last place off (docs/hardware.md), so F32_NEG_NAN keeps sign and payload.
    let tf32 = cvt(nan, Type::F32, Type::Tf32, Rounding::Rna, SATF);
    assert_eq!(tf32 & 0x7f80_0000, 0x7f80_0000);
    assert_ne!(tf32 & 0x007f_e000, 0);
    assert_eq!(cvt(nan, Type::F32, Type::E4m3, Rounding::Rn, SATF), 0x7f);
    assert_eq!(cvt(nan, Type::F32, Type::E5m2, Rounding::Rn, SATF), 0x7f);
    assert_eq!(cvt(nan, Type::F32, Type::Ue8m0, Rounding::Rz, SATF), 0xff);
    // +MAX_NORM: e2m1 6.0 = 0x7, e2m3 7.5 = 0x1f, e3m2 28 = 0x1f, s2f6 127/64 = 0x7f.
    assert_eq!(cvt(nan, Type::F32, Type::E2m1, Rounding::Rn, SATF), 0x7);
    assert_eq!(cvt(nan, Type::F32, Type::E2m3, Rounding::Rn, SATF), 0x1f);
    assert_eq!(cvt(nan, Type::F32, Type::E3m2, Rounding::Rn, SATF), 0x1f);
    assert_eq!(cvt(nan, Type::F32, Type::S2f6, Rounding::Rn, SATF), 0x7f);
    // 1e6 (0x49742400) > 65504: f16 MAX_NORM 0x7bff with .satfinite, +inf 0x7c00 without.
    assert_eq!(
        cvt(0x4974_2400, Type::F32, Type::F16, Rounding::Rn, SATF),
        0x7bff
    );
    assert_eq!(
        cvt(0xc974_2400, Type::F32, Type::F16, Rounding::Rn, SATF),
        0xfbff
    );
    assert_eq!(
        cvt(0x4974_2400, Type::F32, Type::F16, Rounding::Rn, Flags::NONE),
        0x7c00
    );
    // -inf to e4m3 is -448 (0xfe); +inf to e5m2 is 57344 (0x7b).
    assert_eq!(
        cvt(0xff80_0000, Type::F32, Type::E4m3, Rounding::Rn, SATF),
        0xfe
    );
    assert_eq!(
        cvt(0x7f80_0000, Type::F32, Type::E5m2, Rounding::Rn, SATF),
        0x7b
    );
    // ue8m0: +inf gives 0xfe (2^127) with .satfinite, 0xff (NaN) without.
    assert_eq!(
        cvt(0x7f80_0000, Type::F32, Type::Ue8m0, Rounding::Rz, SATF),
        0xfe
    );
    assert_eq!(
        cvt(
            0x7f80_0000,
            Type::F32,
            Type::Ue8m0,
            Rounding::Rz,
            Flags::NONE
        ),
        0xff
    );
    // tf32 MAX_NORM is (2 - 2^-10) * 2^127 = 0x7f7fe000; FLT_MAX exceeds it.
    assert_eq!(
        cvt(0x7f7f_ffff, Type::F32, Type::Tf32, Rounding::Rn, SATF),
        0x7f7f_e000
    );
}

/// ue8m0 has no sign: "a positive *MAX_NORM* in `.ue8m0x2` for which the destination sign is
/// not supported". -4.0 = -2^2 gives exponent field 129 (0x81) under `.rz` and `.rp`; -5.0
/// gives 0x81 under `.rz` (2^2 <= 5) and 0x82 under `.rp` (2^3 >= 5).
#[test]
fn ue8m0_ignores_the_sign() {
    assert_eq!(
        cvt(0xc080_0000, Type::F32, Type::Ue8m0, Rounding::Rz, SATF),
        0x81
    );
    assert_eq!(
        cvt(0xc080_0000, Type::F32, Type::Ue8m0, Rounding::Rp, SATF),
        0x81
    );
    assert_eq!(
        cvt(0xc0a0_0000, Type::F32, Type::Ue8m0, Rounding::Rz, SATF),
        0x81
    );
    assert_eq!(
        cvt(0xc0a0_0000, Type::F32, Type::Ue8m0, Rounding::Rp, SATF),
        0x82
    );
}

/// tf32, "19 significant bits in a 32-bit container": 1 + 2^-11 (0x3f801000) is exactly half
/// way between 1.0 and 1 + 2^-10; `.rna` ("ties away from zero") gives 0x3f802000, `.rn`
/// (ties to even) gives 0x3f800000, `.rz` 0x3f800000; the low 13 bits are always zero.
#[test]
fn tf32_rounds_to_ten_mantissa_bits() {
    let z = Flags::NONE;
    assert_eq!(
        cvt(0x3f80_1000, Type::F32, Type::Tf32, Rounding::Rna, z),
        0x3f80_2000
    );
    assert_eq!(
        cvt(0x3f80_1000, Type::F32, Type::Tf32, Rounding::Rn, z),
        0x3f80_0000
    );
    assert_eq!(
        cvt(0x3f80_1fff, Type::F32, Type::Tf32, Rounding::Rz, z),
        0x3f80_0000
    );
    assert_eq!(
        cvt(0x3f80_1001, Type::F32, Type::Tf32, Rounding::Rn, z),
        0x3f80_2000
    );
}

/// Integer rounding on float-to-float: "The result is an integral value, stored in
/// floating-point format." 2.5 `.rni` is 2.0; -2.5 `.rmi` is -3.0 (0xc0400000); 0.3 `.rzi`
/// is +0.0; -0.3 `.rni` is -0.0; bf16 1.5 (0x3fc0) `.rpi` is 2.0 (0x4000).
#[test]
fn integer_rounding_to_integral_float() {
    let z = Flags::NONE;
    assert_eq!(
        cvt(0x4020_0000, Type::F32, Type::F32, Rounding::Rni, z),
        F32_TWO
    );
    assert_eq!(
        cvt(0xc020_0000, Type::F32, Type::F32, Rounding::Rmi, z),
        0xc040_0000
    );
    assert_eq!(cvt(0x3e99_999a, Type::F32, Type::F32, Rounding::Rzi, z), 0);
    assert_eq!(
        cvt(0xbe99_999a, Type::F32, Type::F32, Rounding::Rni, z),
        0x8000_0000
    );
    assert_eq!(
        cvt(0x3fc0, Type::Bf16, Type::Bf16, Rounding::Rpi, z),
        0x4000
    );
}

/// Integer to float with each rounding: u64 max (2^64 - 1) to f32 is 2^64 (0x5f800000) under
/// `.rn`/`.rp` and 0x5f7fffff under `.rz`/`.rm`; s32 16777217 (2^24 + 1) to f32 is 2^24 under
/// `.rn` (tie to even) and 0x4b800001 under `.rp`; u32 70000 to f16 overflows to +inf under
/// `.rn` and gives MAX 0x7bff under `.rz`.
#[test]
fn integer_to_float_rounding() {
    let z = Flags::NONE;
    assert_eq!(
        cvt(u64::MAX, Type::U64, Type::F32, Rounding::Rn, z),
        0x5f80_0000
    );
    assert_eq!(
        cvt(u64::MAX, Type::U64, Type::F32, Rounding::Rz, z),
        0x5f7f_ffff
    );
    assert_eq!(
        cvt(0x0100_0001, Type::S32, Type::F32, Rounding::Rn, z),
        0x4b80_0000
    );
    assert_eq!(
        cvt(0x0100_0001, Type::S32, Type::F32, Rounding::Rp, z),
        0x4b80_0001
    );
    assert_eq!(cvt(70000, Type::U32, Type::F16, Rounding::Rn, z), 0x7c00);
    assert_eq!(cvt(70000, Type::U32, Type::F16, Rounding::Rz, z), 0x7bff);
}

/// `cvt.pack.sat`: "The inputs `a` and `b` are converted to values of type specified by
/// `.convertType` with saturation and the results after conversion are packed into lower bits
/// of `d`. If operand `c` is specified then remaining bits of `d` are copied from lower bits of
/// `c`." Semantics: `td = tb; td[2*size-1:size] = ta`, then `d[31:2*size] = c[31-2*size:0]`.
#[test]
fn cvt_pack_sat_packs_b_low_a_high_c_above() {
    // s16: a = 70000 -> 0x7fff, b = -70000 -> 0x8000.
    assert_eq!(
        cvt_pack_sat(PackType::S16, 70000, -70000, 0xffff_ffff),
        0x7fff_8000
    );
    // u8: a = 300 -> 0xff, b = -5 -> 0; c = 0x1234 lands in d[31:16].
    assert_eq!(cvt_pack_sat(PackType::U8, 300, -5, 0x1234), 0x1234_ff00);
    // s4: a = -9 -> -8 (0x8), b = 7 -> 0x7; d[31:8] = c[23:0] = 0xffffff.
    assert_eq!(cvt_pack_sat(PackType::S4, -9, 7, 0xffff_ffff), 0xffff_ff87);
    // u2: a = 3 -> 3, b = 5 -> 3; d[31:4] = c[27:0] = 0xabcdef1.
    assert_eq!(cvt_pack_sat(PackType::U2, 3, 5, 0x0abc_def1), 0xabcd_ef1f);
    // s2: a = -3 -> -2 (0b10), b = 1 -> 0b01.
    assert_eq!(cvt_pack_sat(PackType::S2, -3, 1, 0), 0b1001);
    // u16 ignores c.
    assert_eq!(
        cvt_pack_sat(PackType::U16, -1, 65536, 0xffff_ffff),
        0x0000_ffff
    );
    // The example "%r7 = { %r5, %r6, %r8, %r9 }": c = a previous u8 pack, four bytes result.
    let r4 = cvt_pack_sat(PackType::U8, 1, 2, 0);
    assert_eq!(cvt_pack_sat(PackType::U8, 3, 4, r4), 0x0102_0304);
}

/// `.s2f6x2` (read as two's complement Q2.6, see docs/softfloat.md): 1.0 is 64 = 0x40; -1.0 is
/// 0xc0; 127/64 is 0x7f; 2.5 saturates to 0x7f; -2.0 has |x| > MAX_NORM so gives
/// sign-preserved -MAX_NORM = -127/64 = 0x81. "For down conversion, inputs are divided by
/// `scale-factor`": 3.0 with scale 0x80 (2^1) is 1.5 = 96 = 0x60. "value of `scale-factor`
/// will be assumed to be `0x7f7f`" (1.0 for both).
#[test]
fn s2f6_down_conversion() {
    let c = |x: u64, s: u8| convert_scaled(x, Type::F32, Type::S2f6, Rounding::Rn, SATF, s).bits;
    assert_eq!(c(F32_ONE, 0x7f), 0x40);
    assert_eq!(c(0xbf80_0000, 0x7f), 0xc0);
    assert_eq!(c(0x3ffe_0000, 0x7f), 0x7f); // 1.984375
    assert_eq!(c(0x4020_0000, 0x7f), 0x7f);
    assert_eq!(c(0xc000_0000, 0x7f), 0x81);
    assert_eq!(c(0x4040_0000, 0x80), 0x60);
    assert_eq!(c(F32_NAN, 0x7f), 0x7f);
    // 1/128 = 0.0078125 is a tie between 0 and 1/64: ties to even gives 0.
    assert_eq!(c(0x3c00_0000, 0x7f), 0x00);
    assert_eq!(
        cvt_f32x2_to_s2f6x2(0x3f80_0000, 0xbf80_0000, Rounding::Rn, SATF, 0x7f7f),
        0x40c0
    );
    let relu_satf = flags(false, false, true, true);
    assert_eq!(
        cvt_f32x2_to_s2f6x2(0x3f80_0000, 0xbf80_0000, Rounding::Rn, relu_satf, 0x7f7f),
        0x4000
    );
    // bf16x2 {1.0, 2.0 / 2^1}: scale 0x7f80 -> upper 1.0 (0x40), lower 2.0 / 2 = 1.0 (0x40).
    assert_eq!(
        cvt_bf16x2_to_s2f6x2(0x3f80_4000, Rounding::Rn, SATF, 0x7f80),
        0x4040
    );
}

/// "For up-conversion, inputs are converted to destination type and then multiplied by
/// `scale-factor`": s2f6 0x40 (1.0) with scale 0x81 (2^2) is bf16 4.0 = 0x4080; 0xc0 (-1.0)
/// with 0x7f is -1.0 = 0xbf80; a NaN scale (0xff) gives the canonical bf16 NaN.
#[test]
fn s2f6_up_conversion() {
    assert_eq!(
        cvt_s2f6x2_to_bf16x2(0x40c0, Rounding::Rn, Flags::NONE, 0x817f),
        0x4080_bf80
    );
    assert_eq!(
        cvt_s2f6x2_to_bf16x2(0x4040, Rounding::Rn, Flags::NONE, 0xff7f),
        0x7fff_3f80
    );
    // 0x7f = 127/64 times 2^127 = 127 * 2^121 is exact in bf16: 0x7f7e.
    assert_eq!(
        cvt_s2f6x2_to_bf16x2(0x7f00, Rounding::Rn, Flags::NONE, 0xfe7f),
        0x7f7e_0000
    );
}

/// No input bits panic: every type pair, every rounding, every flag combination, with garbage
/// above the type width.
#[test]
fn no_panics_on_any_bits() {
    let roundings = [
        Rounding::Rn,
        Rounding::Rna,
        Rounding::Rz,
        Rounding::Rm,
        Rounding::Rp,
        Rounding::Rs,
        Rounding::Rni,
        Rounding::Rzi,
        Rounding::Rmi,
        Rounding::Rpi,
    ];
    let mut x = 0x0123_4567_89ab_cdefu64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let specials = [
        0u64,
        u64::MAX,
        0x7ff0_0000_0000_0000,
        0x7f80_0000,
        0x7c00,
        0xff,
        0x80,
        1,
    ];
    for from in Type::ALL {
        for to in Type::ALL {
            for r in roundings {
                for fl in 0..16u8 {
                    let f = flags(fl & 1 != 0, fl & 2 != 0, fl & 4 != 0, fl & 8 != 0);
                    for s in specials {
                        let _ = convert(s, from, to, r, f, Some(next() as u32));
                        let _ = convert_scaled(s, from, to, r, f, next() as u8);
                    }
                    let _ = convert(next(), from, to, r, f, Some(next() as u32));
                }
            }
        }
    }
}
