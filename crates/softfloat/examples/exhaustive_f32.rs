//! Offline exhaustive check of every f32 input against NVIDIA's host reference (not part of
//! CI). Reads the record stream of `scripts/golden/exhaustive_ref.cpp` from stdin and prints
//! the mismatch count of each conversion. Run it through `scripts/golden/exhaustive-f32.sh`.
//!
//! Usage: `exhaustive_ref START END | exhaustive_f32 START END` (hex, END exclusive).

use std::io::{Read, Write};

use ptxsim_softfloat::{Flags, Rounding, Type, convert};

struct Conv {
    name: &'static str,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    bytes: usize,
}

const fn c(
    name: &'static str,
    to: Type,
    rounding: Rounding,
    satfinite: bool,
    bytes: usize,
) -> Conv {
    Conv {
        name,
        to,
        rounding,
        flags: Flags {
            ftz: false,
            sat: false,
            relu: false,
            satfinite,
        },
        bytes,
    }
}

const CONVS: [Conv; 30] = [
    c(
        "f16.rn (__float2half_rn)",
        Type::F16,
        Rounding::Rn,
        false,
        2,
    ),
    c(
        "f16.rz (__float2half_rz)",
        Type::F16,
        Rounding::Rz,
        false,
        2,
    ),
    c(
        "f16.rm (__float2half_rd)",
        Type::F16,
        Rounding::Rm,
        false,
        2,
    ),
    c(
        "f16.rp (__float2half_ru)",
        Type::F16,
        Rounding::Rp,
        false,
        2,
    ),
    c(
        "bf16.rn (__float2bfloat16_rn)",
        Type::Bf16,
        Rounding::Rn,
        false,
        2,
    ),
    c(
        "bf16.rz (__float2bfloat16_rz)",
        Type::Bf16,
        Rounding::Rz,
        false,
        2,
    ),
    c(
        "bf16.rm (__float2bfloat16_rd)",
        Type::Bf16,
        Rounding::Rm,
        false,
        2,
    ),
    c(
        "bf16.rp (__float2bfloat16_ru)",
        Type::Bf16,
        Rounding::Rp,
        false,
        2,
    ),
    c(
        "e4m3.rn.satfinite (__nv_cvt_float_to_fp8)",
        Type::E4m3,
        Rounding::Rn,
        true,
        1,
    ),
    c(
        "e4m3.rn nosat (__nv_cvt_float_to_fp8)",
        Type::E4m3,
        Rounding::Rn,
        false,
        1,
    ),
    c(
        "e5m2.rn.satfinite (__nv_cvt_float_to_fp8)",
        Type::E5m2,
        Rounding::Rn,
        true,
        1,
    ),
    c(
        "e5m2.rn nosat (__nv_cvt_float_to_fp8)",
        Type::E5m2,
        Rounding::Rn,
        false,
        1,
    ),
    c(
        "e2m3.rn.satfinite (__nv_cvt_float_to_fp6)",
        Type::E2m3,
        Rounding::Rn,
        true,
        1,
    ),
    c(
        "e2m3.rz.satfinite (__nv_cvt_float_to_fp6)",
        Type::E2m3,
        Rounding::Rz,
        true,
        1,
    ),
    c(
        "e2m3.rm.satfinite (__nv_cvt_float_to_fp6)",
        Type::E2m3,
        Rounding::Rm,
        true,
        1,
    ),
    c(
        "e2m3.rp.satfinite (__nv_cvt_float_to_fp6)",
        Type::E2m3,
        Rounding::Rp,
        true,
        1,
    ),
    c(
        "e3m2.rn.satfinite (__nv_cvt_float_to_fp6)",
        Type::E3m2,
        Rounding::Rn,
        true,
        1,
    ),
    c(
        "e3m2.rz.satfinite (__nv_cvt_float_to_fp6)",
        Type::E3m2,
        Rounding::Rz,
        true,
        1,
    ),
    c(
        "e3m2.rm.satfinite (__nv_cvt_float_to_fp6)",
        Type::E3m2,
        Rounding::Rm,
        true,
        1,
    ),
    c(
        "e3m2.rp.satfinite (__nv_cvt_float_to_fp6)",
        Type::E3m2,
        Rounding::Rp,
        true,
        1,
    ),
    c(
        "e2m1.rn.satfinite (__nv_cvt_float_to_fp4)",
        Type::E2m1,
        Rounding::Rn,
        true,
        1,
    ),
    c(
        "e2m1.rz.satfinite (__nv_cvt_float_to_fp4)",
        Type::E2m1,
        Rounding::Rz,
        true,
        1,
    ),
    c(
        "e2m1.rm.satfinite (__nv_cvt_float_to_fp4)",
        Type::E2m1,
        Rounding::Rm,
        true,
        1,
    ),
    c(
        "e2m1.rp.satfinite (__nv_cvt_float_to_fp4)",
        Type::E2m1,
        Rounding::Rp,
        true,
        1,
    ),
    c(
        "ue8m0.rz.satfinite (__nv_cvt_float_to_e8m0)",
        Type::Ue8m0,
        Rounding::Rz,
        true,
        1,
    ),
    c(
        "ue8m0.rz nosat (__nv_cvt_float_to_e8m0)",
        Type::Ue8m0,
        Rounding::Rz,
        false,
        1,
    ),
    c(
        "ue8m0.rp.satfinite (__nv_cvt_float_to_e8m0)",
        Type::Ue8m0,
        Rounding::Rp,
        true,
        1,
    ),
    c(
        "ue8m0.rp nosat (__nv_cvt_float_to_e8m0)",
        Type::Ue8m0,
        Rounding::Rp,
        false,
        1,
    ),
    c(
        "ue8m0.rn.satfinite (__nv_cvt_float_to_e8m0)",
        Type::Ue8m0,
        Rounding::Rn,
        true,
        1,
    ),
    c(
        "ue8m0.rn nosat (__nv_cvt_float_to_e8m0)",
        Type::Ue8m0,
        Rounding::Rn,
        false,
        1,
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let parse = |i: usize, d: u64| {
        args.get(i).map_or(d, |s| {
            u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or(d)
        })
    };
    let start = parse(1, 0);
    let end = parse(2, 1 << 32);
    let rec: usize = CONVS.iter().map(|c| c.bytes).sum();
    let chunk = 1usize << 16;
    let mut buf = vec![0u8; rec * chunk];
    let mut bad = [0u64; 30];
    let mut examples: Vec<Vec<String>> = vec![Vec::new(); 30];
    let mut stdin = std::io::stdin().lock();
    let mut x = start;
    let mut last_report = start;
    while x < end {
        let n = ((end - x) as usize).min(chunk);
        let want = &mut buf[..rec * n];
        if let Err(e) = stdin.read_exact(want) {
            eprintln!("reference stream ended early at {x:#x}: {e}");
            std::process::exit(2);
        }
        // Conversion-major order, one loop per conversion with constant arguments, so that
        // the inlined `convert` is specialised for each conversion as a caller's would be.
        let mut off = 0;
        macro_rules! column {
            ($k:expr) => {{
                let cv = &CONVS[$k];
                let (to, rounding, flags, bytes) = (cv.to, cv.rounding, cv.flags, cv.bytes);
                for i in 0..n {
                    let input = x + i as u64;
                    let at = i * rec + off;
                    let expect = if bytes == 2 {
                        u64::from(u16::from_le_bytes([want[at], want[at + 1]]))
                    } else {
                        u64::from(want[at])
                    };
                    let got = convert(input, Type::F32, to, rounding, flags, None).bits;
                    if got != expect {
                        bad[$k] += 1;
                        if examples[$k].len() < 4 {
                            examples[$k]
                                .push(format!("{input:#010x}: want {expect:#x} got {got:#x}"));
                        }
                    }
                }
                off += bytes;
            }};
        }
        column!(0);
        column!(1);
        column!(2);
        column!(3);
        column!(4);
        column!(5);
        column!(6);
        column!(7);
        column!(8);
        column!(9);
        column!(10);
        column!(11);
        column!(12);
        column!(13);
        column!(14);
        column!(15);
        column!(16);
        column!(17);
        column!(18);
        column!(19);
        column!(20);
        column!(21);
        column!(22);
        column!(23);
        column!(24);
        column!(25);
        column!(26);
        column!(27);
        column!(28);
        column!(29);
        debug_assert_eq!(off, rec);
        x += n as u64;
        if x - last_report >= 1 << 28 || x == end {
            last_report = x;
            eprintln!(
                "checked up to {x:#x}; mismatches so far: {}",
                bad.iter().sum::<u64>()
            );
        }
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "exhaustive f32 inputs [{start:#x}, {end:#x}): {} inputs",
        end - start
    );
    for (k, cv) in CONVS.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:48} mismatches: {:>10} {}",
            cv.name,
            bad[k],
            examples[k].join("; ")
        );
    }
}
