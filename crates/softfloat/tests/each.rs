//! The batch entry points (`convert_each` and the `pack::*_each` functions, which the
//! executor uses to convert a whole CTA's operands with one dispatch) give exactly the results
//! of the scalar functions, which the golden tests check against NVIDIA's host code. Inputs:
//! every 8-bit pattern and every fifth 16-bit one; for 32- and 64-bit sources the
//! specials, the values around each destination's boundaries and pseudo-random patterns.

use ptxsim_softfloat::pack::{
    cvt_f32x2_to_half2, cvt_f32x2_to_half2_each, cvt_f32x2_to_x2, cvt_f32x2_to_x2_each,
    cvt_half2_to_x2, cvt_half2_to_x2_each, cvt_x2_to_half2, cvt_x2_to_half2_each,
};
use ptxsim_softfloat::{Flags, Rounding, Type, convert, convert_each};

const ROUNDINGS: [Rounding; 9] = [
    Rounding::Rn,
    Rounding::Rna,
    Rounding::Rz,
    Rounding::Rm,
    Rounding::Rp,
    Rounding::Rni,
    Rounding::Rzi,
    Rounding::Rmi,
    Rounding::Rpi,
];

/// No modifier, each alone, and the combinations PTX allows (`.relu.satfinite`,
/// `.ftz.sat`).
fn flag_sets() -> Vec<Flags> {
    let set = |ftz, sat, relu, satfinite| Flags {
        ftz,
        sat,
        relu,
        satfinite,
    };
    vec![
        set(false, false, false, false),
        set(true, false, false, false),
        set(false, true, false, false),
        set(false, false, true, false),
        set(false, false, false, true),
        set(false, false, true, true),
        set(true, true, false, false),
    ]
}

/// 32-bit patterns: signed zeros, infinities, NaNs, every power of two with its neighbours
/// (the boundaries of every narrower format lie on or next to one), and xorshift values.
fn inputs32() -> Vec<u64> {
    let mut values = vec![
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
    ];
    for exponent in 0..=255u64 {
        for mantissa in [0, 1, 0x0040_0000, 0x0060_0000, 0x007f_ffff, 0x0010_0000] {
            let bits = (exponent << 23) | mantissa;
            values.push(bits);
            values.push(bits | 0x8000_0000);
        }
    }
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..4096 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        values.push(s & 0xffff_ffff);
    }
    values
}

fn inputs64() -> Vec<u64> {
    let mut values: Vec<u64> = inputs32()
        .into_iter()
        .map(|x| f64::from(f32::from_bits(x as u32)).to_bits())
        .collect();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..4096 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        values.push(s);
    }
    values
}

fn inputs_for(from: Type) -> Vec<u64> {
    match from.bits() {
        64 => inputs64(),
        32 => inputs32(),
        // Every 8-bit pattern; every fifth 16-bit one (with the sign bit in both states).
        8 => (0..1u64 << 8).collect(),
        _ => (0..1u64 << 16).step_by(5).collect(),
    }
}

#[test]
fn convert_each_matches_convert_for_every_pair() {
    let flags = flag_sets();
    let mut pairs = 0;
    for &from in &Type::ALL {
        let inputs = inputs_for(from);
        for &to in &Type::ALL {
            if to == Type::S2f6 || from == Type::S2f6 {
                continue;
            }
            pairs += 1;
            for &rounding in &ROUNDINGS {
                for &flag in &flags {
                    let mut batch = inputs.clone();
                    convert_each(&mut batch, from, to, rounding, flag);
                    for (&input, &got) in inputs.iter().zip(&batch) {
                        let want = convert(input, from, to, rounding, flag, None).bits;
                        assert_eq!(
                            got, want,
                            "{from:?} -> {to:?} {rounding:?} {flag:?} of {input:#x}"
                        );
                    }
                }
            }
        }
    }
    assert!(pairs > 300, "only {pairs} pairs checked");
}

const PAIR_TYPES: [Type; 6] = [
    Type::E4m3,
    Type::E5m2,
    Type::E2m3,
    Type::E3m2,
    Type::E2m1,
    Type::Ue8m0,
];

#[test]
fn packed_batches_match_the_scalar_forms() {
    let flags = flag_sets();
    let a32 = inputs32();
    let b32: Vec<u64> = a32.iter().rev().copied().collect();
    let halves: Vec<u64> = (0..1u64 << 16)
        .map(|x| (x << 16) | (x.wrapping_mul(40503) & 0xffff))
        .collect();
    let bytes: Vec<u64> = (0..1u64 << 16).collect();
    for &flag in &flags {
        for &rounding in &ROUNDINGS[..5] {
            for to in [Type::F16, Type::Bf16] {
                let (mut a, mut b) = (a32.clone(), b32.clone());
                cvt_f32x2_to_half2_each(&mut a, &mut b, to, rounding, flag);
                for i in 0..a32.len() {
                    let want =
                        cvt_f32x2_to_half2(a32[i] as u32, b32[i] as u32, to, rounding, flag, 0);
                    assert_eq!(
                        a[i],
                        u64::from(want),
                        "f32x2 -> {to:?} {rounding:?} {flag:?}"
                    );
                }
            }
            for to in PAIR_TYPES {
                let (mut a, mut b) = (a32.clone(), b32.clone());
                cvt_f32x2_to_x2_each(&mut a, &mut b, to, rounding, flag);
                for i in 0..a32.len() {
                    let want = cvt_f32x2_to_x2(a32[i] as u32, b32[i] as u32, to, rounding, flag);
                    assert_eq!(
                        a[i],
                        u64::from(want),
                        "f32x2 -> {to:?}x2 {rounding:?} {flag:?}"
                    );
                }
                for from in [Type::F16, Type::Bf16] {
                    let mut a = halves.clone();
                    let mut scratch = Vec::new();
                    cvt_half2_to_x2_each(&mut a, &mut scratch, from, to, rounding, flag);
                    for (i, &input) in halves.iter().enumerate() {
                        let want = cvt_half2_to_x2(input as u32, from, to, rounding, flag);
                        assert_eq!(
                            a[i],
                            u64::from(want),
                            "{from:?}x2 -> {to:?}x2 of {input:#x}"
                        );
                    }
                }
            }
        }
        for (from, to) in [
            (Type::E4m3, Type::F16),
            (Type::E5m2, Type::F16),
            (Type::E2m3, Type::F16),
            (Type::E3m2, Type::F16),
            (Type::E2m1, Type::F16),
            (Type::Ue8m0, Type::Bf16),
        ] {
            let mut a = bytes.clone();
            let mut scratch = Vec::new();
            cvt_x2_to_half2_each(&mut a, &mut scratch, from, to, flag);
            for (i, &input) in bytes.iter().enumerate() {
                let want = cvt_x2_to_half2(input as u16, from, to, flag);
                assert_eq!(
                    a[i],
                    u64::from(want),
                    "{from:?}x2 -> {to:?}x2 of {input:#x}"
                );
            }
        }
    }
}
