//! The sm_100 tensor-copy features: `tensormap.replace` of the swizzle mode 4 (96 bytes) and
//! of the swizzle atomicity, against host layouts written from the PTX ISA's tables (5.5.7
//! "Swizzling Modes"), never from ptxsim's output. The kernels are clean under ptxas 13.5
//! (`-arch sm_100a`, the 96-byte mode `-arch sm_103a`: "value '4' expected to be in range
//! [0..3]" elsewhere).

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};
use ptxsim_exec::memory::GLOBAL_BASE;
use ptxsim_exec::tensor_map::TensorMap;

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A rank-2 map of `.u32` words: `cols x rows`, rows `cols` words apart, at `GLOBAL_BASE`.
fn map2d([cols, rows]: [u64; 2], box_dim: [u32; 2]) -> TensorMap {
    TensorMap {
        data_type: 2,
        rank: 2,
        global_address: GLOBAL_BASE,
        global_dim: [cols, rows, 0, 0, 0],
        global_strides: [cols * 4, 0, 0, 0],
        box_dim: [box_dim[0], box_dim[1], 0, 0, 0],
        element_strides: [1, 1, 0, 0, 0],
        ..TensorMap::default()
    }
}

/// A kernel that copies its tensor map into shared memory, sets `replaces` (each a
/// `tensormap.replace` field and value, in order), publishes the map to `mapbuf` and loads the
/// box at `(c0, c1)` into a 1024-byte-aligned buffer, then writes `bytes` of it to `out`.
fn swizzle_kernel(target: &str, replaces: &[(&str, u32)]) -> String {
    let replaced: String = replaces
        .iter()
        .map(|(field, value)| {
            format!("    tensormap.replace.tile.{field}.shared::cta.b1024.b32 [tm], {value};\n")
        })
        .collect();
    format!(
        r#".version 8.8
.target {target}
.address_size 64
.visible .entry swizzled(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 mapbuf, .param .u64 out, .param .s32 c0, .param .s32 c1, .param .u32 bytes)
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 128 .b8 tm[128];
    .shared .align 1024 .b8 box[4096];
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
{replaced}    ld.param.u64 %rd7, [mapbuf];
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd7], [tm], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%rd7], 128;
    ld.param.s32 %r8, [c0];
    ld.param.s32 %r9, [c1];
    ld.param.u32 %r4, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd8, [bar], %r4;
    cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [box], [%rd7, {{%r8, %r9}}], [bar];
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

/// Runs [`swizzle_kernel`] on the tensor (`cols x rows` words numbered from 1000) with the
/// map's box `box_dim` at `start`; returns the buffer's first `box_dim[0] * box_dim[1]` words
/// and the plain (unswizzled, row after row) box.
fn swizzled_box(
    target: &str,
    replaces: &[(&str, u32)],
    [cols, rows]: [u64; 2],
    box_dim: [u32; 2],
    start: [i32; 2],
) -> (Vec<u32>, Vec<u32>) {
    let source = swizzle_kernel(target, replaces);
    let module = Module::load(&source, &Options::default()).expect("the kernel loads");
    let tensor: Vec<u32> = (0..(cols * rows) as u32).map(|i| 1000 + i).collect();
    let mut tensor_bytes = bytes_of(&tensor);
    let mut mapbuf = vec![0u8; 128];
    let count = (box_dim[0] * box_dim[1]) as usize;
    let mut out = vec![0xeeu8; 4 * count];
    let encoded = map2d([cols, rows], box_dim).encode();
    module
        .launch(
            "swizzled",
            [1, 1, 1],
            [1, 1, 1],
            &mut [
                Arg::Bytes(&encoded),
                Arg::Buffer(&mut tensor_bytes),
                Arg::Buffer(&mut mapbuf),
                Arg::Buffer(&mut out),
                Arg::S32(start[0]),
                Arg::S32(start[1]),
                Arg::U32(4 * count as u32),
            ],
            &LaunchOptions::default(),
        )
        .expect("it runs");
    let plain = (0..box_dim[1] as i64)
        .flat_map(|r| {
            let tensor = &tensor;
            (0..box_dim[0] as i64).map(move |c| {
                let (x, y) = (i64::from(start[0]) + c, i64::from(start[1]) + r);
                tensor[(y * cols as i64 + x) as usize]
            })
        })
        .collect();
    (words(&out), plain)
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
            let (out, plain) = swizzled_box("sm_100a", &replaces, [48, 12], [32, 8], [8, 2]);
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
    let (out, plain) = swizzled_box("sm_103a", &[("swizzle_mode", 4)], [40, 12], [24, 8], [4, 3]);
    assert_eq!(out, by_table(&plain, &table, false));
}

/// Table 14: an atomicity other than 16 bytes with another mode than 128 bytes, and a box wider
/// than the 96-byte swizzle, are no valid map: the copy traps, located.
#[test]
fn invalid_swizzle_combinations_trap_at_the_copy() {
    for (target, replaces, box_dim) in [
        (
            "sm_100a",
            &[("swizzle_mode", 2), ("swizzle_atomicity", 1)][..],
            [16, 8],
        ),
        ("sm_103a", &[("swizzle_mode", 4)][..], [32, 8]),
    ] {
        let source = swizzle_kernel(target, replaces);
        let module = Module::load(&source, &Options::default()).expect("the kernel loads");
        let mut tensor = vec![0u8; 48 * 12 * 4];
        let (mut mapbuf, mut out) = (vec![0u8; 128], vec![0u8; 4096]);
        let encoded = map2d([48, 12], box_dim).encode();
        let error = module
            .launch(
                "swizzled",
                [1, 1, 1],
                [1, 1, 1],
                &mut [
                    Arg::Bytes(&encoded),
                    Arg::Buffer(&mut tensor),
                    Arg::Buffer(&mut mapbuf),
                    Arg::Buffer(&mut out),
                    Arg::S32(0),
                    Arg::S32(0),
                    Arg::U32(box_dim[0] * box_dim[1] * 4),
                ],
                &LaunchOptions::default(),
            )
            .expect_err("the copy traps");
        let text = format!("{error:?}");
        assert!(text.contains("cp.async.bulk.tensor"), "{text}");
        assert!(
            text.contains("Table 14") || text.contains("96-byte swizzle"),
            "{text}"
        );
    }
}
