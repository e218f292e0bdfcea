//! Conversions that NVIDIA's headers do not implement, checked against `rustc_apfloat` (an
//! exact IEEE 754 library independent of this crate): `cvt.{rn,rna,rz,rm,rp}.bf16.f16`
//! (PTX example "`cvt.bf16.f16.rz b, f`") and `.f16.bf16` for every input, f64 to f16/bf16
//! and integers to f16/bf16 in every rounding mode ("`cvt.bf16.u64.rz b, u`").
//!
//! NaN results are compared for NaN-ness only: apfloat keeps payloads, ptxsim writes the
//! canonical NaN ("the result is `NaN` in the specified destination format").

mod common;

use ptxsim_softfloat::{Flags, Rounding, Type, convert};
use rustc_apfloat::ieee::{BFloat, Double, Half};
use rustc_apfloat::{Float, FloatConvert, Round};

const MODES: [(Rounding, Round); 5] = [
    (Rounding::Rn, Round::NearestTiesToEven),
    (Rounding::Rna, Round::NearestTiesToAway),
    (Rounding::Rz, Round::TowardZero),
    (Rounding::Rm, Round::TowardNegative),
    (Rounding::Rp, Round::TowardPositive),
];

fn check<S: Float + FloatConvert<D>, D: Float>(
    inputs: impl Iterator<Item = u64> + Clone,
    from: Type,
    to: Type,
) {
    for (r, ar) in MODES {
        let mut bad = Vec::new();
        for x in inputs.clone() {
            let mut loses = false;
            let want: D = S::from_bits(u128::from(x)).convert_r(ar, &mut loses).value;
            let got = convert(x, from, to, r, Flags::NONE, None).bits;
            let ok = if want.is_nan() {
                common::is_nan(got, to)
            } else {
                u128::from(got) == want.to_bits()
            };
            if !ok && bad.len() < 5 {
                bad.push(format!("{x:#x}: want {:#x} got {got:#x}", want.to_bits()));
            }
        }
        assert!(
            bad.is_empty(),
            "{from:?} -> {to:?} {r:?}: {}",
            bad.join("; ")
        );
    }
}

/// `cvt.{rn,rna,rz,rm,rp}.bf16.f16`, every f16 input.
#[test]
fn f16_to_bf16_every_input_every_mode() {
    check::<Half, BFloat>(0..=0xffffu64, Type::F16, Type::Bf16);
}

/// `cvt.{rn,rna,rz,rm,rp}.f16.bf16`, every bf16 input (overflow to infinity or MAX_NORM per
/// the IEEE rounding direction; subnormal f16 results).
#[test]
fn bf16_to_f16_every_input_every_mode() {
    check::<BFloat, Half>(0..=0xffffu64, Type::Bf16, Type::F16);
}

/// `cvt.{rn,rna,rz,rm,rp}.{f16,bf16}.f64` on the f64 golden inputs.
#[test]
fn f64_to_f16_and_bf16_every_mode() {
    let t = common::load("f64.txt.xz");
    let inputs: Vec<u64> = t.rows.iter().map(|r| r.0).collect();
    check::<Double, Half>(inputs.iter().copied(), Type::F64, Type::F16);
    check::<Double, BFloat>(inputs.iter().copied(), Type::F64, Type::Bf16);
}

/// Integer to f16/bf16/f64 in every mode ("All int-to-float conversions" take a rounding
/// modifier), on the integer golden inputs.
#[test]
fn integers_to_half_and_bf16_every_mode() {
    for (file, from) in [
        ("s32.txt.xz", Type::S32),
        ("u32.txt.xz", Type::U32),
        ("s64.txt.xz", Type::S64),
        ("u64.txt.xz", Type::U64),
    ] {
        let t = common::load(file);
        let (w, signed) = from.integer().unwrap_or((64, false));
        for to in [Type::F16, Type::Bf16, Type::F64] {
            for (r, ar) in MODES {
                for row in &t.rows {
                    let x = row.0;
                    let v: i128 = if signed {
                        i128::from(((x << (64 - w)) as i64) >> (64 - w))
                    } else {
                        i128::from(x)
                    };
                    let want = match to {
                        Type::F16 => Half::from_i128_r(v, ar).value.to_bits(),
                        Type::Bf16 => BFloat::from_i128_r(v, ar).value.to_bits(),
                        _ => Double::from_i128_r(v, ar).value.to_bits(),
                    };
                    let got = convert(x, from, to, r, Flags::NONE, None).bits;
                    assert_eq!(u128::from(got), want, "{file} {x:#x} -> {to:?} {r:?}");
                }
            }
        }
    }
}

const INT_MODES: [(Rounding, Round); 4] = [
    (Rounding::Rni, Round::NearestTiesToEven),
    (Rounding::Rzi, Round::TowardZero),
    (Rounding::Rmi, Round::TowardNegative),
    (Rounding::Rpi, Round::TowardPositive),
];

/// `cvt.{rni,rzi,rmi,rpi}.f16.f16` and `.bf16.bf16` ("`cvt.bf16.bf16.rpi b1, b2` // convert bf16
/// to corresponding int represented in bf16 format"), every input, against apfloat's
/// `round_to_integral`.
#[test]
fn f16_and_bf16_round_to_integral_every_input() {
    fn run<F: Float>(t: Type) {
        for (r, ar) in INT_MODES {
            for x in 0..=0xffffu64 {
                let want = F::from_bits(u128::from(x)).round_to_integral(ar).value;
                let got = convert(x, t, t, r, Flags::NONE, None).bits;
                if want.is_nan() {
                    assert!(common::is_nan(got, t), "{t:?} {r:?} {x:#x}");
                } else {
                    assert_eq!(u128::from(got), want.to_bits(), "{t:?} {r:?} {x:#x}");
                }
            }
        }
    }
    run::<Half>(Type::F16);
    run::<BFloat>(Type::Bf16);
}

/// f16/bf16 to every integer type in `.rni/.rmi/.rpi` (the headers only have `_rz`), every
/// input: the integral value from apfloat's `round_to_integral`, then the text's rules, written
/// here: "the result is clamped to the destination range by default" and `NaN` gives "Zero if
/// source is not `.f64` and destination is not `.s64`, `.u64`. Otherwise 1 << (BitWidth(dst) -
/// 1)".
#[test]
fn f16_and_bf16_to_integers_every_mode_every_input() {
    fn run<F: Float>(from: Type) {
        let types = [
            Type::S8,
            Type::U8,
            Type::S16,
            Type::U16,
            Type::S32,
            Type::U32,
            Type::S64,
            Type::U64,
        ];
        for (r, ar) in INT_MODES {
            for x in 0..=0xffffu64 {
                let f = F::from_bits(u128::from(x));
                // The integral value (|x| < 2^128, so the 128-bit conversion of it is exact).
                let integral = if f.is_nan() || f.is_infinite() {
                    0
                } else {
                    let mut exact = false;
                    f.round_to_integral(ar)
                        .value
                        .to_i128_r(128, Round::TowardZero, &mut exact)
                        .value
                };
                for to in types {
                    let (w, signed) = to.integer().unwrap_or((64, false));
                    let (lo, hi): (i128, i128) = if signed {
                        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                    } else {
                        (0, (1i128 << w) - 1)
                    };
                    let want: i128 = if f.is_nan() {
                        if w == 64 { 1i128 << 63 } else { 0 }
                    } else if f.is_infinite() {
                        if f.is_negative() { lo } else { hi }
                    } else {
                        integral.clamp(lo, hi)
                    };
                    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                    let got = convert(x, from, to, r, Flags::NONE, None).bits;
                    assert_eq!(got, (want as u64) & mask, "{from:?} -> {to:?} {r:?} {x:#x}");
                }
            }
        }
    }
    run::<Half>(Type::F16);
    run::<BFloat>(Type::Bf16);
}
