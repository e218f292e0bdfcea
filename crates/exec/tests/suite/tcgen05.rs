//! Blackwell tensor memory and tensor cores (`tcgen05`, PTX ISA 9.7.16) against host
//! references written from the ISA, never from ptxsim's output: a matrix product of small
//! integers (every sum exact, so any correct arithmetic gives the same bits) for
//! `.kind::f16` (`.f16` and `.bf16`), `.kind::tf32` and `.kind::i8`, with A from shared memory
//! and from tensor memory (through `tcgen05.cp`); the fragments of `tcgen05.ld`'s shapes; and
//! the traps of misuse. The kernels (`tcgen05_kernels/`) are clean under ptxas 13
//! (`-arch sm_100a`).

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};

/// `mma_f16(image, out, idesc, from_tmem, a_desc, b_desc, a_step, b_step)`: 128 threads copy
/// `image` (24576 bytes) into shared memory, warp 0 allocates 64 columns, thread 0 issues two
/// `tcgen05.mma` (K = 2 x the kind's; the descriptors' start fields offsets into the image,
/// the second's `+ step`) into columns 0-31 (A from shared memory, or copied first into
/// columns 32-47 by `tcgen05.cp.128x256b` when `from_tmem` is set), commits to an mbarrier;
/// every thread waits and loads its row of D (`tcgen05.ld.32x32b.x32`, warp `w` lanes `32w..`)
/// to `out`. The other kinds are the same text with `.kind::f16` replaced.
const MMA: &str = include_str!("tcgen05_kernels/mma.ptx");
/// `fragments(out)`: one warp stores `lane << 16 | column` in columns 0-7 of its 32 lanes
/// (`.32x32b.x8`) and loads them back through the other shapes; `traps(mode, ncols)`.
const MEMORY: &str = include_str!("tcgen05_kernels/memory.ptx");
/// `attention(image, out)`: two products, the second taking A from tensor memory where the
/// warps stored the first's result rounded to `.f16` (the kernel's comment has the layout).
const ATTENTION: &str = include_str!("tcgen05_kernels/attention.ptx");
/// `mxf8(image, out, scales, idesc, ...)`: `mma_f16`'s product as `.kind::mxf8f6f4.block_scale`
/// with the scale factors the warps store from `scales` (the kernel's comment).
const MXF8: &str = include_str!("tcgen05_kernels/mxf8.ptx");
/// `.cta_group::2` over a CTA pair: `mma_pair` (`mma_f16`'s product over a cluster of two
/// CTAs, each with its part of A and B), `commit_multicast`, `pair_traps` (the kernels'
/// comments).
const PAIR: &str = include_str!("tcgen05_kernels/pair.ptx");
/// `mma_ws(image, out, idesc, mode, a_desc, b_desc, a_step)`: two weight-stationary products,
/// the second taking B from the collector buffer the first filled (the kernel's comment).
const WS: &str = include_str!("tcgen05_kernels/ws.ptx");

/// Bytes of the shared-memory image: A at 0, B at 16384.
pub(super) const IMAGE: usize = 24576;
pub(super) const B_BASE: usize = 16384;
pub(super) const M: usize = 128;
pub(super) const N: usize = 32;

/// An input type: its `.kind`, the instruction descriptor's type fields, bytes per element and
/// the bits of a small integer in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Input {
    F16,
    Bf16,
    Tf32,
    S8,
    E4m3,
}

impl Input {
    pub(super) fn kind(self) -> &'static str {
        match self {
            Input::F16 | Input::Bf16 => "kind::f16",
            Input::Tf32 => "kind::tf32",
            Input::S8 => "kind::i8",
            Input::E4m3 => "kind::f8f6f4",
        }
    }

    pub(super) fn bytes(self) -> usize {
        match self {
            Input::F16 | Input::Bf16 => 2,
            Input::Tf32 => 4,
            Input::S8 | Input::E4m3 => 1,
        }
    }

    /// The instruction descriptor (Table 42): dtype bits 4-5 (F32 = 1, S32 = 2), atype bits
    /// 7-9 and btype 10-12 (F16 = 0, BF16 = 1, TF32 = 2, signed 8-bit = 1, E4M3 = 0), N >> 3
    /// at bit 17, M >> 4 at bit 24; bit 16 when B is N-major ("Transpose B").
    pub(super) fn idesc(self, b_mn_major: bool, m: u32) -> u32 {
        let (d, ab) = match self {
            Input::F16 | Input::E4m3 => (1, 0),
            Input::Bf16 => (1, 1),
            Input::Tf32 => (1, 2),
            Input::S8 => (2, 1),
        };
        d << 4
            | ab << 7
            | ab << 10
            | u32::from(b_mn_major) << 16
            | ((N as u32) >> 3) << 17
            | (m >> 4) << 24
    }

    /// The encoding of `v` (|v| <= 4): IEEE binary16, bfloat16 (the high half of the f32),
    /// the f32 bits for tf32, two's complement for s8, OCP E4M3 (bias 7, 3 mantissa bits).
    pub(super) fn encode(self, v: i32) -> u32 {
        let float = |exponent_bias: u32, mantissa_bits: u32, sign_bit: u32| {
            if v == 0 {
                return 0;
            }
            let magnitude = v.unsigned_abs();
            let exponent = 31 - magnitude.leading_zeros();
            let mantissa = (magnitude << (mantissa_bits - exponent)) & ((1 << mantissa_bits) - 1);
            u32::from(v < 0) << sign_bit | (exponent + exponent_bias) << mantissa_bits | mantissa
        };
        match self {
            Input::F16 => float(15, 10, 15),
            Input::Bf16 => (v as f32).to_bits() >> 16,
            Input::Tf32 => (v as f32).to_bits(),
            Input::S8 => u32::from(v as i8 as u8),
            Input::E4m3 => float(7, 3, 7),
        }
    }

    /// K of two instructions: 32 bytes of a row each.
    pub(super) fn depth(self) -> usize {
        64 / self.bytes()
    }
}

pub(super) fn a_value(m: usize, k: usize) -> i32 {
    ((m * 7 + k * 3) % 9) as i32 - 4
}

pub(super) fn b_value(n: usize, k: usize) -> i32 {
    ((n * 5 + k * 11) % 7) as i32 - 3
}

/// How A and B lie in shared memory, in the ISA's canonical layouts (9.7.16.3; the same as
/// wgmma's, 9.7.15.5.1.2.1.3), `T = 16 / bytes` elements of 16 bytes:
///
/// * `plain`: both K-major without swizzling, `((8,m),(T,2k)):((1T,SBO),(1,LBO))`: core
///   matrices of 8 rows of 16 bytes, 8-row groups SBO = 128 bytes apart, 16-byte columns LBO
///   apart (A: 2048, B: 512);
/// * `swizzled`: A K-major with 128-byte swizzling, `((8,m),(T,2k)):((8T,SBO),(1,T))`: rows of
///   128 bytes, 8-row groups SBO = 1024 apart, the 16-byte chunk index XORed with the row
///   index within the 8 (address bits 4-6 with 7-9); B N-major without swizzling,
///   `((T,1,n),(8,k)):((1,T,SBO),(1T,LBO))`: T consecutive n in 16 bytes, 8 k-rows of them
///   (128 bytes), groups of 8 k LBO = 128 apart, groups of T n SBO = 128 x (K / 8) apart.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    Plain,
    Swizzled,
}

/// A shared-memory descriptor (Table 40) with the start relative to the image: start, LBO and
/// SBO `>> 4` at bits 0, 16, 32, the fixed 0b001 at bits 46-48, the swizzling mode at 61-63.
pub(super) fn descriptor(start: usize, lbo: usize, sbo: usize, swizzle: u64) -> u64 {
    (start as u64 >> 4)
        | (lbo as u64 >> 4) << 16
        | (sbo as u64 >> 4) << 32
        | 1 << 46
        | swizzle << 61
}

/// The image and the kernel's `a_desc`, `b_desc`, `a_step`, `b_step` (the second
/// instruction's descriptors are the first's plus the steps: 32 bytes further along K).
fn image(input: Input, layout: Layout) -> (Vec<u8>, [u64; 4]) {
    image_at(input, layout, (0, 0))
}

/// [`image`] with rows `m0..` of A and `n0..` of B (their values [`a_value`]`(m0 + m, k)`,
/// [`b_value`]`(n0 + n, k)`).
fn image_at(input: Input, layout: Layout, (m0, n0): (usize, usize)) -> (Vec<u8>, [u64; 4]) {
    let mut image = vec![0u8; IMAGE];
    let size = input.bytes();
    let per_chunk = 16 / size;
    let depth = input.depth();
    let mut put = |at: usize, bits: u32| {
        image[at..at + size].copy_from_slice(&bits.to_le_bytes()[..size]);
    };
    for k in 0..depth {
        let byte = k * size;
        for m in 0..M {
            let at = match layout {
                Layout::Plain => (m / 8) * 128 + (m % 8) * 16 + (byte / 16) * 2048 + byte % 16,
                Layout::Swizzled => {
                    let linear = (m / 8) * 1024 + (m % 8) * 128 + byte;
                    linear ^ ((linear >> 7) & 7) << 4
                }
            };
            put(at, input.encode(a_value(m0 + m, k)));
        }
        for n in 0..N {
            let at = match layout {
                Layout::Plain => (n / 8) * 128 + (n % 8) * 16 + (byte / 16) * 512 + byte % 16,
                Layout::Swizzled => {
                    (n / per_chunk) * 128 * (depth / 8)
                        + (n % per_chunk) * size
                        + (k % 8) * 16
                        + (k / 8) * 128
                }
            };
            put(B_BASE + at, input.encode(b_value(n0 + n, k)));
        }
    }
    let k_step = 32 / size;
    let descriptors = match layout {
        Layout::Plain => [
            descriptor(0, 2048, 128, 0),
            descriptor(B_BASE, 512, 128, 0),
            4096 >> 4,
            1024 >> 4,
        ],
        Layout::Swizzled => [
            descriptor(0, 16, 1024, 2),
            descriptor(B_BASE, 128, 128 * (depth / 8), 0),
            32 >> 4,
            (k_step / 8 * 128) as u64 >> 4,
        ],
    };
    (image, descriptors)
}

/// Runs `mma_<kind>` with M = 128 and returns D (row-major words).
fn run_mma(input: Input, layout: Layout, from_tmem: bool) -> Vec<u32> {
    run_mma_m(input, layout, from_tmem, M as u32)
}

/// Runs `mma_<kind>` with M = `m` and returns what the warps loaded, lane by lane.
fn run_mma_m(input: Input, layout: Layout, from_tmem: bool, m: u32) -> Vec<u32> {
    let idesc = input.idesc(layout == Layout::Swizzled, m);
    let source = MMA.replace("kind::f16", input.kind());
    run_mma_source(&source, input, layout, (from_tmem, idesc))
}

/// [`run_mma_m`] of the kernel text `source`.
fn run_mma_source(
    source: &str,
    input: Input,
    layout: Layout,
    (from_tmem, idesc): (bool, u32),
) -> Vec<u32> {
    let module = Module::load(source, &Options::default()).expect("the kernel loads");
    let (mut image, [a_desc, b_desc, a_step, b_step]) = image(input, layout);
    let mut out = vec![0u8; M * N * 4];
    module
        .launch(
            "mma_f16",
            [1, 1, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut image),
                Arg::Buffer(&mut out),
                Arg::U32(idesc),
                Arg::U32(u32::from(from_tmem)),
                Arg::U64(a_desc),
                Arg::U64(b_desc),
                Arg::U64(a_step),
                Arg::U64(b_step),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    out.chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// D = A * B^T in exact integers, as `.f32` bits (or `.s32` for `.kind::i8`).
fn reference(input: Input) -> Vec<u32> {
    reference_of(input, M, N)
}

/// [`reference`] for `rows` x `columns` (row-major).
fn reference_of(input: Input, rows: usize, columns: usize) -> Vec<u32> {
    let mut d = Vec::with_capacity(rows * columns);
    for m in 0..rows {
        for n in 0..columns {
            let sum: i32 = (0..input.depth())
                .map(|k| a_value(m, k) * b_value(n, k))
                .sum();
            d.push(match input {
                Input::S8 => sum as u32,
                _ => (sum as f32).to_bits(),
            });
        }
    }
    d
}

fn check_mma(input: Input, layout: Layout, from_tmem: bool) {
    let got = run_mma(input, layout, from_tmem);
    let want = reference(input);
    for (index, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "D({}, {}) for {input:?}, {layout:?} (A from tensor memory: {from_tmem})",
            index / N,
            index % N,
        );
    }
}

#[test]
fn kind_f16_multiplies_f16_and_bf16_tiles_from_shared_memory() {
    check_mma(Input::F16, Layout::Plain, false);
    check_mma(Input::Bf16, Layout::Plain, false);
}

#[test]
fn kind_tf32_i8_and_f8f6f4_multiply_their_tiles() {
    check_mma(Input::Tf32, Layout::Plain, false);
    check_mma(Input::S8, Layout::Plain, false);
    check_mma(Input::E4m3, Layout::Plain, false);
}

#[test]
fn a_swizzled_a_and_an_n_major_b_give_the_same_product() {
    check_mma(Input::F16, Layout::Swizzled, false);
    check_mma(Input::Tf32, Layout::Swizzled, false);
}

#[test]
fn an_m64_product_fills_the_first_16_lanes_of_each_quarter() {
    // M = 64: row m of D in lane 32 (m / 16) + m % 16 (the data-path layout of one CTA, M =
    // 64, as CUTLASS's tmem_frg spells it: "Half subpartitions layout atom").
    let got = run_mma_m(Input::F16, Layout::Plain, false, 64);
    let want = reference(Input::F16);
    for m in 0..64 {
        let lane = 32 * (m / 16) + m % 16;
        for n in 0..N {
            assert_eq!(
                got[lane * N + n],
                want[m * N + n],
                "D({m}, {n}) in lane {lane}"
            );
        }
    }
}

#[test]
fn a_copied_into_tensor_memory_gives_the_same_product() {
    check_mma(Input::F16, Layout::Plain, true);
    check_mma(Input::S8, Layout::Plain, true);
}

#[test]
fn scale_input_d_scales_the_accumulator_by_a_power_of_two() {
    // "D = A*B+D * (2 ^ - scale-input-d)" (9.7.16.10.9.1): the second instruction takes the
    // first's D times 2^-3, so D = A1 B1 + (A0 B0) / 8, exact in small integers and eighths.
    for input in [Input::F16, Input::Tf32] {
        let source = MMA
            .replace("kind::f16", input.kind())
            .replace("%r11, %p5;", "%r11, %p5, 3;");
        let idesc = input.idesc(false, M as u32);
        let got = run_mma_source(&source, input, Layout::Plain, (false, idesc));
        let half = input.depth() / 2;
        for m in 0..M {
            for n in 0..N {
                let sum = |ks: std::ops::Range<usize>| -> i32 {
                    ks.map(|k| a_value(m, k) * b_value(n, k)).sum()
                };
                let want = sum(half..2 * half) as f32 + sum(0..half) as f32 / 8.0;
                assert_eq!(
                    f32::from_bits(got[m * N + n]),
                    want,
                    "D({m}, {n}) for {input:?}"
                );
            }
        }
    }
}

#[test]
fn an_f16_d_holds_one_element_in_the_low_half_of_each_cell() {
    // dtype F16 (bits 4-5 clear, Table 42) for .kind::f16 and .kind::f8f6f4: the small-integer
    // sums (|D| < 2048) are exact .f16 values, one to a cell in its low half (assumed, as
    // CUTLASS's tmem_frg_1sm<half_t> allocates a 32-bit column per element).
    for input in [Input::F16, Input::E4m3] {
        let idesc = input.idesc(false, M as u32) & !(3 << 4);
        let source = MMA.replace("kind::f16", input.kind());
        let got = run_mma_source(&source, input, Layout::Plain, (false, idesc));
        for m in 0..M {
            for n in 0..N {
                let sum: i32 = (0..input.depth())
                    .map(|k| a_value(m, k) * b_value(n, k))
                    .sum();
                assert_eq!(
                    got[m * N + n],
                    Input::F16.encode(sum),
                    "D({m}, {n}) for {input:?}"
                );
            }
        }
    }
}

/// N of the pair products: 32 columns of B in each CTA.
const PAIR_N: usize = 64;

fn pair_launch() -> LaunchOptions {
    LaunchOptions {
        cluster: Some([2, 1, 1]),
        ..LaunchOptions::default()
    }
}

/// Runs `mma_pair` (M = `m` over the pair, N = 64) on one cluster of two CTAs and returns,
/// per CTA, what its warps loaded: 128 lanes x 64 columns. The layout over the pair is
/// CUTLASS's 2x1SM atoms' (`SM100_MMA_*_2x1SM_SS`: `ALayout`
/// `(2,(M/2,K)):(M/2,(1,M))`, `BLayout` likewise with N, `CLayout` with M): CTA `v` holds
/// rows `v M/2 ..` of A and columns `v N/2 ..` of B in its shared memory, so its image is
/// [`image_at`]`(v M/2, v N/2)`.
fn run_pair(input: Input, m: u32, mode: u32) -> [Vec<u32>; 2] {
    try_run_pair(input, m, mode).expect("it runs")
}

/// [`run_pair`], or the launch's error.
fn try_run_pair(input: Input, m: u32, mode: u32) -> Result<[Vec<u32>; 2], String> {
    let source = PAIR.replace("kind::f16", input.kind());
    let module = Module::load(&source, &Options::default()).expect("the kernel loads");
    let rows = m as usize / 2;
    let mut image = Vec::with_capacity(2 * IMAGE);
    let mut descriptors = [0; 4];
    for cta in 0..2 {
        let (part, steps) = image_at(input, Layout::Plain, (cta * rows, cta * PAIR_N / 2));
        image.extend(part);
        descriptors = steps;
    }
    let [a_desc, b_desc, a_step, b_step] = descriptors;
    // Table 42's N >> 3 (bits 17-22) of the pair's N.
    let idesc = input.idesc(false, m) & !(0x3f << 17) | (PAIR_N as u32 >> 3) << 17;
    let mut out = vec![0u8; 2 * 128 * PAIR_N * 4];
    module
        .launch(
            "mma_pair",
            [2, 1, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut image),
                Arg::Buffer(&mut out),
                Arg::U32(idesc),
                Arg::U32(mode),
                Arg::U64(a_desc),
                Arg::U64(b_desc),
                Arg::U64(a_step),
                Arg::U64(b_step),
            ],
            &pair_launch(),
        )
        .map_err(|e| e.to_string())?;
    let words: Vec<u32> = out
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let (even, odd) = words.split_at(128 * PAIR_N);
    Ok([even.to_vec(), odd.to_vec()])
}

/// Checks a pair's M = 256 product: D row `v 128 + m` in lane `m` of CTA `v`, column `n` in
/// column `n` (CUTLASS's `tmem_frg_2sm` for 128 rows a CTA: "all datapaths are occupied").
fn check_pair_256(input: Input, mode: u32) {
    let got = run_pair(input, 256, mode);
    let want = reference_of(input, 256, PAIR_N);
    for (cta, words) in got.iter().enumerate() {
        for lane in 0..128 {
            for n in 0..PAIR_N {
                let m = cta * 128 + lane;
                assert_eq!(
                    words[lane * PAIR_N + n],
                    want[m * PAIR_N + n],
                    "D({m}, {n}) in lane {lane} of CTA {cta}, {input:?}, mode {mode}"
                );
            }
        }
    }
}

#[test]
fn a_cta_pair_computes_a_256_row_product_from_both_ctas_shared_memory() {
    // Every kind that runs with .cta_group::1, issued by the even CTA.
    for input in [Input::F16, Input::Bf16, Input::Tf32, Input::S8, Input::E4m3] {
        check_pair_256(input, 0);
    }
    // Issued by the odd CTA ("Issue from a single thread from the CTA-Pair"), and with A
    // copied into each CTA's tensor memory by tcgen05.cp.cta_group::2.
    check_pair_256(Input::F16, 2);
    check_pair_256(Input::F16, 1);
}

/// The odd CTA's warps read rows 128 + 32 w .. of the pair's M = 256 product with lane
/// 128 + 32 w in the `tcgen05.ld` address (gau-nernst/learn-cuda's 2-SM `matmul_v5` to `v7`,
/// which run on B200 GPUs): they get the same rows as with lane 32 w, the exact product. The
/// even CTA naming lanes 128 and up still traps. Also each CTA deallocating the pair's columns
/// right after its own reads (a CTA barrier, no cluster barrier, as `matmul_v5` does).
#[test]
fn the_odd_ctas_rows_of_a_pair_may_be_named_as_lanes_128_and_up() {
    check_pair_256(Input::F16, 4);
    // Each CTA deallocating after its own reads, not after a cluster barrier (matmul_v5): the
    // CTA that gets there first frees only its own columns.
    check_pair_256(Input::F16, 4 | 16);
    check_pair_256(Input::F16, 16);
    let error = try_run_pair(Input::F16, 256, 8).expect_err("the even CTA traps");
    assert!(
        error.contains("may access tensor-memory lanes")
            && ["128..159", "160..191", "192..223", "224..255"]
                .iter()
                .any(|lanes| error.contains(&format!("spans lanes {lanes}"))),
        "{error}"
    );
}

#[test]
fn a_cta_pairs_128_row_product_splits_each_ctas_64_rows_over_two_lane_halves() {
    // M = 128 over the pair: 64 rows a CTA in CUTLASS's "2x2" layout atom
    // `(64,(N/2,2)):(1,(128,64))`: D(v 64 + m, n) in lane m + 64 (n / 32), column n % 32 of
    // CTA v.
    for (input, mode) in [(Input::F16, 0), (Input::S8, 0), (Input::F16, 1)] {
        let got = run_pair(input, 128, mode);
        let want = reference_of(input, 128, PAIR_N);
        for (cta, words) in got.iter().enumerate() {
            for m in 0..64 {
                for n in 0..PAIR_N {
                    let (lane, column) = (m + 64 * (n / 32), n % 32);
                    assert_eq!(
                        words[lane * PAIR_N + column],
                        want[(cta * 64 + m) * PAIR_N + n],
                        "D({}, {n}) in lane {lane}, column {column} of CTA {cta}, {input:?}",
                        cta * 64 + m
                    );
                }
            }
        }
    }
}

#[test]
fn a_multicast_commit_arrives_on_the_mbarrier_of_each_cta_of_the_mask() {
    // "each bit position in the 16-bit ctaMask operand corresponds to the %cluster_ctarank of
    // the destination CTA ... the same offset as mbar in the shared memory of each
    // destination CTA": each mbarrier expects one arrival, so its phase 0 completes exactly
    // where the mask's bit is set. (`mma_pair` commits with .cta_group::2 to both CTAs.)
    let module = Module::load(PAIR, &Options::default()).expect("the kernels load");
    for mask in [0b1010u32, 0b0001, 0b1111] {
        let mut out = vec![0u8; 16];
        module
            .launch(
                "commit_multicast",
                [4, 1, 1],
                [32, 1, 1],
                &mut [Arg::Buffer(&mut out), Arg::U32(mask)],
                &LaunchOptions {
                    cluster: Some([4, 1, 1]),
                    ..LaunchOptions::default()
                },
            )
            .expect("it runs");
        for rank in 0..4 {
            assert_eq!(
                u32::from(out[4 * rank]),
                mask >> rank & 1,
                "CTA {rank} with ctaMask {mask:#06b}"
            );
        }
    }
}

fn pair_trap(mode: u32, ctas: u32, cluster: Option<[u32; 3]>) -> String {
    let module = Module::load(PAIR, &Options::default()).expect("the kernels load");
    module
        .launch(
            "pair_traps",
            [ctas, 1, 1],
            [32, 1, 1],
            &mut [Arg::U32(mode)],
            &LaunchOptions {
                cluster,
                ..LaunchOptions::default()
            },
        )
        .expect_err("it traps")
        .to_string()
}

/// A kernel ptxas refuses ("uses single CTA(.cta_group::1) and CTA pair
/// granularity(.cta_group::2) and that is not allowed"), and so does ptxsim's checker (E0210).
/// (The executor would also trap at its second tcgen05 instruction.)
const MIXED: &str = "
.version 8.7
.target sm_100a
.address_size 64
.visible .entry mixed()
{
    .reg .b32 %r<4>;
    .shared .align 4 .b32 slot;
    tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [slot], 32;
    ld.shared.u32 %r1, [slot];
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
    ret;
}
";

#[test]
fn misuse_of_a_cta_pair_traps_with_its_reason() {
    // "Issue from two warps, one in each of the current CTA and its Peer CTA": a CTA alone,
    // and the third CTA of a cluster of three, has no peer.
    let error = pair_trap(0, 1, None);
    assert!(error.contains("needs the CTA's peer"), "{error}");
    let error = pair_trap(0, 3, Some([3, 1, 1]));
    assert!(
        error.contains("%cluster_ctarank 3") && error.contains("3 CTA(s)"),
        "{error}"
    );
    // The two warps of the pair asking for different nCols.
    let error = pair_trap(1, 2, Some([2, 1, 1]));
    assert!(
        error.contains("must perform the same collective operations")
            && error.contains("of 32 columns"),
        "{error}"
    );
    // Only the even CTA's warp deallocating: the odd CTA exits without its half.
    let error = pair_trap(2, 2, Some([2, 1, 1]));
    assert!(
        error.contains("the peer CTA's warp performed tcgen05.dealloc.cta_group::2"),
        "{error}"
    );
    // "All tcgen05 instructions within a kernel must specify the same value for the
    // .cta_group qualifier": the checker refuses such a kernel, as ptxas 13.5 does ("Function
    // 'mixed' uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that
    // is not allowed").
    let error = Module::load(MIXED, &Options::default())
        .expect_err("the checker refuses it")
        .to_string();
    assert!(
        error.contains("E0210") && error.contains("`.cta_group::1` and `.cta_group::2`"),
        "{error}"
    );
}

/// Runs `mma_ws` with M = `m`, N = 64, `.f16`: A (128 rows, K = 32) and B0 (64 rows, K = 16)
/// K-major unswizzled (B's 16-byte columns LBO = 1024 apart). Returns what the warps loaded
/// (128 lanes x 64 columns), or the error.
fn run_ws(m: u32, mode: u32) -> Result<Vec<u32>, String> {
    let (mut image, [a_desc, _, a_step, _]) = image(Input::F16, Layout::Plain);
    image[B_BASE..].fill(0);
    for n in 0..64 {
        for k in 0..16 {
            let at = B_BASE + (n / 8) * 128 + (n % 8) * 16 + (k / 8) * 1024 + (k % 8) * 2;
            let bits = Input::F16.encode(b_value(n, k)) as u16;
            image[at..at + 2].copy_from_slice(&bits.to_le_bytes());
        }
    }
    let b_desc = descriptor(B_BASE, 1024, 128, 0);
    let idesc = Input::F16.idesc(false, m) & !(0x3f << 17) | (64 >> 3) << 17;
    let module = Module::load(WS, &Options::default()).expect("the kernel loads");
    let mut out = vec![0u8; 128 * 64 * 4];
    module
        .launch(
            "mma_ws",
            [1, 1, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut image),
                Arg::Buffer(&mut out),
                Arg::U32(idesc),
                Arg::U32(mode),
                Arg::U64(a_desc),
                Arg::U64(b_desc),
                Arg::U64(a_step),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    Ok(out
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

#[test]
fn a_weight_stationary_product_reuses_the_b_its_collector_buffer_kept() {
    // D = A0 B0 (::fill) + A1 B0 (::use), B0 zeroed in shared memory between the two: the
    // second takes B0 from the buffer. D(m, n) lies in CUTLASS's weight-stationary layouts
    // (`tmem_frg_ws`): M = 128 lane m, column n; M = 64 "2x2" `(64,(N/2,2)):(1,(128,64))`,
    // lane m + 64 (n / 32), column n % 32; M = 32 "1x4" `(32,(N/4,4)):(1,(128,32))`, lane
    // m + 32 (n / 16), column n % 16.
    for m_size in [128usize, 64, 32] {
        let got = run_ws(m_size as u32, 0).expect("it runs");
        let width = 64 * m_size / 128;
        for m in 0..m_size {
            for n in 0..64 {
                let d: i32 = (0..16)
                    .map(|k| (a_value(m, k) + a_value(m, 16 + k)) * b_value(n, k))
                    .sum();
                let (lane, column) = (m + m_size * (n / width), n % width);
                assert_eq!(
                    got[lane * 64 + column],
                    (d as f32).to_bits(),
                    "D({m}, {n}) in lane {lane}, column {column}, M = {m_size}"
                );
            }
        }
    }
    // ::lastuse empties the buffer: a ::use after it has no B.
    let error = run_ws(128, 1).expect_err("it traps");
    assert!(error.contains("collector buffer b1 is empty"), "{error}");
}

/// Lane and column of register `r` of thread `t` for `.x1` of each shape, from the ISA's
/// Figures 183-187 (9.7.16.2.3.1).
fn figure(shape: &str, t: u32, r: u32) -> (u32, u32) {
    match shape {
        "16x64b" => (t / 4 + 8 * (t % 2), (t / 2) % 2 + 2 * r),
        "16x128b" => (t / 4 + 8 * r, t % 4),
        "16x256b" => (t / 4 + 8 * (r / 2), 2 * (t % 4) + r % 2),
        _ => unreachable!(),
    }
}

#[test]
fn the_load_shapes_read_the_cells_of_their_figures() {
    let module = Module::load(MEMORY, &Options::default()).expect("the kernels load");
    let mut out = vec![0u8; 32 * 40];
    module
        .launch(
            "fragments",
            [1, 1, 1],
            [32, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let words: Vec<u32> = out
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let cell = |lane: u32, column: u32| lane << 16 | column;
    for t in 0..32u32 {
        let row = &words[t as usize * 10..t as usize * 10 + 10];
        // .16x64b.x2 at lane 0: the second repetition two columns on.
        let (l, c) = figure("16x64b", t, 0);
        assert_eq!(row[0], cell(l, c), "16x64b r0 of thread {t}");
        assert_eq!(row[1], cell(l, c + 2), "16x64b r1 of thread {t}");
        // .16x128b.x1 at lane 16.
        for r in 0..2 {
            let (l, c) = figure("16x128b", t, r);
            assert_eq!(row[2 + r as usize], cell(16 + l, c), "16x128b r{r} of {t}");
        }
        for r in 0..4 {
            let (l, c) = figure("16x256b", t, r);
            assert_eq!(row[4 + r as usize], cell(l, c), "16x256b r{r} of {t}");
        }
        // .16x32bx2.x1 at lane 16, immHalfSplitoff 4: threads 0-15 column 0, 16-31 column 4.
        assert_eq!(row[8], cell(16 + t % 16, if t < 16 { 0 } else { 4 }));
        // .32x32b.x1.pack::16b at column 2: the low halves of columns 2 and 3.
        assert_eq!(row[9], 2 | 3 << 16, "pack::16b of thread {t}");
    }
}

#[test]
fn the_warpx4_copy_multicasts_its_32_rows_into_every_warps_lanes() {
    // tcgen05.cp.32x128b.warpx4: "the data being copied is multicasted into all 4 warps":
    // row r of the 32 (16 bytes, read through the descriptor: SBO 256, row r at
    // 256 (r / 8) + 16 (r % 8)) lands in lane r of each warp's quarter, its bytes
    // little-endian into columns 0-3. The bytes between the rows are decoys.
    let module = Module::load(MEMORY, &Options::default()).expect("the kernels load");
    let mut image: Vec<u8> = (0..1024u32).map(|i| (i * 7 + 0x55) as u8 | 0x80).collect();
    let row_at = |r: usize| 256 * (r / 8) + 16 * (r % 8);
    for r in 0..32 {
        for byte in 0..16 {
            image[row_at(r) + byte] = (r * 4 + byte / 4) as u8 ^ ((byte % 4) as u8 * 0x40);
        }
    }
    let mut out = vec![0u8; 128 * 16];
    module
        .launch(
            "multicast_copy",
            [1, 1, 1],
            [128, 1, 1],
            &mut [Arg::Buffer(&mut image.clone()), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    for thread in 0..128 {
        let r = thread % 32;
        for column in 0..4 {
            let at = row_at(r) + 4 * column;
            let want = u32::from_le_bytes(image[at..at + 4].try_into().expect("4 bytes"));
            let got_at = 16 * thread + 4 * column;
            let got = u32::from_le_bytes(out[got_at..got_at + 4].try_into().expect("4 bytes"));
            assert_eq!(got, want, "lane {thread}, column {column}");
        }
    }
}

#[test]
fn the_warpx2_copies_put_each_row_in_the_lanes_of_cutes_copy_traits() {
    // tcgen05.cp.64x128b.warpx2::02_13 into columns 0-3 and ::01_23 into columns 4-7. The
    // ISA draws the lanes of each row only in a figure; CuTe's copy traits
    // (include/cute/atom/copy_traits_sm100.hpp) give them as data. Their ValID maps a logical
    // bit to its tensor-memory address (DP = one lane, the bits of a row stride 1), their
    // SrcLayout the same logical bit to the source's: SM100_UTCCP_2x64dp128bitlw0213_1cta
    // ValID (64,128,2):(DP,1,64 DP), SrcLayout (64,128,2):(1,64,0);
    // SM100_UTCCP_2x64dp128bitlw0123_1cta ValID (32,128,2,2):(DP,1,64 DP,32 DP), SrcLayout
    // (32,128,2,2):(1,32,4096,0). The source side is rows of 128 bits, 32 or 64 rows to a
    // block, so a source bit splits into (row, bit) by the block's row count.
    use super::matrix_sm100::{Modes, evaluate};
    const DP: usize = 1 << 16; // a lane, in this test's (lane << 16 | bit) addresses
    let forms: [(Modes, Modes, usize); 2] = [
        (
            &[(64, DP), (128, 1), (2, 64 * DP)],
            &[(64, 1), (128, 64), (2, 0)],
            64,
        ),
        (
            &[(32, DP), (128, 1), (2, 64 * DP), (2, 32 * DP)],
            &[(32, 1), (128, 32), (2, 4096), (2, 0)],
            32,
        ),
    ];
    // The source: row r (16 bytes) at 256 (r / 8) + 16 (r % 8), as the descriptor reads it.
    let row_at = |r: usize| 256 * (r / 8) + 16 * (r % 8);
    let image: Vec<u8> = (0..2048u32)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 13) as u8)
        .collect();
    let mut out = vec![0u8; 128 * 32];
    let module = Module::load(MEMORY, &Options::default()).expect("the kernels load");
    module
        .launch(
            "warpx2_copy",
            [1, 1, 1],
            [128, 1, 1],
            &mut [Arg::Buffer(&mut image.clone()), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    for (form, (value_id, source, block_rows)) in forms.iter().enumerate() {
        // Every tensor-memory bit the copy writes, and the source bit it comes from.
        let mut want = std::collections::HashMap::new();
        for logical in 0..64 * 128 * 2 {
            let address = evaluate(value_id, logical);
            let from = evaluate(source, logical);
            let (block, within) = (from / (block_rows * 128), from % (block_rows * 128));
            let (row, bit) = (
                block * block_rows + within % block_rows,
                within / block_rows,
            );
            let byte = image[row_at(row) + bit / 8];
            want.insert((address / DP, address % DP), byte >> (bit % 8) & 1);
        }
        assert_eq!(
            want.len(),
            128 * 128,
            "form {form}: every lane written once"
        );
        for ((lane, bit), value) in want {
            let got = out[32 * lane + 16 * form + bit / 8] >> (bit % 8) & 1;
            assert_eq!(got, value, "form {form}, lane {lane}, bit {bit}");
        }
    }
}

fn trap(mode: u32, ncols: u32, threads: u32) -> String {
    let module = Module::load(MEMORY, &Options::default()).expect("the kernels load");
    module
        .launch(
            "traps",
            [1, 1, 1],
            [threads, 1, 1],
            &mut [Arg::U32(mode), Arg::U32(ncols)],
            &LaunchOptions::default(),
        )
        .expect_err("it traps")
        .to_string()
}

#[test]
fn misuse_of_tensor_memory_traps_with_its_reason() {
    // "The number of columns must be a power of 2 ... within the range [32, 512]."
    let error = trap(0, 48, 32);
    assert!(
        error.contains("power of 2") && error.contains("48"),
        "{error}"
    );
    let error = trap(0, 1024, 32);
    assert!(error.contains("power of 2"), "{error}");
    // A load from column 40 of a 32-column allocation.
    let error = trap(1, 32, 32);
    assert!(error.contains("outside every allocation"), "{error}");
    // "taddr must point to a previous Tensor Memory allocation": not twice.
    let error = trap(2, 32, 32);
    assert!(error.contains("no allocation"), "{error}");
    // "All of the Tensor Memory that was allocated ... must be explicitly deallocated ...
    // before the kernel exits."
    let error = trap(0, 32, 32);
    assert!(
        error.contains("still allocated") && error.contains("columns 0..31"),
        "{error}"
    );
    // Warp 1 reading lanes 0-31, which only warp 0 may access.
    let error = trap(3, 32, 64);
    assert!(
        error.contains("warp 1") && error.contains("lanes 32..63"),
        "{error}"
    );
}

fn words_of(module: &Module, entry: &str, bytes: usize) -> Vec<u32> {
    let mut out = vec![0u8; bytes];
    module
        .launch(
            entry,
            [1, 1, 1],
            [32, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    out.chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

#[test]
fn the_store_shapes_write_the_cells_of_their_figures() {
    // `.16x128b.x1` at lane 0 and `.16x64b.x1` at lane 16 of thread-unique words, read back
    // lane by lane with `.32x32b.x4`; cells no store wrote are not compared.
    let module = Module::load(MEMORY, &Options::default()).expect("the kernels load");
    let words = words_of(&module, "stores", 32 * 16);
    let mut want = [[None; 4]; 32];
    for t in 0..32u32 {
        for r in 0..2 {
            let (l, c) = figure("16x128b", t, r);
            want[l as usize][c as usize] = Some(t << 8 | r);
        }
        let (l, c) = figure("16x64b", t, 0);
        want[16 + l as usize][c as usize] = Some(t << 8 | 128);
    }
    for (lane, row) in want.iter().enumerate() {
        for (column, cell) in row.iter().enumerate() {
            if let Some(cell) = cell {
                assert_eq!(
                    words[lane * 4 + column],
                    *cell,
                    "lane {lane}, column {column}"
                );
            }
        }
    }
}

#[test]
fn shift_down_moves_each_row_one_lane_down() {
    // "shifting of 32-byte elements downwards across all the rows, except the last, by one
    // row": lane `l` of columns 0-7 holds what lane `l - 1` held (lane 0 is not compared).
    let module = Module::load(MEMORY, &Options::default()).expect("the kernels load");
    let words = words_of(&module, "shifted", 32 * 32);
    for lane in 1..32u32 {
        for column in 0..8u32 {
            assert_eq!(
                words[(lane * 8 + column) as usize],
                (lane - 1) << 16 | column,
                "lane {lane}, column {column}"
            );
        }
    }
}

#[test]
fn an_attention_step_takes_its_second_a_from_tensor_memory() {
    // S = Q K^T (128 x 32, K = 16), P = S as .f16 stored by the warps (tcgen05.st, two to a
    // cell), O = P V (128 x 16, K = 32) with A = P from tensor memory. Small integers: S and O
    // are exact in .f16 and .f32.
    let q = |m: usize, k: usize| ((m * 7 + k * 3) % 9) as i32 - 4;
    let key = |n: usize, k: usize| ((n * 5 + k * 11) % 7) as i32 - 3;
    let v = |k: usize, n: usize| ((k * 3 + n * 5) % 5) as i32 - 2;
    let mut image = vec![0u8; 10240];
    let mut put = |base: usize, lbo: usize, row: usize, k: usize, value: i32| {
        let at = base + (row / 8) * 128 + (row % 8) * 16 + (k / 8) * lbo + (k % 8) * 2;
        let bits = Input::F16.encode(value) as u16;
        image[at..at + 2].copy_from_slice(&bits.to_le_bytes());
    };
    for k in 0..16 {
        for m in 0..128 {
            put(0, 2048, m, k, q(m, k));
        }
        for n in 0..32 {
            put(4096, 512, n, k, key(n, k));
        }
    }
    for k in 0..32 {
        for n in 0..16 {
            put(8192, 256, n, k, v(k, n));
        }
    }
    let module = Module::load(ATTENTION, &Options::default()).expect("the kernel loads");
    let mut out = vec![0u8; 128 * 16 * 4];
    module
        .launch(
            "attention",
            [1, 1, 1],
            [128, 1, 1],
            &mut [Arg::Buffer(&mut image), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    for m in 0..128 {
        let s: Vec<i32> = (0..32)
            .map(|n| (0..16).map(|k| q(m, k) * key(n, k)).sum())
            .collect();
        for n in 0..16 {
            let o: i32 = (0..32).map(|k| s[k] * v(k, n)).sum();
            let at = (m * 16 + n) * 4;
            let got = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
            assert_eq!(got, (o as f32).to_bits(), "O({m}, {n})");
        }
    }
}

/// The exponents of the factors of the block-scaled tests: of row `m` of A and of column `n`
/// of B in K block `j`, powers of two near 1.
fn factor_a(m: usize, j: usize) -> u32 {
    126 + ((m * 5 + j) % 3) as u32
}

fn factor_b(n: usize, j: usize) -> u32 {
    127 + ((n * 7 + j) % 3) as u32
}

/// Runs `mxf8` with M = `m` and the tensor-memory image `scales` of columns 64-71 (lane-major,
/// eight words a lane), giving D's 128 lanes of 32 words.
fn run_mxf8(m: usize, scales: &mut [u8]) -> Result<Vec<u8>, String> {
    // The block-scaled descriptor: A and B E4M3 (0), N >> 3 at 17, the scale type UE8M0 at bit
    // 23, M >> 4 at 24; scale-factor ids 0 (the kernel sets bits 29 and 4 for the second).
    let idesc = (N as u32 >> 3) << 17 | 1 << 23 | (m as u32 >> 4) << 24;
    let (mut image, [a_desc, b_desc, a_step, b_step]) = image(Input::E4m3, Layout::Plain);
    let module = Module::load(MXF8, &Options::default()).expect("the kernel loads");
    let mut out = vec![0u8; 128 * N * 4];
    module
        .launch(
            "mxf8",
            [1, 1, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut image),
                Arg::Buffer(&mut out),
                Arg::Buffer(scales),
                Arg::U32(idesc),
                Arg::U32(0),
                Arg::U64(a_desc),
                Arg::U64(b_desc),
                Arg::U64(a_step),
                Arg::U64(b_step),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    Ok(out)
}

/// The exact block-scaled D(m, n) of `run_mxf8`'s product, as the `.f32` bits.
fn mxf8_reference(m: usize, n: usize) -> u32 {
    let d: f64 = (0..2)
        .map(|j| {
            let sum: i32 = (32 * j..32 * j + 32)
                .map(|k| a_value(m, k) * b_value(n, k))
                .sum();
            f64::from(sum) * 2f64.powi(factor_a(m, j) as i32 + factor_b(n, j) as i32 - 254)
        })
        .sum();
    (d as f32).to_bits()
}

/// The scale-factor image of `run_mxf8` for M = `m`, placed by CUTLASS's `tmem_sf_frg`
/// (`include/cute/atom/mma_traits_sm100_frag.hpp`, SFA and the 4x1 SFB): the atom
/// `((32, MN/32), 4) : ((1, 512), 32)` over bytes, then `(128, 16384) : (lane, 1)` (byte
/// `b` of a lane in column `b / 4`), MN = M for A (from column 64) and `round_up(N, 128)` for
/// B (`MMA_ScaleFactor`; from column 68); K block `j`'s factor in byte `j` of the cell (the
/// instruction descriptor's scale-factor id). Other bytes are zero.
fn mxf8_scales(m: usize) -> Vec<u8> {
    let mut scales = vec![0u8; 128 * 8 * 4];
    let mut place = |mn: usize, column: usize, exponent: &dyn Fn(usize, usize) -> u32| {
        for row in 0..mn {
            for replica in 0..4 {
                let index = row % 32 + 512 * (row / 32) + 32 * replica;
                let (lane, byte) = (index % 128, index / 128);
                for j in 0..2 {
                    let at = (lane * 8 + column + byte / 4) * 4 + j;
                    scales[at] = exponent(row, j) as u8;
                }
            }
        }
    };
    place(m, 0, &factor_a);
    place(128, 4, &factor_b);
    scales
}

#[test]
fn a_block_scaled_mxfp8_product_applies_one_factor_per_row_and_column_of_each_k_block() {
    // D = sum over the two K blocks j of 2^(ea[m][j] - 127) 2^(eb[n][j] - 127) sum_k a b: every
    // factor a power of two near 1, every sum exact, placed as CUTLASS places them.
    let out = run_mxf8(M, &mut mxf8_scales(M)).expect("it runs");
    for m in 0..M {
        for n in 0..N {
            let at = (m * N + n) * 4;
            let got = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
            assert_eq!(got, mxf8_reference(m, n), "D({m}, {n})");
        }
    }
}

#[test]
fn a_block_scaled_m64_product_reads_cutlasss_64_row_factors() {
    // M = 64: the factors of 64 rows (two columns from 64) and D in lane 32 (m / 16) + m % 16.
    let out = run_mxf8(64, &mut mxf8_scales(64)).expect("it runs");
    for m in 0..64 {
        let lane = 32 * (m / 16) + m % 16;
        for n in 0..N {
            let at = (lane * N + n) * 4;
            let got = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
            assert_eq!(got, mxf8_reference(m, n), "D({m}, {n}) in lane {lane}");
        }
    }
    // Factors not replicated into every quarter (row 5's in lane 69 changed) trap: which
    // quarter the tensor core reads at M = 64 is not written.
    let mut scales = mxf8_scales(64);
    scales[(69 * 8) * 4] ^= 1;
    let error = run_mxf8(64, &mut scales).expect_err("it traps");
    assert!(
        error.contains("row 5 of A") && error.contains("replicated"),
        "{error}"
    );
}

/// Runs Triton's `matmul_f16` (`tests/mma-kernels/triton_dot.py`, compiled for sm_100a with
/// `input` operands) on 128 x 128 with K = 256, entries in -2..2 (every sum an integer below
/// 1024 in magnitude, exact in the `.f16` output), and compares C with the exact product.
fn triton_matmul(source: &str, input: Input, shared: u64) {
    let (m, n, k) = (128usize, 128usize, 256usize);
    let a = |i: usize, kk: usize| ((i * 7 + kk * 3) % 5) as i32 - 2;
    let b = |kk: usize, j: usize| ((kk * 5 + j * 11) % 5) as i32 - 2;
    let encode = |values: Vec<i32>| -> Vec<u8> {
        values
            .into_iter()
            .flat_map(|v| input.encode(v).to_le_bytes()[..input.bytes()].to_vec())
            .collect()
    };
    let mut a_bytes = encode((0..m * k).map(|x| a(x / k, x % k)).collect());
    let mut b_bytes = encode((0..k * n).map(|x| b(x / n, x % n)).collect());
    let mut c_bytes = vec![0u8; m * n * 2];
    let module = Module::load(source, &Options::default()).expect("the kernel loads");
    let options = LaunchOptions {
        dynamic_shared: shared,
        ..LaunchOptions::default()
    };
    module
        .launch(
            "matmul_f16",
            [1, 2, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut a_bytes),
                Arg::Buffer(&mut b_bytes),
                Arg::Buffer(&mut c_bytes),
                Arg::S32(m as i32),
                Arg::S32(n as i32),
                Arg::S32(k as i32),
                Arg::S32(k as i32),
                Arg::S32(n as i32),
                Arg::S32(n as i32),
                Arg::U64(0),
                Arg::U64(0),
            ],
            &options,
        )
        .expect("it runs");
    for i in 0..m {
        for j in 0..n {
            let sum: i32 = (0..k).map(|kk| a(i, kk) * b(kk, j)).sum();
            let at = (i * n + j) * 2;
            let got = u16::from_le_bytes([c_bytes[at], c_bytes[at + 1]]);
            assert_eq!(
                u32::from(got),
                Input::F16.encode(sum),
                "C({i}, {j}) = {sum} ({input:?})"
            );
        }
    }
}

#[test]
fn tritons_sm_100a_matmuls_run_on_tcgen05() {
    // Triton 3.9.0's `tl.dot` matmul for sm_100a (128 x 64 tiles, BLOCK_K 64; tcgen05.alloc,
    // mma, commit, ld, st, mbarriers), f16 out of an f32 accumulator: f16 and bf16 inputs
    // (`.kind::f16`, 73,744 bytes of dynamic shared memory) and e4m3 (`.kind::f8f6f4`, 36,880).
    triton_matmul(
        include_str!("../../../../tests/mma-kernels/matmul_f16.sm_100a.ptx"),
        Input::F16,
        73744,
    );
    triton_matmul(
        include_str!("../../../../tests/mma-kernels/matmul_bf16.sm_100a.ptx"),
        Input::Bf16,
        73744,
    );
    triton_matmul(
        include_str!("../../../../tests/mma-kernels/matmul_e4m3.sm_100a.ptx"),
        Input::E4m3,
        36880,
    );
}

/// `mxf4(image, out, scales, idesc, idesc2, sf2, ...)`: two block-scaled FP4 products (the
/// kernel's comment); the tests replace the kind and scale vector.
const MXF4: &str = include_str!("tcgen05_kernels/mxf4.ptx");

/// A sub-byte floating-point type of `.kind::f8f6f4` (PTX ISA 5.2.5.1's alternate formats,
/// the OCP MX formats): its instruction-descriptor code (Table 42: E2M3 = 3, E3M2 = 4,
/// E2M1 = 5), width, exponent bias and fraction bits.
#[derive(Clone, Copy, Debug)]
enum SubByte {
    E2m3,
    E3m2,
    E2m1,
}

impl SubByte {
    fn code(self) -> u32 {
        match self {
            SubByte::E2m3 => 3,
            SubByte::E3m2 => 4,
            SubByte::E2m1 => 5,
        }
    }

    fn width(self) -> u32 {
        match self {
            SubByte::E2m1 => 4,
            _ => 6,
        }
    }

    /// The encoding of the integer `v` (|v| <= 4): sign, exponent field `e + bias`, the
    /// fraction below the leading one (`.e2m3`: bias 1, 3 fraction bits; `.e3m2`: bias 3, 2
    /// bits; `.e2m1`: bias 1, 1 bit).
    fn encode(self, v: i32) -> u32 {
        let (bias, fraction_bits) = match self {
            SubByte::E2m3 => (1, 3),
            SubByte::E3m2 => (3, 2),
            SubByte::E2m1 => (1, 1),
        };
        if v == 0 {
            return 0;
        }
        let magnitude = v.unsigned_abs();
        let exponent = 31 - magnitude.leading_zeros();
        let fraction = (magnitude << fraction_bits >> exponent) & ((1 << fraction_bits) - 1);
        u32::from(v < 0) << (self.width() - 1) | (exponent + bias) << fraction_bits | fraction
    }
}

/// The integer at `(row or column, k)` of A or B.
type Values<'a> = &'a dyn Fn(usize, usize) -> i32;

/// The shared-memory image of A (128 x 64) and B (32 x 64) of sub-byte elements, K-major
/// without swizzling (the `Plain` layout, one-byte elements: A's 16-byte units 2048 bytes
/// apart along K, B's 512), each 16-byte unit holding 16 elements packed from bit 0 (`.b6x16_p32`
/// / `.b4x16_p64`: 12 or 8 bytes of data, then padding); with `packed`, K = 128 `.e2m1`
/// elements two to a byte (32 to a unit, the lower k in the low nibble, as MMA-Sim's
/// `unpack_fp4_tensor` reads them). `values` gives A's and B's integers.
fn sub_byte_image(
    (a_ty, b_ty): (SubByte, SubByte),
    packed: bool,
    (a_of, b_of): (Values, Values),
) -> Vec<u8> {
    let mut image = vec![0u8; IMAGE];
    let (depth, per_unit) = if packed { (128, 32) } else { (64, 16) };
    let mut put = |unit: usize, k: usize, ty: SubByte, v: i32| {
        let width = if packed { 4 } else { ty.width() as usize };
        let bit = width * (k % per_unit);
        let code = ty.encode(v) << (bit % 8);
        for (i, byte) in code.to_le_bytes().iter().take(2).enumerate() {
            image[unit + bit / 8 + i] |= byte;
        }
    };
    for k in 0..depth {
        for m in 0..M {
            put(
                (m / 8) * 128 + (m % 8) * 16 + (k / per_unit) * 2048,
                k,
                a_ty,
                a_of(m, k),
            );
        }
        for n in 0..N {
            let unit = B_BASE + (n / 8) * 128 + (n % 8) * 16 + (k / per_unit) * 512;
            put(unit, k, b_ty, b_of(n, k));
        }
    }
    image
}

/// `.kind::f8f6f4` with FP6 and FP4 operands (alone and against E4M3): the integer product
/// over K = 64 (two instructions), every sum exact.
#[test]
fn kind_f8f6f4_multiplies_fp6_and_fp4_tiles() {
    let e4m3 = None;
    for (a_ty, b_ty) in [
        (Some(SubByte::E2m3), Some(SubByte::E2m3)),
        (Some(SubByte::E3m2), Some(SubByte::E3m2)),
        (Some(SubByte::E2m1), Some(SubByte::E2m1)),
        (Some(SubByte::E2m1), Some(SubByte::E3m2)),
        (Some(SubByte::E2m3), e4m3),
    ] {
        let pick = |ty: Option<SubByte>| ty.unwrap_or(SubByte::E2m1);
        let mut image = sub_byte_image(
            (pick(a_ty), pick(b_ty)),
            false,
            (&|m, k| a_value(m, k), &|n, k| b_value(n, k)),
        );
        if b_ty.is_none() {
            // B in E4M3 (one byte per element), as the E4M3 test lays it out.
            let (e4m3_image, _) = image_for_b(Input::E4m3);
            image[B_BASE..].copy_from_slice(&e4m3_image[B_BASE..]);
        }
        let code = |ty: Option<SubByte>| ty.map_or(0, SubByte::code);
        let idesc = 1 << 4
            | code(a_ty) << 7
            | code(b_ty) << 10
            | ((N as u32) >> 3) << 17
            | ((M as u32) >> 4) << 24;
        let source = MMA.replace("kind::f16", "kind::f8f6f4");
        let module = Module::load(&source, &Options::default()).expect("the kernel loads");
        let mut out = vec![0u8; M * N * 4];
        let descriptors = [
            descriptor(0, 2048, 128, 0),
            descriptor(B_BASE, 512, 128, 0),
            4096 >> 4,
            1024 >> 4,
        ];
        module
            .launch(
                "mma_f16",
                [1, 1, 1],
                [128, 1, 1],
                &mut [
                    Arg::Buffer(&mut image),
                    Arg::Buffer(&mut out),
                    Arg::U32(idesc),
                    Arg::U32(0),
                    Arg::U64(descriptors[0]),
                    Arg::U64(descriptors[1]),
                    Arg::U64(descriptors[2]),
                    Arg::U64(descriptors[3]),
                ],
                &LaunchOptions::default(),
            )
            .expect("it runs");
        let want = reference(Input::E4m3);
        for (index, w) in want.iter().enumerate() {
            let got = u32::from_le_bytes(out[4 * index..4 * index + 4].try_into().unwrap());
            assert_eq!(
                got,
                *w,
                "D({}, {}) for {a_ty:?} x {b_ty:?}",
                index / N,
                index % N
            );
        }
    }
}

/// The image of the `Plain` layout for `input` (only its B half is used).
fn image_for_b(input: Input) -> (Vec<u8>, [u64; 4]) {
    image(input, Layout::Plain)
}

/// The packed FP4 operands of `mxf4_product`: A's and B's integers in -4..4 (every one an
/// `.e2m1` value).
fn fp4_a(m: usize, k: usize) -> i32 {
    ((m * 3 + k * 5) % 9) as i32 - 4
}

fn fp4_b(n: usize, k: usize) -> i32 {
    ((n * 7 + k) % 7) as i32 - 3
}

/// Runs `mxf4` with `kind` (`.kind::mxf4` or `.kind::mxf4nvf4` with its scale vector), `vec`
/// factors per row and instruction, the scale type bit (`ue8m0`) and `factor(row or column,
/// block, is_b)`'s bytes (K = 128: `2 vec` blocks), and compares D with the exact sum
/// `sum_blocks sa sb sum_k a b`, `value(byte)` giving each factor's worth.
fn mxf4_product(
    kind: &str,
    vec: usize,
    ue8m0: bool,
    factor: &dyn Fn(usize, usize, bool) -> u32,
    value: &dyn Fn(u32) -> f64,
) {
    let mut image = sub_byte_image(
        (SubByte::E2m1, SubByte::E2m1),
        true,
        (&|m, k| fp4_a(m, k), &|n, k| fp4_b(n, k)),
    );
    // The factors where CUTLASS's tmem_sf_frg puts them (4x1 duplicated): those of row m in
    // every lane m % 32 + 32q, column m / 32 of four; those of column n in lane n % 32 + 32q,
    // column 4; byte j of a cell the j-th block of K. With 2 factors per instruction both
    // instructions share one cell (scale-factor ids 0 and 2); with 4, the second instruction's
    // cells are 8 columns further (sf2 = 8).
    let blocks = 2 * vec;
    let mut scales = vec![0u8; 128 * 16 * 4];
    for lane in 0..128 {
        let mut cells = [0u32; 16];
        for block in 0..blocks {
            let (base, byte) = if vec == 4 {
                (8 * (block / 4), block % 4)
            } else {
                (0, block)
            };
            for column in 0..4 {
                let m = lane % 32 + 32 * column;
                cells[base + column] |= factor(m, block, false) << (8 * byte);
            }
            cells[base + 4] |= factor(lane % 32, block, true) << (8 * byte);
        }
        for (column, cell) in cells.iter().enumerate() {
            let at = (lane * 16 + column) * 4;
            scales[at..at + 4].copy_from_slice(&cell.to_le_bytes());
        }
    }
    // The block-scaled descriptor: A and B E2M1 (MXF4Format 1) at bits 7 and 10, N >> 3 at 17,
    // the scale type at 23 (UE8M0 = 1, UE4M3 = 0), M >> 4 at 24; the second instruction's
    // scale-factor ids (A bits 29-30, B bits 4-5) 2 with 2 factors per instruction.
    let idesc =
        1 << 7 | 1 << 10 | (N as u32 >> 3) << 17 | u32::from(ue8m0) << 23 | (M as u32 >> 4) << 24;
    let (idesc2, sf2) = if vec == 4 {
        (idesc, 8)
    } else {
        (idesc | 2 << 29 | 2 << 4, 0)
    };
    let source = MXF4.replace("kind::mxf4.block_scale.scale_vec::2X", kind);
    let module = Module::load(&source, &Options::default()).expect("the kernel loads");
    let mut out = vec![0u8; M * N * 4];
    module
        .launch(
            "mxf4",
            [1, 1, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut image),
                Arg::Buffer(&mut out),
                Arg::Buffer(&mut scales),
                Arg::U32(idesc),
                Arg::U32(idesc2),
                Arg::U32(sf2),
                Arg::U64(descriptor(0, 2048, 128, 0)),
                Arg::U64(descriptor(B_BASE, 512, 128, 0)),
                Arg::U64(4096 >> 4),
                Arg::U64(1024 >> 4),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let size = 128 / blocks;
    for m in 0..M {
        for n in 0..N {
            let d: f64 = (0..blocks)
                .map(|j| {
                    let sum: i32 = (size * j..size * j + size)
                        .map(|k| fp4_a(m, k) * fp4_b(n, k))
                        .sum();
                    f64::from(sum) * value(factor(m, j, false)) * value(factor(n, j, true))
                })
                .sum();
            let at = (m * N + n) * 4;
            let got = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
            assert_eq!(got, (d as f32).to_bits(), "D({m}, {n}) for {kind}");
        }
    }
}

/// `.ue8m0`: `2^(e - 127)`.
fn ue8m0(byte: u32) -> f64 {
    2f64.powi(byte as i32 - 127)
}

/// `.ue4m3` (a normal E4M3 magnitude): `(1 + f / 8) 2^(e - 7)`.
fn ue4m3(byte: u32) -> f64 {
    (1.0 + f64::from(byte & 7) / 8.0) * 2f64.powi((byte >> 3) as i32 - 7)
}

#[test]
fn kind_mxf4_scales_each_32_elements_of_packed_fp4() {
    let factor = |i: usize, j: usize, b: bool| 126 + ((i * 5 + j * 3 + usize::from(b)) % 4) as u32;
    mxf4_product("kind::mxf4.block_scale", 2, true, &factor, &ue8m0);
    mxf4_product(
        "kind::mxf4.block_scale.scale_vec::2X",
        2,
        true,
        &factor,
        &ue8m0,
    );
    mxf4_product(
        "kind::mxf4nvf4.block_scale.scale_vec::2X",
        2,
        true,
        &factor,
        &ue8m0,
    );
}

#[test]
fn kind_mxf4nvf4_scales_each_16_elements_by_ue8m0_or_ue4m3() {
    let exponents =
        |i: usize, j: usize, b: bool| 125 + ((i * 3 + j * 7 + usize::from(b)) % 5) as u32;
    mxf4_product(
        "kind::mxf4nvf4.block_scale.scale_vec::4X",
        4,
        true,
        &exponents,
        &ue8m0,
    );
    // .ue4m3 factors 0.5 .. 1.875: exponent field 6 or 7, any fraction.
    let ue4m3_factor = |i: usize, j: usize, b: bool| {
        (6 + ((i + j + usize::from(b)) % 2) as u32) << 3 | ((i * 5 + j * 3) % 8) as u32
    };
    mxf4_product(
        "kind::mxf4nvf4.block_scale.scale_vec::4X",
        4,
        false,
        &ue4m3_factor,
        &ue4m3,
    );
}

#[test]
fn every_cta_has_its_own_permit_to_allocate_tensor_memory() {
    // `tcgen05_kernels/relinquish.ptx`: each CTA's warp 0 allocates, relinquishes its permit
    // and frees; "it is illegal for a CTA to perform tcgen05.alloc after any of its
    // constituent threads execute tcgen05.relinquish_alloc_permit" (PTX ISA 9.7.16.7.1) binds
    // that CTA only. Eight CTAs on one host thread, so later CTAs run where earlier ones ran
    // (Triton's sm_100a matmuls relinquish right after their allocation).
    let module = Module::load(
        include_str!("tcgen05_kernels/relinquish.ptx"),
        &Options::default(),
    )
    .expect("the kernel loads");
    let mut out = vec![0u8; 8 * 4];
    let options = LaunchOptions {
        host_threads: 1,
        ..LaunchOptions::default()
    };
    module
        .launch(
            "alloc_relinquish",
            [8, 1, 1],
            [64, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &options,
        )
        .expect("every CTA allocates");
    let stored: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(stored, (1..=8).collect::<Vec<u32>>());
}
