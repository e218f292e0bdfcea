//! Cooperative launches (`LaunchOptions::cooperative`, CUDA's `cuLaunchCooperativeKernel`) on
//! the nvcc kernels of `ptx-samples/cuda/coop.cu`, which synchronize the whole grid with
//! `cooperative_groups::this_grid().sync()`: results against host computations, the trap of a
//! launch that is not cooperative, a deadlock ending at the step limit, the co-residency limit,
//! and the same results on every run; a grid barrier written by hand, which finishes when the
//! CTAs are interleaved (`LaunchOptions::interleave`, what the CUDA driver library asks for). Then thread-block clusters and bulk asynchronous copies
//! (Hopper's other ways for CTAs and the copy engine to work together).

use std::path::{Path, PathBuf};

use ptxsim_exec::Outcome;
use ptxsim_exec::api::{Arg, Error, LaunchOptions, Module, Options};
use ptxsim_exec::grid::LaunchError;
use ptxsim_exec::memory::{DeviceMemory, GRID_WORKSPACE_BASE};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The nvcc files of coop.cu.
const FILES: [&str; 2] = ["sm_80", "sm_90"];

fn source(arch: &str) -> String {
    std::fs::read_to_string(repo().join(format!("ptx-samples/nvcc/coop.{arch}.ptx")))
        .expect("the sample is there")
}

fn module(arch: &str) -> Module {
    Module::load(&source(arch), &Options::default()).expect("the sample loads")
}

fn cooperative() -> LaunchOptions {
    LaunchOptions {
        cooperative: true,
        ..LaunchOptions::default()
    }
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `coop_two_phase` over `ctas` CTAs of `block` threads with `n` elements: the scratch and
/// output buffers after the launch.
fn two_phase(
    module: &Module,
    ctas: u32,
    block: u32,
    n: u32,
    options: &LaunchOptions,
) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let total = (ctas * block) as usize;
    let mut scratch = vec![0u8; total * 4];
    let mut out = vec![0u8; total * 4];
    module.launch(
        "coop_two_phase",
        [ctas, 1, 1],
        [block, 1, 1],
        &mut [
            Arg::Buffer(&mut scratch),
            Arg::Buffer(&mut out),
            Arg::U32(n),
        ],
        options,
    )?;
    Ok((u32s(&scratch), u32s(&out)))
}

/// What `coop_two_phase` computes, on the host: each thread writes its scratch word, the grid
/// synchronizes, and each thread reads the word of the thread one CTA further on (wrapping).
fn two_phase_host(ctas: u32, block: u32, n: u32) -> (Vec<u32>, Vec<u32>) {
    let total = ctas * block;
    let mut scratch = vec![0u32; total as usize];
    let mut out = vec![0u32; total as usize];
    for i in 0..n.min(total) {
        scratch[i as usize] = i.wrapping_mul(2_654_435_761).wrapping_add(12345);
    }
    for i in 0..total {
        let j = (i + block) % total;
        if i < n && j < n {
            out[i as usize] = scratch[j as usize] ^ i;
        }
    }
    (scratch, out)
}

#[test]
fn a_thread_reads_what_another_cta_wrote_before_the_grid_barrier() {
    for arch in FILES {
        let module = module(arch);
        for (ctas, block, n) in [
            (8, 64, 8 * 64 - 5),
            (5, 96, 400),
            (1, 32, 32),
            (16, 32, 512),
        ] {
            let got = two_phase(&module, ctas, block, n, &cooperative())
                .unwrap_or_else(|error| panic!("{arch} {ctas}x{block}: {error}"));
            assert_eq!(
                got,
                two_phase_host(ctas, block, n),
                "{arch}: {ctas} CTAs of {block}"
            );
        }
    }
}

/// `coop_reduce` over `ctas` CTAs of 256 threads: the sum of the squares of `input`
/// (wrapping), after one grid barrier per halving of the CTAs' partial sums and one more.
fn reduce(
    module: &Module,
    ctas: u32,
    block: u32,
    input: &[u32],
    options: &LaunchOptions,
) -> Result<(u32, Vec<u32>, u64), Error> {
    let mut bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut partial = vec![0u8; ctas as usize * 4];
    let mut out = vec![0u8; 4];
    let report = module.launch(
        "coop_reduce",
        [ctas, 1, 1],
        [block, 1, 1],
        &mut [
            Arg::Buffer(&mut bytes),
            Arg::Buffer(&mut partial),
            Arg::Buffer(&mut out),
            Arg::U32(input.len() as u32),
        ],
        options,
    )?;
    Ok((u32s(&out)[0], u32s(&partial), report.steps))
}

fn input(n: u32) -> Vec<u32> {
    (0..n)
        .map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(7) ^ 0x5bd1_e995)
        .collect()
}

#[test]
fn a_reduction_over_several_grid_barriers_sums_every_element() {
    let data = input(5000);
    let expected = data
        .iter()
        .fold(0u32, |sum, &v| sum.wrapping_add(v.wrapping_mul(v)));
    for arch in FILES {
        let module = module(arch);
        // 12 CTAs: four halvings (1, 2, 4, 8) and a last barrier; 1 CTA: the last one only.
        for (ctas, block) in [(12, 256), (7, 128), (1, 256), (32, 64)] {
            let (sum, partial, _) = reduce(&module, ctas, block, &data, &cooperative())
                .unwrap_or_else(|error| panic!("{arch} {ctas}x{block}: {error}"));
            assert_eq!(sum, expected, "{arch}: {ctas} CTAs of {block}");
            assert_eq!(partial[0], expected, "{arch}: {ctas} CTAs of {block}");
        }
    }
}

#[test]
fn results_are_the_same_on_every_run_and_for_any_host_threads() {
    let module = module("sm_90");
    let data = input(3000);
    let first = reduce(&module, 9, 256, &data, &cooperative()).expect("runs");
    let first_two_phase = two_phase(&module, 6, 64, 380, &cooperative()).expect("runs");
    for host_threads in [0, 1, 2, 4, 0] {
        let options = LaunchOptions {
            host_threads,
            ..cooperative()
        };
        assert_eq!(reduce(&module, 9, 256, &data, &options).unwrap(), first);
        assert_eq!(
            two_phase(&module, 6, 64, 380, &options).unwrap(),
            first_two_phase
        );
    }
}

/// The line of the first `trap;` of `entry` in `source`.
fn trap_line(source: &str, entry: &str) -> u32 {
    let start = source
        .lines()
        .position(|line| line.starts_with(&format!(".visible .entry {entry}(")))
        .expect("the kernel is there");
    let offset = source
        .lines()
        .skip(start)
        .position(|line| line.trim() == "trap;")
        .expect("a trap");
    (start + offset + 1) as u32
}

#[test]
fn a_launch_that_is_not_cooperative_traps_at_the_grid_barrier() {
    for arch in FILES {
        let module = module(arch);
        let error = two_phase(&module, 4, 32, 128, &LaunchOptions::default())
            .expect_err("no grid workspace");
        let Error::Run {
            location,
            outcome,
            cta,
            thread,
            ..
        } = &error
        else {
            panic!("{arch}: {error}");
        };
        assert!(
            matches!(outcome, Some(Outcome::Trapped { .. })),
            "{arch}: {error}"
        );
        assert_eq!(location.line, trap_line(&source(arch), "coop_two_phase"));
        assert_eq!((*cta, *thread), ([0, 0, 0], [0, 0, 0]), "{arch}");
    }
}

#[test]
fn grid_group_ranks_and_validity() {
    for arch in FILES {
        let module = module(arch);
        let (grid, block) = ([3, 2, 1], [4, 2, 1]);
        for options in [cooperative(), LaunchOptions::default()] {
            let mut out = vec![0u8; 48 * 32];
            module
                .launch(
                    "coop_ranks",
                    grid,
                    block,
                    &mut [Arg::Buffer(&mut out)],
                    &options,
                )
                .unwrap_or_else(|error| panic!("{arch}: {error}"));
            let out = u64s(&out);
            for rank in 0..48u64 {
                let row = &out[4 * rank as usize..4 * rank as usize + 4];
                let valid = u64::from(options.cooperative);
                assert_eq!(row, [48, rank / 8, 6, valid], "{arch}: thread rank {rank}");
            }
        }
    }
}

#[test]
fn a_cta_that_never_arrives_ends_the_launch_at_the_step_limit() {
    // CTA 0 returns before the barrier; the others spin on the counter until their step limit.
    for arch in FILES {
        let module = module(arch);
        let mut out = vec![0u8; 16];
        let options = LaunchOptions {
            max_steps: 20_000,
            ..cooperative()
        };
        let error = module
            .launch(
                "coop_deadlock",
                [4, 1, 1],
                [32, 1, 1],
                &mut [Arg::Buffer(&mut out)],
                &options,
            )
            .expect_err("a deadlock");
        let Error::Run {
            outcome,
            cta,
            message,
            ..
        } = &error
        else {
            panic!("{arch}: {error}");
        };
        assert_eq!(*outcome, Some(Outcome::OutOfFuel), "{arch}: {error}");
        assert!(message.contains("step limit"), "{message}");
        // The first CTA that spins is the first to run out.
        assert_eq!(*cta, [1, 0, 0], "{arch}");
        assert_eq!(out, [0; 16], "{arch}: no CTA got past the barrier");
    }
}

#[test]
fn a_grid_larger_than_the_gpu_holds_is_refused() {
    let module = module("sm_90");
    // 1024 threads: two CTAs per multiprocessor, 16 multiprocessors.
    assert_eq!(
        module.max_active_ctas_per_sm("coop_two_phase", [1024, 1, 1], 0),
        Ok(2)
    );
    assert_eq!(
        module.max_cooperative_ctas("coop_two_phase", [1024, 1, 1], 0),
        Ok(32)
    );
    assert_eq!(
        module.max_cooperative_ctas("coop_two_phase", [32, 1, 1], 0),
        Ok(512)
    );
    // coop_reduce has 1 KiB of static shared memory: with 100 KiB dynamic, 228 / 102 = 2.
    assert_eq!(
        module.max_active_ctas_per_sm("coop_reduce", [256, 1, 1], 100 * 1024),
        Ok(2)
    );
    assert!(matches!(
        module.max_cooperative_ctas("nothing", [32, 1, 1], 0),
        Err(Error::Build(_))
    ));
    let error = two_phase(&module, 33, 1024, 16, &cooperative()).expect_err("too large");
    assert_eq!(
        error,
        Error::Launch(LaunchError::CooperativeTooLarge {
            ctas: 33,
            most: 32,
            per_sm: 2,
            sms: 16,
        })
    );
    // The same grid launched normally runs (and traps at the barrier).
    assert!(matches!(
        two_phase(&module, 33, 1024, 16, &LaunchOptions::default()),
        Err(Error::Run { .. })
    ));
    // The largest grid that fits runs.
    let (ctas, block) = (32, 1024);
    let got = two_phase(&module, ctas, block, ctas * block, &cooperative()).expect("fits");
    assert_eq!(got, two_phase_host(ctas, block, ctas * block));
}

const ENVREGS: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry envregs(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %envreg0;
    mov.u32 %r2, %envreg2;
    mov.u32 %r3, %envreg1;
    mov.u32 %r4, %envreg31;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    cvt.u64.u32 %rd2, %r2;
    cvt.u64.u32 %rd3, %r3;
    bfi.b64 %rd4, %rd3, %rd2, 32, 32;
    setp.eq.u64 %p1, %rd4, 0;
    @%p1 ret;
    ld.u32 %r1, [%rd4];
    ld.u32 %r2, [%rd4+12];
    atom.add.u32 %r3, [%rd4+4], 5;
    ld.u32 %r4, [%rd4+4];
    st.global.v4.u32 [%rd1+16], {%r1, %r2, %r3, %r4};
    ret;
}"#;

#[test]
fn envregs_hold_the_grid_workspace_in_a_cooperative_launch_only() {
    let module = Module::load(ENVREGS, &Options::default()).expect("loads");
    let (high, low) = (
        (GRID_WORKSPACE_BASE >> 32) as u32,
        (GRID_WORKSPACE_BASE & 0xffff_ffff) as u32,
    );
    let mut out = vec![0u8; 32];
    module
        .launch(
            "envregs",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &cooperative(),
        )
        .expect("runs");
    // The workspace starts zeroed, and a kernel may use it as global memory.
    assert_eq!(u32s(&out), [0, low, high, 0, 0, 0, 0, 5]);
    let mut out = vec![0u8; 32];
    module
        .launch(
            "envregs",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("runs");
    assert_eq!(u32s(&out), [0; 8]);
}

#[test]
fn a_driver_launch_is_cooperative_too() {
    // `Module::launch_in`, as the CUDA driver library launches: device allocations, the
    // parameter space as bytes.
    let module = module("sm_90");
    let (ctas, block, n) = (6u32, 64u32, 6u32 * 64 - 3);
    let total = u64::from(ctas * block);
    let mut memory = DeviceMemory::allocations();
    let mut globals = module.globals();
    let scratch = memory.allocate("scratch", total * 4).unwrap();
    let out = memory.allocate("out", total * 4).unwrap();
    let mut params = scratch.to_le_bytes().to_vec();
    params.extend(out.to_le_bytes());
    params.extend(n.to_le_bytes());
    let mut memories = [&mut memory, &mut globals];
    module
        .launch_in(
            "coop_two_phase",
            [ctas, 1, 1],
            [block, 1, 1],
            &params,
            &mut memories,
            &cooperative(),
        )
        .expect("runs");
    let mut bytes = vec![0u8; total as usize * 4];
    memory.read(scratch, &mut bytes).unwrap();
    let got_scratch = u32s(&bytes);
    memory.read(out, &mut bytes).unwrap();
    let (expected_scratch, expected_out) = two_phase_host(ctas, block, n);
    assert_eq!(
        (got_scratch, u32s(&bytes)),
        (expected_scratch, expected_out)
    );
}

#[test]
fn interleaved_ctas_compute_what_ctas_run_one_after_another_do() {
    // A kernel without grid barriers gives the same results and step counts either way: the
    // time slices resume every thread where it stopped.
    let source = std::fs::read_to_string(repo().join("ptx-samples/nvcc/fp8_convert.sm_90.ptx"))
        .expect("sample");
    let module = Module::load(&source, &Options::default()).expect("loads");
    let values = std::fs::read(repo().join("tests/kernels/common/f32.bin")).expect("input");
    let n = (values.len() / 4).min(40 * 96) as u32;
    let run = |options: &LaunchOptions| {
        let mut input = values[..n as usize * 4].to_vec();
        let mut out = vec![0u8; n as usize * 4];
        let report = module
            .launch(
                "f32_to_fp8_variants",
                [n.div_ceil(96), 1, 1],
                [96, 1, 1],
                &mut [
                    Arg::Buffer(&mut input),
                    Arg::Buffer(&mut out),
                    Arg::S32(n as i32),
                ],
                options,
            )
            .expect("runs");
        (out, report.steps)
    };
    assert_eq!(run(&cooperative()), run(&LaunchOptions::default()));
}

// Thread-block clusters (`LaunchOptions::cluster`, `.reqnctapercluster`; PTX ISA 9.0, 2.2.1),
// on the hand-written kernels `ptx-samples/hand/cluster_*_sm90.ptx` (both clean under
// ptxas 13.5 `-arch sm_90a`).

fn hand(name: &str) -> String {
    std::fs::read_to_string(repo().join(format!("ptx-samples/hand/{name}.ptx")))
        .expect("the sample is there")
}

/// `cluster_reduce` over `ctas` CTAs of 32 threads with `options`: `out` and `info`.
fn cluster_reduce(ctas: u32, options: &LaunchOptions) -> Result<(Vec<u32>, Vec<u32>), Error> {
    let module =
        Module::load(&hand("cluster_reduce_sm90"), &Options::default()).expect("the sample loads");
    let n = ctas as usize * 32;
    let mut input: Vec<u8> = (0..n as u32)
        .flat_map(|i| (i * 7 + 3).to_le_bytes())
        .collect();
    let mut out = vec![0u8; n * 4];
    let mut info = vec![0u8; ctas as usize * 32];
    module.launch(
        "cluster_reduce",
        [ctas, 1, 1],
        [32, 1, 1],
        &mut [
            Arg::Buffer(&mut input),
            Arg::Buffer(&mut out),
            Arg::Buffer(&mut info),
        ],
        options,
    )?;
    Ok((u32s(&out), u32s(&info)))
}

#[test]
fn a_cluster_reads_its_partners_shared_memory_through_mapa() {
    for ctas in [2, 4, 16] {
        let (out, info) = cluster_reduce(ctas, &LaunchOptions::default()).expect("it runs");
        // The host's computation: CTA c and its partner c ^ 1 (the other CTA of its 2x1x1
        // cluster) each write the sum of their two slices.
        let value = |cta: u32, tid: u32| (cta * 32 + tid) * 7 + 3;
        for cta in 0..ctas {
            for tid in 0..32 {
                let index = (cta * 32 + tid) as usize;
                assert_eq!(
                    out[index],
                    value(cta, tid) + value(cta ^ 1, tid),
                    "CTA {cta} thread {tid}"
                );
            }
            // %cluster_ctarank, %cluster_nctarank, %cluster_ctaid.x, %cluster_nctaid.x,
            // %clusterid.x, %nclusterid.x, %is_explicit_cluster, and the counter the partner's
            // 32 threads incremented with atom.shared::cluster.
            let at = cta as usize * 8;
            assert_eq!(
                info[at..at + 8],
                [cta % 2, 2, cta % 2, 2, cta / 2, ctas / 2, 1, 32],
                "CTA {cta}"
            );
        }
    }
}

/// `layout` of `ptx-samples/hand/cluster_shared_layout_sm90.ptx` over `ctas` CTAs in clusters
/// of 2x1x1 with `mode`: the 16 words each CTA wrote, or the error.
fn shared_layout(ctas: u32, mode: u32) -> Result<Vec<Vec<u32>>, Error> {
    let module = Module::load(&hand("cluster_shared_layout_sm90"), &Options::default())
        .expect("the sample loads");
    let mut out = vec![0u8; ctas as usize * 64];
    let options = LaunchOptions {
        cluster: Some([2, 1, 1]),
        ..LaunchOptions::default()
    };
    module.launch(
        "layout",
        [ctas, 1, 1],
        [32, 1, 1],
        &mut [Arg::Buffer(&mut out), Arg::U32(mode)],
        &options,
    )?;
    Ok(u32s(&out).chunks(16).map(<[u32]>::to_vec).collect())
}

#[test]
fn a_ctas_shared_addresses_carry_its_cluster_rank_from_bit_24() {
    // The GPU's layout, as ptxas compiles for it (`mov.u32 %r, var` is `(SR_CgaCtaId << 24)
    // + offset`, `mapa` puts the rank in bits 24-31, `getctarank` shifts right by 24) and as
    // CUTLASS's sm_100 kernels use it (clearing bit 24 reaches the even CTA of a pair).
    const RANK: u32 = 1 << 24;
    let words = shared_layout(4, 0).expect("it runs");
    let value = |rank: u32| 0x1000 + 0x111 * rank;
    let even = words[0][0];
    assert!(even < RANK, "rank 0's window starts at 0: {even:#x}");
    for (cta, w) in words.iter().enumerate() {
        let rank = cta as u32 % 2;
        let own = even + rank * RANK;
        let peer = even + (rank ^ 1) * RANK;
        assert_eq!(w[0], own, "CTA {cta}: its variable's address");
        assert_eq!(w[1], own + 4, "CTA {cta}: `word+4`");
        assert_eq!(w[2], peer, "CTA {cta}: mapa into the other CTA");
        assert_eq!([w[3], w[4]], [rank, rank ^ 1], "CTA {cta}: getctarank");
        assert_eq!(
            w[5],
            value(0),
            "CTA {cta}: bit 24 cleared is the even CTA's word"
        );
        assert_eq!(
            w[6],
            value(rank ^ 1),
            "CTA {cta}: generic load of the mapped address"
        );
        assert_eq!(
            w[7..10],
            [1, 0, 1],
            "CTA {cta}: isspacep .shared::cta own, peer; ::cluster"
        );
        assert_eq!(w[10], own, "CTA {cta}: cvta there and back");
    }
}

#[test]
fn a_shared_cta_load_of_another_ctas_window_faults_at_its_line() {
    let source = hand("cluster_shared_layout_sm90");
    let error = shared_layout(2, 1).expect_err("a load outside the CTA's window");
    let line = line_where(&source, |line| line.ends_with("// PEER"));
    assert_eq!(trap_site(&error), (line, [1, 0, 0], [0, 0, 0]), "{error}");
}

/// The line, CTA and thread where a launch trapped (a `trap`, a fault, a deadlock).
fn trap_site(error: &Error) -> (u32, [u32; 3], [u32; 3]) {
    let Error::Run {
        location,
        outcome,
        cta,
        thread,
        ..
    } = error
    else {
        panic!("{error}");
    };
    assert!(matches!(outcome, Some(Outcome::Trapped { .. })), "{error}");
    (location.line, *cta, *thread)
}

/// The line (from 1) of the first line of `source` that `is` picks.
fn line_where(source: &str, is: impl Fn(&str) -> bool) -> u32 {
    source.lines().position(is).expect("the line is there") as u32 + 1
}

#[test]
fn a_cluster_shape_the_kernel_does_not_require_is_refused() {
    // `.reqnctapercluster 2, 1, 1`: a launch that asks for another shape fails, one that asks
    // for the same one runs; a grid that is not a whole number of clusters fails.
    for (shape, ctas) in [([4, 1, 1], 4), ([1, 1, 1], 2)] {
        let options = LaunchOptions {
            cluster: Some(shape),
            ..LaunchOptions::default()
        };
        let error = cluster_reduce(ctas, &options).expect_err("refused");
        assert!(
            matches!(error, Error::Launch(LaunchError::Shape(_))),
            "{error}"
        );
    }
    let options = LaunchOptions {
        cluster: Some([2, 1, 1]),
        ..LaunchOptions::default()
    };
    cluster_reduce(4, &options).expect("the kernel's own shape");
    let error = cluster_reduce(3, &LaunchOptions::default()).expect_err("3 CTAs");
    assert!(
        matches!(error, Error::Launch(LaunchError::Shape(_))),
        "{error}"
    );
}

#[test]
fn a_deadlock_across_a_cluster_traps_at_the_cluster_barrier() {
    let source = hand("cluster_deadlock_sm90");
    let module = Module::load(&source, &Options::default()).expect("the sample loads");
    let error = module
        .launch(
            "cluster_deadlock",
            [2, 1, 1],
            [32, 1, 1],
            &mut [],
            &LaunchOptions::default(),
        )
        .expect_err("a deadlock");
    // The first `barrier.cluster.wait` of the file, where CTA rank 0 waits.
    let line = line_where(&source, |line| line.trim() == "barrier.cluster.wait;");
    assert_eq!(trap_site(&error), (line, [0, 0, 0], [0, 0, 0]), "{error}");
}

#[test]
fn a_cluster_barrier_in_a_cluster_of_one_cta_waits_for_the_whole_cta() {
    // Without a cluster shape every CTA is a cluster of one (`%cluster_nctarank` 1): thread t
    // writes its slot, arrives, does unrelated work, waits, then reads slot t + 1 (wrapping);
    // every value must be the written one (the host's: slot s holds s + 100).
    let source = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 slots[64];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, slots;
    add.s32 %r4, %r3, %r2;
    add.s32 %r5, %r1, 100;
    st.shared::cta.u32 [%r4], %r5;
    barrier.cluster.arrive;
    mov.u32 %r6, %cluster_nctarank;
    barrier.cluster.wait;
    add.s32 %r7, %r1, 1;
    and.b32 %r7, %r7, 63;
    shl.b32 %r8, %r7, 2;
    add.s32 %r9, %r3, %r8;
    ld.shared::cluster.u32 %r10, [%r9];
    add.s32 %r10, %r10, %r6;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    ret;
}
"#;
    let module = Module::load(source, &Options::default()).expect("it loads");
    let mut out = vec![0u8; 64 * 4];
    module
        .launch(
            "k",
            [1, 1, 1],
            [64, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let expected: Vec<u32> = (0..64).map(|t| (t + 1) % 64 + 100 + 1).collect();
    assert_eq!(u32s(&out), expected);
}

#[test]
fn bulk_copies_move_global_to_shared_and_back() {
    // `ptx-samples/hand/bulk_copy_sm90.ptx`: global -> shared with complete_tx on an mbarrier,
    // doubled, shared -> global in a bulk group; the host's computation: out[i] = 2 * in[i].
    let module =
        Module::load(&hand("bulk_copy_sm90"), &Options::default()).expect("the sample loads");
    let ctas = 3u32;
    let words = ctas as usize * 64;
    let values: Vec<u32> = (0..words as u32).map(|i| i * 5 + 1).collect();
    let mut input: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut out = vec![0u8; words * 4];
    module
        .launch(
            "bulk_copy",
            [ctas, 1, 1],
            [32, 1, 1],
            &mut [Arg::Buffer(&mut input), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let expected: Vec<u32> = values.iter().map(|v| v * 2).collect();
    assert_eq!(u32s(&out), expected);
}

/// Each CTA of a 2x1x1 cluster writes 8 words (`100 * ctaid + i`) and copies them with
/// `cp.async.bulk.shared::cluster.shared::cta` into its partner's shared memory, completing on
/// the partner's mbarrier (clean under ptxas 13.5 `-arch sm_90a`).
const EXCHANGE: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry exchange(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 16 .b32 src[8];
    .shared .align 16 .b32 dst[8];
    .shared .align 8 .b64 bar;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %cluster_ctarank;
    xor.b32 %r4, %r3, 1;
    setp.lt.u32 %p1, %r1, 8;
    @!%p1 bra STORED;
    mad.lo.u32 %r5, %r2, 100, %r1;
    shl.b32 %r6, %r1, 2;
    mov.u32 %r7, src;
    add.s32 %r7, %r7, %r6;
    st.shared.u32 [%r7], %r5;
STORED:
    setp.eq.u32 %p2, %r1, 0;
    @!%p2 bra READY;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 32;
READY:
    fence.proxy.async.shared::cta;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @!%p2 bra WAIT;
    mapa.shared::cluster.u32 %r8, dst, %r4;
    mapa.shared::cluster.u32 %r9, bar, %r4;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r8], [src], 32, [%r9];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
    @!%p3 bra WAIT;
    @!%p1 bra DONE;
    shl.b32 %r6, %r1, 2;
    mov.u32 %r10, dst;
    add.s32 %r10, %r10, %r6;
    ld.shared.u32 %r11, [%r10];
    ld.param.u64 %rd2, [out];
    shl.b32 %r12, %r2, 3;
    add.s32 %r12, %r12, %r1;
    mul.wide.u32 %rd3, %r12, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r11;
DONE:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

#[test]
fn a_bulk_copy_into_the_partner_cta_completes_on_its_mbarrier() {
    let module = Module::load(EXCHANGE, &Options::default()).expect("it loads");
    let ctas = 4u32;
    let mut out = vec![0u8; ctas as usize * 8 * 4];
    module
        .launch(
            "exchange",
            [ctas, 1, 1],
            [32, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    // The host's computation: CTA c holds what its partner c ^ 1 wrote.
    let expected: Vec<u32> = (0..ctas)
        .flat_map(|cta| (0..8).map(move |i| 100 * (cta ^ 1) + i))
        .collect();
    assert_eq!(u32s(&out), expected);
}

#[test]
fn a_bulk_copy_of_a_size_that_is_no_multiple_of_16_traps() {
    let source = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<2>;
    .shared .align 16 .b8 staged[64];
    ld.param.u64 %rd1, [out];
    cp.async.bulk.global.shared::cta.bulk_group [%rd1], [staged], 24;
    ret;
}
"#;
    let module = Module::load(source, &Options::default()).expect("it loads");
    let mut out = vec![0u8; 64];
    let error = module
        .launch(
            "k",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect_err("size 24");
    let Error::Run { location, .. } = &error else {
        panic!("{error}");
    };
    assert_eq!(location.line, 10, "{error}");
}

/// What nvcc 13.5 (`nvcc -arch=sm_90 -ptx`) makes of CUDA's cluster API
/// (`cooperative_groups::this_cluster()`: `sync`, `map_shared_rank`, `block_rank`,
/// `num_blocks`; `.explicitcluster`, `.reqnctapercluster 2, 1, 1`, `barrier.cluster`, `mapa`,
/// `ld.shared::cluster`) from this source:
///
/// ```text
/// #include <cooperative_groups.h>
/// namespace cg = cooperative_groups;
/// extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_sum(const int *in, int *out) {
///     __shared__ int buf[64];
///     cg::cluster_group cluster = cg::this_cluster();
///     unsigned rank = cluster.block_rank();
///     buf[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
///     cluster.sync();
///     int *peer = cluster.map_shared_rank(buf, rank ^ 1);
///     int v = peer[threadIdx.x];
///     cluster.sync();
///     out[blockIdx.x * 64 + threadIdx.x] = buf[threadIdx.x] + v + (int)cluster.num_blocks() * 1000 + (int)rank * 100000;
/// }
/// ```
const NVCC_CLUSTER_SUM: &str = r#"//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-39125733
// Cuda compilation tools, release 13.5, V13.5.37
// Based on NVVM 7.0.1
//

.version 9.5
.target sm_90
.address_size 64

	// .globl	cluster_sum
// _ZZ11cluster_sumE3buf has been demoted
.global .align 1 .b8 _ZN35_INTERNAL_9bf1d42d_5_cl_cu_961f35174cuda3std3__45__cpo9iter_swapE[1];

.visible .entry cluster_sum(
	.param .u64 cluster_sum_param_0,
	.param .u64 cluster_sum_param_1
)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
	.reg .b32 	%r<19>;
	.reg .b64 	%rd<8>;
	// demoted variable
	.shared .align 4 .b8 _ZZ11cluster_sumE3buf[256];

	ld.param.u64 	%rd1, [cluster_sum_param_0];
	ld.param.u64 	%rd2, [cluster_sum_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.b32 %r1, %cluster_ctarank;
	mov.u32 	%r2, %ctaid.x;
	shl.b32 	%r3, %r2, 6;
	mov.u32 	%r4, %tid.x;
	add.s32 	%r5, %r3, %r4;
	mul.wide.u32 	%rd5, %r5, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.u32 	%r6, [%rd6];
	shl.b32 	%r7, %r4, 2;
	mov.u32 	%r8, _ZZ11cluster_sumE3buf;
	add.s32 	%r9, %r8, %r7;
	st.shared.u32 	[%r9], %r6;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32  	%r10, %r1, 1;
	mapa.shared::cluster.u32	%r11, %r8, %r10;
	add.s32 	%r12, %r11, %r7;
	ld.shared::cluster.u32 	%r13, [%r12];
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ld.shared.u32 	%r14, [%r9];
	mov.b32 %r15, %cluster_nctarank;
	mad.lo.s32 	%r16, %r1, 100000, %r13;
	add.s32 	%r17, %r16, %r14;
	mad.lo.s32 	%r18, %r15, 1000, %r17;
	add.s64 	%rd7, %rd3, %rd5;
	st.global.u32 	[%rd7], %r18;
	ret;

}

"#;

#[test]
fn nvccs_cluster_api_code_exchanges_shared_memory_between_the_ctas_of_a_cluster() {
    let module = Module::load(NVCC_CLUSTER_SUM, &Options::default()).expect("it loads");
    let input: Vec<i32> = (0..256).map(|i| i * 3).collect();
    let mut input_bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut out = vec![0u8; 256 * 4];
    module
        .launch(
            "cluster_sum",
            [4, 1, 1],
            [64, 1, 1],
            &mut [Arg::Buffer(&mut input_bytes), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    // The host's computation of the CUDA source: CTA c (rank c % 2) adds its partner's
    // (c ^ 1) element, 1000 per CTA of the cluster, 100000 per rank.
    let expected: Vec<u32> = (0..4)
        .flat_map(|cta: usize| {
            let input = &input;
            (0..64).map(move |t| {
                (input[cta * 64 + t]
                    + input[(cta ^ 1) * 64 + t]
                    + 2000
                    + (cta as i32 % 2) * 100_000) as u32
            })
        })
        .collect();
    assert_eq!(u32s(&out), expected);
}

/// A grid barrier written by hand, as CUDA programs wrote them before cooperative groups: one
/// thread per CTA stores its word, adds 1 to a counter with `atom.global.add` and spins on a
/// volatile load until every CTA has arrived, then reads the word of the next CTA. On a GPU the
/// 8 CTAs are resident together (the grid is sized within the occupancy limit), so it finishes.
const HAND_BARRIER: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry hand_barrier(.param .u64 data, .param .u64 count, .param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [count];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %nctaid.x;
    mad.lo.u32 %r3, %r1, 3, 1;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r3;
    membar.gl;
    atom.global.add.u32 %r4, [%rd2], 1;
spin:
    ld.volatile.global.u32 %r5, [%rd2];
    setp.lt.u32 %p1, %r5, %r2;
    @%p1 bra spin;
    add.u32 %r6, %r1, 1;
    rem.u32 %r6, %r6, %r2;
    mul.wide.u32 %rd6, %r6, 4;
    add.s64 %rd6, %rd1, %rd6;
    ld.global.u32 %r7, [%rd6];
    add.s64 %rd7, %rd3, %rd4;
    st.global.u32 [%rd7], %r7;
    ret;
}
"#;

#[test]
fn a_hand_written_grid_barrier_finishes_when_the_ctas_are_interleaved() {
    let module = Module::load(HAND_BARRIER, &Options::default()).expect("the kernel loads");
    let run = |interleave: bool| {
        let (mut data, mut count, mut out) = (vec![0u8; 32], vec![0u8; 4], vec![0u8; 32]);
        let options = LaunchOptions {
            interleave,
            max_steps: 50_000,
            ..LaunchOptions::default()
        };
        let result = module.launch(
            "hand_barrier",
            [8, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Buffer(&mut data),
                Arg::Buffer(&mut count),
                Arg::Buffer(&mut out),
            ],
            &options,
        );
        result.map(|_| (u32s(&count), u32s(&out)))
    };
    // CTA i reads what CTA i + 1 (mod 8) stored before the barrier: 3 (i + 1) + 1.
    let (count, out) = run(true).expect("the interleaved launch finishes");
    assert_eq!(count, [8]);
    let want: Vec<u32> = (0..8u32).map(|i| 3 * ((i + 1) % 8) + 1).collect();
    assert_eq!(out, want);
    // One CTA after another, CTA 0 waits for ever for the others: the step limit.
    let error = run(false).expect_err("CTA 0 cannot finish alone");
    assert!(
        matches!(
            error,
            Error::Run {
                outcome: Some(Outcome::OutOfFuel),
                ..
            }
        ),
        "{error}"
    );
}

/// A value handed from CTA to CTA through a flag, without atomics, as Barnes-Hut's
/// `SortKernel` hands a cell's start to its children: the last CTA stores a value and then sets
/// a flag; every other CTA spins on a volatile load of the flag, then reads the value. On a GPU
/// the 8 CTAs are resident together, so it finishes.
const FLAG_HANDOFF: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry flag_handoff(.param .u64 flag, .param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [flag];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %nctaid.x;
    sub.u32 %r3, %r2, 1;
    setp.eq.u32 %p1, %r1, %r3;
    @!%p1 bra wait;
    mov.u32 %r4, 1000;
    st.volatile.global.u32 [%rd1+4], %r4;
    membar.gl;
    st.volatile.global.u32 [%rd1], 1;
    bra done;
wait:
    ld.volatile.global.u32 %r5, [%rd1];
    setp.eq.u32 %p2, %r5, 0;
    @%p2 bra wait;
    ld.volatile.global.u32 %r4, [%rd1+4];
done:
    add.u32 %r6, %r4, %r1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r6;
    ret;
}
"#;

#[test]
fn ctas_waiting_on_a_volatile_flag_without_atomics_are_interleaved() {
    let module = Module::load(FLAG_HANDOFF, &Options::default()).expect("the kernel loads");
    let (mut flag, mut out) = (vec![0u8; 8], vec![0u8; 32]);
    let options = LaunchOptions {
        interleave: true,
        // One host thread: without interleaving, CTA 0 would spin alone to the step limit.
        host_threads: 1,
        max_steps: 50_000,
        ..LaunchOptions::default()
    };
    module
        .launch(
            "flag_handoff",
            [8, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut flag), Arg::Buffer(&mut out)],
            &options,
        )
        .expect("the interleaved launch finishes");
    // Every CTA adds its index to the value the last one stored, 1000.
    let want: Vec<u32> = (0..8u32).map(|i| 1000 + i).collect();
    assert_eq!(u32s(&out), want);
}
