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

/// The 256x256x256 bf16 GEMM of `tests/mma-kernels` (`ldmatrix_mma_bf16`, nvcc's sm_90 PTX):
/// 512 one-warp CTAs, each 16 `ldmatrix.x4` + 16 `ldmatrix.x2.trans` + 16
/// `mma.sync.aligned.m16n8k16` (8,192 warp-wide MMAs in all, each 16x8x16 multiply-adds);
/// the counter is MMAs.
#[divan::bench(args = [1, 0])]
fn bf16_gemm_256_mmas(bencher: divan::Bencher, host_threads: usize) {
    const N: u32 = 256;
    let source = include_str!("../../../tests/mma-kernels/mma_gemm.sm_90.ptx");
    let program = ptxsim_exec::load(source, Some("ldmatrix_mma_bf16")).expect("the sample loads");
    let a = include_bytes!("../../../tests/mma-kernels/data/bf16_a256.bin").to_vec();
    let b = include_bytes!("../../../tests/mma-kernels/data/bf16_b256.bin").to_vec();
    let scalar = |v: u32| Argument::Scalar {
        ty: ptxsim_isa::Type::S32,
        bits: u64::from(v),
    };
    bencher
        .counter(divan::counter::ItemsCount::new(
            (N / 16) * (N / 8) * (N / 16),
        ))
        .bench(|| {
            let (device, _) = grid::prepare(
                &program,
                [N / 8, N / 16, 1],
                [32, 1, 1],
                100_000,
                vec![
                    Argument::Buffer(a.clone()),
                    Argument::Buffer(b.clone()),
                    Argument::Buffer(vec![0; (N * N * 4) as usize]),
                    scalar(N),
                    scalar(N),
                    scalar(N),
                ],
            )
            .expect("arguments fit");
            let options = GridOptions {
                host_threads,
                ..GridOptions::default()
            };
            let run = grid::run_grid(&device, options, None, None);
            assert!(run.failure.is_none(), "{:?}", run.failure);
            divan::black_box(run.steps)
        });
}
