//! `cargo bench -p ptxsim-softfloat`: the conversions compared with NVIDIA's host reference in
//! `scripts/golden/bench.sh`, over the same kind of inputs (half arbitrary bit patterns, half
//! with exponents within 2^-20..2^20), plus the general entry point.

use divan::{Bencher, black_box};
use ptxsim_softfloat::pack::cvt_half2_to_x2;
use ptxsim_softfloat::{
    Flags, Rounding, Type, convert, convert_each, f32_to_bf16, f32_to_e2m1, f32_to_e4m3, f32_to_f16,
};

fn main() {
    divan::main();
}

fn inputs(n: usize) -> Vec<u32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let mut u = s as u32;
            if s >> 63 == 1 {
                u = (u & 0x807f_ffff) | (((107 + ((s >> 40) % 41)) as u32) << 23);
            }
            u
        })
        .collect()
}

const N: usize = 4096;

#[divan::bench]
fn f32_to_e4m3_satfinite(b: Bencher) {
    let v = inputs(N);
    b.counter(divan::counter::ItemsCount::new(N)).bench(|| {
        v.iter().fold(0u32, |a, &x| {
            a.wrapping_add(u32::from(f32_to_e4m3(
                black_box(x),
                Rounding::Rn,
                Flags::SATFINITE,
            )))
        })
    });
}

#[divan::bench]
fn f32_to_f16_rn(b: Bencher) {
    let v = inputs(N);
    b.counter(divan::counter::ItemsCount::new(N)).bench(|| {
        v.iter().fold(0u32, |a, &x| {
            a.wrapping_add(u32::from(f32_to_f16(
                black_box(x),
                Rounding::Rn,
                Flags::NONE,
            )))
        })
    });
}

#[divan::bench]
fn f32_to_e2m1_satfinite(b: Bencher) {
    let v = inputs(N);
    b.counter(divan::counter::ItemsCount::new(N)).bench(|| {
        v.iter().fold(0u32, |a, &x| {
            a.wrapping_add(u32::from(f32_to_e2m1(
                black_box(x),
                Rounding::Rn,
                Flags::SATFINITE,
            )))
        })
    });
}

#[divan::bench]
fn f16x2_to_e5m2x2_satfinite(b: Bencher) {
    let v: Vec<u32> = inputs(N).iter().map(|x| (x >> 13) ^ (x << 19)).collect();
    b.counter(divan::counter::ItemsCount::new(N)).bench(|| {
        v.iter().fold(0u32, |a, &x| {
            a.wrapping_add(u32::from(cvt_half2_to_x2(
                black_box(x),
                Type::F16,
                Type::E5m2,
                Rounding::Rn,
                Flags::SATFINITE,
            )))
        })
    });
}

#[divan::bench]
fn f32_to_bf16_rn(b: Bencher) {
    let v = inputs(N);
    b.counter(divan::counter::ItemsCount::new(N)).bench(|| {
        v.iter().fold(0u32, |a, &x| {
            a.wrapping_add(u32::from(f32_to_bf16(
                black_box(x),
                Rounding::Rn,
                Flags::NONE,
            )))
        })
    });
}

#[divan::bench]
fn convert_general_f64_to_s32(b: Bencher) {
    let v = inputs(N);
    b.counter(divan::counter::ItemsCount::new(N)).bench(|| {
        v.iter().fold(0u64, |a, &x| {
            let d = (u64::from(x) << 32) | u64::from(x);
            a.wrapping_add(
                convert(
                    black_box(d),
                    Type::F64,
                    Type::S32,
                    Rounding::Rni,
                    Flags::NONE,
                    None,
                )
                .bits,
            )
        })
    });
}

/// `convert` with every argument known only at run time (as the executor calls it), summed.
fn convert_general_sum(values: &[u32]) -> u64 {
    values.iter().fold(0u64, |a, &x| {
        a.wrapping_add(
            convert(
                u64::from(x),
                black_box(Type::F32),
                black_box(Type::E4m3),
                black_box(Rounding::Rn),
                black_box(Flags::SATFINITE),
                None,
            )
            .bits,
        )
    })
}

/// The inputs of the `f32_to_e4m3` kernel benchmark (tests/kernels/common/f32.bin: specials,
/// boundaries, random values).
fn kernel_inputs() -> Vec<u32> {
    include_bytes!("../../../tests/kernels/common/f32.bin")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The general entry point with the types known only at run time (as the executor calls it).
#[divan::bench]
fn convert_general_f32_to_e4m3(b: Bencher) {
    let v = inputs(N);
    b.counter(divan::counter::ItemsCount::new(N))
        .bench(|| convert_general_sum(&v));
}

/// The kernel benchmark's inputs through the general entry point.
#[divan::bench]
fn convert_general_f32_to_e4m3_kernel_inputs(b: Bencher) {
    let v = kernel_inputs();
    b.counter(divan::counter::ItemsCount::new(v.len()))
        .bench(|| convert_general_sum(&v));
}

/// The kernel benchmark's inputs through the batch entry point the executor uses for a CTA.
#[divan::bench]
fn convert_each_f32_to_e4m3_kernel_inputs(b: Bencher) {
    let v: Vec<u64> = kernel_inputs().into_iter().map(u64::from).collect();
    let mut work = v.clone();
    b.counter(divan::counter::ItemsCount::new(v.len()))
        .bench_local(|| {
            work.copy_from_slice(&v);
            convert_each(
                &mut work,
                black_box(Type::F32),
                black_box(Type::E4m3),
                black_box(Rounding::Rn),
                black_box(Flags::SATFINITE),
            );
            work[0]
        });
}
