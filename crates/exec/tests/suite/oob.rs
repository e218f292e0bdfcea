//! `fma.rn.oob{.relu}` on `.f16`, `.bf16`, `.f16x2`, `.bf16x2` against an H200: every 16-bit
//! pattern in each operand position, the other operands 1.0 (x2 forms: the pattern in the low
//! lane, 1.0 in the high lane); `tests/hardware/oob/oob.u32.xz` from `scripts/hardware/oob/oob.cu`.

use ptxsim_exec::alu::float_fma;
use ptxsim_isa::ops::FloatModifiers;
use ptxsim_isa::{Rounding, Type};

#[test]
fn fma_oob_matches_the_gpu() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/hardware/oob/oob.u32.xz"
    );
    let packed = std::fs::read(path).expect("the measurements");
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut raw).expect("xz");
    let results: Vec<u32> = raw
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    assert_eq!(results.len(), 8 * 3 * 65536);
    let forms = [
        (Type::F16, false),
        (Type::F16, true),
        (Type::Bf16, false),
        (Type::Bf16, true),
        (Type::F16x2, false),
        (Type::F16x2, true),
        (Type::Bf16x2, false),
        (Type::Bf16x2, true),
    ];
    let mut zeros = 0;
    for (f, &(ty, relu)) in forms.iter().enumerate() {
        let modifiers = FloatModifiers {
            rounding: Rounding::Rn,
            oob: true,
            relu,
            ..FloatModifiers::RN
        };
        let one: u64 = if matches!(ty, Type::Bf16 | Type::Bf16x2) {
            0x3f80
        } else {
            0x3c00
        };
        let x2 = matches!(ty, Type::F16x2 | Type::Bf16x2);
        let fixed = if x2 { one | one << 16 } else { one };
        for position in 0..3 {
            for x in 0..65536u64 {
                let varied = if x2 { x | one << 16 } else { x };
                let mut operands = [fixed; 3];
                operands[position] = varied;
                let [a, b, c] = operands;
                let gpu = u64::from(results[(f * 3 + position) * 65536 + x as usize]);
                let ours = float_fma(ty, modifiers, a, b, c);
                assert_eq!(ours, gpu, "{ty:?} relu {relu} operand {position} = {x:04x}");
                zeros += usize::from(gpu & 0xffff == 0);
            }
        }
    }
    // The OOB NaN in `a` or `b` (two patterns each) and -1.0 in `a` or `b` (a true zero) for the
    // forms without .relu; .relu also clamps the negative results.
    assert!(zeros >= 4 * 6, "{zeros} zero results");
}
