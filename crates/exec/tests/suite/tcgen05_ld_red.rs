//! `tcgen05.ld.red` (PTX ISA 9.7.16.8.3) against host reductions written from the ISA's
//! `min`/`max` rules, never from ptxsim's output. The kernel (`tcgen05_kernels/ld_red.ptx`) is
//! clean under ptxas 13 (`-arch sm_103a`).

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};
/// `ld_red(values, out)`: the kernel's comment (sm_103a: "tcgen05.ld.red is supported on ...
/// sm_103f or higher in the same family").
const LD_RED: &str = include_str!("tcgen05_kernels/ld_red.ptx");

/// A host reduction of one thread's loaded values.
type Reduction = dyn Fn(&[u32]) -> u32;

/// Runs `ld_red` with `.32x32b.x8.<reduction>` and returns, per thread, redval and the eight
/// loaded registers.
fn ld_red(reduction: &str, values: &[u32]) -> Vec<Vec<u32>> {
    let source = LD_RED.replace("x8.max.f32", &format!("x8.{reduction}"));
    let module = Module::load(&source, &Options::default()).expect("the kernel loads");
    let mut input: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut out = vec![0u8; 32 * 9 * 4];
    module
        .launch(
            "ld_red",
            [1, 1, 1],
            [32, 1, 1],
            &mut [Arg::Buffer(&mut input), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    out.chunks(36)
        .map(|t| {
            t.chunks(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        })
        .collect()
}

/// The `.f32` reduction from `min`/`max`'s rules (9.7.3.11-12): NaNs passed over (the
/// canonical NaN if all are), with `.NaN` any NaN gives the canonical NaN, -0.0 < +0.0;
/// `.abs` takes the absolute values first.
fn reduce_f32(values: &[u32], max: bool, abs: bool, nan: bool) -> u32 {
    let values: Vec<f32> = values
        .iter()
        .map(|&v| f32::from_bits(if abs { v & 0x7fff_ffff } else { v }))
        .collect();
    if nan && values.iter().any(|v| v.is_nan()) {
        return 0x7fff_ffff;
    }
    let numbers = values.iter().filter(|v| !v.is_nan());
    let pick = if max {
        numbers.max_by(|a, b| a.total_cmp(b))
    } else {
        numbers.min_by(|a, b| a.total_cmp(b))
    };
    pick.map_or(0x7fff_ffff, |v| v.to_bits())
}

#[test]
fn ld_red_reduces_each_threads_loaded_columns() {
    let floats: Vec<u32> = (0..32u32)
        .flat_map(|t| {
            let x = t as f32;
            let nan = if t % 5 == 0 { f32::NAN } else { 0.5 };
            let zero = if t % 2 == 0 { -0.0f32 } else { 0.0 };
            [
                x - 3.5,
                -x - 0.25,
                2.0,
                zero,
                nan,
                1e-3,
                -7.5 + x / 4.0,
                -zero,
            ]
            .map(f32::to_bits)
        })
        .collect();
    for (reduction, max, abs, nan) in [
        ("max.f32", true, false, false),
        ("min.f32", false, false, false),
        ("min.abs.NaN.f32", false, true, true),
        ("max.abs.f32", true, true, false),
        ("max.NaN.f32", true, false, true),
    ] {
        let got = ld_red(reduction, &floats);
        for (t, row) in got.iter().enumerate() {
            let values = &floats[8 * t..8 * t + 8];
            assert_eq!(&row[1..], values, "the loaded registers of thread {t}");
            assert_eq!(
                row[0],
                reduce_f32(values, max, abs, nan),
                "{reduction} of thread {t}"
            );
        }
    }
    let integers: Vec<u32> = (0..256u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 28))
        .collect();
    let min_u32 = |v: &[u32]| *v.iter().min().unwrap();
    let max_u32 = |v: &[u32]| *v.iter().max().unwrap();
    let min_s32 = |v: &[u32]| v.iter().map(|&x| x as i32).min().unwrap() as u32;
    let max_s32 = |v: &[u32]| v.iter().map(|&x| x as i32).max().unwrap() as u32;
    let cases: [(&str, &Reduction); 4] = [
        ("min.u32", &min_u32),
        ("max.u32", &max_u32),
        ("min.s32", &min_s32),
        ("max.s32", &max_s32),
    ];
    for (reduction, want) in cases {
        let got = ld_red(reduction, &integers);
        for (t, row) in got.iter().enumerate() {
            assert_eq!(
                row[0],
                want(&integers[8 * t..8 * t + 8]),
                "{reduction} of thread {t}"
            );
        }
    }
}
