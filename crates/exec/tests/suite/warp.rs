//! Warp-synchronous instructions in real nvcc 13.5 kernels (`ptx-samples/cuda/warp.cu`, built
//! for sm_80, sm_90 and sm_100a): each kernel runs over a grid whose last warps are partly past
//! `n`, and its output is compared with a host computation of the same reduction, written here
//! from the CUDA source and the PTX ISA semantics (shfl.sync 9.7.9.6, vote.sync 9.7.13.9,
//! match.sync 9.7.13.10, redux.sync 9.7.13.12), never from ptxsim's output. Float reductions
//! are computed in the kernel's own order (the shuffle tree), one IEEE `f32` addition at a time.
//!
//! Also: a warp-synchronous instruction that can never complete traps with its location, and
//! lanes outside their own membermask run with the lanes they are converged with (D56).

use std::path::Path;

use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Machine, Outcome};
use ptxsim_isa::Type;

const N: usize = 1000;
const BLOCK: u32 = 256;

/// A deterministic input: `N` pseudo-random words (a 64-bit LCG).
fn words(seed: u64) -> Vec<u32> {
    let mut state = seed;
    (0..N)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 32) as u32
        })
        .collect()
}

/// Floats of mixed magnitudes and signs (so that the order of additions shows in the sums).
fn floats() -> Vec<f32> {
    words(1)
        .iter()
        .map(|&w| {
            let mantissa = (w & 0xffff) as f32 / 65536.0 + 1.0;
            let exponent = ((w >> 16) % 24) as i32 - 12;
            let sign = if w >> 31 == 1 { -1.0 } else { 1.0 };
            sign * mantissa * 2f32.powi(exponent)
        })
        .collect()
}

/// Small signed integers (so that `match` finds groups and `vote` sees both values).
fn ints() -> Vec<i32> {
    words(2).iter().map(|&w| (w % 41) as i32 - 20).collect()
}

fn bytes<T: Copy>(values: &[T], to: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}

/// Runs kernel `entry` of `file` over `N` elements (`in`, `out` of `out_bytes`, `n`) and
/// returns `out`.
fn run(file: &str, entry: &str, input: Vec<u8>, out_bytes: usize, jobs: usize) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file);
    let source = std::fs::read_to_string(&path).expect("the sample exists");
    let program = ptxsim_exec::load(&source, Some(entry)).expect("the kernel checks and builds");
    let grid_x = N.div_ceil(BLOCK as usize) as u32;
    let arguments = vec![
        Argument::Buffer(input),
        Argument::Buffer(vec![0; out_bytes]),
        Argument::Scalar {
            ty: Type::S32,
            bits: N as u64,
        },
    ];
    let (device, addresses) =
        grid::prepare(&program, [grid_x, 1, 1], [BLOCK, 1, 1], 100_000, arguments)
            .expect("the launch is valid");
    let options = GridOptions {
        host_threads: jobs,
        ..GridOptions::default()
    };
    let run = grid::run_grid(&device, options, None, None);
    assert!(run.failure.is_none(), "{file} {entry}: {:?}", run.failure);
    let address = addresses[1].expect("the output buffer has an address");
    device
        .global
        .buffer_at(address)
        .expect("the output buffer")
        .contents()
}

/// The samples of every target the source was built for.
const FILES: [&str; 3] = [
    "ptx-samples/nvcc/warp.sm_80.ptx",
    "ptx-samples/nvcc/warp.sm_90.ptx",
    "ptx-samples/nvcc/warp.sm_100a.ptx",
];

/// The warps of the launch: 32 consecutive global indices (the block is a multiple of 32).
fn warps() -> impl Iterator<Item = std::ops::Range<usize>> {
    let threads = N.div_ceil(BLOCK as usize) * BLOCK as usize;
    (0..threads / 32).map(|w| w * 32..w * 32 + 32)
}

#[test]
fn shfl_down_sum_adds_in_the_tree_order() {
    let input = floats();
    let mut expected = Vec::new();
    for warp in warps() {
        // `v += __shfl_down_sync(~0, v, offset)` for offset 16, 8, 4, 2, 1: lane l adds lane
        // l + offset, or (out of range: "copy from own lane") its own value.
        let mut v: Vec<f32> = warp.map(|i| input.get(i).copied().unwrap_or(0.0)).collect();
        for offset in [16, 8, 4, 2, 1] {
            v = (0..32)
                .map(|l| v[l] + if l + offset < 32 { v[l + offset] } else { v[l] })
                .collect();
        }
        expected.push(v[0]);
    }
    let want = bytes(&expected, f32::to_le_bytes);
    for file in FILES {
        for jobs in [1, 2] {
            let got = run(
                file,
                "warp_sum_down",
                bytes(&input, f32::to_le_bytes),
                want.len(),
                jobs,
            );
            assert_eq!(got, want, "{file} --jobs {jobs}");
        }
    }
}

#[test]
fn shfl_xor_max_reaches_every_lane() {
    let input = floats();
    let mut expected = vec![0f32; N];
    for warp in warps() {
        let max = warp
            .clone()
            .map(|i| input.get(i).copied().unwrap_or(f32::NEG_INFINITY))
            .fold(f32::NEG_INFINITY, f32::max);
        for i in warp.filter(|&i| i < N) {
            expected[i] = max;
        }
    }
    let want = bytes(&expected, f32::to_le_bytes);
    for file in FILES {
        let got = run(
            file,
            "warp_max_xor",
            bytes(&input, f32::to_le_bytes),
            4 * N,
            1,
        );
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn ballot_counts_the_true_predicates_of_a_warp() {
    let input = ints();
    let expected: Vec<u32> = warps()
        .map(|warp| warp.filter(|&i| i < N && input[i] > 0).count() as u32)
        .collect();
    let want = bytes(&expected, u32::to_le_bytes);
    for file in FILES {
        let got = run(
            file,
            "ballot_count",
            bytes(&input, i32::to_le_bytes),
            want.len(),
            1,
        );
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn match_any_groups_lanes_by_value() {
    let input = ints();
    let key = |i: usize| if i < N { input[i] & 7 } else { -1 };
    let mut expected = vec![0u32; N];
    for warp in warps() {
        for i in warp.clone().filter(|&i| i < N) {
            expected[i] = warp
                .clone()
                .filter(|&j| key(j) == key(i))
                .fold(0, |mask, j| mask | 1 << (j % 32));
        }
    }
    let want = bytes(&expected, u32::to_le_bytes);
    for file in FILES {
        let got = run(
            file,
            "match_any_groups",
            bytes(&input, i32::to_le_bytes),
            4 * N,
            1,
        );
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn shfl_up_with_a_width_scans_segments_of_eight() {
    let input = ints();
    // `__shfl_up_sync(~0, v, d, 8)` keeps each lane inside its segment of 8 lanes; lanes with
    // `(tid & 7) >= d` add: an inclusive scan of each segment.
    let expected: Vec<i32> = (0..N)
        .map(|i| (i / 8 * 8..=i).map(|j| input[j]).fold(0, i32::wrapping_add))
        .collect();
    let want = bytes(&expected, i32::to_le_bytes);
    for file in FILES {
        let got = run(
            file,
            "segment_scan",
            bytes(&input, i32::to_le_bytes),
            4 * N,
            1,
        );
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn redux_sums_and_minimums() {
    let input = words(3);
    let mut expected = Vec::new();
    for warp in warps() {
        let values: Vec<u32> = warp.map(|i| input.get(i).copied().unwrap_or(0)).collect();
        expected.push(values.iter().fold(0u32, |s, &v| s.wrapping_add(v)));
        expected.push(values.iter().copied().min().unwrap_or(0));
    }
    let want = bytes(&expected, u32::to_le_bytes);
    for file in FILES {
        let got = run(
            file,
            "redux_sum_min",
            bytes(&input, u32::to_le_bytes),
            want.len(),
            2,
        );
        assert_eq!(got, want, "{file}");
    }
}

fn kernel(body: &str) -> String {
    format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg .b32 %r<4>;\n.reg .pred %p<2>;\n{body}\nret;\n}}\n"
    )
}

fn launch(source: &str, threads: u32) -> Option<(String, u32)> {
    let program = ptxsim_exec::load(source, None).expect("checks");
    let (device, _) = grid::prepare(&program, [1, 1, 1], [threads, 1, 1], 1000, Vec::new())
        .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    run.failure.map(|failure| match failure.outcome {
        Ok(Outcome::Trapped { message, location }) => (message, location.line),
        other => panic!("{other:?}"),
    })
}

#[test]
fn a_shuffle_that_can_never_complete_traps_at_its_line() {
    // Lanes 16..31 wait at the barrier, lanes 0..15 at the shuffle, which waits for all 32.
    let source = kernel(
        "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra LOW;\nbar.sync 0;\nret;\n\
         LOW:\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffffffff;",
    );
    let (message, line) = launch(&source, 32).expect("a trap");
    assert!(message.contains("can never complete"), "{message}");
    assert!(message.contains("waits at a barrier"), "{message}");
    assert_eq!(line, 14);
}

/// Runs `body` in one warp of 32 lanes with `%r1` = `%laneid`, `%p1` = "the lane is odd" and
/// `%r3` = `%lanemask_lt`; each lane then stores `%r4`..`%r7` at `out[slot * 32 + lane]`.
fn outside_mask(body: &str) -> Vec<[u32; 4]> {
    let source = format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<12>;\n.reg .pred %p<4>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r1, %laneid;\nmov.u32 %r3, %lanemask_lt;\n\
         and.b32 %r2, %r1, 1;\nsetp.ne.u32 %p1, %r2, 0;\n\
         mov.u32 %r4, 0;\nmov.u32 %r5, 0;\nmov.u32 %r6, 0;\nmov.u32 %r7, 0;\n{body}\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;\n\
         st.global.u32 [%rd3+128], %r5;\nst.global.u32 [%rd3+256], %r6;\n\
         st.global.u32 [%rd3+384], %r7;\nret;\n}}\n"
    );
    let program = ptxsim_exec::load(&source, None).expect("checks");
    let arguments = vec![Argument::Buffer(vec![0; 512])];
    let (device, addresses) =
        grid::prepare(&program, [1, 1, 1], [32, 1, 1], 1000, arguments).expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    let address = addresses[0].expect("the output buffer has an address");
    let out = device
        .global
        .buffer_at(address)
        .expect("the buffer")
        .contents();
    let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    (0..32)
        .map(|lane| std::array::from_fn(|slot| word(slot * 32 + lane)))
        .collect()
}

// A lane outside its own membermask is undefined in the ISA ("The behavior of shfl.sync is
// undefined if the executing thread is not in the membermask"); ptxsim runs it with the lanes
// it is converged with (D56), what HeCBench's bscan and btree expect.

#[test]
fn a_shuffle_up_with_half_the_mask_moves_the_whole_warp() {
    // btree: `__shfl_up_sync(0x0000FFFF, v, 16)` in all 32 lanes. shfl.up: "j = lane - b", in
    // range when j >= maxLane (0 here): lanes 16..31 read lane - 16, lanes 0..15 keep their own
    // value with p false.
    let out = outside_mask(
        "mul.lo.u32 %r8, %r1, 3;\nshfl.sync.up.b32 %r4|%p2, %r8, 16, 0, 0x0000ffff;\n\
         selp.u32 %r5, 1, 0, %p2;",
    );
    for (lane, got) in out.iter().enumerate() {
        let (value, in_range) = if lane >= 16 {
            (3 * (lane - 16), 1)
        } else {
            (3 * lane, 0)
        };
        assert_eq!([got[0], got[1]], [value as u32, in_range], "lane {lane}");
    }
}

#[test]
fn a_ballot_over_the_lower_lanes_counts_them() {
    // bscan: `__popc(__ballot_sync(%lanemask_lt, p))` is the number of lower lanes whose p is
    // true ("A thread not specified in membermask will contribute a 0 for its entry"); lane 0's
    // mask is empty. p is "the lane is odd"; also vote.any/.all over the same masks (all of an
    // empty set: true), redux.add of the lane numbers and match.any of lane / 4.
    let out = outside_mask(
        "vote.sync.ballot.b32 %r4, %p1, %r3;\nvote.sync.any.pred %p2, %p1, %r3;\n\
         vote.sync.all.pred %p3, %p1, %r3;\nselp.u32 %r5, 1, 0, %p2;\nselp.u32 %r9, 2, 0, %p3;\n\
         or.b32 %r5, %r5, %r9;\nredux.sync.add.u32 %r6, %r1, %r3;\nshr.u32 %r10, %r1, 2;\n\
         match.any.sync.b32 %r7, %r10, %r3;",
    );
    for (lane, got) in out.iter().enumerate() {
        let lower = (0..lane).collect::<Vec<_>>();
        let ballot = lower
            .iter()
            .filter(|&&l| l % 2 == 1)
            .fold(0u32, |b, &l| b | 1 << l);
        let any = u32::from(ballot != 0);
        let all = u32::from(lower.iter().all(|&l| l % 2 == 1));
        let sum: usize = lower.iter().sum();
        let same = lower
            .iter()
            .filter(|&&l| l / 4 == lane / 4)
            .fold(0u32, |b, &l| b | 1 << l);
        assert_eq!(got[0], ballot, "lane {lane}");
        assert_eq!(got[1], any | all << 1, "lane {lane}");
        assert_eq!(got[2], sum as u32, "lane {lane}");
        assert_eq!(got[3], same, "lane {lane}");
    }
}

#[test]
fn lanes_outside_their_masks_still_wait_for_the_lanes_of_the_mask() {
    // Lanes 0..15 run the shuffle with the mask of lanes 16..31, which wait at a barrier: it
    // can never complete, and says so (no hang).
    let source = kernel(
        "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n@%p1 bra LOW;\nbar.sync 0;\nret;\n\
         LOW:\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffff0000;",
    );
    let (message, line) = launch(&source, 32).expect("a trap");
    assert!(message.contains("can never complete"), "{message}");
    assert_eq!(line, 14);
}

#[test]
fn lanes_that_exited_are_not_waited_for() {
    // The odd lanes exit; "wait until all non-exited threads corresponding to membermask":
    // the even lanes' shuffle completes (lane l reads lane l ^ 2, also even).
    let source = kernel(
        "mov.u32 %r1, %tid.x;\nand.b32 %r3, %r1, 1;\nsetp.ne.u32 %p1, %r3, 0;\n@%p1 ret;\n\
         shfl.sync.bfly.b32 %r2, %r1, 2, 31, 0xffffffff;",
    );
    assert_eq!(launch(&source, 32), None);
}

#[test]
fn one_thread_alone_completes_a_full_mask_shuffle() {
    // A one-thread launch: lanes 1..31 do not exist, so nothing is waited for; `.idx` from lane
    // 5 is in range (pval) and reads a lane that does not take part, which an sm_90 GPU reads
    // as 0 (measured for exited lanes and lanes outside the membermask, tests/hardware/warp
    // `shfl_exited`, `shfl_partial`; missing lanes count as exited).
    let source = kernel(
        "mov.u32 %r1, 7;\nshfl.sync.idx.b32 %r2|%p1, %r1, 5, 31, 0xffffffff;\n\
         mov.u32 %r3, %lanemask_lt;",
    );
    let program = ptxsim_exec::load(&source, None).expect("checks");
    let mut machine = Machine::new(&program, 100);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    let registers = machine.registers();
    // %r0..%r3, %p0, %p1.
    assert_eq!(registers[2], 0);
    assert_eq!(registers[5], 1);
    assert_eq!(registers[3], 0); // %lanemask_lt of lane 0
}

#[test]
fn lanes_released_by_an_exit_keep_their_trace_records() {
    // Lanes 0..30 reach the shuffle first (lane 31 takes the long way round and exits), so the
    // shuffle is released only when lane 31 has exited and nothing else can run. The trace still
    // has one `shfl` step for each of the 31 lanes.
    let source = kernel(
        "mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 31;\n@%p1 bra LATE;\n\
         shfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffffffff;\nret;\n\
         LATE:\nadd.u32 %r3, %r1, 1;\nadd.u32 %r3, %r3, 1;\nret;",
    );
    let program = ptxsim_exec::load(&source, None).expect("checks");
    let (device, _) =
        grid::prepare(&program, [1, 1, 1], [32, 1, 1], 1000, Vec::new()).expect("valid launch");
    let mut shuffles = 0;
    let mut sink = |line: &str| {
        if line.contains("shfl.sync") {
            shuffles += 1;
        }
    };
    let run = grid::run_grid(&device, GridOptions::default(), Some(&mut sink), None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    assert_eq!(shuffles, 31);
}

/// `redux.sync.max.f32` / `.min.abs.f32` / `.max.NaN.f32` (9.7.13.12, sm_100a) over the 32 lanes
/// with values `lane - 12.5` (lane 20: NaN): max 18.5, min |x| 0.5, and with `.NaN` the
/// canonical NaN.
#[test]
fn redux_f32_reduces_over_the_warp() {
    let source = ".version 8.6\n.target sm_100a\n.address_size 64\n\
                  .visible .entry k(.param .u64 out)\n{\n\
                  .reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .pred %p<2>;\n.reg .u64 %rd<4>;\n\
                  mov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f1, %r1;\nsub.f32 %f1, %f1, 0f41480000;\n\
                  setp.eq.u32 %p1, %r1, 20;\n@%p1 mov.b32 %f1, 0x7fc00000;\n\
                  mov.b32 %r2, %f1;\n\
                  redux.sync.max.f32 %r3, %r2, 0xffffffff;\n\
                  redux.sync.min.abs.f32 %r4, %r2, 0xffffffff;\n\
                  redux.sync.max.NaN.f32 %r5, %r2, 0xffffffff;\n\
                  ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 12;\nadd.u64 %rd3, %rd1, %rd2;\n\
                  st.global.b32 [%rd3], %r3;\nst.global.b32 [%rd3+4], %r4;\nst.global.b32 [%rd3+8], %r5;\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).expect("checks");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [32, 1, 1],
        1000,
        vec![Argument::Buffer(vec![0; 32 * 12])],
    )
    .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    let out = device
        .global
        .buffer_at(addresses[0].expect("a buffer"))
        .expect("the buffer")
        .contents();
    for lane in 0..32 {
        let word = |i: usize| {
            let at = lane * 12 + 4 * i;
            u32::from_le_bytes(out[at..at + 4].try_into().expect("4 bytes"))
        };
        assert_eq!(word(0), 18.5f32.to_bits(), "max, lane {lane}");
        assert_eq!(word(1), 0.5f32.to_bits(), "min |x|, lane {lane}");
        assert_eq!(word(2), 0x7fff_ffff, "max.NaN, lane {lane}");
    }
}

/// Lanes at the same warp-synchronous instruction with different membermasks (the groups of
/// `cg::labeled_partition`, which nvcc's `cg::reduce` on such a group turns into one
/// `redux.sync` per group with its own mask) execute it as separate groups: "redux.sync ...
/// performs a reduction operation ... across all non-exited threads in the membermask"
/// (9.7.13.12), and shfl.sync reads only lanes of its membermask's group. Each lane groups by
/// `tid % 3` (match.any.sync), then takes the max, and the sum, of `(tid * 37) % 101` over its
/// group; the expected values are computed here from that definition.
#[test]
fn warp_instructions_with_different_membermasks_run_per_group() {
    let source = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n\
        .reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [out];\n\
        mov.u32 %r1, %tid.x;\n\
        rem.u32 %r2, %r1, 3;\n\
        match.any.sync.b32 %r3, %r2, 0xffffffff;\n\
        mul.lo.u32 %r4, %r1, 37;\n\
        rem.u32 %r4, %r4, 101;\n\
        redux.sync.max.u32 %r5, %r4, %r3;\n\
        redux.sync.add.u32 %r6, %r4, %r3;\n\
        mul.wide.u32 %rd2, %r1, 8;\n\
        add.s64 %rd3, %rd1, %rd2;\n\
        st.global.v2.u32 [%rd3], {%r5, %r6};\n\
        ret;\n}\n";
    let program = ptxsim_exec::load(source, None).expect("checks");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [32, 1, 1],
        1000,
        vec![Argument::Buffer(vec![0; 32 * 8])],
    )
    .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    let address = addresses[0].expect("a buffer");
    let out = device
        .global
        .buffer_at(address)
        .expect("the buffer")
        .contents();
    let value = |lane: u32| (lane * 37) % 101;
    for lane in 0..32u32 {
        let group = (0..32).filter(|other| other % 3 == lane % 3);
        let max = group.clone().map(value).max().unwrap_or(0);
        let sum: u32 = group.map(value).sum();
        let at = lane as usize * 8;
        let got_max = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        let got_sum = u32::from_le_bytes(out[at + 4..at + 8].try_into().unwrap());
        assert_eq!((got_max, got_sum), (max, sum), "lane {lane}");
    }
}
