//! `cp.async.bulk.tensor`'s `.im2col::w` and `.im2col::w::128` loads (PTX ISA 8.6, sm_100)
//! against host loops written from the ISA's description (PTX ISA 9.0, 5.5.5 "im2col::w and
//! im2col::w::128 modes": the bounding box in W, `wHalo`, `wOffset`, the traversal stride) and
//! the byte counts of its two worked examples, never from ptxsim's output. The kernels are
//! clean under ptxas 13.5 (`-arch sm_100a`). Every load completes on an mbarrier that expects
//! the byte count the host computed: a copy moving more or fewer bytes would never complete
//! the phase (or overflow the count), so the tests check the complete-tx too.

use super::tma::{bytes_of, u32s};
use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};
use ptxsim_exec::memory::GLOBAL_BASE;
use ptxsim_exec::tensor_map::{Im2col, OOB_FILL_NAN, SWIZZLE_128B, TensorMap};
use ptxsim_isa::ops::Im2colWide;

/// `wide{dims}d`: one thread loads the `mode` column at the coordinates `c0..` with
/// `{wHalo, wOffset}` into a 1024-byte-aligned buffer, completing on an mbarrier that expects
/// `bytes`, and copies `bytes` of the buffer to `out`.
fn kernel(dims: usize, mode: &str) -> String {
    let coordinate_params: String = (0..dims).map(|i| format!(", .param .s32 c{i}")).collect();
    let load_coordinates: String = (0..dims)
        .map(|i| format!("    ld.param.s32 %r{}, [c{i}];\n", 10 + i))
        .collect();
    let coordinates = (0..dims)
        .map(|i| format!("%r{}", 10 + i))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#".version 8.6
.target sm_100a
.address_size 64

.visible .entry wide{dims}d(.param .align 64 .b8 tmap[128], .param .u64 tensor,
    .param .u64 out{coordinate_params}, .param .u16 halo, .param .u16 offset, .param .u32 bytes)
{{
    .reg .b16 %rs<4>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<16>;
    .reg .pred %p<4>;
    .shared .align 1024 .b8 box[20480];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
{load_coordinates}    ld.param.u16 %rs1, [halo];
    ld.param.u16 %rs2, [offset];
    ld.param.u32 %r3, [bytes];
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r3;
    cp.async.bulk.tensor.{dims}d.shared::cta.global.{mode}.mbarrier::complete_tx::bytes [box], [%rd2, {{{coordinates}}}], [bar], {{%rs1, %rs2}};
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
"#
    )
}

/// A dense NWC / NHWC / NDHWC tensor (`dims`, C first) of `data_type` words of `bytes` each at
/// `GLOBAL_BASE`, as `cuTensorMapEncodeIm2colWide` describes it: W corners `corners`,
/// `channels` per pixel, `pixels` per column, W traversal stride `stride`, the 128-byte
/// swizzle.
fn wide_map(
    (data_type, bytes): (u32, u64),
    dims: &[u64],
    mode: Im2colWide,
    corners: [i32; 2],
    (channels, pixels, stride): (u32, u32, u32),
) -> TensorMap {
    let mut map = TensorMap {
        data_type,
        rank: dims.len() as u32,
        global_address: GLOBAL_BASE,
        element_strides: [1, stride, 1, 1, 1],
        swizzle: SWIZZLE_128B,
        im2col: Some(Im2col {
            lower: [corners[0], 0, 0],
            upper: [corners[1], 0, 0],
            channels_per_pixel: channels,
            pixels_per_column: pixels,
            wide: Some(mode),
        }),
        ..TensorMap::default()
    };
    let mut pitch = bytes;
    for (i, &dim) in dims.iter().enumerate() {
        map.global_dim[i] = dim;
        if i > 0 {
            map.global_strides[i - 1] = pitch;
        }
        pitch *= dim;
    }
    map
}

/// Runs `wide{dims}d` of [`kernel`] and returns `out` (`bytes` long), or the launch's error.
fn run(
    mode: &str,
    map: &TensorMap,
    tensor: &[u8],
    coordinates: &[i32],
    [halo, offset]: [u16; 2],
    bytes: usize,
) -> Result<Vec<u8>, String> {
    let dims = coordinates.len();
    let module = Module::load(&kernel(dims, mode), &Options::default()).expect("the kernel loads");
    let mut tensor = tensor.to_vec();
    let mut out = vec![0xeeu8; bytes];
    let encoded = map.encode();
    let mut args = vec![
        Arg::Bytes(&encoded),
        Arg::Buffer(&mut tensor),
        Arg::Buffer(&mut out),
    ];
    args.extend(coordinates.iter().map(|&c| Arg::S32(c)));
    args.push(Arg::Bits(u64::from(halo)));
    args.push(Arg::Bits(u64::from(offset)));
    args.push(Arg::U32(bytes as u32));
    module
        .launch(
            &format!("wide{dims}d"),
            [1, 1, 1],
            [1, 1, 1],
            &mut args,
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    drop(args);
    Ok(out)
}

/// The pixels (W, N) of a column as the ISA describes the walk: W from the instruction's W
/// coordinate plus `wOffset`, by the traversal stride, inside the bounding box `[lower +
/// wOffset, w_dim - 1 + upper + wOffset]` ("Bounding Box Lower Corner W += wOffset, Bounding
/// Box Upper Corner W += wOffset, W += wOffset"); past its right corner the next image from
/// the left corner. After every `group` pixels of the column (`pixelsPerColumn` in
/// `.im2col::w`, "after every 32 elements" in `.im2col::w::128`) the `halo` pixels that follow
/// the group's last pixel along W ("filter halo elements"), "next to the main row pixels".
fn host_pixels(
    (first_w, first_n): (i64, i64),
    w_dim: i64,
    [lower, upper]: [i64; 2],
    (pixels, group, stride): (i64, i64, i64),
    [halo, offset]: [i64; 2],
) -> Vec<(i64, i64)> {
    let (left, right) = (lower + offset, w_dim - 1 + upper + offset);
    // The main pixels, image by image.
    let mut main = Vec::new();
    let (mut w, mut n) = (first_w + offset, first_n);
    while (main.len() as i64) < pixels {
        if w > right {
            w = left;
            n += 1;
            continue;
        }
        main.push((w, n));
        w += stride;
    }
    let mut column = Vec::new();
    for chunk in main.chunks(group as usize) {
        column.extend_from_slice(chunk);
        let (last_w, n) = chunk[chunk.len() - 1];
        column.extend((1..=halo).map(|k| (last_w + k * stride, n)));
    }
    column
}

/// The channels `c0 .. c0 + channels` of each pixel of `column` in an NHWC tensor of `u32`
/// words (`[c_dim, w_dim, h, n_dim]`, the row at H `h`), `fill` outside the tensor.
fn host_words(
    tensor: &[u32],
    [c_dim, w_dim, h_dim, n_dim]: [i64; 4],
    h: i64,
    column: &[(i64, i64)],
    (c0, channels): (i64, i64),
    fill: u32,
) -> Vec<u32> {
    let mut words = Vec::new();
    for &(w, n) in column {
        for c in c0..c0 + channels {
            let inside = (0..c_dim).contains(&c)
                && (0..w_dim).contains(&w)
                && (0..h_dim).contains(&h)
                && (0..n_dim).contains(&n);
            words.push(if inside {
                tensor[(((n * h_dim + h) * w_dim + w) * c_dim + c) as usize]
            } else {
                fill
            });
        }
    }
    words
}

/// The 128-byte swizzle of the ISA's table (5.5.7, "128-byte swizzle mode": the 16-byte
/// chunks of 128-byte line `l` of a 1024-byte-aligned buffer in the order `0 1 .. 7` XOR `l %
/// 8`) applied to the plain layout `plain` (one pixel of 128 bytes per line here).
fn swizzled(plain: &[u32]) -> Vec<u32> {
    let mut out = vec![0u32; plain.len()];
    for (from, &word) in plain.iter().enumerate() {
        let byte = 4 * from;
        let (line, chunk, within) = (byte / 128, byte % 128 / 16, byte % 16);
        let to = 128 * line + 16 * (chunk ^ (line % 8)) + within;
        out[to / 4] = word;
    }
    out
}

fn numbered(words: usize) -> Vec<u32> {
    (0..words as u32).map(|i| 0x1000 + i * 3).collect()
}

/// `.im2col::w` over an NHWC tensor (C 40, W 20, H 3, N 2) with corners `-1, 0`, `wOffset` 1
/// and `wHalo` 2: 24 pixels from W -1 (+1) of image 0, row H 1; the walk passes W 20 (inside
/// the box, outside the tensor: zeros) and goes on in image 1 from the box's left corner; the
/// two halo pixels follow the last pixel. 32 channels from C 4.
#[test]
fn an_im2col_w_load_walks_w_with_its_halo_and_offset() {
    let shape = [40i64, 20, 3, 2];
    let tensor = numbered(shape.iter().product::<i64>() as usize);
    let map = wide_map((2, 4), &[40, 20, 3, 2], Im2colWide::W, [-1, 0], (32, 24, 1));
    let column = host_pixels((-1, 0), 20, [-1, 0], (24, 24, 1), [2, 1]);
    assert_eq!(column.len(), 26);
    let plain = host_words(&tensor, shape, 1, &column, (4, 32), 0);
    let out = run(
        "im2col::w",
        &map,
        &bytes_of(&tensor),
        &[4, -1, 1, 0],
        [2, 1],
        4 * plain.len(),
    )
    .expect("it runs");
    assert_eq!(u32s(&out), swizzled(&plain));
}

/// At the tensor's edge, with NaN fill on a `.f32` map: the first element two pixels left of
/// the box ("The first element can lie outside of the Bounding Box in the W-dimension only and
/// only on the left side"), channels past C (C 40 from 12), the last image's row running out
/// into an image past N, and a traversal stride of 3; every element outside the tensor is the
/// NaN `0x7fffffff`.
#[test]
fn an_im2col_w_load_at_the_tensor_edge_fills_outside_elements() {
    let shape = [40i64, 20, 3, 2];
    let tensor = numbered(shape.iter().product::<i64>() as usize);
    let mut map = wide_map(
        (7, 4),
        &[40, 20, 3, 2],
        Im2colWide::W,
        [-1, -2],
        (32, 10, 3),
    );
    map.oob_fill = OOB_FILL_NAN;
    let column = host_pixels((-3, 1), 20, [-1, -2], (10, 10, 3), [3, 0]);
    let plain = host_words(&tensor, shape, 2, &column, (12, 32), 0x7fff_ffff);
    assert!(column.iter().any(|&(_, n)| n == 2) && column[0].0 < -1);
    let out = run(
        "im2col::w",
        &map,
        &bytes_of(&tensor),
        &[12, -3, 2, 1],
        [3, 0],
        4 * plain.len(),
    )
    .expect("it runs");
    assert_eq!(u32s(&out), swizzled(&plain));
}

/// `.im2col::w::128` over an NWC tensor (C 32, W 150, N 2) with a traversal stride of 2,
/// `wOffset` 2 and `wHalo` 3: 128 pixels ("Pixels-per-Column is ignored": the map says 7),
/// three halo pixels after every 32 ("the halo elements are loaded after every 32 elements"),
/// the walk passing the box's right corner into image 1.
#[test]
fn an_im2col_w_128_load_puts_halo_pixels_after_every_32() {
    let shape = [32i64, 150, 1, 2];
    let tensor = numbered(shape.iter().product::<i64>() as usize);
    let map = wide_map((2, 4), &[32, 150, 2], Im2colWide::W128, [0, 0], (32, 7, 2));
    let column = host_pixels((5, 0), 150, [0, 0], (128, 32, 2), [3, 2]);
    assert_eq!(column.len(), 128 + 4 * 3);
    let plain = host_words(&tensor, shape, 0, &column, (0, 32), 0);
    let out = run(
        "im2col::w::128",
        &map,
        &bytes_of(&tensor),
        &[0, 5, 0],
        [3, 2],
        4 * plain.len(),
    )
    .expect("it runs");
    assert_eq!(u32s(&out), swizzled(&plain));
}

/// The ISA's two `wHalo` examples (5.5.5.3), `.u16` channels: "Tensor Size [0] = 128, [1] =
/// 9, [2] = 7, [3] = 64, Pixels-per-column = 128, Channels-per-pixel = 64, Bounding Box Lower
/// Corner W = 0, Bounding Box Upper Corner W = 0, Tensor Coordinates in the instruction = (7,
/// 2, 3, 0), wHalo in the instruction = 2": `.im2col::w` "loads 128 pixels and the two halo
/// pixels"; `.im2col::w::128` "loads 128 elements such that after every 32 elements, wHalo
/// number of elements are loaded": 130 and 136 pixels of 128 bytes, the bytes the mbarrier
/// expects.
#[test]
fn the_isas_halo_examples_move_their_pixel_counts() {
    let elements: usize = 128 * 9 * 7 * 64;
    let tensor: Vec<u8> = (0..elements)
        .flat_map(|i| (i as u16).to_le_bytes())
        .collect();
    for (mode, name, pixels) in [
        (Im2colWide::W, "im2col::w", 130),
        (Im2colWide::W128, "im2col::w::128", 136),
    ] {
        let map = wide_map((1, 2), &[128, 9, 7, 64], mode, [0, 0], (64, 128, 1));
        let out = run(name, &map, &tensor, &[7, 2, 3, 0], [2, 0], pixels * 128)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        // The first pixel's first chunk (not swizzled: line 0): channels 7.. of (W 2, H 3).
        let first = 7 + 128 * (2 + 9 * 3);
        let got = u16::from_le_bytes([out[0], out[1]]);
        assert_eq!(usize::from(got), first, "{name}");
    }
}

/// Values the ISA rules out trap at the copy, located: a first element right of the bounding
/// box, `wHalo` 32 in `.im2col::w::128` ("valid range is [0, 32)"), `wOffset` 32, and a copy
/// whose mode is not the map's.
#[test]
fn im2col_w_copies_outside_the_rules_trap() {
    let shape = [32i64, 20, 1, 1];
    let tensor = bytes_of(&numbered(shape.iter().product::<i64>() as usize));
    let map = |mode| wide_map((2, 4), &[32, 20, 1], mode, [0, 0], (32, 4, 1));
    let cases = [
        (
            "im2col::w",
            Im2colWide::W,
            [0, 20, 0],
            [0, 0],
            "right of the bounding box",
        ),
        (
            "im2col::w::128",
            Im2colWide::W128,
            [0, 0, 0],
            [32, 0],
            "wHalo 32",
        ),
        ("im2col::w", Im2colWide::W, [0, 0, 0], [0, 32], "wOffset 32"),
        ("im2col::w", Im2colWide::W128, [0, 0, 0], [0, 0], "map"),
    ];
    for (name, mode, coordinates, info, text) in cases {
        let error =
            run(name, &map(mode), &tensor, &coordinates, info, 128 * 4).expect_err("it traps");
        assert!(error.contains("cp.async.bulk.tensor"), "{error}");
        assert!(error.contains(text), "{text}: {error}");
    }
}
