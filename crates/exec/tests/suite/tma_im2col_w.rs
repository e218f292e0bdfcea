//! `cp.async.bulk.tensor`'s `.im2col::w` and `.im2col::w::128` loads (PTX ISA 8.6, sm_100)
//! against host loops written from the ISA's description (PTX ISA 9.0, 5.5.5 "im2col::w and
//! im2col::w::128 modes": the bounding box in W, `wHalo`, `wOffset`, the traversal stride) and
//! the byte counts of its two worked examples, never from ptxsim's output. The kernels (tma.rs's
//! `im2col_kernels`) are clean under ptxas 13.5 (`-arch sm_100a`). Every load completes on an
//! mbarrier that expects
//! the byte count the host computed: a copy moving more or fewer bytes would never complete
//! the phase (or overflow the count), so the tests check the complete-tx too.

use super::tma::{dense, run_im2col_mode};
use ptxsim_exec::memory::GLOBAL_BASE;
use ptxsim_exec::tensor_map::{Im2col, OOB_FILL_NAN, SWIZZLE_128B, TensorMap};
use ptxsim_isa::ops::Im2colWide;

/// A dense NWC / NHWC / NDHWC tensor (`dims`, C first) of `data_type` elements of `bytes`
/// each at `GLOBAL_BASE`, as `cuTensorMapEncodeIm2colWide` describes it: W corners `corners`,
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
    dense(&mut map, dims, bytes);
    map
}

/// Runs tma.rs's `im2col{dims}d` kernel with `.{mode}` loads (`{wHalo, wOffset}` = `info`;
/// the buffer 1024-byte aligned, `bytes` expected by the mbarrier) and returns the `bytes` of
/// the buffer it copied out, or the launch's error.
fn run(
    mode: &str,
    map: &TensorMap,
    tensor: &[u32],
    coordinates: &[i32],
    info: [u16; 2],
    bytes: usize,
) -> Result<Vec<u32>, String> {
    let kernel = format!("im2col{}d", coordinates.len());
    let out = vec![0xeeee_eeee; bytes / 4];
    run_im2col_mode(&kernel, mode, map, tensor, (coordinates, &info), &out).map(|(_, out)| out)
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
        &tensor,
        &[4, -1, 1, 0],
        [2, 1],
        4 * plain.len(),
    )
    .expect("it runs");
    assert_eq!(out, swizzled(&plain));
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
        &tensor,
        &[12, -3, 2, 1],
        [3, 0],
        4 * plain.len(),
    )
    .expect("it runs");
    assert_eq!(out, swizzled(&plain));
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
        &tensor,
        &[0, 5, 0],
        [3, 2],
        4 * plain.len(),
    )
    .expect("it runs");
    assert_eq!(out, swizzled(&plain));
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
    // Element i is `i as u16`, two to a word.
    let words = 128 * 9 * 7 * 64 / 2;
    let tensor: Vec<u32> = (0..words as u32)
        .map(|i| ((2 * i) & 0xffff) | ((2 * i + 1) << 16))
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
        assert_eq!(out[0] as usize & 0xffff, first, "{name}");
    }
}

/// Values the ISA rules out trap at the copy, located: a first element right of the bounding
/// box, `wHalo` 32 in `.im2col::w::128` ("valid range is [0, 32)"), `wOffset` 32, and a copy
/// whose mode is not the map's.
#[test]
fn im2col_w_copies_outside_the_rules_trap() {
    let shape = [32i64, 20, 1, 1];
    let tensor = numbered(shape.iter().product::<i64>() as usize);
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
