//! Tensor copies (`cp.async.bulk.tensor`, the tensor memory accelerator): boxes of a tensor in
//! global memory moved into shared memory and back, against host loops written from the
//! definitions (PTX ISA 9.0, cp.async.bulk.tensor and 5.5 "Tensors"; `cuda.h`'s
//! documentation of `cuTensorMapEncodeTiled`; the CUDA C++ Programming Guide's TMA swizzle
//! pattern), never from ptxsim's output. The kernels are clean under ptxas 13.5
//! (`-arch sm_90a`).

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};
use ptxsim_exec::memory::{GLOBAL_BASE, next_buffer};
use ptxsim_exec::tensor_map::TensorMap;

/// `load2d`/`load3d`: one thread initialises an mbarrier, expects `bytes` (`load2d`: `tx`),
/// issues the tensor load at the coordinates given, waits for the phase and copies `bytes` of
/// the box to `out`.
/// `store2d`: the bytes of `src` into shared memory, then a tensor store at the coordinates.
/// `multicast2d`: in a cluster of two CTAs, rank 0 loads the box into both; each CTA copies
/// its box to `out + rank * bytes`. `tensor` is the tensor (the first buffer, so at
/// `GLOBAL_BASE`), unused by the code.
const KERNELS: &str = r#".version 8.0
.target sm_90a
.address_size 64

.visible .entry load2d(.param .align 64 .b8 tmap[128], .param .u64 tensor, .param .u64 out,
    .param .s32 c0, .param .s32 c1, .param .u32 bytes, .param .u32 tx)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 1024 .b8 box[4096];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [c1];
    ld.param.u32 %r3, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    ld.param.u32 %r7, [tx];
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r7;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [box], [%rd2, {%r1, %r2}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.param.u64 %rd4, [out];
    mov.u32 %r4, 0;
COPY:
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra COPY;
    ret;
}

.visible .entry load3d(.param .align 64 .b8 tmap[128], .param .u64 tensor, .param .u64 out,
    .param .s32 c0, .param .s32 c1, .param .s32 c2, .param .u32 bytes)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[4096];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [c1];
    ld.param.s32 %r7, [c2];
    ld.param.u32 %r3, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r3;
    cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [box], [%rd2, {%r1, %r2, %r7}], [bar], %rd1;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.param.u64 %rd4, [out];
    mov.u32 %r4, 0;
COPY:
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra COPY;
    ret;
}

.visible .entry store2d(.param .align 64 .b8 tmap[128], .param .u64 tensor, .param .u64 src,
    .param .s32 c0, .param .s32 c1, .param .u32 bytes)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[4096];
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [c1];
    ld.param.u32 %r3, [bytes];
    ld.param.u64 %rd4, [src];
    mov.u32 %r4, 0;
FILL:
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    ld.global.u32 %r6, [%rd6];
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    st.shared.u32 [%r5], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra FILL;
    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r1, %r2}], [box];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    ret;
}

.visible .entry multicast2d(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 out, .param .s32 c0, .param .s32 c1, .param .u32 bytes, .param .u32 tx)
.reqnctapercluster 2, 1, 1
{
    .reg .b16 %rs<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[4096];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [c1];
    ld.param.u32 %r3, [bytes];
    mov.u32 %r8, %cluster_ctarank;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r3;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.ne.u32 %p3, %r8, 0;
    @%p3 bra WAIT;
    mov.b16 %rs1, 3;
    cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [box], [%rd2, {%r1, %r2}], [bar], %rs1;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.param.u64 %rd4, [out];
    mul.lo.u32 %r9, %r8, %r3;
    cvt.u64.u32 %rd7, %r9;
    add.u64 %rd4, %rd4, %rd7;
    mov.u32 %r4, 0;
COPY:
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra COPY;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

pub(super) fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub(super) fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A rank-2 map of `.u32`/`.f32` words (`data_type` 2 or 7): `cols x rows`, rows `pitch`
/// words apart, at `GLOBAL_BASE`.
pub(super) fn map2d(
    data_type: u32,
    [cols, rows]: [u64; 2],
    pitch: u64,
    box_dim: [u32; 2],
) -> TensorMap {
    TensorMap {
        data_type,
        rank: 2,
        global_address: GLOBAL_BASE,
        global_dim: [cols, rows, 0, 0, 0],
        global_strides: [pitch * 4, 0, 0, 0],
        box_dim: [box_dim[0], box_dim[1], 0, 0, 0],
        element_strides: [1, 1, 0, 0, 0],
        ..TensorMap::default()
    }
}

/// Runs `load2d` (or `multicast2d` on two CTAs) and returns `out`.
pub(super) fn load2d(
    kernel: &str,
    map: &TensorMap,
    tensor: &[u32],
    c: [i32; 2],
    bytes: u32,
) -> Vec<u32> {
    u32s(&load2d_tx(
        kernel,
        map,
        &bytes_of(tensor),
        c,
        (bytes, bytes),
    ))
}

/// Runs `load2d` (or `multicast2d`) expecting `tx` bytes on the mbarrier and returns the first
/// `bytes` of the box (of each CTA).
pub(super) fn load2d_tx(
    kernel: &str,
    map: &TensorMap,
    tensor: &[u8],
    c: [i32; 2],
    (tx, bytes): (u32, u32),
) -> Vec<u8> {
    let module = Module::load(KERNELS, &Options::default()).expect("the kernels load");
    let mut tensor = tensor.to_vec();
    let ctas = if kernel == "multicast2d" { 2 } else { 1 };
    let mut out = vec![0xeeu8; bytes as usize * ctas as usize];
    let encoded = map.encode();
    module
        .launch(
            kernel,
            [ctas, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor),
                Arg::Buffer(&mut out),
                Arg::S32(c[0]),
                Arg::S32(c[1]),
                Arg::U32(bytes),
                Arg::U32(tx),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    out
}

/// The host's box: element `(r, c)` of the box at `start` is the tensor's `(start[1] + r *
/// row_step, start[0] + c)` when that lies inside `cols x rows`, else `fill`.
fn host_box(
    tensor: &[u32],
    [cols, rows]: [i64; 2],
    pitch: i64,
    start: [i32; 2],
    [box_cols, box_rows]: [i64; 2],
    row_step: i64,
    fill: u32,
) -> Vec<u32> {
    let mut expected = Vec::new();
    for r in 0..box_rows {
        for c in 0..box_cols {
            let (x, y) = (i64::from(start[0]) + c, i64::from(start[1]) + r * row_step);
            let inside = (0..cols).contains(&x) && (0..rows).contains(&y);
            expected.push(if inside {
                tensor[(y * pitch + x) as usize]
            } else {
                fill
            });
        }
    }
    expected
}

fn numbered(words: usize) -> Vec<u32> {
    (0..words as u32).map(|i| 1000 + i * 7).collect()
}

#[test]
fn a_box_inside_the_tensor_is_copied_row_by_row() {
    // 40 x 20 words, rows 48 words apart (a padded pitch); an 8 x 4 box at (8, 3).
    let tensor = numbered(48 * 20);
    let map = map2d(2, [40, 20], 48, [8, 4]);
    let out = load2d("load2d", &map, &tensor, [8, 3], 8 * 4 * 4);
    assert_eq!(out, host_box(&tensor, [40, 20], 48, [8, 3], [8, 4], 1, 0));
}

#[test]
fn a_box_straddling_the_tensor_edge_is_filled_with_zeros() {
    let tensor = numbered(40 * 20);
    let map = map2d(2, [40, 20], 40, [16, 8]);
    for start in [[32, 16], [-4, -2], [36, -7], [40, 20]] {
        let out = load2d("load2d", &map, &tensor, start, 16 * 8 * 4);
        assert_eq!(
            out,
            host_box(&tensor, [40, 20], 40, start, [16, 8], 1, 0),
            "box at {start:?}"
        );
    }
}

#[test]
fn a_float_map_with_nan_fill_puts_nans_outside_the_tensor() {
    // `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`: "a special NaN constant".
    let tensor: Vec<u32> = (0..40 * 20).map(|i| (i as f32).to_bits()).collect();
    let mut map = map2d(7, [40, 20], 40, [16, 8]);
    map.oob_fill = 1;
    let out = load2d("load2d", &map, &tensor, [32, 16], 16 * 8 * 4);
    let inside = host_box(&tensor, [40, 20], 40, [32, 16], [16, 8], 1, u32::MAX);
    for (got, want) in out.iter().zip(&inside) {
        if *want == u32::MAX {
            assert!(f32::from_bits(*got).is_nan(), "{got:#x} is no NaN");
        } else {
            assert_eq!(got, want);
        }
    }
}

#[test]
fn element_strides_skip_rows() {
    // elementStrides {1, 2} with boxDim {8, 8}: "TMA loads ceil(boxDim[i] /
    // elementStrides[i]) number of elements along i-th dimension": 4 rows, every other one.
    let tensor = numbered(16 * 16);
    let mut map = map2d(2, [16, 16], 16, [8, 8]);
    map.element_strides[1] = 2;
    let out = load2d("load2d", &map, &tensor, [4, 5], 8 * 4 * 4);
    assert_eq!(out, host_box(&tensor, [16, 16], 16, [4, 5], [8, 4], 2, 0));
}

#[test]
fn the_128_byte_swizzle_permutes_16_byte_chunks_by_row() {
    // A box of 32 words (128 bytes) x 8 rows into a 1024-byte-aligned buffer. The swizzle
    // pattern written out: in row r, the 16-byte chunk j of the row lands at chunk j ^ (r % 8)
    // (CU_TENSOR_MAP_SWIZZLE_128B, "Swizzle 16B chunks within 128B span").
    let tensor = numbered(64 * 16);
    let mut map = map2d(2, [64, 16], 64, [32, 8]);
    map.swizzle = 3;
    let out = load2d("load2d", &map, &tensor, [16, 4], 32 * 8 * 4);
    let plain = host_box(&tensor, [64, 16], 64, [16, 4], [32, 8], 1, 0);
    let mut expected = vec![0u32; plain.len()];
    for r in 0..8 {
        for c in 0..32 {
            let (chunk, within) = (c / 4, c % 4);
            expected[r * 32 + (chunk ^ (r % 8)) * 4 + within] = plain[r * 32 + c];
        }
    }
    assert_eq!(out, expected);
    // The 64-byte swizzle: 16 words a row, chunk j of 128-byte row R (two box rows) lands
    // at j ^ (R % 4) within its 64-byte span.
    let mut map = map2d(2, [64, 16], 64, [16, 8]);
    map.swizzle = 2;
    let out = load2d("load2d", &map, &tensor, [0, 0], 16 * 8 * 4);
    let plain = host_box(&tensor, [64, 16], 64, [0, 0], [16, 8], 1, 0);
    let mut expected = vec![0u32; plain.len()];
    for (i, &value) in plain.iter().enumerate() {
        let byte = i * 4;
        let (row128, chunk, within) = (byte / 128, (byte / 16) % 4, byte % 16);
        let span_base = byte - (byte % 64);
        let to = span_base + (chunk ^ (row128 % 4)) * 16 + within;
        expected[to / 4] = value;
    }
    assert_eq!(out, expected);
}

#[test]
fn a_three_dimensional_box_walks_the_planes() {
    // 8 x 6 x 4 words, box 4 x 2 x 3 at (6, 5, 2): columns 6..10 and rows 5..7 and planes
    // 2..5 cross the edges.
    let (nx, ny, nz) = (8i64, 6i64, 4i64);
    let tensor = numbered((nx * ny * nz) as usize);
    let map = TensorMap {
        data_type: 2,
        rank: 3,
        global_address: GLOBAL_BASE,
        global_dim: [nx as u64, ny as u64, nz as u64, 0, 0],
        global_strides: [nx as u64 * 4, (nx * ny) as u64 * 4, 0, 0],
        box_dim: [4, 2, 3, 0, 0],
        element_strides: [1, 1, 1, 0, 0],
        ..TensorMap::default()
    };
    let module = Module::load(KERNELS, &Options::default()).expect("the kernels load");
    let mut tensor_bytes = bytes_of(&tensor);
    let bytes = 4 * 2 * 3 * 4u32;
    let mut out = vec![0u8; bytes as usize];
    let encoded = map.encode();
    module
        .launch(
            "load3d",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor_bytes),
                Arg::Buffer(&mut out),
                Arg::S32(6),
                Arg::S32(5),
                Arg::S32(2),
                Arg::U32(bytes),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let mut expected = Vec::new();
    for z in 2..5 {
        for y in 5..7 {
            for x in 6..10 {
                let inside = x < nx && y < ny && z < nz;
                expected.push(if inside {
                    tensor[(z * nx * ny + y * nx + x) as usize]
                } else {
                    0
                });
            }
        }
    }
    assert_eq!(u32s(&out), expected);
}

#[test]
fn a_tensor_store_writes_only_the_elements_inside_the_tensor() {
    let (cols, rows) = (20usize, 10usize);
    let original = numbered(cols * rows);
    let mut tensor = bytes_of(&original);
    let map = map2d(2, [cols as u64, rows as u64], cols as u64, [8, 4]);
    let staged: Vec<u32> = (0..32).map(|i| 5_000_000 + i).collect();
    let mut src = bytes_of(&staged);
    let module = Module::load(KERNELS, &Options::default()).expect("the kernels load");
    let encoded = map.encode();
    module
        .launch(
            "store2d",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor),
                Arg::Buffer(&mut src),
                Arg::S32(16),
                Arg::S32(8),
                Arg::U32(8 * 4 * 4),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let mut expected = original.clone();
    for r in 0..4 {
        for c in 0..8 {
            let (x, y) = (16 + c, 8 + r);
            if x < cols && y < rows {
                expected[y * cols + x] = staged[r * 8 + c];
            }
        }
    }
    assert_eq!(u32s(&tensor), expected);
}

#[test]
fn a_multicast_load_fills_every_cta_of_the_mask() {
    let tensor = numbered(32 * 8);
    let map = map2d(2, [32, 8], 32, [8, 4]);
    let out = load2d("multicast2d", &map, &tensor, [12, 2], 8 * 4 * 4);
    let one = host_box(&tensor, [32, 8], 32, [12, 2], [8, 4], 1, 0);
    assert_eq!(out, [one.clone(), one].concat());
}

#[test]
fn a_misaligned_box_or_a_foreign_map_traps_at_the_copy() {
    // A tensor map of rank 2 used by a 3-D copy.
    let tensor = numbered(64);
    let map = map2d(2, [8, 8], 8, [8, 2]);
    let module = Module::load(KERNELS, &Options::default()).expect("the kernels load");
    let mut tensor_bytes = bytes_of(&tensor);
    let mut out = vec![0u8; 64];
    let encoded = map.encode();
    let error = module
        .launch(
            "load3d",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor_bytes),
                Arg::Buffer(&mut out),
                Arg::S32(0),
                Arg::S32(0),
                Arg::S32(0),
                Arg::U32(64),
            ],
            &LaunchOptions::default(),
        )
        .expect_err("rank 2 for a .3d copy");
    assert!(error.to_string().contains("rank 2"), "{error}");
    // Bytes that no encoder wrote.
    let garbage = [0x55u8; 128];
    let error = module
        .launch(
            "load3d",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&garbage),
                Arg::Buffer(&mut tensor_bytes),
                Arg::Buffer(&mut out),
                Arg::S32(0),
                Arg::S32(0),
                Arg::S32(0),
                Arg::U32(64),
            ],
            &LaunchOptions::default(),
        )
        .expect_err("not a tensor map");
    assert!(error.to_string().contains("not a tensor map"), "{error}");
}

#[test]
fn the_nvcc_cuda_ptx_sample_doubles_a_tensor_through_swizzled_boxes() {
    // `ptx-samples/cuda/tma.cu` (libcu++'s cuda::ptx::cp_async_bulk_tensor, nvcc -arch
    // sm_90a): 2 x 2 CTAs of 64 threads over a 50 x 13 tensor of words whose rows are 64
    // words apart; both maps swizzle 128 B. The host's computation: every element of the
    // tensor doubled, the padding untouched.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx-samples/nvcc/tma.sm_90a.ptx"
    );
    let source = std::fs::read_to_string(path).expect("the sample is there");
    let module = Module::load(&source, &Options::default()).expect("the sample loads");
    let (cols, rows, pitch) = (50usize, 13usize, 64usize);
    let input = numbered(pitch * rows);
    let mut in_bytes = bytes_of(&input);
    let mut out_bytes = vec![0xabu8; pitch * rows * 4];
    let mut in_map = map2d(2, [cols as u64, rows as u64], pitch as u64, [32, 8]);
    in_map.swizzle = 3;
    let mut out_map = in_map;
    // `out`: the address the launch gives the buffer after `in` (at `GLOBAL_BASE`).
    out_map.global_address = next_buffer(Some((GLOBAL_BASE, in_bytes.len() as u64)));
    let (in_encoded, out_encoded) = (in_map.encode(), out_map.encode());
    module
        .launch(
            "tma_double",
            [2, 2, 1],
            [64, 1, 1],
            &mut [
                Arg::Bytes(&in_encoded),
                Arg::Bytes(&out_encoded),
                Arg::Buffer(&mut in_bytes),
                Arg::Buffer(&mut out_bytes),
                Arg::U32(32 * 8 * 4),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let out = u32s(&out_bytes);
    for y in 0..rows {
        for x in 0..pitch {
            let want = if x < cols {
                input[y * pitch + x].wrapping_mul(2)
            } else {
                0xabab_abab
            };
            assert_eq!(out[y * pitch + x], want, "({x}, {y})");
        }
    }
}

/// A kernel that stages the 64 bytes of `src` in shared memory and reduces them into `dst`
/// with `cp.reduce.async.bulk` `suffix` (`.global` in a bulk group; or, with `shared`, into a
/// shared copy of `dst` through `.shared::cluster` completing on an mbarrier, then copied
/// back).
fn reduction_kernel(suffix: &str, shared: bool) -> String {
    let copy = if shared {
        format!(
            "    mov.u32 %r1, 0;
DST:
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, acc;
    add.u32 %r3, %r3, %r1;
    st.shared.u32 [%r3], %r2;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p1, %r1, 64;
    @%p1 bra DST;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 64;
    fence.proxy.async.shared::cta;
    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes{suffix} [acc], [buf], 64, [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    mov.u32 %r1, 0;
BACK:
    mov.u32 %r3, acc;
    add.u32 %r3, %r3, %r1;
    ld.shared.u32 %r2, [%r3];
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r2;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p1, %r1, 64;
    @%p1 bra BACK;
"
        )
    } else {
        format!(
            "    fence.proxy.async.shared::cta;
    cp.reduce.async.bulk.global.shared::cta.bulk_group{suffix} [%rd1], [buf], 64;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
"
        )
    };
    format!(
        ".version 8.0
.target sm_90
.address_size 64
.visible .entry reduce(.param .u64 dst, .param .u64 src)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    .shared .align 16 .b8 buf[64];
    .shared .align 16 .b8 acc[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    mov.u32 %r1, 0;
FILL:
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, buf;
    add.u32 %r3, %r3, %r1;
    st.shared.u32 [%r3], %r2;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p1, %r1, 64;
    @%p1 bra FILL;
{copy}    ret;
}}
"
    )
}

/// Runs [`reduction_kernel`] on 64 bytes `dst` and `src`; returns `dst`.
fn reduce(suffix: &str, shared: bool, dst: &[u8], src: &[u8]) -> Vec<u8> {
    let module =
        Module::load(&reduction_kernel(suffix, shared), &Options::default()).expect("it loads");
    let (mut dst, mut src) = (dst.to_vec(), src.to_vec());
    module
        .launch(
            "reduce",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut dst), Arg::Buffer(&mut src)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    dst
}

#[test]
fn bulk_reductions_combine_element_by_element() {
    let a: Vec<u32> = (0..16)
        .map(|i| 0xffff_fff0u32.wrapping_add(i * 3))
        .collect();
    let b: Vec<u32> = (0..16).map(|i| i * 1_000_003 % 97).collect();
    let (a8, b8) = (bytes_of(&a), bytes_of(&b));
    let words = |f: &dyn Fn(u32, u32) -> u32| -> Vec<u32> {
        a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect()
    };
    // The ISA's definitions: add wraps, min of .s32 is signed, inc is "(old >= b) ? 0 :
    // old + 1", xor is bitwise.
    assert_eq!(
        u32s(&reduce(".add.u32", false, &a8, &b8)),
        words(&|x, y| x.wrapping_add(y))
    );
    assert_eq!(
        u32s(&reduce(".min.s32", false, &a8, &b8)),
        words(&|x, y| (x as i32).min(y as i32) as u32)
    );
    assert_eq!(
        u32s(&reduce(".inc.u32", false, &b8, &a8)),
        b.iter()
            .zip(&a)
            .map(|(&x, &y)| if x >= y { 0 } else { x + 1 })
            .collect::<Vec<_>>()
    );
    assert_eq!(
        u32s(&reduce(".xor.b64", false, &a8, &b8)),
        words(&|x, y| x ^ y)
    );
    // Into shared memory of the cluster, completing on the mbarrier.
    assert_eq!(
        u32s(&reduce(".max.u32", true, &a8, &b8)),
        words(&|x, y| x.max(y))
    );
    assert_eq!(
        u32s(&reduce(".add.u32", true, &a8, &b8)),
        words(&|x, y| x.wrapping_add(y))
    );
}

#[test]
fn bulk_float_reductions_add_exactly_representable_values() {
    // Sums that every format holds exactly, so the expected values are the host's.
    let x: Vec<f32> = (0..16).map(|i| i as f32 * 0.5 - 3.0).collect();
    let y: Vec<f32> = (0..16).map(|i| 1.25 + i as f32).collect();
    let f32s = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let sum: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    assert_eq!(reduce(".add.f32", false, &f32s(&x), &f32s(&y)), f32s(&sum));
    // bf16: the upper half of the f32 bits (exact for these values); 32 elements.
    let bf = |v: &[f32]| -> Vec<u8> {
        v.iter()
            .chain(v.iter())
            .flat_map(|f| ((f.to_bits() >> 16) as u16).to_le_bytes())
            .collect()
    };
    assert_eq!(reduce(".add.noftz.bf16", false, &bf(&x), &bf(&y)), bf(&sum));
    let min: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.min(*b)).collect();
    assert_eq!(reduce(".min.bf16", false, &bf(&x), &bf(&y)), bf(&min));
}

/// Copies the tensor map parameter into shared memory, points it at `second` and cuts its
/// dimension 1 to `rows` with `tensormap.replace`, publishes it to `mapbuf` with
/// `tensormap.cp_fenceproxy`, and loads the box at (0, 0) through the published map.
const REPLACED: &str = r#".version 8.3
.target sm_90a
.address_size 64
.visible .entry replaced(.param .align 64 .b8 tmap[128], .param .u64 first,
    .param .u64 second, .param .u64 mapbuf, .param .u64 out, .param .u32 rows,
    .param .u32 bytes)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 tm[128];
    .shared .align 128 .b8 box[1024];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    mov.u32 %r1, 0;
COPYMAP:
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd4, %rd2, %rd3;
    ld.u64 %rd5, [%rd4];
    mov.u32 %r2, tm;
    add.u32 %r2, %r2, %r1;
    st.shared.u64 [%r2], %rd5;
    add.u32 %r1, %r1, 8;
    setp.lt.u32 %p1, %r1, 128;
    @%p1 bra COPYMAP;
    ld.param.u64 %rd6, [second];
    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tm], %rd6;
    ld.param.u32 %r3, [rows];
    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm], 1, %r3;
    ld.param.u64 %rd7, [mapbuf];
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd7], [tm], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%rd7], 128;
    ld.param.u32 %r4, [bytes];
    mov.u32 %r5, 0;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd8, [bar], %r4;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [box], [%rd7, {%r5, %r5}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    ld.param.u64 %rd9, [out];
    mov.u32 %r1, 0;
COPY:
    mov.u32 %r6, box;
    add.u32 %r6, %r6, %r1;
    ld.shared.u32 %r7, [%r6];
    cvt.u64.u32 %rd10, %r1;
    add.u64 %rd11, %rd9, %rd10;
    st.global.u32 [%rd11], %r7;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p3, %r1, %r4;
    @%p3 bra COPY;
    ret;
}
"#;

#[test]
fn tensormap_replace_points_a_map_at_another_tensor_of_fewer_rows() {
    let module = Module::load(REPLACED, &Options::default()).expect("it loads");
    let first = numbered(16 * 8);
    let second: Vec<u32> = (0..16 * 8).map(|i| 90_000 + i).collect();
    let (mut first_bytes, mut second_bytes) = (bytes_of(&first), bytes_of(&second));
    let mut mapbuf = vec![0u8; 128];
    let mut out = vec![0xeeu8; 16 * 8 * 4];
    let map = map2d(2, [16, 8], 16, [16, 8]);
    let encoded = map.encode();
    module
        .launch(
            "replaced",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut first_bytes),
                Arg::Buffer(&mut second_bytes),
                Arg::Buffer(&mut mapbuf),
                Arg::Buffer(&mut out),
                Arg::U32(5),
                Arg::U32(16 * 8 * 4),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    // Rows 0-4 of `second`; rows 5-7 are outside the replaced dimension: zeros.
    let expected: Vec<u32> = (0..16 * 8)
        .map(|i| if i / 16 < 5 { second[i] } else { 0 })
        .collect();
    assert_eq!(u32s(&out), expected);
}

/// In a cluster of two CTAs, rank 0 copies the 64 bytes of `src` into `buf` of both CTAs with
/// `cp.async.bulk ... .multicast::cluster` (ctaMask 3); each CTA waits on its own mbarrier and
/// writes its copy to `out + 64 * %ctaid.x`.
const MULTICAST_BULK: &str = r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry bulk_multicast(.param .u64 src, .param .u64 out)
.reqnctapercluster 2, 1, 1
{
    .reg .b16 %rs<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [src];
    mov.u32 %r8, %cluster_ctarank;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 64;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.ne.u32 %p3, %r8, 0;
    @%p3 bra WAIT;
    mov.b16 %rs1, 3;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [buf], [%rd1], 64, [bar], %rs1;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.param.u64 %rd4, [out];
    mov.u32 %r9, %ctaid.x;
    mul.wide.u32 %rd7, %r9, 64;
    add.u64 %rd4, %rd4, %rd7;
    mov.u32 %r4, 0;
COPY:
    mov.u32 %r5, buf;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, 64;
    @%p2 bra COPY;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

#[test]
fn a_multicast_bulk_copy_reaches_every_cta_of_the_mask() {
    let module = Module::load(MULTICAST_BULK, &Options::default()).expect("it loads");
    let words = numbered(16);
    let mut src = bytes_of(&words);
    let mut out = vec![0u8; 4 * 64];
    module
        .launch(
            "bulk_multicast",
            [4, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut src), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    // Every cluster's rank 0 multicasts the same words: every CTA holds them.
    let got = u32s(&out);
    assert_eq!(
        got,
        [&words[..], &words[..], &words[..], &words[..]].concat()
    );
}

/// `im2col{dims}d`: one thread loads the im2col box at `c0..` with the `.u16` im2col offsets
/// `o0..` into shared memory (1024-byte aligned) and copies `bytes` of it to `out`.
/// `store{dims}d_no_offs`: the bytes of `out` into shared memory, then an `.im2col_no_offs`
/// tensor store at the coordinates. `mode` is the load's: `im2col` (clean under ptxas 13.5,
/// `-arch sm_90a`), or `im2col::w` / `im2col::w::128` whose two `.u16` values are `{wHalo,
/// wOffset}` (PTX ISA 8.6, `-arch sm_100a`).
pub(super) fn im2col_kernels(dims: usize, mode: &str) -> String {
    let wide = mode.starts_with("im2col::w");
    let (header, spatial) = if wide {
        (".version 8.6\n.target sm_100a", 2)
    } else {
        (".version 8.0\n.target sm_90a", dims - 2)
    };
    let coordinate_params: String = (0..dims).map(|i| format!(", .param .s32 c{i}")).collect();
    let offset_params: String = (0..spatial)
        .map(|i| format!(", .param .u16 o{i}"))
        .collect();
    let load_coordinates: String = (0..dims)
        .map(|i| format!("    ld.param.s32 %r{}, [c{i}];\n", 10 + i))
        .collect();
    let load_offsets: String = (0..spatial)
        .map(|i| format!("    ld.param.u16 %rs{}, [o{i}];\n", 1 + i))
        .collect();
    let coordinates = (0..dims)
        .map(|i| format!("%r{}", 10 + i))
        .collect::<Vec<_>>()
        .join(", ");
    let offsets = (0..spatial)
        .map(|i| format!("%rs{}", 1 + i))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#"{header}
.address_size 64

.visible .entry im2col{dims}d(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 out{coordinate_params}{offset_params}, .param .u32 bytes)
{{
    .reg .b16 %rs<8>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 1024 .b8 box[20480];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
{load_coordinates}{load_offsets}    ld.param.u32 %r3, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r3;
    cp.async.bulk.tensor.{dims}d.shared::cluster.global.{mode}.mbarrier::complete_tx::bytes [box], [%rd2, {{{coordinates}}}], [bar], {{{offsets}}};
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.param.u64 %rd4, [out];
    mov.u32 %r4, 0;
COPY:
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra COPY;
    ret;
}}

.visible .entry store{dims}d_no_offs(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 out{coordinate_params}{offset_params}, .param .u32 bytes)
{{
    .reg .b32 %r<24>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[4096];
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
{load_coordinates}    ld.param.u32 %r3, [bytes];
    ld.param.u64 %rd4, [out];
    mov.u32 %r4, 0;
FILL:
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    ld.global.u32 %r6, [%rd6];
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    st.shared.u32 [%r5], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra FILL;
    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.{dims}d.global.shared::cta.im2col_no_offs.bulk_group [%rd2, {{{coordinates}}}], [box];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    ret;
}}
"#
    )
}

/// An im2col map of `.u32` words (`CU_TENSOR_MAP_DATA_TYPE_UINT32`) over a dense
/// `dims`-dimensional tensor at `GLOBAL_BASE`, innermost dimension (C) first.
fn im2col_map(
    dims: &[u64],
    corners: ([i32; 3], [i32; 3]),
    channels: u32,
    pixels: u32,
) -> TensorMap {
    let mut map = TensorMap {
        data_type: 2,
        rank: dims.len() as u32,
        global_address: GLOBAL_BASE,
        element_strides: [1; 5],
        im2col: Some(ptxsim_exec::tensor_map::Im2col {
            lower: corners.0,
            upper: corners.1,
            channels_per_pixel: channels,
            pixels_per_column: pixels,
            wide: None,
        }),
        ..TensorMap::default()
    };
    dense(&mut map, dims, 4);
    map
}

/// Sets `map`'s dimensions to `dims` (innermost first) of a dense tensor of `bytes`-byte
/// elements.
pub(super) fn dense(map: &mut TensorMap, dims: &[u64], bytes: u64) {
    let mut stride = bytes;
    for (i, &dim) in dims.iter().enumerate() {
        map.global_dim[i] = dim;
        if i > 0 {
            map.global_strides[i - 1] = stride;
        }
        stride *= dim;
    }
}

/// Runs `kernel` of [`im2col_kernels`] (its `.im2col` loads) with `out` (`bytes` long,
/// initially `out_init`) and returns the tensor and `out` afterwards, or the launch's error.
fn run_im2col(
    kernel: &str,
    map: &TensorMap,
    tensor: &[u32],
    (coordinates, offsets): (&[i32], &[u16]),
    out_init: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), String> {
    run_im2col_mode(
        kernel,
        "im2col",
        map,
        tensor,
        (coordinates, offsets),
        out_init,
    )
}

/// [`run_im2col`] with the loads of `mode` ([`im2col_kernels`]).
pub(super) fn run_im2col_mode(
    kernel: &str,
    mode: &str,
    map: &TensorMap,
    tensor: &[u32],
    (coordinates, offsets): (&[i32], &[u16]),
    out_init: &[u32],
) -> Result<(Vec<u32>, Vec<u32>), String> {
    let dims = coordinates.len();
    let module =
        Module::load(&im2col_kernels(dims, mode), &Options::default()).expect("the kernels load");
    let mut tensor = bytes_of(tensor);
    let mut out = bytes_of(out_init);
    let bytes = out.len() as u32;
    let encoded = map.encode();
    let mut args = vec![
        Arg::Bytes(&encoded),
        Arg::Buffer(&mut tensor),
        Arg::Buffer(&mut out),
    ];
    args.extend(coordinates.iter().map(|&c| Arg::S32(c)));
    args.extend(offsets.iter().map(|&o| Arg::Bits(u64::from(o))));
    args.push(Arg::U32(bytes));
    module
        .launch(
            kernel,
            [1, 1, 1],
            [1, 1, 1],
            &mut args,
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    drop(args);
    Ok((u32s(&tensor), u32s(&out)))
}

/// The host's im2col column (the convolution's definition, as in MIOpen's `Im2Col` kernel):
/// output pixel `m` (linear over `q` fastest, then `p`, then the image `n`; `Q x P` output
/// pixels of a `W x H` input with padding `pad` and stride `stride`) reads the input pixel
/// `(q * stride - pad + s, p * stride - pad + r)` of image `n` for the filter position `(s,
/// r)`, channels `c0 .. c0 + channels`, zero outside the input.
#[allow(clippy::too_many_arguments)]
fn host_im2col(
    tensor: &[u32],
    [c_dim, w_dim, h_dim, n_dim]: [i64; 4],
    [q_dim, p_dim]: [i64; 2],
    (pad, stride): ([i64; 2], [i64; 2]),
    filter: [i64; 2],
    first_pixel: i64,
    (pixels, c0, channels): (i64, i64, i64),
) -> Vec<u32> {
    let mut column = Vec::new();
    for m in first_pixel..first_pixel + pixels {
        let (q, p, n) = (m % q_dim, m / q_dim % p_dim, m / (q_dim * p_dim));
        let w = q * stride[0] - pad[0] + filter[0];
        let h = p * stride[1] - pad[1] + filter[1];
        for c in c0..c0 + channels {
            let inside = (0..w_dim).contains(&w)
                && (0..h_dim).contains(&h)
                && (0..n_dim).contains(&n)
                && (0..c_dim).contains(&c);
            column.push(if inside {
                tensor[(((n * h_dim + h) * w_dim + w) * c_dim + c) as usize]
            } else {
                0
            });
        }
    }
    column
}

#[test]
fn an_im2col_load_gathers_the_filter_positions_of_consecutive_output_pixels() {
    // NHWC 2 x 5 x 6 x 8 words; a 3 x 3 convolution with padding 1 and stride 1 (the
    // corners -1, -1: CUTLASS's lower corner = -padding, upper = padding - (filter - 1)).
    // 40 output pixels from (q, p, n) = (3, 2, 0), whose filter base is (3 - 1, 2 - 1), at
    // the filter position (s, r) = (2, 1); channels 2..6 of each.
    let (c, w, h, n) = (8, 6, 5, 2);
    let tensor = numbered((c * w * h * n) as usize);
    let map = im2col_map(&[c, w, h, n], ([-1, -1, 0], [-1, -1, 0]), 4, 40);
    let expected = host_im2col(
        &tensor,
        [8, 6, 5, 2],
        [6, 5],
        ([1, 1], [1, 1]),
        [2, 1],
        2 * 6 + 3,
        (40, 2, 4),
    );
    let (_, out) = run_im2col(
        "im2col4d",
        &map,
        &tensor,
        (&[2, 2, 1, 0], &[2, 1]),
        &vec![0xeeee_eeee; 40 * 4],
    )
    .expect("it runs");
    assert_eq!(out, expected);
}

#[test]
fn im2col_traversal_strides_step_the_filter_base_and_pass_the_last_image() {
    // NHWC 1 x 6 x 7 x 4 words, a 3 x 3 convolution with padding 1 and stride 2
    // (elementStrides {1, 2, 2, 1}): Q = (7 + 2 - 3) / 2 + 1 = 4, P = 3. 16 pixels from
    // output pixel 1 (base (1, -1)) at the filter position (1, 0): pixels 12.. belong to an
    // image past the tensor and read zeros.
    let tensor = numbered(4 * 7 * 6);
    let mut map = im2col_map(&[4, 7, 6, 1], ([-1, -1, 0], [-1, -1, 0]), 4, 16);
    map.element_strides = [1, 2, 2, 1, 1];
    let expected = host_im2col(
        &tensor,
        [4, 7, 6, 1],
        [4, 3],
        ([1, 1], [2, 2]),
        [1, 0],
        1,
        (16, 0, 4),
    );
    let (_, out) = run_im2col(
        "im2col4d",
        &map,
        &tensor,
        (&[0, 1, -1, 0], &[1, 0]),
        &vec![0; 16 * 4],
    )
    .expect("it runs");
    assert_eq!(out, expected);
}

#[test]
fn a_five_dimensional_im2col_load_at_the_filter_centre_reads_the_volume() {
    // NDHWC 1 x 3 x 3 x 3 x 4: padding 1 and a 3 x 3 x 3 filter (corners -1), offsets (1, 1,
    // 1), the filter's centre: the 27 output pixels from the first are the 27 input pixels.
    let tensor = numbered(4 * 27);
    let map = im2col_map(&[4, 3, 3, 3, 1], ([-1, -1, -1], [-1, -1, -1]), 4, 27);
    let (_, out) = run_im2col(
        "im2col5d",
        &map,
        &tensor,
        (&[0, -1, -1, -1, 0], &[1, 1, 1]),
        &vec![0; 27 * 4],
    )
    .expect("it runs");
    assert_eq!(out, tensor);
}

#[test]
fn an_im2col_no_offs_store_writes_the_pixels_inside_the_tensor() {
    // NWC 1 x 5 x 4 words, corners 0 (the whole width): 6 pixels from w = 3 are (3, 0),
    // (4, 0), then image 1 (outside the tensor, not written).
    let tensor = numbered(4 * 5);
    let map = im2col_map(&[4, 5, 1], ([0, 0, 0], [0, 0, 0]), 4, 6);
    let source: Vec<u32> = (0..24).map(|i| 0x5000 + i).collect();
    let (after, _) = run_im2col(
        "store3d_no_offs",
        &map,
        &tensor,
        (&[0, 3, 0], &[0]),
        &source,
    )
    .expect("it runs");
    let mut expected = tensor.clone();
    expected[12..20].copy_from_slice(&source[..8]);
    assert_eq!(after, expected);
}

#[test]
fn an_im2col_filter_base_outside_the_bounding_box_traps() {
    // "The filter corner location must be within the bounding box": W runs from -1 to
    // 6 - 1 - 1 = 4 here.
    let tensor = numbered(8 * 6 * 5);
    let map = im2col_map(&[8, 6, 5, 1], ([-1, -1, 0], [-1, -1, 0]), 8, 4);
    let error = run_im2col(
        "im2col4d",
        &map,
        &tensor,
        (&[0, 5, 0, 0], &[0, 0]),
        &[0; 32],
    )
    .expect_err("W = 5 is past the box");
    assert!(error.contains("outside the bounding box"), "{error}");
    // A tile map used by an .im2col copy.
    let tile = TensorMap {
        im2col: None,
        box_dim: [8, 4, 1, 1, 0],
        ..map
    };
    let error = run_im2col(
        "im2col4d",
        &tile,
        &tensor,
        (&[0, 0, 0, 0], &[0, 0]),
        &[0; 32],
    )
    .expect_err("a tile map");
    assert!(error.contains("tile-mode tensor map"), "{error}");
}

/// `reduce_{op}`: the `bytes` bytes of `src` into shared memory, then
/// `cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group` at `(c0, c1)`.
/// Clean under ptxas 13.5 (`-arch sm_90a`).
fn tensor_reduction_kernels() -> String {
    let mut ptx = String::from(".version 8.0\n.target sm_90a\n.address_size 64\n");
    for op in ["add", "min", "max", "inc", "dec", "and", "or", "xor"] {
        ptx.push_str(&format!(
            r#"
.visible .entry reduce_{op}(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 src, .param .s32 c0, .param .s32 c1, .param .u32 bytes)
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[4096];
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [c1];
    ld.param.u32 %r3, [bytes];
    ld.param.u64 %rd4, [src];
    mov.u32 %r4, 0;
FILL:
    cvt.u64.u32 %rd5, %r4;
    add.u64 %rd6, %rd4, %rd5;
    ld.global.u32 %r6, [%rd6];
    mov.u32 %r5, box;
    add.u32 %r5, %r5, %r4;
    st.shared.u32 [%r5], %r6;
    add.u32 %r4, %r4, 4;
    setp.lt.u32 %p2, %r4, %r3;
    @%p2 bra FILL;
    fence.proxy.async.shared::cta;
    cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group [%rd2, {{%r1, %r2}}], [box];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    ret;
}}
"#
        ));
    }
    ptx
}

/// A 16 x 6 tensor of `width`-byte elements of `CUtensorMapDataType` `data_type` (rows 128
/// bytes apart) and an 8 x 4 box of `src` reduced into it at (12, 4) with `op`: only the
/// 4 x 2 elements inside the tensor change. Returns the tensor and the host's expectation,
/// `combine(old, new)` on those elements.
fn reduce_tensor(
    op: &str,
    (data_type, width): (u32, usize),
    tensor: &[u64],
    src: &[u64],
    combine: &dyn Fn(u64, u64) -> u64,
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let (cols, rows, pitch) = (16usize, 6usize, 128usize);
    let to_bytes = |values: &[u64], stride: usize, count: usize| {
        let mut bytes = vec![0u8; values.len() / count * stride];
        for (i, v) in values.iter().enumerate() {
            let at = i / count * stride + i % count * width;
            bytes[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
        }
        bytes
    };
    let from_bytes = |bytes: &[u8]| -> Vec<u64> {
        (0..rows)
            .flat_map(|y| (0..cols).map(move |x| y * pitch + x * width))
            .map(|at| {
                let mut word = [0u8; 8];
                word[..width].copy_from_slice(&bytes[at..at + width]);
                u64::from_le_bytes(word)
            })
            .collect()
    };
    let map = TensorMap {
        data_type,
        rank: 2,
        global_address: GLOBAL_BASE,
        global_dim: [cols as u64, rows as u64, 0, 0, 0],
        global_strides: [pitch as u64, 0, 0, 0],
        box_dim: [8, 4, 0, 0, 0],
        element_strides: [1, 1, 0, 0, 0],
        ..TensorMap::default()
    };
    let mut tensor_bytes = to_bytes(tensor, pitch, cols);
    let mut src_bytes = to_bytes(src, 8 * width, 8);
    let module = Module::load(&tensor_reduction_kernels(), &Options::default()).expect("it loads");
    let encoded = map.encode();
    let bytes = src_bytes.len() as u32;
    module
        .launch(
            &format!("reduce_{op}"),
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor_bytes),
                Arg::Buffer(&mut src_bytes),
                Arg::S32(12),
                Arg::S32(4),
                Arg::U32(bytes),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    let mut expected = tensor.to_vec();
    for r in 0..4 {
        for c in 0..8 {
            let (x, y) = (12 + c, 4 + r);
            if x < cols && y < rows {
                expected[y * cols + x] = combine(tensor[y * cols + x], src[r * 8 + c]);
            }
        }
    }
    Ok((from_bytes(&tensor_bytes), expected))
}

/// Pseudo-random bits (a 64-bit LCG, Knuth's MMIX constants).
fn bits(seed: u64, count: usize, mask: u64) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) & mask
        })
        .collect()
}

#[test]
fn tensor_reductions_combine_the_box_into_the_elements_inside_the_tensor() {
    type Combine = fn(u64, u64) -> u64;
    let m32 = u64::from(u32::MAX);
    // The ISA's definitions (as for red): add wraps; min/max of .s types are signed; inc is
    // "(old >= b) ? 0 : old + 1", dec "((old == 0) || (old > b)) ? b : old - 1".
    let cases: [(&str, (u32, usize), u64, Combine); 12] = [
        ("add", (2, 4), m32, |a, b| (a + b) & 0xffff_ffff),
        ("add", (4, 8), u64::MAX, |a, b| a.wrapping_add(b)),
        ("min", (3, 4), m32, |a, b| {
            (a as u32 as i32).min(b as u32 as i32) as u32 as u64
        }),
        ("max", (3, 4), m32, |a, b| {
            (a as u32 as i32).max(b as u32 as i32) as u32 as u64
        }),
        ("min", (5, 8), u64::MAX, |a, b| {
            (a as i64).min(b as i64) as u64
        }),
        ("max", (4, 8), u64::MAX, |a, b| a.max(b)),
        ("inc", (2, 4), 15, |a, b| if a >= b { 0 } else { a + 1 }),
        (
            "dec",
            (2, 4),
            15,
            |a, b| if a == 0 || a > b { b } else { a - 1 },
        ),
        ("and", (2, 4), m32, |a, b| a & b),
        ("or", (5, 8), u64::MAX, |a, b| a | b),
        ("xor", (4, 8), u64::MAX, |a, b| a ^ b),
        ("xor", (3, 4), m32, |a, b| a ^ b),
    ];
    for (i, (op, ty, mask, combine)) in cases.into_iter().enumerate() {
        let tensor = bits(2 * i as u64 + 1, 96, mask);
        let src = bits(2 * i as u64 + 2, 32, mask);
        let (got, expected) = reduce_tensor(op, ty, &tensor, &src, &combine).expect("it runs");
        assert_eq!(got, expected, "{op} on data type {}", ty.0);
    }
}

#[test]
fn tensor_float_reductions_add_and_compare_exact_values() {
    // f32: halves and small integers (every sum exact, no subnormals).
    let f32s = |seed| -> Vec<u64> {
        bits(seed, 96, 63)
            .iter()
            .map(|&k| u64::from((k as f32 * 0.5 - 12.0).to_bits()))
            .collect()
    };
    let add32 =
        |a: u64, b: u64| u64::from((f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits());
    let (got, expected) =
        reduce_tensor("add", (7, 4), &f32s(3), &f32s(4)[..32], &add32).expect("it runs");
    assert_eq!(got, expected, "add on .f32");
    // bf16 is the upper half of an f32: small integers, exact in 8 bits of significand.
    let bf16s = |seed| -> Vec<u64> {
        bits(seed, 96, 127)
            .iter()
            .map(|&k| u64::from((k as f32 - 64.0).to_bits() >> 16))
            .collect()
    };
    let bf = |x: u64| f32::from_bits((x as u32) << 16);
    let max_bf16 = |a: u64, b: u64| u64::from(bf(a).max(bf(b)).to_bits() >> 16);
    let add_bf16 = |a: u64, b: u64| u64::from((bf(a) + bf(b)).to_bits() >> 16);
    let (got, expected) =
        reduce_tensor("max", (9, 2), &bf16s(5), &bf16s(6)[..32], &max_bf16).expect("it runs");
    assert_eq!(got, expected, "max on .bf16");
    let (got, expected) =
        reduce_tensor("add", (9, 2), &bf16s(7), &bf16s(8)[..32], &add_bf16).expect("it runs");
    assert_eq!(got, expected, "add on .bf16");
    // f16 (IEEE binary16) of small integers: sign, exponent + 15, the top 10 significand bits.
    let to_f16 = |x: f32| -> u64 {
        if x == 0.0 {
            return 0;
        }
        let b = x.to_bits();
        let exponent = ((b >> 23) & 0xff) as i32 - 127 + 15;
        u64::from((b >> 16) & 0x8000 | (exponent as u32) << 10 | (b & 0x7f_ffff) >> 13)
    };
    let from_f16 = |h: u64| -> f32 {
        let (sign, exponent, fraction) = ((h >> 15) & 1, (h >> 10) & 31, h & 1023);
        if exponent == 0 && fraction == 0 {
            return if sign == 1 { -0.0 } else { 0.0 };
        }
        let magnitude = (1.0 + fraction as f32 / 1024.0) * 2f32.powi(exponent as i32 - 15);
        if sign == 1 { -magnitude } else { magnitude }
    };
    let f16s = |seed| -> Vec<u64> {
        bits(seed, 96, 255)
            .iter()
            .map(|&k| to_f16(k as f32 - 128.0))
            .collect()
    };
    let add_f16 = |a: u64, b: u64| to_f16(from_f16(a) + from_f16(b));
    let (got, expected) =
        reduce_tensor("add", (6, 2), &f16s(9), &f16s(10)[..32], &add_f16).expect("it runs");
    assert_eq!(got, expected, "add on .f16");
    // Combinations the ISA's table leaves out trap: .inc on .s32, .add on .f64, .and on .u16.
    for (op, ty) in [("inc", (3, 4)), ("add", (8, 8)), ("and", (1, 2))] {
        let error =
            reduce_tensor(op, ty, &[0; 96], &[0; 32], &|a, _| a).expect_err("not in the table");
        assert!(error.contains("has no ."), "{error}");
    }
}

/// `fields_{name}`: the map copied into shared memory, the `.field3` replacements `edits`
/// applied, published to `mapbuf` with `tensormap.cp_fenceproxy`, then the box at `(c0, c1)`
/// loaded and its `bytes` copied to `out`. Clean under ptxas 13.5 (`-arch sm_90a`; with
/// `.swizzle_atomicity`, which needs PTX ISA 8.6 and sm_100a, `-arch sm_100a`; with
/// `.swizzle_mode` 4, which ptxas takes for sm_103a only, "value '4' expected to be in range
/// [0..3]" elsewhere, `-arch sm_103a`).
fn replace_fields_kernel(name: &str, edits: &[(&str, u32)]) -> String {
    let target = if edits.contains(&("swizzle_mode", 4)) {
        ".version 8.8\n.target sm_103a"
    } else if edits.iter().any(|(field, _)| *field == "swizzle_atomicity") {
        ".version 8.6\n.target sm_100a"
    } else {
        ".version 8.3\n.target sm_90a"
    };
    let edits: String = edits
        .iter()
        .map(|(field, value)| {
            format!("    tensormap.replace.tile.{field}.shared::cta.b1024.b32 [tm], {value};\n")
        })
        .collect();
    format!(
        r#"{target}
.address_size 64
.visible .entry fields_{name}(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 mapbuf, .param .u64 out, .param .s32 c0, .param .s32 c1, .param .u32 bytes)
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 tm[128];
    .shared .align 1024 .b8 box[2048];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    mov.u32 %r1, 0;
COPYMAP:
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd4, %rd2, %rd3;
    ld.u64 %rd5, [%rd4];
    mov.u32 %r2, tm;
    add.u32 %r2, %r2, %r1;
    st.shared.u64 [%r2], %rd5;
    add.u32 %r1, %r1, 8;
    setp.lt.u32 %p1, %r1, 128;
    @%p1 bra COPYMAP;
{edits}    ld.param.u64 %rd7, [mapbuf];
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd7], [tm], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%rd7], 128;
    ld.param.s32 %r8, [c0];
    ld.param.s32 %r9, [c1];
    ld.param.u32 %r4, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd8, [bar], %r4;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [box], [%rd7, {{%r8, %r9}}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    ld.param.u64 %rd9, [out];
    mov.u32 %r1, 0;
COPY:
    mov.u32 %r6, box;
    add.u32 %r6, %r6, %r1;
    ld.shared.u32 %r7, [%r6];
    cvt.u64.u32 %rd10, %r1;
    add.u64 %rd11, %rd9, %rd10;
    st.global.u32 [%rd11], %r7;
    add.u32 %r1, %r1, 4;
    setp.lt.u32 %p3, %r1, %r4;
    @%p3 bra COPY;
    ret;
}}
"#
    )
}

/// Runs [`replace_fields_kernel`] on `map` over `tensor` (bytes) with the box at `start`;
/// returns `out` (`bytes` long) or the launch's error.
pub(super) fn run_replaced_fields(
    edits: &[(&str, u32)],
    map: &TensorMap,
    tensor: &[u8],
    start: [i32; 2],
    bytes: usize,
) -> Result<Vec<u8>, String> {
    let module =
        Module::load(&replace_fields_kernel("x", edits), &Options::default()).expect("it loads");
    let mut tensor = tensor.to_vec();
    let (mut mapbuf, mut out) = (vec![0u8; 128], vec![0xeeu8; bytes]);
    let encoded = map.encode();
    module
        .launch(
            "fields_x",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor),
                Arg::Buffer(&mut mapbuf),
                Arg::Buffer(&mut out),
                Arg::S32(start[0]),
                Arg::S32(start[1]),
                Arg::U32(bytes as u32),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    Ok(out)
}

#[test]
fn tensormap_replace_of_the_enumerated_fields_takes_table_33s_values() {
    // A `.u16` map (CU_TENSOR_MAP_DATA_TYPE_UINT16), no swizzle, zero fill, 32 x 8 elements
    // with rows 64 bytes apart, a 16 x 8 box. Replaced: `.elemtype` 10 (Table 33: `.bf16`, a
    // floating-point type of 2 bytes), `.fill_mode` 1 ("OOB-NaN fill"), `.swizzle_mode` 1
    // ("32B swizzle"), `.interleave_layout` 0.
    let (cols, rows) = (32usize, 8usize);
    let tensor: Vec<u16> = (0..cols * rows).map(|i| 0x3f80 + i as u16).collect();
    let tensor_bytes: Vec<u8> = tensor.iter().flat_map(|h| h.to_le_bytes()).collect();
    let map = TensorMap {
        data_type: 1,
        rank: 2,
        global_address: GLOBAL_BASE,
        global_dim: [cols as u64, rows as u64, 0, 0, 0],
        global_strides: [cols as u64 * 2, 0, 0, 0],
        box_dim: [16, 8, 0, 0, 0],
        element_strides: [1, 1, 0, 0, 0],
        ..TensorMap::default()
    };
    let edits = [
        ("elemtype", 10),
        ("fill_mode", 1),
        ("swizzle_mode", 1),
        ("interleave_layout", 0),
    ];
    let start = [24, 3];
    let out = run_replaced_fields(&edits, &map, &tensor_bytes, start, 16 * 8 * 2).expect("it runs");
    // The host's box: elements outside the tensor are the bf16 NaN 0x7fff; the 32-byte
    // swizzle moves the 16-byte chunk j of each 128-byte row R of the box to j ^ (R % 2)
    // within its 32-byte span ("Swizzle 16B chunks within 32B span").
    let mut plain = Vec::new();
    for r in 0..8 {
        for c in 0..16 {
            let (x, y) = (start[0] as usize + c, start[1] as usize + r);
            plain.push(if x < cols && y < rows {
                tensor[y * cols + x]
            } else {
                0x7fff
            });
        }
    }
    let mut expected = vec![0u8; plain.len() * 2];
    for (i, value) in plain.iter().enumerate() {
        let byte = i * 2;
        let (row128, chunk, within) = (byte / 128, (byte / 16) % 2, byte % 16);
        let to = byte - byte % 32 + (chunk ^ (row128 % 2)) * 16 + within;
        expected[to..to + 2].copy_from_slice(&value.to_le_bytes());
    }
    assert_eq!(out, expected);
    // An atomicity of sm_100 (32 bytes) on a map without the 128-byte swizzle is no valid
    // combination (Table 14): the copy traps (tma_sm100.rs runs the valid ones).
    let error = run_replaced_fields(&[("swizzle_atomicity", 1)], &map, &tensor_bytes, start, 256)
        .expect_err("refused");
    assert!(error.contains("Table 14"), "{error}");
    // A value outside the table is refused when the module loads, as ptxas 13.5 refuses it
    // ("value '2' expected to be in range [0..1] when .fill_mode modifier is used").
    for (field, value) in [("fill_mode", 2), ("interleave_layout", 3), ("elemtype", 16)] {
        let kernel = replace_fields_kernel("x", &[(field, value)]);
        let error = Module::load(&kernel, &Options::default()).expect_err("refused");
        assert!(
            error.to_string().contains(" must be in 0..="),
            "{field} {value}: {error}"
        );
    }
}

#[test]
fn the_triton_tensor_descriptor_sample_adds_tiles_through_device_made_maps() {
    // `ptx-samples/triton/tma_add.sm_90a.ptx` (Triton 3.9.0, `tl.make_tensor_descriptor`,
    // 16 x 32 tiles of .s32, 4 warps): each program zeroes 128 bytes of shared memory, fills
    // in three tensor maps with `tensormap.replace` (address, rank, box, dimensions, stride,
    // element strides, `.elemtype` 3, `.swizzle_mode` 3), publishes them to its 384 bytes of
    // the global scratch with `tensormap.cp_fenceproxy`, loads two tiles and stores their sum.
    // A 40 x 72 tensor: the last row of tiles reaches past row 40 (zeros loaded, nothing
    // stored). The host's computation: c = a + b, wrapping.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx-samples/triton/tma_add.sm_90a.ptx"
    );
    let source = std::fs::read_to_string(path).expect("the sample is there");
    let module = Module::load(&source, &Options::default()).expect("the sample loads");
    let (m, n) = (40usize, 72usize);
    let a: Vec<u32> = bits(11, m * n, u64::from(u32::MAX))
        .iter()
        .map(|&x| x as u32)
        .collect();
    let b: Vec<u32> = bits(12, m * n, u64::from(u32::MAX))
        .iter()
        .map(|&x| x as u32)
        .collect();
    let (mut a_bytes, mut b_bytes) = (bytes_of(&a), bytes_of(&b));
    let mut c_bytes = vec![0xabu8; m * n * 4];
    let grid = [m.div_ceil(16) as u32, n.div_ceil(32) as u32, 1];
    let mut scratch = vec![0u8; 384 * (grid[0] * grid[1]) as usize];
    let mut profile = vec![0u8; 16];
    let options = LaunchOptions {
        dynamic_shared: 2056,
        ..LaunchOptions::default()
    };
    module
        .launch(
            "tma_add",
            grid,
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut a_bytes),
                Arg::Buffer(&mut b_bytes),
                Arg::Buffer(&mut c_bytes),
                Arg::U32(m as u32),
                Arg::U32(n as u32),
                Arg::Buffer(&mut scratch),
                Arg::Buffer(&mut profile),
            ],
            &options,
        )
        .expect("it runs");
    let expected: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    assert_eq!(u32s(&c_bytes), expected);
}

#[test]
fn the_triton_tensor_descriptor_matmul_pipelines_tma_loads_into_wgmma() {
    // `ptx-samples/triton/tma_matmul.sm_90a.ptx` (Triton 3.9.0, 64 x 64 x 32 tiles, 4 warps,
    // 3 stages, 24,600 bytes of dynamic shared memory): device-made descriptors, TMA loads
    // completing on mbarriers, `wgmma.mma_async.m64n64k16.f32.f16.f16`, a TMA store of C.
    // A 96 x 80 by 80 x 72 product: the last K tile, rows and columns pass the tensors' edges
    // (zero-filled loads, dropped stores). Small integers make every sum exact, so the host's
    // f32 product is the answer bit for bit.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx-samples/triton/tma_matmul.sm_90a.ptx"
    );
    let source = std::fs::read_to_string(path).expect("the sample is there");
    let module = Module::load(&source, &Options::default()).expect("the sample loads");
    let (m, n, k) = (96usize, 72usize, 80usize);
    // f16 of the integers -4..=4: 0, 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 4.0 = 0x4400.
    let f16 = |v: i64| -> u16 {
        let magnitude = [0u16, 0x3c00, 0x4000, 0x4200, 0x4400][v.unsigned_abs() as usize];
        if v < 0 { magnitude | 0x8000 } else { magnitude }
    };
    let a: Vec<i64> = bits(21, m * k, 7).iter().map(|&x| x as i64 - 4).collect();
    let b: Vec<i64> = bits(22, k * n, 7).iter().map(|&x| x as i64 - 3).collect();
    let halves = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|&x| f16(x).to_le_bytes()).collect() };
    let (mut a_bytes, mut b_bytes) = (halves(&a), halves(&b));
    let mut c_bytes = vec![0xabu8; m * n * 4];
    let grid = [m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1];
    let mut scratch = vec![0u8; 384 * (grid[0] * grid[1]) as usize];
    let mut profile = vec![0u8; 16];
    let options = LaunchOptions {
        dynamic_shared: 24_600,
        ..LaunchOptions::default()
    };
    module
        .launch(
            "tma_matmul",
            grid,
            [128, 1, 1],
            &mut [
                Arg::Buffer(&mut a_bytes),
                Arg::Buffer(&mut b_bytes),
                Arg::Buffer(&mut c_bytes),
                Arg::U32(m as u32),
                Arg::U32(n as u32),
                Arg::U32(k as u32),
                Arg::Buffer(&mut scratch),
                Arg::Buffer(&mut profile),
            ],
            &options,
        )
        .expect("it runs");
    let mut expected = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let sum: i64 = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            expected.push((sum as f32).to_bits());
        }
    }
    assert_eq!(u32s(&c_bytes), expected);
}

#[test]
fn the_warp_specialized_triton_matmul_hands_tiles_from_producer_to_consumer_warps() {
    // `ptx-samples/triton/tma_matmul_ws.sm_90a.ptx`: the same product with
    // `tl.range(..., warp_specialize=True)` (12 warps, 57,752 bytes of dynamic shared memory,
    // 512 bytes of global scratch per program): a producer warp issues the TMA loads, the
    // consumer warpgroups wait on mbarriers and run wgmma, `setmaxnreg.inc/dec` trade
    // registers, named barriers order the partitions.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx-samples/triton/tma_matmul_ws.sm_90a.ptx"
    );
    let source = std::fs::read_to_string(path).expect("the sample is there");
    let module = Module::load(&source, &Options::default()).expect("the sample loads");
    let (m, n, k) = (96usize, 72usize, 80usize);
    // f16 of the integers -4..=4: 0, 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 4.0 = 0x4400.
    let f16 = |v: i64| -> u16 {
        let magnitude = [0u16, 0x3c00, 0x4000, 0x4200, 0x4400][v.unsigned_abs() as usize];
        if v < 0 { magnitude | 0x8000 } else { magnitude }
    };
    let a: Vec<i64> = bits(21, m * k, 7).iter().map(|&x| x as i64 - 4).collect();
    let b: Vec<i64> = bits(22, k * n, 7).iter().map(|&x| x as i64 - 3).collect();
    let halves = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|&x| f16(x).to_le_bytes()).collect() };
    let (mut a_bytes, mut b_bytes) = (halves(&a), halves(&b));
    let mut c_bytes = vec![0xabu8; m * n * 4];
    let grid = [m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1];
    let mut scratch = vec![0u8; 512 * (grid[0] * grid[1]) as usize];
    let mut profile = vec![0u8; 16];
    let options = LaunchOptions {
        dynamic_shared: 57_752,
        ..LaunchOptions::default()
    };
    module
        .launch(
            "tma_matmul_ws",
            grid,
            [384, 1, 1],
            &mut [
                Arg::Buffer(&mut a_bytes),
                Arg::Buffer(&mut b_bytes),
                Arg::Buffer(&mut c_bytes),
                Arg::U32(m as u32),
                Arg::U32(n as u32),
                Arg::U32(k as u32),
                Arg::Buffer(&mut scratch),
                Arg::Buffer(&mut profile),
            ],
            &options,
        )
        .expect("it runs");
    let mut expected = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let sum: i64 = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            expected.push((sum as f32).to_bits());
        }
    }
    assert_eq!(u32s(&c_bytes), expected);
}
