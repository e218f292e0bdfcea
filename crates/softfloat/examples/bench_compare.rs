//! The ptxsim side of `scripts/golden/bench.sh`: the same loops as
//! `scripts/golden/bench_ref.cpp` over the same inputs, printing
//! `name ns_per_conversion checksum`. The checksums of both sides must agree.

use std::hint::black_box;
use std::time::Instant;

use ptxsim_softfloat::pack::cvt_half2_to_x2;
use ptxsim_softfloat::{Flags, Rounding, Type, f32_to_bf16, f32_to_e2m1, f32_to_e4m3, f32_to_f16};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Half the inputs are arbitrary bit patterns, half have exponents within 2^-20..2^20.
    fn f32_input(&mut self) -> u32 {
        let r = self.next();
        let mut u = r as u32;
        if r >> 63 == 1 {
            u = (u & 0x807f_ffff) | (((107 + ((r >> 40) % 41)) as u32) << 23);
        }
        u
    }
    fn f16_input(&mut self) -> u16 {
        let r = self.next();
        let mut u = r as u16;
        if r >> 63 == 1 {
            u = (u & 0x83ff) | (((5 + ((r >> 40) % 21)) as u16) << 10);
        }
        u
    }
}

fn run(name: &str, n: usize, reps: usize, f: impl Fn(usize) -> u32) {
    let mut acc = 0u32;
    let t0 = Instant::now();
    for _ in 0..reps {
        for i in 0..n {
            acc = acc.wrapping_mul(31).wrapping_add(f(black_box(i)));
        }
    }
    let ns = t0.elapsed().as_nanos() as f64 / (n * reps) as f64;
    println!("{name} {ns:.3} {acc:08x}");
}

fn main() {
    let n = 1usize << 20;
    let reps = 20;
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let f32s: Vec<u32> = (0..n).map(|_| rng.f32_input()).collect();
    let h2: Vec<u32> = (0..n)
        .map(|_| {
            let hi = u32::from(rng.f16_input());
            (hi << 16) | u32::from(rng.f16_input())
        })
        .collect();
    let sat = Flags::SATFINITE;
    run("f32_to_e4m3", n, reps, |i| {
        u32::from(f32_to_e4m3(f32s[i], Rounding::Rn, sat))
    });
    run("f32_to_f16", n, reps, |i| {
        u32::from(f32_to_f16(f32s[i], Rounding::Rn, Flags::NONE))
    });
    run("f32_to_e2m1", n, reps, |i| {
        u32::from(f32_to_e2m1(f32s[i], Rounding::Rn, sat))
    });
    run("f16x2_to_e5m2x2", n, reps, |i| {
        u32::from(cvt_half2_to_x2(
            h2[i],
            Type::F16,
            Type::E5m2,
            Rounding::Rn,
            sat,
        ))
    });
    run("f32_to_bf16", n, reps, |i| {
        u32::from(f32_to_bf16(f32s[i], Rounding::Rn, Flags::NONE))
    });
}
