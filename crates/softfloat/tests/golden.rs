//! Every row of every golden table in `tests/golden/` against [`ptxsim_softfloat::convert`].
//!
//! The tables come from NVIDIA's CUDA header host code, the host FPU, or rules written from the
//! PTX text in the C++ generator (`scripts/golden/gen_golden.cpp`); never from this crate.

mod common;

use common::assert_table;

/// f16 sources, every input: `cvt.f32.f16`, `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2` (per
/// lane), `cvt.{rn,rz,rm,rp}.satfinite.{e2m3x2,e3m2x2,e2m1x2}.f16x2` (per lane).
#[test]
fn golden_f16_every_input() {
    assert_table("f16.txt.xz");
}

/// `cvt.rzi.{s8,u8,s16,u16,s32,u32,s64,u64}.f16`, every input: "the result is clamped to the
/// destination range by default"; NaN gives "1 << (BitWidth(dst) - 1)" for 64-bit destinations.
#[test]
fn golden_f16_to_integers_every_input() {
    assert_table("f16_to_int.txt.xz");
}

/// bf16 sources, every input: `cvt.f32.bf16` ("`NaN` input yields unspecified `NaN`"), fp8,
/// fp6, fp4 and `cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2` per lane.
#[test]
fn golden_bf16_every_input() {
    assert_table("bf16.txt.xz");
}

/// `cvt.rzi.{s8,...,u64}.bf16`, every input.
#[test]
fn golden_bf16_to_integers_every_input() {
    assert_table("bf16_to_int.txt.xz");
}

/// `cvt.rn{.relu}.f16x2.e4m3x2` per lane, every input, and e4m3 to bf16.
#[test]
fn golden_e4m3_every_input() {
    assert_table("e4m3.txt.xz");
}

/// `cvt.rn{.relu}.f16x2.e5m2x2` per lane, every input.
#[test]
fn golden_e5m2_every_input() {
    assert_table("e5m2.txt.xz");
}

/// `cvt.rn{.relu}.f16x2.e2m3x2` per lane, every input.
#[test]
fn golden_e2m3_every_input() {
    assert_table("e2m3.txt.xz");
}

/// `cvt.rn{.relu}.f16x2.e3m2x2` per lane, every input.
#[test]
fn golden_e3m2_every_input() {
    assert_table("e3m2.txt.xz");
}

/// `cvt.rn{.relu}.f16x2.e2m1x2` per lane, every input.
#[test]
fn golden_e2m1_every_input() {
    assert_table("e2m1.txt.xz");
}

/// `cvt.rn.bf16x2.ue8m0x2` per lane, every input.
#[test]
fn golden_ue8m0_every_input() {
    assert_table("ue8m0.txt.xz");
}

/// f32 sources on specials, every rounding boundary of every destination and 20,000 random
/// inputs: f16/bf16 in four modes, fp8 with and without `.satfinite`, fp6/fp4 in four modes,
/// ue8m0 `.rz`/`.rp` with and without `.satfinite`.
#[test]
fn golden_f32_boundaries() {
    assert_table("f32.txt.xz");
}

/// 105,000 random f32 inputs through the PTX forms of the header conversions.
#[test]
fn golden_f32_random() {
    assert_table("f32_random.txt.xz");
}

/// f32 sources against the host FPU and text-derived rules: `cvt.{rni,rzi,rmi,rpi}.f32.f32`,
/// `cvt.f64.f32`, `cvt.{rn,rz,rna}{.satfinite}.tf32.f32`, float-to-integer in all integer
/// rounding modes, `.relu`, `.satfinite`, `.ftz`, `.sat`.
#[test]
fn golden_f32_fpu_and_text_rules() {
    assert_table("f32_fpu.txt.xz");
}

/// `.rs`: "rounded in the direction toward zero or away from zero based on the carry out of
/// the integer addition of the supplied random bits (`rbits`) to the truncated off (discarded)
/// bits of mantissa from the input".
#[test]
fn golden_f32_stochastic_rounding() {
    assert_table("f32_rs.txt.xz");
}

/// f64 sources: `cvt.{rn,rz,rm,rp}.f32.f64`, `cvt.rn.f16.f64`, `cvt.rn.bf16.f64`, f64 to
/// fp8/fp6/fp4, `cvt.{rni,...}.f64.f64`, f64 to integers (NaN gives `1 << (BitWidth(dst) - 1)`
/// "if source is `.f64`").
#[test]
fn golden_f64() {
    assert_table("f64.txt.xz");
}

/// 100,000 random f64 inputs: `cvt.rn.f32.f64`, `cvt.rn.f16.f64`, `cvt.rn.bf16.f64`.
#[test]
fn golden_f64_random() {
    let t = common::load("f64_random.txt.xz");
    assert_eq!(t.rows.len(), 100_000);
    assert_table("f64_random.txt.xz");
}

/// s16 to f16 (four modes) and bf16.
#[test]
fn golden_s16() {
    assert_table("s16.txt.xz");
}

/// u16 to f16 (four modes) and bf16.
#[test]
fn golden_u16() {
    assert_table("u16.txt.xz");
}

/// s32 to f32/f64/f16 (four modes), bf16, and every integer type with and without `.sat`.
#[test]
fn golden_s32() {
    assert_table("s32.txt.xz");
}

/// u32 to floats and integers.
#[test]
fn golden_u32() {
    assert_table("u32.txt.xz");
}

/// s64 to floats and integers.
#[test]
fn golden_s64() {
    assert_table("s64.txt.xz");
}

/// u64 to floats and integers.
#[test]
fn golden_u64() {
    assert_table("u64.txt.xz");
}

/// A missing table fails the test, naming the file, instead of passing with nothing checked.
#[test]
#[should_panic(expected = "cannot read golden table")]
fn a_missing_table_panics() {
    common::read_golden("no-such-table.txt.xz");
}

/// A truncated or corrupted table fails (the xz stream's CRC64 is checked).
#[test]
fn a_corrupt_table_panics() {
    let path = common::golden_dir().join("e2m1.txt.xz");
    let packed = std::fs::read(&path).expect("e2m1.txt.xz");
    assert!(common::unpack(&path, &packed).contains("#! columns="));
    let truncated = &packed[..packed.len() - 20];
    let mut flipped = packed.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x10;
    for bad in [truncated.to_vec(), flipped] {
        let panic = std::panic::catch_unwind(|| common::unpack(&path, &bad))
            .expect_err("a corrupt table must not decode");
        let message = panic
            .downcast_ref::<String>()
            .expect("a formatted panic message");
        assert!(message.contains("is not valid xz"), "{message}");
    }
}
