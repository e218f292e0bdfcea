//! `add`/`sub`/`mul`/`fma` `.f32x2` (PTX ISA 9.7.3.3-6, sm_100): each 32-bit half of the
//! `.b64` operands combined as the `.f32` instruction combines it. The expected values come
//! from a host model of the ISA's rounding definitions on exact `f64` results (the inputs are
//! chosen so that every sum, difference, product and fused result is exact in `f64`).

use ptxsim_exec::api::Arg;

use crate::launch::{STEPS, launch};

const PAIR: &str = include_str!("f32x2/pair.ptx");

#[derive(Clone, Copy, Debug)]
enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
}

/// The next `f32` after `x` toward `+inf` (`up`) or `-inf`, for finite `x`.
fn step(x: f32, up: bool) -> f32 {
    if x == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = x.to_bits();
    let away = (x > 0.0) == up;
    f32::from_bits(if away { bits + 1 } else { bits - 1 })
}

/// `x` rounded to `f32` as the ISA's modifiers say: ".rn mantissa LSB rounds to nearest
/// even", ".rz ... towards zero", ".rm ... towards negative infinity", ".rp ... towards
/// positive infinity".
fn round(x: f64, mode: Mode) -> f32 {
    let nearest = x as f32;
    let n = f64::from(nearest);
    if n == x {
        return nearest;
    }
    match mode {
        Mode::Rn => nearest,
        Mode::Rz if n.abs() > x.abs() => step(nearest, x < 0.0),
        Mode::Rm if n > x => step(nearest, false),
        Mode::Rp if n < x => step(nearest, true),
        _ => nearest,
    }
}

/// One half: "`.ftz` flushes subnormal inputs and results to sign-preserving zero".
fn reference(op: Op, mode: Mode, ftz: bool, [a, b, c]: [u32; 3]) -> u32 {
    let flush = |x: f32| {
        if ftz && x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    };
    let [a, b, c] = [a, b, c].map(|x| f64::from(flush(f32::from_bits(x))));
    let exact = match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Fma => a * b + c,
    };
    flush(round(exact, mode)).to_bits()
}

#[test]
fn each_half_is_the_f32_instruction() {
    // (a, b, c) per half: a sum below half an ulp of 1.0, its negative, a subnormal, and
    // 3 x (1/3 rounded up) - 1 = 2^-25.
    let halves: [[u32; 3]; 4] = [
        [0x3f80_0000, 0x3080_0000, 0x0000_0000],
        [0xbf80_0000, 0xb080_0000, 0x3f80_0000],
        [0x0000_0001, 0x0000_0000, 0x0000_0001],
        [0x4040_0000, 0x3eaa_aaab, 0xbf80_0000],
    ];
    // Thread 0: halves 0 (low) and 1 (high); thread 1: halves 2 and 3.
    let threads = [(0, 1), (2, 3)];
    let mut input = Vec::new();
    for &(lo, hi) in &threads {
        for (&low, &high) in halves[lo].iter().zip(&halves[hi]) {
            let word = u64::from(low) | u64::from(high) << 32;
            input.extend_from_slice(&word.to_le_bytes());
        }
    }
    let mut out = vec![0u8; 2 * 11 * 8];
    let buffers = &mut [Arg::Buffer(&mut input), Arg::Buffer(&mut out)];
    launch(PAIR, "pair", (1, 2), buffers, STEPS).expect("it runs");
    // The kernel's 11 results in order.
    let results = [
        (Op::Add, Mode::Rn, false),
        (Op::Add, Mode::Rz, false),
        (Op::Add, Mode::Rm, false),
        (Op::Add, Mode::Rp, false),
        (Op::Add, Mode::Rn, true),
        (Op::Sub, Mode::Rn, false),
        (Op::Mul, Mode::Rn, false),
        (Op::Mul, Mode::Rz, true),
        (Op::Fma, Mode::Rn, false),
        (Op::Fma, Mode::Rm, false),
        (Op::Fma, Mode::Rn, true),
    ];
    for (thread, &(lo, hi)) in threads.iter().enumerate() {
        for (index, &(op, mode, ftz)) in results.iter().enumerate() {
            let at = (thread * 11 + index) * 8;
            let got = u64::from_le_bytes(out[at..at + 8].try_into().unwrap());
            let expected = u64::from(reference(op, mode, ftz, halves[lo]))
                | u64::from(reference(op, mode, ftz, halves[hi])) << 32;
            assert_eq!(
                got, expected,
                "thread {thread}: {op:?}.{mode:?} ftz {ftz}: {got:#018x} != {expected:#018x}"
            );
        }
    }
    // Spot values worked by hand from the definitions: add.rp of 1.0 + 2^-30 is the next f32
    // above 1.0; add.rm of -1.0 - 2^-30 the next below -1.0; fma 3 x 0x3eaaaaab - 1 = 2^-25.
    assert_eq!(reference(Op::Add, Mode::Rp, false, halves[0]), 0x3f80_0001);
    assert_eq!(reference(Op::Add, Mode::Rm, false, halves[1]), 0xbf80_0001);
    assert_eq!(reference(Op::Fma, Mode::Rn, false, halves[3]), 0x3300_0000);
    assert_eq!(reference(Op::Add, Mode::Rn, true, halves[2]), 0);
}

#[test]
fn min_and_max_of_three_inputs() {
    // PTX ISA 8.8, min/max: "d = two_inputs_min(d, a, b); if (isPresent(c)) d =
    // two_inputs_min(d, d, c)", `.abs` first taking magnitudes, `.NaN` giving canonical NaN
    // for any NaN input, `.ftz` flushing subnormals to sign-preserving zero, "-0.0 < +0.0".
    // Each case: (instruction, a, b, c, expected bits), worked by hand from those sentences.
    let cases: [(&str, u32, u32, u32, u32); 8] = [
        (
            "min.f32",
            0x4040_0000,
            0xbf80_0000,
            0x4000_0000,
            0xbf80_0000,
        ), // min(3, -1, 2) = -1
        (
            "max.f32",
            0x4040_0000,
            0xbf80_0000,
            0x4000_0000,
            0x4040_0000,
        ), // 3
        (
            "min.abs.f32",
            0x4040_0000,
            0xbf80_0000,
            0x4000_0000,
            0x3f80_0000,
        ), // 1
        (
            "max.abs.f32",
            0xc040_0000,
            0xbf80_0000,
            0x4000_0000,
            0x4040_0000,
        ), // |-3| = 3
        (
            "min.f32",
            0x7fc0_0000,
            0x3f80_0000,
            0xc0a0_0000,
            0xc0a0_0000,
        ), // NaN skipped: -5
        (
            "min.NaN.f32",
            0x7fc0_0000,
            0x3f80_0000,
            0xc0a0_0000,
            0x7fff_ffff,
        ), // canonical NaN
        (
            "min.ftz.f32",
            0x0000_0001,
            0x8000_0001,
            0x3f80_0000,
            0x8000_0000,
        ), // -0 < +0
        (
            "min.f32",
            0x0000_0001,
            0x8000_0001,
            0x3f80_0000,
            0x8000_0001,
        ), // -2^-149
    ];
    let mut body = String::new();
    for (index, (instruction, a, b, c, _)) in cases.iter().enumerate() {
        body.push_str(&format!(
            "mov.b32 %f1, 0f{a:08X};\nmov.b32 %f2, 0f{b:08X};\nmov.b32 %f3, 0f{c:08X};\n\
             {instruction} %f4, %f1, %f2, %f3;\nst.global.f32 [%rd1+{}], %f4;\n",
            4 * index
        ));
    }
    let source = format!(
        ".version 8.8\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n.reg .f32 %f<5>;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n{body}ret;\n}}\n"
    );
    let mut out = vec![0u8; 4 * cases.len()];
    launch(&source, "k", (1, 1), &mut [Arg::Buffer(&mut out)], STEPS).expect("it runs");
    for (index, (instruction, a, b, c, expected)) in cases.iter().enumerate() {
        let got = u32::from_le_bytes(out[4 * index..4 * index + 4].try_into().unwrap());
        assert_eq!(
            got, *expected,
            "{instruction} {a:#x} {b:#x} {c:#x}: {got:#x} != {expected:#x}"
        );
    }
}
