//! `mma` and `wmma.mma` `.f64` with a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`), run
//! through the whole executor on one warp (`.m8n8k4`).
//!
//! The ISA: "Precision of the element-wise multiplication and addition operation is identical
//! to that of .f64 precision fused multiply-add. Supported rounding modifiers are: .rn, .rz,
//! .rm, .rp" (9.7.14.4.1, "Precision and rounding"), and MMA-Sim's model of the `.f64` tensor
//! core: one fused multiply-add per `k`, in `k` order, starting from `c`. The expected values
//! come from that chain computed here exactly in integers and rounded by hand: every input is
//! a multiple of 2^-90 below 2^24, so each `acc + a*b` is an exact `i128` multiple of 2^-90,
//! rounded to 53 significant bits by the mode's rule (no host floating-point arithmetic but the
//! exact scaling of the rounded result). The modules were accepted by `ptxas -arch sm_80`.
//!
//! `mma.sync.aligned.m8n8k4.row.col.f64`'s fragments (9.7.14.5.x, "Matrix fragments for
//! mma.m8n8k4 with .f64"): lane `4g + t` holds A(g, t), B(t, g) and C(g, 2t), C(g, 2t + 1); so
//! with A row-major, B column-major and C row-major, lane `l` loads element `l` of A and of B
//! and elements `2l`, `2l + 1` of C.

use ptxsim_exec::Argument;
use ptxsim_exec::grid::{self, GridOptions};

/// The inputs: A (8x4 row-major), B (4x8 column-major: element (k, n) at `4n + k`), C (8x8
/// row-major), as exact multiples of 2^-90 (`i128`) and as f64 bits.
struct Inputs {
    a: Vec<i128>,
    b: Vec<i128>,
    c: Vec<i128>,
}

/// A deterministic stream of 64-bit numbers (a linear congruential generator).
fn numbers(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 11
    }
}

/// `mantissa * 2^-shift` with the sign, as a multiple of 2^-90.
fn scaled(negative: bool, mantissa: u64, shift: u32) -> i128 {
    let magnitude = i128::from(mantissa) << (90 - shift);
    if negative { -magnitude } else { magnitude }
}

fn inputs(seed: u64) -> Inputs {
    let mut next = numbers(seed);
    let mut value = |bits: u32, shift: (u32, u32)| {
        let mantissa = (next() & ((1 << bits) - 1)) | 1;
        let shift = shift.0 + (next() % u64::from(shift.1 - shift.0 + 1)) as u32;
        scaled(next() & 1 == 1, mantissa, shift)
    };
    Inputs {
        // |a|, |b| < 2^10 on the grid 2^-45: the products are on 2^-90, below 2^20.
        a: (0..32).map(|_| value(30, (20, 45))).collect(),
        b: (0..32).map(|_| value(30, (20, 45))).collect(),
        // |c| < 2^20 on the grid 2^-60.
        c: (0..64).map(|_| value(40, (20, 60))).collect(),
    }
}

/// The f64 of an exact multiple of 2^-90 with at most 53 significant bits, or of `q * 2^(e -
/// 90)`: `q` is below 2^54, so `q as f64` is exact, and the scaling by a power of two too.
fn exact_f64(negative: bool, q: u128, e: i32) -> f64 {
    let magnitude = q as f64 * 2f64.powi(e - 90);
    if negative { -magnitude } else { magnitude }
}

/// `n * 2^-90` rounded to f64 by `mode` ("rn": to nearest, ties to even; "rz": toward zero;
/// "rm": toward negative infinity; "rp": toward positive infinity). An exact zero is +0, -0
/// for "rm" (the sign of an exact zero sum, IEEE 754 6.3).
fn round(n: i128, mode: &str) -> f64 {
    if n == 0 {
        return if mode == "rm" { -0.0 } else { 0.0 };
    }
    let negative = n < 0;
    let magnitude = n.unsigned_abs();
    let length = 128 - magnitude.leading_zeros();
    if length <= 53 {
        return exact_f64(negative, magnitude, 0);
    }
    let shift = length - 53;
    let (q, rest) = (magnitude >> shift, magnitude & ((1 << shift) - 1));
    let half = 1u128 << (shift - 1);
    let up = match mode {
        "rn" => rest > half || (rest == half && q & 1 == 1),
        "rz" => false,
        "rm" => negative && rest != 0,
        "rp" => !negative && rest != 0,
        _ => unreachable!("a rounding mode of the test"),
    };
    exact_f64(negative, q + u128::from(up), shift as i32)
}

/// The f64 back as a multiple of 2^-90 (every value of the chain is one).
fn grid(x: f64) -> i128 {
    let scaled = x * 2f64.powi(90);
    let n = scaled as i128;
    assert_eq!(n as f64, scaled, "{x} is a multiple of 2^-90 below 2^127");
    n
}

/// D(i, j): `c` then one rounded fused step per `k`.
fn expected(inputs: &Inputs, mode: &str) -> Vec<u64> {
    let mut d = Vec::with_capacity(64);
    for i in 0..8 {
        for j in 0..8 {
            let mut acc = round(inputs.c[8 * i + j], mode);
            for k in 0..4 {
                // a and b are multiples of 2^-45, so (a 2^45)(b 2^45) is the product in 2^-90.
                let product = (inputs.a[4 * i + k] >> 45) * (inputs.b[4 * j + k] >> 45);
                acc = round(grid(acc) + product, mode);
            }
            d.push(acc.to_bits());
        }
    }
    d
}

fn bytes(values: &[i128], mode: &str) -> Vec<u8> {
    values
        .iter()
        .flat_map(|&v| round(v, mode).to_bits().to_le_bytes())
        .collect()
}

/// Runs `body` with the f64 buffers of A, B, C in `%rd1..%rd3` and D's in `%rd4` (each
/// converted to a global address), `%rd5` = 8 * lane; returns D.
fn run(body: &str, inputs: &Inputs) -> Vec<u64> {
    let source = format!(
        ".version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
.reg .b32 %r<4>;
.reg .b64 %rd<12>;
.reg .f64 %fd<12>;
ld.param.u64 %rd1, [pa];
ld.param.u64 %rd2, [pb];
ld.param.u64 %rd3, [pc];
ld.param.u64 %rd4, [pd];
cvta.to.global.u64 %rd1, %rd1;
cvta.to.global.u64 %rd2, %rd2;
cvta.to.global.u64 %rd3, %rd3;
cvta.to.global.u64 %rd4, %rd4;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd5, %r1, 8;
{body}
ret;
}}
"
    );
    let program = ptxsim_exec::load(&source, None).expect("the kernel checks and builds");
    // The inputs are exact in f64 (at most 40 significant bits), so rounding them is a
    // conversion.
    let arguments = vec![
        Argument::Buffer(bytes(&inputs.a, "rn")),
        Argument::Buffer(bytes(&inputs.b, "rn")),
        Argument::Buffer(bytes(&inputs.c, "rn")),
        Argument::Buffer(vec![0; 8 * 64]),
    ];
    let (device, addresses) =
        grid::prepare(&program, [1, 1, 1], [32, 1, 1], 100_000, arguments).expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(
        run.failure.is_none(),
        "{body}: {:?}",
        run.failure.map(|f| f.outcome)
    );
    device
        .global
        .buffer_at(addresses[3].expect("an address"))
        .expect("the output buffer")
        .contents()
        .chunks(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect()
}

#[test]
fn mma_f64_rounds_each_fused_step_by_its_modifier() {
    for seed in [1, 2, 3] {
        let inputs = inputs(seed);
        let mut results = Vec::new();
        for mode in ["rn", "rz", "rm", "rp"] {
            let body = format!(
                "add.u64 %rd6, %rd1, %rd5;
add.u64 %rd7, %rd2, %rd5;
shl.b64 %rd8, %rd5, 1;
add.u64 %rd9, %rd3, %rd8;
add.u64 %rd10, %rd4, %rd8;
ld.global.f64 %fd1, [%rd6];
ld.global.f64 %fd2, [%rd7];
ld.global.v2.f64 {{%fd3, %fd4}}, [%rd9];
mma.sync.aligned.m8n8k4.row.col.{mode}.f64.f64.f64.f64 {{%fd5, %fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};
st.global.v2.f64 [%rd10], {{%fd5, %fd6}};"
            );
            let got = run(&body, &inputs);
            assert_eq!(got, expected(&inputs, mode), "seed {seed}: mma .{mode}");
            results.push(got);
        }
        // The inputs make the modes differ (else the test could not tell them apart).
        assert_ne!(results[1], results[3], "seed {seed}: .rz and .rp agree");
        assert_ne!(results[0], results[2], "seed {seed}: .rn and .rm agree");
    }
}

#[test]
fn wmma_f64_rounds_each_fused_step_by_its_modifier() {
    let inputs = inputs(7);
    for mode in ["rn", "rz", "rm", "rp"] {
        let body = format!(
            "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {{%fd1}}, [%rd1];
wmma.load.b.sync.aligned.col.m8n8k4.global.f64 {{%fd2}}, [%rd2];
wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {{%fd3, %fd4}}, [%rd3];
wmma.mma.sync.aligned.row.col.m8n8k4.{mode}.f64.f64.f64.f64 {{%fd5, %fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};
wmma.store.d.sync.aligned.row.m8n8k4.global.f64 [%rd4], {{%fd5, %fd6}};"
        );
        assert_eq!(run(&body, &inputs), expected(&inputs, mode), "wmma .{mode}");
    }
}
