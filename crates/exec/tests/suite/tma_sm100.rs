//! The sm_100 tensor-copy features: `tensormap.replace` of the swizzle mode 4 (96 bytes) and
//! of the swizzle atomicity, against host layouts written from the PTX ISA's tables (5.5.7
//! "Swizzling Modes"); `.tile::gather4`, `.tile::scatter4` and `.cta_group` against host
//! loops; the packed sub-byte types of `cuTensorMapEncodeTiled` against host boxes written from
//! `cuda.h`'s sentences; never from ptxsim's output. The kernels are clean under ptxas 13.5 (`-arch sm_100a`,
//! the 96-byte mode `-arch sm_103a`: "value '4' expected to be in range [0..3]" elsewhere).

use super::tma::{bytes_of, load2d_tx, map2d, run_replaced_fields, u32s};
use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};
use ptxsim_exec::tensor_map::TensorMap;

/// The tensor (`cols x rows` words numbered from 1000), loaded through a map whose box is
/// `box_dim` at `start` after the `tensormap.replace` edits `replaces` (tma.rs's
/// `replace_fields_kernel`, whose box buffer is 1024-byte aligned): the buffer's first
/// `box_dim[0] * box_dim[1]` words and the plain (unswizzled, row after row) box.
fn swizzled_box(
    replaces: &[(&str, u32)],
    [cols, rows]: [u64; 2],
    box_dim: [u32; 2],
    start: [i32; 2],
) -> Result<(Vec<u32>, Vec<u32>), String> {
    let tensor: Vec<u32> = (0..(cols * rows) as u32).map(|i| 1000 + i).collect();
    let map = map2d(2, [cols, rows], cols, box_dim);
    let count = (box_dim[0] * box_dim[1]) as usize;
    let out = run_replaced_fields(replaces, &map, &bytes_of(&tensor), start, 4 * count)?;
    let plain = (0..box_dim[1] as i64)
        .flat_map(|r| {
            let tensor = &tensor;
            (0..box_dim[0] as i64).map(move |c| {
                let (x, y) = (i64::from(start[0]) + c, i64::from(start[1]) + r);
                tensor[(y * cols as i64 + x) as usize]
            })
        })
        .collect();
    Ok((u32s(&out), plain))
}

/// The box as the ISA's table puts it: the 16-byte chunk at position `p` of 128-byte line `l`
/// of the buffer holds chunk `table[l % rows][p]` of the plain layout's line `l`; `flip` swaps
/// the 8-byte halves of every chunk of the odd lines.
fn by_table(plain: &[u32], table: &[[usize; 8]], flip: bool) -> Vec<u32> {
    let mut out = vec![0u32; plain.len()];
    for (to, slot) in out.iter_mut().enumerate() {
        let byte = 4 * to;
        let (line, position, within) = (byte / 128, byte % 128 / 16, byte % 16);
        let within = if flip && line % 2 == 1 {
            within ^ 8
        } else {
            within
        };
        let from = 128 * line + 16 * table[line % table.len()][position] + within;
        *slot = plain[from / 4];
    }
    out
}

const IDENTITY: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// "128-byte swizzle mode ... 32-byte atomicity sub-mode", "... with 8-byte flip" and "64-byte
/// atomicity sub-mode" (5.5.7), set by `tensormap.replace` of `.swizzle_atomicity` 1, 2, 3 and
/// `.swizzle_mode` 3 (in either order): a box of 32 words x 8 rows, each row one 128-byte line.
#[test]
fn the_128_byte_swizzle_keeps_32_and_64_byte_atoms_intact() {
    let atom32 = [
        IDENTITY,
        [2, 3, 0, 1, 6, 7, 4, 5],
        [4, 5, 6, 7, 0, 1, 2, 3],
        [6, 7, 4, 5, 2, 3, 0, 1],
    ];
    let atom64 = [IDENTITY, [4, 5, 6, 7, 0, 1, 2, 3]];
    let cases: [(u32, &[[usize; 8]], bool); 3] =
        [(1, &atom32, false), (2, &atom32, true), (3, &atom64, false)];
    for (atomicity, table, flip) in cases {
        for replaces in [
            [("swizzle_atomicity", atomicity), ("swizzle_mode", 3)],
            [("swizzle_mode", 3), ("swizzle_atomicity", atomicity)],
        ] {
            let (out, plain) = swizzled_box(&replaces, [48, 12], [32, 8], [8, 2]).expect("it runs");
            assert_eq!(
                out,
                by_table(&plain, table, flip),
                "atomicity {atomicity}, {replaces:?}"
            );
        }
    }
}

/// "96 byte swizzle mode" (sm_103a: ptxas 13.5 takes `.swizzle_mode` 4 there only): the ISA's
/// table `0 1 2 3 4 5 6 7` / `1 0 3 2 5 4 7 6`, repeating, over the buffer's 128-byte lines; a
/// box of 24 words (96 bytes, "Box-Size[0] must be less than or equal to 96B") x 8 rows lies
/// densely, its rows crossing the lines.
#[test]
fn the_96_byte_swizzle_follows_the_isas_table() {
    let table = [IDENTITY, [1, 0, 3, 2, 5, 4, 7, 6]];
    let (out, plain) =
        swizzled_box(&[("swizzle_mode", 4)], [40, 12], [24, 8], [4, 3]).expect("it runs");
    assert_eq!(out, by_table(&plain, &table, false));
}

/// Table 14: an atomicity other than 16 bytes with another mode than 128 bytes, and a box wider
/// than the 96-byte swizzle, are no valid map: the copy traps, located.
#[test]
fn invalid_swizzle_combinations_trap_at_the_copy() {
    for (replaces, box_dim) in [
        (
            &[("swizzle_mode", 2), ("swizzle_atomicity", 1)][..],
            [16, 8],
        ),
        (&[("swizzle_mode", 4)][..], [32, 8]),
    ] {
        let error = swizzled_box(replaces, [48, 12], box_dim, [0, 0]).expect_err("it traps");
        assert!(error.contains("cp.async.bulk.tensor"), "{error}");
        assert!(
            error.contains("Table 14") || error.contains("96-byte swizzle"),
            "{error}"
        );
    }
}

/// `gather4`: one thread gathers four rows (`.tile::gather4`, rows `r0..r3` from column `c0`)
/// into shared memory, completing on an mbarrier that expects `bytes`, and writes the buffer
/// to `out`; `scatter4`: the bytes of `out` into shared memory, then `.tile::scatter4` to the
/// four rows. Clean under ptxas 13.5 (`-arch sm_100a`).
const FOUR_ROWS: &str = r#".version 8.6
.target sm_100a
.address_size 64
.visible .entry gather4(.param .align 64 .b8 tmap[128], .param .u64 tensor, .param .u64 out,
    .param .s32 c0, .param .s32 r0, .param .s32 r1, .param .s32 r2, .param .s32 r3,
    .param .u32 bytes)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[2048];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [r0];
    ld.param.s32 %r3, [r1];
    ld.param.s32 %r4, [r2];
    ld.param.s32 %r5, [r3];
    ld.param.u32 %r6, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r6;
    cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [box], [%rd2, {%r1, %r2, %r3, %r4, %r5}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    ld.param.u64 %rd4, [out];
    mov.u32 %r7, 0;
COPY:
    mov.u32 %r8, box;
    add.u32 %r8, %r8, %r7;
    ld.shared.u32 %r9, [%r8];
    cvt.u64.u32 %rd5, %r7;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r9;
    add.u32 %r7, %r7, 4;
    setp.lt.u32 %p2, %r7, %r6;
    @%p2 bra COPY;
    ret;
}

.visible .entry scatter4(.param .align 64 .b8 tmap[128], .param .u64 tensor, .param .u64 out,
    .param .s32 c0, .param .s32 r0, .param .s32 r1, .param .s32 r2, .param .s32 r3,
    .param .u32 bytes)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 box[2048];
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    ld.param.s32 %r1, [c0];
    ld.param.s32 %r2, [r0];
    ld.param.s32 %r3, [r1];
    ld.param.s32 %r4, [r2];
    ld.param.s32 %r5, [r3];
    ld.param.u32 %r6, [bytes];
    ld.param.u64 %rd4, [out];
    mov.u32 %r7, 0;
FILL:
    cvt.u64.u32 %rd5, %r7;
    add.u64 %rd6, %rd4, %rd5;
    ld.global.u32 %r9, [%rd6];
    mov.u32 %r8, box;
    add.u32 %r8, %r8, %r7;
    st.shared.u32 [%r8], %r9;
    add.u32 %r7, %r7, 4;
    setp.lt.u32 %p2, %r7, %r6;
    @%p2 bra FILL;
    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd2, {%r1, %r2, %r3, %r4, %r5}], [box];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    ret;
}
"#;

/// Runs `entry` of `source` ([`FOUR_ROWS`] or a variant of it) on a `cols x rows` tensor of numbered words with the map's
/// box `box_dim`, the column `c0` and the four rows; `out` goes in (the scatter's source) and
/// comes back with the tensor, or the launch's error.
fn four_rows(
    (source, entry): (&str, &str),
    [cols, rows]: [u64; 2],
    box_dim: [u32; 2],
    c0: i32,
    row: [i32; 4],
    out: &mut [u32],
) -> Result<Vec<u32>, String> {
    let module = Module::load(source, &Options::default()).expect("the kernels load");
    let tensor: Vec<u32> = (0..(cols * rows) as u32).map(|i| 1000 + i).collect();
    let mut tensor_bytes = bytes_of(&tensor);
    let mut out_bytes = bytes_of(out);
    let encoded = map2d(2, [cols, rows], cols, box_dim).encode();
    module
        .launch(
            entry,
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor_bytes),
                Arg::Buffer(&mut out_bytes),
                Arg::S32(c0),
                Arg::S32(row[0]),
                Arg::S32(row[1]),
                Arg::S32(row[2]),
                Arg::S32(row[3]),
                Arg::U32(4 * out.len() as u32),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    out.copy_from_slice(&u32s(&out_bytes));
    Ok(u32s(&tensor_bytes))
}

/// `.tile::gather4` (5.5.3.4): "four rows in the source 2D tensor are combined to form single
/// 2D destination tensor", row `row_idx_i` of `boxDim[0]` elements from `col_idx` as row `i`;
/// the elements outside the tensor (a row past its end, columns past its edge) are zeros, and
/// the mbarrier completes on the bytes of all four rows (else the kernel would wait forever).
#[test]
fn gather4_loads_four_rows_into_one_box() {
    let (cols, rows) = (40u64, 20u64);
    let row = [17, 3, 25, 0];
    let mut out = vec![0xeeee_eeee; 4 * 16];
    let tensor = four_rows(
        (FOUR_ROWS, "gather4"),
        [cols, rows],
        [16, 1],
        30,
        row,
        &mut out,
    )
    .expect("it runs");
    let mut expected = Vec::new();
    for &r in &row {
        for k in 0..16 {
            let x = 30 + k;
            let inside = x < cols as i32 && r < rows as i32;
            expected.push(if inside {
                tensor[(r as u64 * cols + x as u64) as usize]
            } else {
                0
            });
        }
    }
    assert_eq!(out, expected);
}

/// `.tile::scatter4`: "single 2D source tensor is divided into four rows in the 2D destination
/// tensor"; only the elements inside the tensor are written (as in tile mode).
#[test]
fn scatter4_stores_a_box_into_four_rows() {
    let (cols, rows) = (40u64, 20u64);
    let row = [5, 19, 0, 20];
    let mut out: Vec<u32> = (0..4 * 8).map(|i| 70_000 + i).collect();
    let source = out.clone();
    let tensor = four_rows(
        (FOUR_ROWS, "scatter4"),
        [cols, rows],
        [8, 1],
        34,
        row,
        &mut out,
    )
    .expect("it runs");
    let mut expected: Vec<u32> = (0..(cols * rows) as u32).map(|i| 1000 + i).collect();
    for (i, &r) in row.iter().enumerate() {
        for k in 0..8u64 {
            let x = 34 + k;
            if x < cols && (r as u64) < rows {
                expected[(r as u64 * cols + x) as usize] = source[i * 8 + k as usize];
            }
        }
    }
    assert_eq!(tensor, expected);
}

/// The four-row modes take five coordinates ("{col_idx, row_idx0, row_idx1, row_idx2,
/// row_idx3} | Fixed length vector of size 5"; ptxas 13.5: "Argument vector size mismatch"):
/// the checker refuses two when the module is loaded (E0322), as ptxas refuses it.
#[test]
fn a_four_row_copy_takes_five_coordinates() {
    let two = FOUR_ROWS.replace("{%r1, %r2, %r3, %r4, %r5}], [bar]", "{%r1, %r2}], [bar]");
    let error = Module::load(&two, &Options::default()).expect_err("refused");
    let error = format!("{error:?}");
    assert!(error.contains("E0322"), "{error}");
    assert!(error.contains("takes 5 coordinates, not 2"), "{error}");
}

/// A map whose box is more than one row high ("The size of the bounding box in the dimension 1
/// must be one") traps at the copy, located.
#[test]
fn a_four_row_copy_with_a_box_of_several_rows_traps() {
    let mut out = vec![0; 4 * 16];
    let error = four_rows(
        (FOUR_ROWS, "gather4"),
        [40, 20],
        [16, 2],
        0,
        [0, 1, 2, 3],
        &mut out,
    )
    .expect_err("it traps");
    assert!(error.contains("must be one"), "{error}");
    assert!(error.contains("tile::gather4"), "{error}");
}

/// In a cluster of two CTAs, each CTA arms its mbarrier (CTA 0 for `lead` bytes, CTA 1 for
/// `bytes`); CTA 0 multicasts the box into both (`ctaMask` 3) with `.cta_group::{group}`,
/// naming its own mbarrier, and waits on it; after a cluster barrier CTA 1 records whether its
/// own mbarrier's phase completed (`mbarrier.test_wait`) in `flags[1]`, and each CTA copies its
/// box to `out + rank * bytes`. Clean under ptxas 13.5 (`-arch sm_100a`).
fn pair_kernel(group: u32) -> String {
    format!(
        r#".version 8.6
.target sm_100a
.address_size 64
.visible .entry pair(.param .align 64 .b8 tmap[128], .param .u64 tensor, .param .u64 out,
    .param .u64 flags, .param .s32 c0, .param .s32 c1, .param .u32 bytes, .param .u32 lead)
.reqnctapercluster 2, 1, 1
{{
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
    ld.param.u32 %r10, [lead];
    mov.u32 %r8, %cluster_ctarank;
    setp.ne.u32 %p3, %r8, 0;
    selp.u32 %r11, %r3, %r10, %p3;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r11;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @%p3 bra DONE;
    mov.b16 %rs1, 3;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::{group} [box], [%rd2, {{%r1, %r2}}], [bar], %rs1;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
DONE:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;
    selp.u32 %r12, 1, 0, %p2;
    ld.param.u64 %rd9, [flags];
    mul.wide.u32 %rd10, %r8, 4;
    add.u64 %rd9, %rd9, %rd10;
    st.global.u32 [%rd9], %r12;
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
}}
"#
    )
}

/// `.cta_group::2` "is used to signal either the odd numbered CTA or the even numbered CTA
/// among the CTA-Pair": a multicast into both CTAs of a pair naming CTA 0's mbarrier completes
/// both copies' bytes there (CTA 0 expects twice the box; CTA 1's mbarrier gets nothing and
/// its phase stays open), where `.cta_group::1` completes each copy on the mbarrier at the same
/// offset in its own CTA. The data lands in both CTAs either way.
#[test]
fn cta_group_2_signals_the_mbarrier_of_the_named_cta_of_the_pair() {
    let (cols, rows) = (32u64, 8u64);
    let bytes = 8 * 4 * 4;
    for (group, lead, cta1_complete) in [(2, 2 * bytes, 0), (1, bytes, 1)] {
        let module = Module::load(&pair_kernel(group), &Options::default()).expect("it loads");
        let tensor: Vec<u32> = (0..(cols * rows) as u32).map(|i| 1000 + i).collect();
        let mut tensor_bytes = bytes_of(&tensor);
        let mut out = vec![0xeeu8; 2 * bytes as usize];
        let mut flags = vec![0xffu8; 8];
        let encoded = map2d(2, [cols, rows], cols, [8, 4]).encode();
        module
            .launch(
                "pair",
                [2, 1, 1],
                [1, 1, 1],
                &mut [
                    Arg::Bytes(&encoded),
                    Arg::Buffer(&mut tensor_bytes),
                    Arg::Buffer(&mut out),
                    Arg::Buffer(&mut flags),
                    Arg::S32(12),
                    Arg::S32(2),
                    Arg::U32(bytes),
                    Arg::U32(lead),
                ],
                &LaunchOptions::default(),
            )
            .expect("it runs");
        let one: Vec<u32> = (0..4)
            .flat_map(|r| (0..8).map(move |c| 1000 + (2 + r) * cols as u32 + 12 + c))
            .collect();
        assert_eq!(u32s(&out), [one.clone(), one].concat(), "group {group}");
        assert_eq!(u32s(&flags), [1, cta1_complete], "group {group}");
    }
}

/// A rank-2 map of a packed sub-byte type (`CUtensorMapDataType` 13 `16U4_ALIGN8B`, 14
/// `16U4_ALIGN16B`, 15 `16U6_ALIGN16B`): `values x rows` values ("Dimension for the packed data
/// types must reflect the number of individual U# values"), rows `pitch` bytes apart, at
/// `GLOBAL_BASE`.
fn packed_map(
    data_type: u32,
    [values, rows]: [u64; 2],
    pitch: u64,
    box_dim: [u32; 2],
) -> TensorMap {
    // map2d's rows are `pitch` words apart; these are `pitch` bytes apart.
    let mut map = map2d(data_type, [values, rows], 0, box_dim);
    map.global_strides[0] = pitch;
    map
}

/// The host's packed box, from `cuda.h`'s sentences on the packed types: each unit of 16 values
/// (`unit_bytes` packed bytes: 8 for U4, 12 for U6) of row `start[1] + r` from value `start[0]`
/// on, "aligned as 16 bytes" in shared memory with the gap after the packed bytes (`Some` for
/// each packed byte, `None` for the gap, whose bytes no sentence gives); zeros outside the
/// tensor (`cols` values of `unit_bytes / 16` bytes each).
fn host_packed_box(
    tensor: &[u8],
    (cols, rows, pitch): (i64, i64, i64),
    start: [i64; 2],
    [box_values, box_rows]: [i64; 2],
    unit_bytes: i64,
) -> Vec<Option<u8>> {
    let mut expected = Vec::new();
    for r in 0..box_rows {
        for unit in 0..box_values / 16 {
            let first = start[0] + 16 * unit;
            let y = start[1] + r;
            let inside = (0..cols).contains(&first) && (0..rows).contains(&y);
            for b in 0..16 {
                expected.push((b < unit_bytes).then(|| {
                    if inside {
                        tensor[(y * pitch + first / 16 * unit_bytes + b) as usize]
                    } else {
                        0
                    }
                }));
            }
        }
    }
    expected
}

/// `16U4_ALIGN16B` ("There are 8 byte gaps between every 8 byte chunk of packed values") and
/// `16U6_ALIGN16B` ("4 byte gaps between every 12 byte chunk"): a box of 128 values (the
/// required `boxDim[0]`) x 2 rows, each unit of 16 values in 16 bytes of shared memory, inside
/// the tensor and half past its last column (zeros). The complete-tx counts the packed bytes (8
/// or 12 a unit), as CUTLASS's block-scaled collectives expect (`sizeof_bits` of the value per
/// value), whose FP4/FP6 operands of `tcgen05.mma.kind::f8f6f4` come in this way.
#[test]
fn packed_16_byte_aligned_types_leave_a_gap_after_each_unit() {
    for (data_type, unit_bytes) in [(14u32, 8i64), (15, 12)] {
        // 256 values ("globalDim[0] must be a multiple of 128") x 4 rows, rows a multiple of
        // 32 bytes apart.
        let pitch = 256 / 16 * unit_bytes + 32;
        let tensor: Vec<u8> = (0..pitch * 4).map(|i| (i * 7 + 3) as u8).collect();
        let map = packed_map(data_type, [256, 4], pitch as u64, [128, 2]);
        let tx = (2 * 128 / 16 * unit_bytes) as u32;
        for start in [[128, 1], [192, 3]] {
            let out = load2d_tx(
                "load2d",
                &map,
                &tensor,
                [start[0] as i32, start[1] as i32],
                (tx, 256),
            );
            let expected = host_packed_box(&tensor, (256, 4, pitch), start, [128, 2], unit_bytes);
            for (i, (got, want)) in out.iter().zip(&expected).enumerate() {
                if let Some(want) = want {
                    assert_eq!(got, want, "type {data_type}, box at {start:?}, byte {i}");
                }
            }
        }
    }
}

/// `16U4_ALIGN8B` ("There are no gaps between packed values"): two values to a byte, a box of 64
/// values x 4 rows (32 bytes a row) inside the tensor and across its last column and row.
#[test]
fn packed_4_bit_values_without_gaps_move_two_to_a_byte() {
    // 96 values x 6 rows, rows 64 bytes apart.
    let tensor: Vec<u8> = (0..64 * 6).map(|i| (i * 5 + 1) as u8).collect();
    let map = packed_map(13, [96, 6], 64, [64, 4]);
    for start in [[32i64, 1i64], [64, 4], [-32, -2]] {
        let out = load2d_tx(
            "load2d",
            &map,
            &tensor,
            [start[0] as i32, start[1] as i32],
            (128, 128),
        );
        let mut expected = Vec::new();
        for r in 0..4 {
            for b in 0..32 {
                let (value, y) = (start[0] + 2 * b, start[1] + r);
                let inside = (0..96).contains(&value) && (0..6).contains(&y);
                expected.push(if inside {
                    tensor[(y * 64 + value / 2) as usize]
                } else {
                    0
                });
            }
        }
        assert_eq!(out, expected, "box at {start:?}");
    }
}

/// The documented rules of the packed types refuse a map: `boxDim[0]` other than 128 for the
/// 16-byte-aligned types, `globalDim[0]` not a multiple of 128 (or of 2 for `16U4_ALIGN8B`), a
/// stride that is no multiple of 32, a swizzle not listed for the type, the NaN fill.
#[test]
fn packed_type_rules_refuse_bad_maps() {
    let good = packed_map(15, [256, 4], 224, [128, 2]);
    assert_eq!(good.validate(), Ok(()));
    let mut cases = Vec::new();
    let mut map = good;
    map.box_dim[0] = 64;
    cases.push((map, "boxDim[0]"));
    let mut map = good;
    map.global_dim[0] = 192;
    cases.push((map, "globalDim[0]"));
    let mut map = good;
    map.global_strides[0] = 208;
    cases.push((map, "multiple of 32"));
    let mut map = good;
    map.swizzle = 2;
    cases.push((map, "swizzle"));
    let mut map = good;
    map.data_type = 14;
    map.swizzle = 6;
    cases.push((map, "swizzle"));
    let mut map = good;
    map.oob_fill = 1;
    cases.push((map, "oobFill"));
    let mut map = packed_map(13, [95, 6], 64, [64, 4]);
    cases.push((map, "multiple of 2"));
    map = packed_map(13, [96, 6], 64, [48, 4]);
    cases.push((map, "16 bytes"));
    for (map, rule) in cases {
        let error = map.validate().expect_err("refused");
        assert!(error.contains(rule), "{rule}: {error}");
    }
}
