//! Simulation speed: the nvcc kernel `f32_to_e4m3` (ptx-samples/nvcc/fp8_convert.sm_90.ptx)
//! over 65,536 threads, on one host thread and on all. `scripts/bench/kernel-vs-native.sh`
//! compares a 1M-thread run with a native loop over NVIDIA's host conversion.

use ptxsim_exec::grid::{self, Argument, GridOptions};

fn main() {
    divan::main();
}

const THREADS: u32 = 65_536;

fn program() -> ptxsim_exec::Program {
    let source = include_str!("../../../ptx-samples/nvcc/fp8_convert.sm_90.ptx");
    ptxsim_exec::load(source, Some("f32_to_e4m3")).expect("the sample loads")
}

fn input() -> Vec<u8> {
    let values = include_bytes!("../../../tests/kernels/common/f32.bin");
    values
        .iter()
        .copied()
        .cycle()
        .take(THREADS as usize * 4)
        .collect()
}

#[divan::bench(args = [1, 0])]
fn f32_to_e4m3_64k_threads(bencher: divan::Bencher, host_threads: usize) {
    let program = program();
    let input = input();
    bencher
        .counter(divan::counter::ItemsCount::new(THREADS))
        .bench(|| {
            let (device, _) = grid::prepare(
                &program,
                [THREADS / 256, 1, 1],
                [256, 1, 1],
                1_000,
                vec![
                    Argument::Buffer(input.clone()),
                    Argument::Buffer(vec![0; THREADS as usize]),
                    Argument::Scalar {
                        ty: ptxsim_isa::Type::S32,
                        bits: u64::from(THREADS),
                    },
                ],
            )
            .expect("arguments fit");
            let options = GridOptions {
                host_threads,
                ..GridOptions::default()
            };
            divan::black_box(grid::run_grid(&device, options, None, None).steps)
        });
}
