//! Tests of `ptxsim_exec::alu` against independent sources only: the host's IEEE 754
//! arithmetic (golden tables from `scripts/golden/alu.sh`), i128 arithmetic written from the
//! PTX ISA sentences, and examples and tables quoted from the PTX ISA and NVIDIA's docs.

use ptxsim_exec::alu::{
    F32_CANONICAL_NAN, HALF_CANONICAL_NAN, atom, bfe, bfi, combine, compare, float_binary,
    float_fma, float_unary, int_binary, int_mad, int_unary, lop3, prmt,
};

use ptxsim_isa::ops::{
    AtomOp, BoolOp, Compare, FloatModifiers, FloatOp, FloatUnaryOp, IntOp, IntUnaryOp, MulMode,
    PrmtMode,
};
use ptxsim_isa::{Rounding, Type};

/// The golden-table reader shared with `golden.rs` and `ptxsim-softfloat`'s tests
/// ([`common::read_golden`] decompresses `tests/golden/*.txt.xz`).
use crate::common;

const RN: FloatModifiers = FloatModifiers {
    rounding: Rounding::Rn,
    ftz: false,
    sat: false,
    relu: false,
    approx: false,
    full: false,
    nan: false,
    oob: false,
    xorsign_abs: false,
};

fn with(rounding: Rounding) -> FloatModifiers {
    FloatModifiers { rounding, ..RN }
}

// ---------------------------------------------------------------------------------------------
// Floating point against the host golden tables.

fn rounding(name: &str) -> Rounding {
    Rounding::from_name(name)
        .filter(|r| Rounding::FLOAT.contains(r))
        .unwrap_or_else(|| panic!("rounding {name}"))
}

/// Runs every line of a golden table; NaN expectations accept only the canonical NaN where the
/// format has one (any NaN is right by IEEE 754; the canonical pattern is the PTX rule checked
/// separately below), any NaN for `.f64` (whose NaN bits follow the GPU, compared in
/// tests/hardware.rs).
fn check_table(name: &str, ty: Type, is_nan: fn(u64) -> bool, canonical: Option<u64>) -> usize {
    let text = common::read_golden(name);
    let mut count = 0;
    let mut failures = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let hex = |s: &str| u64::from_str_radix(s, 16).unwrap_or_else(|e| panic!("{line}: {e}"));
        let m = with(rounding(fields[1]));
        let (got, expected) = match fields[0] {
            "add" | "sub" | "mul" | "div" => {
                let op = match fields[0] {
                    "add" => FloatOp::Add,
                    "sub" => FloatOp::Sub,
                    "mul" => FloatOp::Mul,
                    _ => FloatOp::Div,
                };
                (
                    float_binary(op, ty, m, hex(fields[2]), hex(fields[3])),
                    hex(fields[4]),
                )
            }
            "fma" => (
                float_fma(ty, m, hex(fields[2]), hex(fields[3]), hex(fields[4])),
                hex(fields[5]),
            ),
            "sqrt" => (
                float_unary(FloatUnaryOp::Sqrt, ty, m, hex(fields[2])),
                hex(fields[3]),
            ),
            other => panic!("op {other}"),
        };
        count += 1;
        let ok = if is_nan(expected) {
            canonical.map_or(is_nan(got), |canonical| got == canonical)
        } else {
            got == expected
        };
        if !ok {
            failures.push(format!("{line}: got {got:x}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    count
}

#[test]
fn f32_matches_host_ieee_in_all_roundings() {
    let n = check_table(
        "alu_f32.txt.xz",
        Type::F32,
        |x| f32::from_bits(x as u32).is_nan(),
        Some(u64::from(F32_CANONICAL_NAN)),
    );
    assert_eq!(n, 24_000);
}

#[test]
fn f64_matches_host_ieee_in_all_roundings() {
    let n = check_table(
        "alu_f64.txt.xz",
        Type::F64,
        |x| f64::from_bits(x).is_nan(),
        None,
    );
    assert_eq!(n, 24_000);
}

// ---------------------------------------------------------------------------------------------
// NaN, .ftz, .sat, min/max: hand-derived from the spec sentences.

#[test]
fn nan_results_are_canonical() {
    // CUDA Programming Guide, "Floating-Point Standard": "The result of a single-precision
    // floating-point operation involving one or more input NaNs is the quiet NaN of bit
    // pattern 0x7fffffff."
    let payload_nan = 0xffc0_1234;
    let one = 0x3f80_0000;
    assert_eq!(
        float_binary(FloatOp::Add, Type::F32, RN, payload_nan, one),
        0x7fff_ffff
    );
    assert_eq!(
        float_binary(
            FloatOp::Mul,
            Type::F32,
            with(Rounding::Rz),
            one,
            payload_nan
        ),
        0x7fff_ffff
    );
    // Invalid operations: inf - inf, 0 * inf, 0 / 0, sqrt(-1).
    assert_eq!(
        float_binary(FloatOp::Sub, Type::F32, RN, 0x7f80_0000, 0x7f80_0000),
        0x7fff_ffff
    );
    assert_eq!(
        float_binary(FloatOp::Mul, Type::F32, RN, 0, 0x7f80_0000),
        0x7fff_ffff
    );
    assert_eq!(float_binary(FloatOp::Div, Type::F32, RN, 0, 0), 0x7fff_ffff);
    assert_eq!(
        float_unary(FloatUnaryOp::Sqrt, Type::F32, RN, 0xbf80_0000),
        0x7fff_ffff
    );
    assert_eq!(float_fma(Type::F32, RN, 0, 0x7f80_0000, one), 0x7fff_ffff);
    // f64, as an sm_90 GPU gives it (tests/hardware/ops): a NaN operand quieted with its sign
    // and payload, 0xfff8000000000000 for an invalid operation of numbers.
    assert_eq!(
        float_binary(FloatOp::Add, Type::F64, RN, 0xfff0_0000_0000_0001, 0),
        0xfff8_0000_0000_0001
    );
    assert_eq!(
        float_binary(
            FloatOp::Sub,
            Type::F64,
            RN,
            0x7ff0_0000_0000_0000,
            0x7ff0_0000_0000_0000
        ),
        0xfff8_0000_0000_0000
    );
    // f16/bf16: canonical NaN 0x7fff per lane (PTX ISA 9.7.4).
    assert_eq!(
        float_binary(FloatOp::Sub, Type::F16, RN, 0x7c00, 0x7c00),
        0x7fff
    );
    assert_eq!(
        float_binary(FloatOp::Add, Type::Bf16, RN, 0xffc1, 0x3f80),
        0x7fff
    );
    // x2: only the NaN lane changes. Low lane 1.0 + 1.0 = 2.0 (0x4000), high lane NaN.
    assert_eq!(
        float_binary(FloatOp::Add, Type::F16x2, RN, 0xfe00_3c00, 0x3c00_3c00),
        0x7fff_4000
    );
    assert_eq!(HALF_CANONICAL_NAN, 0x7fff);
    // CUDA guide: "Double-precision floating-point absolute value and negation are not
    // compliant with IEEE-754 with respect to NaNs; these are passed through unchanged."
    assert_eq!(
        float_unary(FloatUnaryOp::Neg, Type::F64, RN, 0xfff8_0000_0000_0001),
        0xfff8_0000_0000_0001
    );
    // Ordinary abs/neg change the sign bit only.
    assert_eq!(
        float_unary(FloatUnaryOp::Abs, Type::F32, RN, 0x8000_0001),
        0x0000_0001
    );
    assert_eq!(
        float_unary(FloatUnaryOp::Neg, Type::Bf16x2, RN, 0x3f80_bf80),
        0xbf80_3f80
    );
}

#[test]
fn ftz_and_sat_on_f32() {
    let ftz = FloatModifiers { ftz: true, ..RN };
    let sat = FloatModifiers { sat: true, ..RN };
    let min_sub = 0x0000_0001; // 2^-149
    let min_normal = 0x0080_0000; // 2^-126
    // ".ftz: flush subnormal inputs and results to sign-preserving zero" (9.7.3.1).
    // Input: 2^-149 + 0 is 2^-149 without .ftz, +0 with it; -2^-149 gives -0.
    assert_eq!(
        float_binary(FloatOp::Add, Type::F32, RN, min_sub, 0),
        min_sub
    );
    assert_eq!(float_binary(FloatOp::Add, Type::F32, ftz, min_sub, 0), 0);
    assert_eq!(
        float_binary(FloatOp::Add, Type::F32, ftz, 0x8000_0001, 0x8000_0000),
        0x8000_0000
    );
    // Result: 2^-126 * 0.5 = 2^-127 is subnormal: flushed to +0 (and -0 for a negative).
    assert_eq!(
        float_binary(FloatOp::Mul, Type::F32, RN, min_normal, 0x3f00_0000),
        0x0040_0000
    );
    assert_eq!(
        float_binary(FloatOp::Mul, Type::F32, ftz, min_normal, 0x3f00_0000),
        0
    );
    assert_eq!(
        float_binary(FloatOp::Mul, Type::F32, ftz, min_normal, 0xbf00_0000),
        0x8000_0000
    );
    // fma: a subnormal c is flushed before the addition: 1 * 1 + 2^-149 rounds down to 1.0
    // either way, but with .rp it is above 1.0 only without .ftz.
    let rp = with(Rounding::Rp);
    let rp_ftz = FloatModifiers { ftz: true, ..rp };
    assert_eq!(
        float_fma(Type::F32, rp, 0x3f80_0000, 0x3f80_0000, min_sub),
        0x3f80_0001
    );
    assert_eq!(
        float_fma(Type::F32, rp_ftz, 0x3f80_0000, 0x3f80_0000, min_sub),
        0x3f80_0000
    );
    // setp.ftz: a subnormal compares equal to zero.
    assert!(!compare(Compare::Eq, Type::F32, false, min_sub, 0));
    assert!(compare(Compare::Eq, Type::F32, true, min_sub, 0));
    // ".sat: clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0."
    assert_eq!(
        float_binary(FloatOp::Add, Type::F32, sat, 0x3f80_0000, 0x3f80_0000),
        0x3f80_0000
    );
    assert_eq!(
        float_binary(FloatOp::Sub, Type::F32, sat, 0, 0x3f80_0000),
        0
    );
    assert_eq!(
        float_binary(FloatOp::Mul, Type::F32, sat, 0, 0x7f80_0000),
        0
    );
    assert_eq!(
        float_binary(FloatOp::Add, Type::F32, sat, 0x3f00_0000, 0),
        0x3f00_0000
    );
    assert_eq!(
        float_fma(Type::F32, sat, 0x4000_0000, 0x4000_0000, 0),
        0x3f80_0000
    );
    // -0.0 clamps to +0.0 (the range starts at +0.0).
    assert_eq!(
        float_binary(FloatOp::Mul, Type::F32, sat, 0x8000_0000, 0x3f80_0000),
        0
    );
    // .relu on half types: "clamps the result to 0 if negative".
    let relu = FloatModifiers { relu: true, ..RN };
    assert_eq!(float_fma(Type::F16, relu, 0x3c00, 0xbc00, 0), 0);
    assert_eq!(float_fma(Type::F16, relu, 0x3c00, 0x3c00, 0), 0x3c00);
}

#[test]
fn min_max_follow_the_spec_pseudocode() {
    // 9.7.3.11: "if (isNaN(x) && isNaN(y)) z = NaN; else if (isNaN(x)) z = y; else if
    // (isNaN(y)) z = x; else // note: -0.0 < +0.0 here  z = (x < y) ? x : y;"
    let nan = 0x7fc0_0000;
    let two = 0x4000_0000;
    let nan_mod = FloatModifiers { nan: true, ..RN };
    let ty = Type::F32;
    assert_eq!(float_binary(FloatOp::Min, ty, RN, nan, two), two);
    assert_eq!(float_binary(FloatOp::Max, ty, RN, two, nan), two);
    assert_eq!(float_binary(FloatOp::Min, ty, RN, nan, nan), 0x7fff_ffff);
    assert_eq!(
        float_binary(FloatOp::Min, ty, nan_mod, nan, two),
        0x7fff_ffff
    );
    assert_eq!(
        float_binary(FloatOp::Min, ty, RN, 0, 0x8000_0000),
        0x8000_0000
    );
    assert_eq!(
        float_binary(FloatOp::Min, ty, RN, 0x8000_0000, 0),
        0x8000_0000
    );
    assert_eq!(float_binary(FloatOp::Max, ty, RN, 0x8000_0000, 0), 0);
    assert_eq!(float_binary(FloatOp::Max, ty, RN, 0, 0x8000_0000), 0);
    assert_eq!(
        float_binary(FloatOp::Max, ty, RN, 0xff80_0000, 0xc000_0000),
        0xc000_0000
    );
    assert_eq!(
        float_binary(FloatOp::Min, Type::F64, RN, 0x8000_0000_0000_0000, 0),
        0x8000_0000_0000_0000
    );
    assert_eq!(
        float_binary(FloatOp::Max, Type::F64, RN, 0x7ff8_0000_0000_0000, 1),
        1
    );
    assert_eq!(
        float_binary(FloatOp::Min, Type::Bf16x2, RN, 0x7fc0_8000, 0x3f80_0000),
        0x3f80_8000
    );
}

#[test]
fn div_by_zero_and_rcp_sqrt_specials() {
    let inf = 0x7f80_0000;
    assert_eq!(
        float_binary(FloatOp::Div, Type::F32, RN, 0x3f80_0000, 0),
        inf
    );
    assert_eq!(
        float_binary(FloatOp::Div, Type::F32, RN, 0x3f80_0000, 0x8000_0000),
        0xff80_0000
    );
    assert_eq!(
        float_unary(FloatUnaryOp::Rcp, Type::F32, RN, 0x4000_0000),
        0x3f00_0000
    );
    // 1/3 rounded: rn 0x3eaaaaab, rz 0x3eaaaaaa.
    assert_eq!(
        float_unary(FloatUnaryOp::Rcp, Type::F32, RN, 0x4040_0000),
        0x3eaa_aaab
    );
    assert_eq!(
        float_unary(
            FloatUnaryOp::Rcp,
            Type::F32,
            with(Rounding::Rz),
            0x4040_0000
        ),
        0x3eaa_aaaa
    );
    // "sqrt(-0.0) = -0.0", "sqrt(+Inf) = +Inf".
    assert_eq!(
        float_unary(FloatUnaryOp::Sqrt, Type::F32, RN, 0x8000_0000),
        0x8000_0000
    );
    assert_eq!(
        float_unary(FloatUnaryOp::Sqrt, Type::F32, with(Rounding::Rm), inf),
        inf
    );
    // f16 sqrt(2) = 1.41421356: f16 candidates 0x3da8 (1.4140625) and 0x3da9 (1.4150390625).
    assert_eq!(
        float_unary(FloatUnaryOp::Sqrt, Type::F16, RN, 0x4000),
        0x3da8
    );
    assert_eq!(
        float_unary(FloatUnaryOp::Sqrt, Type::F16, with(Rounding::Rp), 0x4000),
        0x3da9
    );
}

// ---------------------------------------------------------------------------------------------
// f16 / bf16 against f32/f64 host arithmetic rounded once by ptxsim_softfloat (the alu uses
// rustc_apfloat for these types, so the two paths share no code).

fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 16
}

fn half_to_f32(ty: Type, bits: u64) -> f32 {
    let from = if ty == Type::F16 {
        ptxsim_softfloat::Type::F16
    } else {
        ptxsim_softfloat::Type::Bf16
    };
    let c = ptxsim_softfloat::convert(
        bits,
        from,
        ptxsim_softfloat::Type::F32,
        ptxsim_softfloat::Rounding::Rn,
        ptxsim_softfloat::Flags::NONE,
        None,
    );
    f32::from_bits(c.bits as u32)
}

fn round_to_half(ty: Type, value: f64, rounding: Rounding) -> u64 {
    let to = if ty == Type::F16 {
        ptxsim_softfloat::Type::F16
    } else {
        ptxsim_softfloat::Type::Bf16
    };
    let r = rounding;
    ptxsim_softfloat::convert(
        value.to_bits(),
        ptxsim_softfloat::Type::F64,
        to,
        r,
        ptxsim_softfloat::Flags::NONE,
        None,
    )
    .bits
}

/// Knuth's TwoSum: `s = fl(a + b)` and the exact error `a + b - s` (zero iff the sum is exact).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[test]
fn half_types_round_once() {
    let mut state = 7;
    let mut checked_fma = 0;
    let mut checked_binary = 0;
    for ty in [Type::F16, Type::Bf16] {
        let is_nan = |x: u64| half_to_f32(ty, x).is_nan();
        for i in 0..3000 {
            let (a, b, c) = (
                lcg(&mut state) & 0xffff,
                lcg(&mut state) & 0xffff,
                lcg(&mut state) & 0xffff,
            );
            // Keep some operands within a few binades of each other.
            let b = if i % 2 == 0 {
                (b & 0x83ff) | (a & 0x7c00)
            } else {
                b
            };
            let rounding = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp][i % 4];
            let m = with(rounding);
            let (x, y, z) = (
                half_to_f32(ty, a) as f64,
                half_to_f32(ty, b) as f64,
                half_to_f32(ty, c) as f64,
            );
            // Products of two p-bit values are exact in f64. Sums and differences are checked
            // in every rounding where f64 holds them exactly (TwoSum error term zero), and in
            // .rn otherwise: f64 has >= 2p+2 bits, so rounding twice to nearest is innocuous.
            for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Mul] {
                let (exact, err) = match op {
                    FloatOp::Mul => (x * y, 0.0),
                    FloatOp::Add => two_sum(x, y),
                    _ => two_sum(x, -y),
                };
                if err != 0.0 && rounding != Rounding::Rn {
                    continue;
                }
                let got = float_binary(op, ty, m, a, b);
                if exact.is_nan() {
                    assert_eq!(got, 0x7fff, "{ty} {op:?} {a:x} {b:x}");
                } else {
                    let expected = round_to_half(ty, exact, rounding);
                    assert!(!is_nan(expected));
                    assert_eq!(got, expected, "{ty} {op:?} {rounding:?} {a:x} {b:x}");
                    checked_binary += 1;
                }
            }
            // fma: a*b is exact in f64; a*b + c is checked only where f64 holds it exactly
            // (TwoSum error term zero), so rounding it to the half type is a single rounding.
            let (s, err) = two_sum(x * y, z);
            if s.is_finite() && err == 0.0 {
                let got = float_fma(ty, m, a, b, c);
                assert_eq!(
                    got,
                    round_to_half(ty, s, rounding),
                    "{ty} fma {rounding:?} {a:x} {b:x} {c:x}"
                );
                checked_fma += 1;
            }
        }
    }
    assert!(
        checked_fma > 3000,
        "only {checked_fma} fma cases were exact"
    );
    assert!(
        checked_binary > 15_000,
        "only {checked_binary} cases checked"
    );
}

// ---------------------------------------------------------------------------------------------
// Integers against i128 arithmetic written from the spec sentences.

const INT_TYPES: [Type; 6] = [
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
];

fn bits_of(ty: Type) -> u32 {
    ty.bits()
}

fn signed(ty: Type) -> bool {
    matches!(ty, Type::S16 | Type::S32 | Type::S64)
}

/// The value of the low n bits as the type says.
fn value(ty: Type, x: u64) -> i128 {
    let n = bits_of(ty);
    let x = x as u128 & ((1u128 << n) - 1);
    if signed(ty) && x >> (n - 1) != 0 {
        x as i128 - (1i128 << n)
    } else {
        x as i128
    }
}

/// Wraps an exact result to n bits.
fn wrap(n: u32, v: i128) -> u64 {
    (v as u128 & ((1u128 << n) - 1)) as u64
}

fn edge_values(ty: Type) -> Vec<u64> {
    let n = bits_of(ty);
    let max_u = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let mut v = vec![
        0,
        1,
        2,
        3,
        7,
        max_u,
        max_u - 1,
        1 << (n - 1),
        (1 << (n - 1)) - 1,
        (1 << (n - 1)) + 1,
    ];
    let mut state = u64::from(n);
    for _ in 0..12 {
        v.push(lcg(&mut state) & max_u);
    }
    v.push(0xdead_beef_1234_5678 & max_u);
    v
}

#[test]
fn integer_binary_ops_match_i128() {
    let mut count = 0;
    for ty in INT_TYPES {
        let n = bits_of(ty);
        let (min, max) = if signed(ty) {
            (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
        } else {
            (0, (1i128 << n) - 1)
        };
        for &a in &edge_values(ty) {
            for &b in &edge_values(ty) {
                // Garbage above the type width must be ignored.
                let (ga, gb) = if n < 64 {
                    (a | 0xabcd << n, b | 0x1234 << n)
                } else {
                    (a, b)
                };
                let (x, y) = (value(ty, a), value(ty, b));
                let check = |op: IntOp, sat: bool, expected: u64| {
                    assert_eq!(
                        int_binary(op, ty, sat, false, ga, gb),
                        expected,
                        "{ty} {op:?} sat={sat} {a:x} {b:x}"
                    );
                };
                check(IntOp::Add, false, wrap(n, x + y));
                check(IntOp::Sub, false, wrap(n, x - y));
                check(IntOp::Mul(MulMode::Lo), false, wrap(n, x.wrapping_mul(y)));
                // "mul.hi: the upper n bits of the 2n-bit product" (arithmetic shift of the
                // exact product for signed types; u64 x u64 needs u128).
                let high = if n == 64 && !signed(ty) {
                    ((x as u128 * y as u128) >> 64) as i128
                } else {
                    (x * y) >> n
                };
                check(IntOp::Mul(MulMode::Hi), false, wrap(n, high));
                if n < 64 {
                    check(IntOp::Mul(MulMode::Wide), false, wrap(2 * n, x * y));
                }
                if signed(ty) && n == 32 {
                    // add.sat.s32 / sub.sat.s32 clamp to MININT..MAXINT.
                    check(IntOp::Add, true, wrap(n, (x + y).clamp(min, max)));
                    check(IntOp::Sub, true, wrap(n, (x - y).clamp(min, max)));
                }
                if y != 0 {
                    // C semantics: truncation toward zero, remainder has the dividend's sign;
                    // MIN / -1 wraps.
                    let q = x / y;
                    check(IntOp::Div, false, wrap(n, q));
                    check(IntOp::Rem, false, wrap(n, x - q * y));
                } else {
                    check(IntOp::Div, false, wrap(n, -1));
                    check(IntOp::Rem, false, wrap(n, -1));
                }
                check(IntOp::Min, false, wrap(n, x.min(y)));
                check(IntOp::Max, false, wrap(n, x.max(y)));
                count += 1;
            }
        }
    }
    assert!(count > 3000);
}

#[test]
fn integer_edge_cases() {
    // INT_MIN / -1 wraps to INT_MIN; INT_MIN % -1 = 0.
    assert_eq!(
        int_binary(
            IntOp::Div,
            Type::S32,
            false,
            false,
            0x8000_0000,
            0xffff_ffff
        ),
        0x8000_0000
    );
    assert_eq!(
        int_binary(
            IntOp::Rem,
            Type::S32,
            false,
            false,
            0x8000_0000,
            0xffff_ffff
        ),
        0
    );
    assert_eq!(
        int_binary(IntOp::Div, Type::S64, false, false, 1 << 63, u64::MAX),
        1 << 63
    );
    // Division by zero: all bits set (see alu.rs for the source).
    assert_eq!(
        int_binary(IntOp::Div, Type::U32, false, false, 5, 0),
        0xffff_ffff
    );
    assert_eq!(
        int_binary(IntOp::Rem, Type::U16, false, false, 5, 0),
        0xffff
    );
    // mul.hi of negatives: -1 * -1 = 1 -> hi 0; MIN * MIN = 2^62 -> hi 0x40000000.
    assert_eq!(
        int_binary(
            IntOp::Mul(MulMode::Hi),
            Type::S32,
            false,
            false,
            0xffff_ffff,
            0xffff_ffff
        ),
        0
    );
    assert_eq!(
        int_binary(
            IntOp::Mul(MulMode::Hi),
            Type::S32,
            false,
            false,
            0x8000_0000,
            0x8000_0000
        ),
        0x4000_0000
    );
    assert_eq!(
        int_binary(
            IntOp::Mul(MulMode::Hi),
            Type::S32,
            false,
            false,
            0xffff_fffe,
            3
        ),
        0xffff_ffff
    );
    assert_eq!(
        int_binary(
            IntOp::Mul(MulMode::Hi),
            Type::U32,
            false,
            false,
            0xffff_ffff,
            0xffff_ffff
        ),
        0xffff_fffe
    );
    assert_eq!(
        int_binary(
            IntOp::Mul(MulMode::Wide),
            Type::S32,
            false,
            false,
            0xffff_ffff,
            2
        ),
        0xffff_ffff_ffff_fffe
    );
    assert_eq!(
        int_binary(
            IntOp::Mul(MulMode::Wide),
            Type::U16,
            false,
            false,
            0xffff,
            0xffff
        ),
        0xfffe_0001
    );
    // add.sat.s32: "clamps to MININT..MAXINT".
    assert_eq!(
        int_binary(IntOp::Add, Type::S32, true, false, 0x7fff_ffff, 1),
        0x7fff_ffff
    );
    assert_eq!(
        int_binary(IntOp::Sub, Type::S32, true, false, 0x8000_0000, 1),
        0x8000_0000
    );
    // min.relu.s32 / max.relu.s32: negative results become 0.
    assert_eq!(
        int_binary(IntOp::Min, Type::S32, false, true, 0xffff_fff0, 5),
        0
    );
    assert_eq!(
        int_binary(IntOp::Max, Type::S32, false, true, 0xffff_fff0, 0xffff_fff1),
        0
    );
    assert_eq!(
        int_binary(IntOp::Max, Type::S32, false, true, 0xffff_fff0, 5),
        5
    );
    // Shifts: "Shift amounts greater than the register width N are clamped to N."
    assert_eq!(
        int_binary(IntOp::Shl, Type::B32, false, false, 1, 31),
        0x8000_0000
    );
    assert_eq!(int_binary(IntOp::Shl, Type::B32, false, false, 1, 32), 0);
    assert_eq!(
        int_binary(IntOp::Shl, Type::B32, false, false, 1, 0xffff_ffff),
        0
    );
    assert_eq!(
        int_binary(IntOp::Shl, Type::B16, false, false, 0xffff, 4),
        0xfff0
    );
    assert_eq!(
        int_binary(IntOp::Shr, Type::U32, false, false, 0x8000_0000, 33),
        0
    );
    assert_eq!(
        int_binary(IntOp::Shr, Type::B64, false, false, 1 << 63, 63),
        1
    );
    // Signed shr fills with the sign bit, also for amounts >= width.
    assert_eq!(
        int_binary(IntOp::Shr, Type::S32, false, false, 0x8000_0000, 4),
        0xf800_0000
    );
    assert_eq!(
        int_binary(IntOp::Shr, Type::S32, false, false, 0x8000_0000, 100),
        0xffff_ffff
    );
    assert_eq!(
        int_binary(IntOp::Shr, Type::S16, false, false, 0x4000, 100),
        0
    );
    assert_eq!(
        int_binary(IntOp::Shr, Type::S64, false, false, 1 << 63, 64),
        u64::MAX
    );
    // .pred: bit 0 only.
    assert_eq!(int_binary(IntOp::And, Type::Pred, false, false, 1, 3), 1);
    assert_eq!(int_binary(IntOp::Xor, Type::Pred, false, false, 1, 1), 0);
    assert_eq!(int_binary(IntOp::Or, Type::Pred, false, false, 2, 0), 0);
    assert_eq!(int_unary(IntUnaryOp::Not, Type::Pred, 0), 1);
    assert_eq!(int_unary(IntUnaryOp::Not, Type::Pred, 1), 0);
}

#[test]
fn integer_unary_known_values() {
    assert_eq!(
        int_unary(IntUnaryOp::Abs, Type::S32, 0x8000_0000),
        0x8000_0000
    );
    assert_eq!(int_unary(IntUnaryOp::Abs, Type::S16, 0xfffb), 5);
    assert_eq!(int_unary(IntUnaryOp::Neg, Type::S64, 5), (-5i64) as u64);
    assert_eq!(
        int_unary(IntUnaryOp::Neg, Type::S32, 0x8000_0000),
        0x8000_0000
    );
    assert_eq!(int_unary(IntUnaryOp::Not, Type::B16, 0x00ff), 0xff00);
    assert_eq!(int_unary(IntUnaryOp::Cnot, Type::B32, 0), 1);
    assert_eq!(int_unary(IntUnaryOp::Cnot, Type::B32, 0x1_0000_0000), 1); // high bits ignored
    assert_eq!(int_unary(IntUnaryOp::Cnot, Type::B32, 8), 0);
    // popc: 0xf0f0f0f0 has 16 ones, all-ones 64-bit has 64.
    assert_eq!(int_unary(IntUnaryOp::Popc, Type::B32, 0xf0f0_f0f0), 16);
    assert_eq!(int_unary(IntUnaryOp::Popc, Type::B64, u64::MAX), 64);
    assert_eq!(int_unary(IntUnaryOp::Popc, Type::B32, u64::MAX), 32);
    // clz: "clz.b32 of 0 is 32"; 1 has 31 leading zeros; 0x8000... has none.
    assert_eq!(int_unary(IntUnaryOp::Clz, Type::B32, 0), 32);
    assert_eq!(int_unary(IntUnaryOp::Clz, Type::B64, 0), 64);
    assert_eq!(int_unary(IntUnaryOp::Clz, Type::B32, 1), 31);
    assert_eq!(int_unary(IntUnaryOp::Clz, Type::B32, 0x8000_0000), 0);
    assert_eq!(
        int_unary(IntUnaryOp::Clz, Type::B64, 0x0000_0001_0000_0000),
        31
    );
    // brev: bit i moves to bit n-1-i.
    assert_eq!(int_unary(IntUnaryOp::Brev, Type::B32, 1), 0x8000_0000);
    assert_eq!(
        int_unary(IntUnaryOp::Brev, Type::B32, 0x0000_00f1),
        0x8f00_0000
    );
    assert_eq!(
        int_unary(IntUnaryOp::Brev, Type::B64, 0x3),
        0xc000_0000_0000_0000
    );
}

#[test]
fn mad_modes() {
    // mad.lo: low n bits of a*b + c, wrapping.
    assert_eq!(
        int_mad(MulMode::Lo, Type::S32, false, 0xffff_ffff, 3, 10),
        7
    );
    assert_eq!(int_mad(MulMode::Lo, Type::U32, false, 0x8000_0000, 2, 1), 1);
    // mad.hi: high n bits of a*b, plus c.
    assert_eq!(
        int_mad(MulMode::Hi, Type::U32, false, 0xffff_ffff, 0xffff_ffff, 2),
        0x0000_0000
    );
    // mad.hi.sat.s32: saturates the final addition.
    assert_eq!(
        int_mad(
            MulMode::Hi,
            Type::S32,
            true,
            0x4000_0000,
            0x4000_0000,
            0x7fff_ffff
        ),
        0x7fff_ffff
    );
    assert_eq!(
        int_mad(
            MulMode::Hi,
            Type::S32,
            true,
            0x8000_0000,
            0x7fff_ffff,
            0x8000_0000
        ),
        0x8000_0000
    );
    // mad.wide.s32: c and d are 64-bit: -1 * 2 + 2^40 = 2^40 - 2.
    assert_eq!(
        int_mad(MulMode::Wide, Type::S32, false, 0xffff_ffff, 2, 1 << 40),
        (1 << 40) - 2
    );
    assert_eq!(
        int_mad(MulMode::Wide, Type::U16, false, 0xffff, 0xffff, 0xffff_ffff),
        0xfffe_0000
    );
    // Against i128 for random s32/u32 operands.
    let mut state = 3;
    for _ in 0..500 {
        let (a, b, c) = (
            lcg(&mut state) & 0xffff_ffff,
            lcg(&mut state) & 0xffff_ffff,
            lcg(&mut state),
        );
        for ty in [Type::S32, Type::U32] {
            let (x, y) = (value(ty, a), value(ty, b));
            let expected = wrap(64, x * y + c as i64 as i128);
            assert_eq!(int_mad(MulMode::Wide, ty, false, a, b, c), expected);
            assert_eq!(
                int_mad(MulMode::Lo, ty, false, a, b, c),
                wrap(32, x * y + value(ty, c))
            );
            assert_eq!(
                int_mad(MulMode::Hi, ty, false, a, b, c),
                wrap(32, ((x * y) >> 32) + value(ty, c))
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// prmt, lop3, bfe, bfi, setp, atom.

#[test]
fn prmt_examples() {
    // CUB's PRMT documentation (cub/util_ptx.cuh): a = 0x03020100, b = 0x07060504,
    // index = 0x00007531 -> 0x07050301.
    assert_eq!(
        prmt(PrmtMode::Default, 0x0302_0100, 0x0706_0504, 0x7531),
        0x0705_0301
    );
    // Identity and swap of the halves.
    assert_eq!(
        prmt(PrmtMode::Default, 0x0302_0100, 0x0706_0504, 0x3210),
        0x0302_0100
    );
    assert_eq!(
        prmt(PrmtMode::Default, 0x4433_2211, 0x8877_6655, 0x5476),
        0x6655_8877
    );
    // "msb=1 means replicate the sign": control 8 replicates the sign of byte 0 (0x80 -> 0xff),
    // control 9 that of byte 1 (0x7f -> 0x00); control 0 copies byte 0 (0x80).
    assert_eq!(prmt(PrmtMode::Default, 0x0000_7f80, 0, 0x0098), 0x8080_00ff);
    assert_eq!(prmt(PrmtMode::Default, 0x0000_7f80, 0, 0x0089), 0x8080_ff00);
    // Selector bits above 15 are unused.
    assert_eq!(
        prmt(PrmtMode::Default, 0x0302_0100, 0x0706_0504, 0xffff_7531),
        prmt(PrmtMode::Default, 0x0302_0100, 0x0706_0504, 0x7531)
    );
    // Mode rows of the PTX ISA table (bytes b3 b2 b1 b0 of d from source bytes 7..0).
    let (a, b) = (0x0302_0100, 0x0706_0504); // byte i holds the value i
    let row = |mode: PrmtMode, c: u32| prmt(mode, a, b, c);
    assert_eq!(row(PrmtMode::F4e, 0), 0x0302_0100);
    assert_eq!(row(PrmtMode::F4e, 1), 0x0403_0201);
    assert_eq!(row(PrmtMode::F4e, 3), 0x0605_0403);
    assert_eq!(row(PrmtMode::B4e, 0), 0x0506_0700);
    assert_eq!(row(PrmtMode::B4e, 1), 0x0607_0001);
    assert_eq!(row(PrmtMode::B4e, 3), 0x0001_0203);
    assert_eq!(row(PrmtMode::Rc8, 2), 0x0202_0202);
    assert_eq!(row(PrmtMode::Ecl, 1), 0x0302_0101);
    assert_eq!(row(PrmtMode::Ecl, 2), 0x0302_0202);
    assert_eq!(row(PrmtMode::Ecr, 1), 0x0101_0100);
    assert_eq!(row(PrmtMode::Ecr, 2), 0x0202_0100);
    assert_eq!(row(PrmtMode::Rc16, 0), 0x0100_0100);
    assert_eq!(row(PrmtMode::Rc16, 1), 0x0302_0302);
    assert_eq!(row(PrmtMode::Rc16, 0xfffc), 0x0100_0100); // only c[1:0] counts
}

#[test]
fn lop3_matches_boolean_formulas() {
    let mut state = 11;
    for _ in 0..200 {
        let (a, b, c) = (
            lcg(&mut state) as u32,
            lcg(&mut state) as u32,
            lcg(&mut state) as u32,
        );
        assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
        assert_eq!(lop3(a, b, c, 0xe8), (a & b) | (a & c) | (b & c));
        assert_eq!(lop3(a, b, c, 0x80), a & b & c);
        assert_eq!(lop3(a, b, c, 0xfe), a | b | c);
        assert_eq!(lop3(a, b, c, 0xf0), a);
        assert_eq!(lop3(a, b, c, 0xcc), b);
        assert_eq!(lop3(a, b, c, 0xaa), c);
        // The spec's recipe: "ta = 0xF0; tb = 0xCC; tc = 0xAA; immLut = F(ta, tb, tc)", so
        // F = (a & b) | c gives (0xF0 & 0xCC) | 0xAA = 0xEA.
        assert_eq!(lop3(a, b, c, 0xea), (a & b) | c);
        assert_eq!(lop3(a, b, c, 0x00), 0);
        assert_eq!(lop3(a, b, c, 0xff), u32::MAX);
    }
}

#[test]
fn bfe_and_bfi() {
    // bfe.u32: bits 8..15 of 0x12345678 are 0x56.
    assert_eq!(bfe(Type::U32, 0x1234_5678, 8, 8), 0x56);
    // bfe.s32 sign-extends from bit pos+len-1: 0x80 in bits 4..11 -> 0xffffff80... of len 8.
    assert_eq!(bfe(Type::S32, 0x0000_0800, 4, 8), 0xffff_ff80);
    assert_eq!(bfe(Type::S32, 0x0000_0700, 4, 8), 0x70);
    // len = 0 gives 0 (sbit = 0).
    assert_eq!(bfe(Type::S32, u64::MAX, 4, 0), 0);
    // pos+len beyond msb: the field stops at msb and the sign bit is a[msb].
    assert_eq!(bfe(Type::S32, 0x8000_0000, 28, 10), 0xffff_fff8);
    assert_eq!(bfe(Type::U32, 0x8000_0000, 28, 10), 0x8);
    // pos >= width: every bit is sbit.
    assert_eq!(bfe(Type::S64, 1 << 63, 70, 3), u64::MAX);
    assert_eq!(bfe(Type::U64, u64::MAX, 70, 3), 0);
    // Only the low 8 bits of pos and len count.
    assert_eq!(bfe(Type::U32, 0x1234_5678, 0x108, 0x208), 0x56);
    // bfi: insert the low 8 bits of a at bit 8 of b.
    assert_eq!(bfi(Type::B32, 0xab, 0x1234_5678, 8, 8), 0x1234_ab78);
    assert_eq!(bfi(Type::B32, 0xff, 0, 28, 8), 0xf000_0000);
    assert_eq!(bfi(Type::B64, 0x1, 0, 63, 1), 1 << 63);
    assert_eq!(bfi(Type::B32, 0xff, 0x5555, 4, 0), 0x5555);
}

#[test]
fn setp_truth_tables() {
    // Floating-point comparison operators (9.7.7.2): ordered ones are false with a NaN,
    // unordered ones true; num/nan.
    let nan = 0x7fc0_0000u64;
    let one = 0x3f80_0000u64;
    let two = 0x4000_0000u64;
    let table: [(Compare, [bool; 4]); 16] = [
        // (1 vs 2, 2 vs 1, 1 vs 1, 1 vs NaN)
        (Compare::Eq, [false, false, true, false]),
        (Compare::Ne, [true, true, false, false]),
        (Compare::Lt, [true, false, false, false]),
        (Compare::Le, [true, false, true, false]),
        (Compare::Gt, [false, true, false, false]),
        (Compare::Ge, [false, true, true, false]),
        (Compare::Equ, [false, false, true, true]),
        (Compare::Neu, [true, true, false, true]),
        (Compare::Ltu, [true, false, false, true]),
        (Compare::Leu, [true, false, true, true]),
        (Compare::Gtu, [false, true, false, true]),
        (Compare::Geu, [false, true, true, true]),
        (Compare::Num, [true, true, true, false]),
        (Compare::Nan, [false, false, false, true]),
        (Compare::Lo, [true, false, false, false]),
        (Compare::Hs, [false, true, true, false]),
    ];
    for ty in [Type::F32, Type::F64, Type::F16, Type::Bf16] {
        let conv = |x: u64| match ty {
            Type::F32 => x,
            Type::F64 => f64::from(f32::from_bits(x as u32)).to_bits(),
            Type::F16 => match x {
                0x3f80_0000 => 0x3c00,
                0x4000_0000 => 0x4000,
                _ => 0x7e00,
            },
            _ => x >> 16,
        };
        for (cmp, expected) in table {
            let pairs = [(one, two), (two, one), (one, one), (one, nan)];
            for (i, (a, b)) in pairs.into_iter().enumerate() {
                assert_eq!(
                    compare(cmp, ty, false, conv(a), conv(b)),
                    expected[i],
                    "{ty} {cmp:?} case {i}"
                );
            }
        }
    }
    // +0.0 == -0.0.
    assert!(compare(Compare::Eq, Type::F32, false, 0, 0x8000_0000));
    // Integers: signed vs unsigned orderings.
    let m1 = 0xffff_ffffu64; // -1 as s32, 4294967295 as u32
    assert!(compare(Compare::Lt, Type::S32, false, m1, 0));
    assert!(!compare(Compare::Lt, Type::U32, false, m1, 0));
    assert!(!compare(Compare::Lt, Type::B32, false, m1, 0));
    assert!(compare(Compare::Hi, Type::S32, false, m1, 0)); // .hi is unsigned
    assert!(compare(Compare::Ls, Type::S32, false, 0, m1));
    assert!(compare(Compare::Ge, Type::S16, false, 0x7fff, 0x8000));
    assert!(compare(Compare::Eq, Type::B16, false, 0x1_0005, 5));
    assert!(compare(Compare::Ne, Type::S64, false, 1, 2));
    // combine.
    for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
        assert_eq!(combine(BoolOp::And, a, b), a & b);
        assert_eq!(combine(BoolOp::Or, a, b), a | b);
        assert_eq!(combine(BoolOp::Xor, a, b), a ^ b);
    }
}

#[test]
fn atom_operations() {
    // "inc(r, s) = (r >= s) ? 0 : r+1; dec(r, s) = (r==0 || r > s) ? s : r-1"
    assert_eq!(atom(AtomOp::Inc, Type::U32, false, 5, 10, 0), 6);
    assert_eq!(atom(AtomOp::Inc, Type::U32, false, 10, 10, 0), 0);
    assert_eq!(atom(AtomOp::Inc, Type::U32, false, 11, 10, 0), 0);
    assert_eq!(atom(AtomOp::Dec, Type::U32, false, 5, 10, 0), 4);
    assert_eq!(atom(AtomOp::Dec, Type::U32, false, 0, 10, 0), 10);
    assert_eq!(atom(AtomOp::Dec, Type::U32, false, 11, 10, 0), 10);
    // "cas(r,s,t) = (r == s) ? t : r", "exch(r, s) = s".
    assert_eq!(atom(AtomOp::Cas, Type::B32, false, 7, 7, 9), 9);
    assert_eq!(atom(AtomOp::Cas, Type::B32, false, 7, 8, 9), 7);
    assert_eq!(atom(AtomOp::Exch, Type::B64, false, 7, 8, 9), 8);
    assert_eq!(atom(AtomOp::Add, Type::U32, false, 0xffff_ffff, 2, 0), 1);
    assert_eq!(
        atom(AtomOp::Min, Type::S32, false, 0xffff_ffff, 1, 0),
        0xffff_ffff
    );
    assert_eq!(atom(AtomOp::Min, Type::U32, false, 0xffff_ffff, 1, 0), 1);
    assert_eq!(atom(AtomOp::Max, Type::S64, false, u64::MAX, 1, 0), 1);
    assert_eq!(
        atom(AtomOp::And, Type::B32, false, 0b1100, 0b1010, 0),
        0b1000
    );
    assert_eq!(
        atom(AtomOp::Or, Type::B32, false, 0b1100, 0b1010, 0),
        0b1110
    );
    assert_eq!(
        atom(AtomOp::Xor, Type::B32, false, 0b1100, 0b1010, 0),
        0b0110
    );
    // Float add rounds to nearest even: 1.0 + 2^-24 = 1.0 (tie to even), 1.5 + 1.5 = 3.0.
    assert_eq!(
        atom(AtomOp::Add, Type::F32, false, 0x3f80_0000, 0x3380_0000, 0),
        0x3f80_0000
    );
    assert_eq!(
        atom(AtomOp::Add, Type::F32, false, 0x3fc0_0000, 0x3fc0_0000, 0),
        0x4040_0000
    );
    assert_eq!(
        atom(
            AtomOp::Add,
            Type::F64,
            false,
            0x3ff0_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0
        ),
        0x4000_0000_0000_0000
    );
    // Subnormals are kept (shared-memory / .noftz behaviour); "Current implementation of
    // atom.add.f32 on global memory flushes subnormal inputs and results to sign-preserving
    // zero" (PTX ISA 9.7.13.5).
    assert_eq!(atom(AtomOp::Add, Type::F32, false, 1, 1, 0), 2);
    assert_eq!(atom(AtomOp::Add, Type::F32, true, 1, 1, 0), 0);
    assert_eq!(
        atom(AtomOp::Add, Type::F32, true, 0x8000_0001, 0x3f80_0000, 0),
        0x3f80_0000
    );
    assert_eq!(
        atom(AtomOp::Add, Type::F16x2, false, 0x3c00_3c00, 0x3c00_0001, 0),
        0x4000_3c00
    );
}
