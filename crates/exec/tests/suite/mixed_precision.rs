//! The mixed-precision `add`, `sub` and `fma` (PTX ISA 8.6, 9.7.5, sm_100): "Converts input
//! operand a from .atype into .f32 type. The converted value is then used for the addition"
//! (`d = convert(a) + c`, `d = convert(a) - c`, `d = convert(a) * convert(b) + c`), with the
//! `.f32` roundings, ".sat clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f"
//! and "subnormal numbers are supported". Every expected value is worked by hand from those
//! sentences, IEEE 754's roundings and the binary16/bfloat16/binary32 encodings (comments).

use ptxsim_exec::api::Arg;

use crate::launch::{STEPS, launch};

/// (instruction, a, b (fma only), c, expected `d` bits).
const CASES: [(&str, u16, u16, u32, u32); 20] = [
    // f16 1.0 + 2.5 = 3.5.
    ("add.f32.f16", 0x3c00, 0, 0x4020_0000, 0x4060_0000),
    // 1 + 2^-24 lies halfway between 1.0 and 1 + 2^-23: to even (1.0), or up with `.rp`.
    ("add.rn.f32.f16", 0x3c00, 0, 0x3380_0000, 0x3f80_0000),
    ("add.rp.f32.f16", 0x3c00, 0, 0x3380_0000, 0x3f80_0001),
    // 1 + 2^-30 toward zero: 1.0; -2 - 2^-30 toward -inf: -(2 + 2^-22).
    ("add.rz.f32.f16", 0x3c00, 0, 0x3080_0000, 0x3f80_0000),
    ("add.rm.f32.f16", 0xc000, 0, 0xb080_0000, 0xc000_0001),
    // 0.75 + 0.5 = 1.25, saturated to 1.0; a NaN result saturates to +0.
    ("add.sat.f32.f16", 0x3a00, 0, 0x3f00_0000, 0x3f80_0000),
    ("add.sat.f32.f16", 0x7e00, 0, 0x3f00_0000, 0x0000_0000),
    // A NaN result without `.sat` is the canonical `.f32` NaN.
    ("add.f32.f16", 0x7e00, 0, 0x3f80_0000, 0x7fff_ffff),
    // The smallest f16 subnormal, 2^-24, is a normal f32.
    ("add.f32.f16", 0x0001, 0, 0x0000_0000, 0x3380_0000),
    // -0 + +0: +0, except -0 when rounding toward -inf (IEEE 754 6.3).
    ("add.rn.f32.f16", 0x8000, 0, 0x0000_0000, 0x0000_0000),
    ("add.rm.f32.f16", 0x8000, 0, 0x0000_0000, 0x8000_0000),
    // bf16 3.0 + 0.5 = 3.5.
    ("add.f32.bf16", 0x4040, 0, 0x3f00_0000, 0x4060_0000),
    // 1.0 - 2.5 = -1.5.
    ("sub.f32.f16", 0x3c00, 0, 0x4020_0000, 0xbfc0_0000),
    // bf16 1.0 - 2^-30: 1.0 to nearest, 1 - 2^-24 toward -inf.
    ("sub.rn.f32.bf16", 0x3f80, 0, 0x3080_0000, 0x3f80_0000),
    ("sub.rm.f32.bf16", 0x3f80, 0, 0x3080_0000, 0x3f7f_ffff),
    // (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20, exact.
    ("fma.rn.f32.f16", 0x3c01, 0x3c01, 0xbf80_0000, 0x3b00_1000),
    // (1 + 2^-10)^2 + 2^-30 = 1 + 2^-9 + 2^-20 + 2^-30: the last term is below half an ulp.
    ("fma.rn.f32.f16", 0x3c01, 0x3c01, 0x3080_0000, 0x3f80_4008),
    ("fma.rp.f32.f16", 0x3c01, 0x3c01, 0x3080_0000, 0x3f80_4009),
    // bf16 (1 + 2^-7) x 3 + 0.5 = 3.5234375.
    ("fma.rn.f32.bf16", 0x3f81, 0x4040, 0x3f00_0000, 0x4061_8000),
    // 0.75 x -2 + 1 = -0.5, saturated to +0.
    (
        "fma.rz.sat.f32.f16",
        0x3a00,
        0xc000,
        0x3f80_0000,
        0x0000_0000,
    ),
];

#[test]
fn mixed_precision_add_sub_fma() {
    let mut body = String::new();
    for (index, (instruction, a, b, c, _)) in CASES.iter().enumerate() {
        let operands = if instruction.starts_with("fma") {
            "%h1, %h2, %f1"
        } else {
            "%h1, %f1"
        };
        body.push_str(&format!(
            "mov.b16 %h1, 0x{a:04x};\nmov.b16 %h2, 0x{b:04x};\nmov.b32 %f1, 0f{c:08X};\n\
             {instruction} %f2, {operands};\nst.global.f32 [%rd1+{}], %f2;\n",
            4 * index
        ));
    }
    let source = format!(
        ".version 8.6\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n.reg .b16 %h<3>;\n.reg .f32 %f<3>;\n\
         .reg .b64 %rd<2>;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n\
         {body}ret;\n}}\n"
    );
    let mut out = vec![0u8; 4 * CASES.len()];
    launch(&source, "k", (1, 1), &mut [Arg::Buffer(&mut out)], STEPS).expect("it runs");
    for (index, (instruction, a, b, c, expected)) in CASES.iter().enumerate() {
        let got = u32::from_le_bytes(out[4 * index..4 * index + 4].try_into().unwrap());
        assert_eq!(
            got, *expected,
            "{instruction} {a:#x} {b:#x} {c:#x}: {got:#x} != {expected:#x}"
        );
    }
}
