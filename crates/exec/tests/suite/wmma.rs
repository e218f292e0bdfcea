//! `wmma.load`, `wmma.store`, `wmma.mma` (PTX ISA 9.7.14.4) against an H100:
//! `tests/hardware/wmma/wmma.txt.xz` (made by `scripts/hardware/wmma/wmma.cu`, whose header
//! describes the format) holds 30 fragment-layout dumps and 24 `wmma.mma` tiles. The expected
//! values come only from that file.
//!
//! * `measured_layouts_match`: for every dump, each lane's fragment elements (the source matrix
//!   held each element's own memory index as its bits) equal the elements
//!   `ptxsim_exec::alu::wmma::fragment` places there.
//! * `measured_tiles_through_the_executor`: each tile runs through generated PTX kernels
//!   (`wmma.load` A row-major, B column-major, C row-major, `wmma.mma`, `wmma.store` D
//!   row-major, as the CUDA driver does) and D equals the GPU's bit for bit.
//! * `sub_byte_and_single_bit_tiles`: the `.m8n8k32` `.s4`/`.u4` and `.m8n8k128` `.b1` forms
//!   (not measured) against a plain CPU matrix product.
//! * the remaining tests: shared and generic addresses with a stride, and the located traps.

use ptxsim_exec::alu::wmma::fragment;
use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Outcome};
use ptxsim_isa::mma::MmaType;
use ptxsim_isa::wmma::{WmmaForm, WmmaMatrix, decode_wmma};

fn data() -> String {
    read_xz("wmma.txt.xz")
}

/// A text file of `tests/hardware/wmma/`, xz-compressed.
fn read_xz(name: &str) -> String {
    let path = format!(
        "{}/../../tests/hardware/wmma/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let packed = std::fs::read(path).expect("the wmma data");
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut out).expect("xz");
    String::from_utf8(out).expect("text")
}

fn hex_row(line: &str) -> Vec<u64> {
    line.split_whitespace()
        .map(|w| u64::from_str_radix(w, 16).expect("hex"))
        .collect()
}

/// One layout dump: name, elements per lane, 32 lanes of raw words.
struct Dump {
    name: String,
    elements: usize,
    lanes: Vec<Vec<u64>>,
}

fn dumps(text: &str) -> Vec<Dump> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(rest) = lines[i].strip_prefix("layout ") {
            let fields: Vec<&str> = rest.split_whitespace().collect();
            out.push(Dump {
                name: fields[0].to_string(),
                elements: fields[1].parse().unwrap(),
                lanes: (1..=32).map(|l| hex_row(lines[i + l])).collect(),
            });
            i += 33;
        } else {
            i += 1;
        }
    }
    out
}

/// The `wmma.load` form of a dump's name (`a.row.m16n16k16.f16`).
fn load_form(matrix: &str, layout: &str, shape: &str, ty: &str) -> WmmaForm {
    decode_wmma(&["load", matrix, "sync", "aligned", layout, shape, ty]).expect("a wmma form")
}

#[test]
fn measured_layouts_match() {
    let text = data();
    let all = dumps(&text);
    assert_eq!(all.len(), 30);
    let mut checked = 0;
    for dump in &all {
        let parts: Vec<&str> = dump.name.split('.').collect();
        let (matrix, layout, shape, ty) = (parts[0], parts[1], parts[2], parts[3]);
        // The 8-bit dumps come in two runs, low and high byte of the index; check on `.hi`.
        let eight_bit = parts.len() == 5;
        if eight_bit && parts[4] == "lo" {
            continue;
        }
        let form = load_form(matrix, layout, shape, ty);
        let which = form.matrix();
        let (rows, cols) = form.dimensions(which);
        let low = eight_bit.then(|| {
            let name = dump.name.replace(".hi", ".lo");
            all.iter().find(|d| d.name == name).expect("the .lo run")
        });
        for lane in 0..32 {
            let expected: Vec<(usize, usize)> = (0..dump.elements)
                .map(|e| {
                    let words = &dump.lanes[lane];
                    let index = match form.element(which) {
                        MmaType::F16 | MmaType::Bf16 => words[e] - 0x3c00,
                        MmaType::F64 => words[2 * e],
                        MmaType::S8 | MmaType::U8 => low.unwrap().lanes[lane][e] | (words[e] << 8),
                        _ => (words[e] - 0x3f80_0000) >> 13,
                    } as usize;
                    if layout == "row" {
                        (index / cols, index % cols)
                    } else {
                        (index % rows, index / rows)
                    }
                })
                .collect();
            let distinct = fragment(&form, which, lane);
            let got: Vec<(usize, usize)> = (0..dump.elements)
                .map(|e| distinct[e % distinct.len()])
                .collect();
            assert_eq!(got, expected, "{} lane {lane}", dump.name);
        }
        checked += 1;
    }
    // 30 dumps, the four 8-bit ones as two pairs: 28 layouts.
    assert_eq!(checked, 28);
}

/// One measured `wmma.mma` tile.
struct Tile {
    name: String,
    a: Vec<Vec<u64>>,
    b: Vec<Vec<u64>>,
    c: Vec<Vec<u64>>,
    d: Vec<Vec<u64>>,
}

fn tiles(text: &str) -> Vec<Tile> {
    let mut out: Vec<Tile> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("mma ") {
            out.push(Tile {
                name: rest.split_whitespace().next().unwrap().to_string(),
                a: Vec::new(),
                b: Vec::new(),
                c: Vec::new(),
                d: Vec::new(),
            });
            continue;
        }
        let Some(tile) = out.last_mut() else { continue };
        let (tag, row) = line.split_at(1);
        match tag {
            "A" => tile.a.push(hex_row(row)),
            "B" => tile.b.push(hex_row(row)),
            "C" => tile.c.push(hex_row(row)),
            "D" => tile.d.push(hex_row(row)),
            _ => {}
        }
    }
    out
}

fn bytes(rows: &[Vec<u64>], size: usize) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|&v| v.to_le_bytes()[..size].to_vec())
        .collect()
}

fn vector(prefix: &str, count: usize) -> String {
    let names: Vec<String> = (0..count).map(|i| format!("%{prefix}{i}")).collect();
    format!("{{{}}}", names.join(", "))
}

/// Runs `source` (one warp) with the buffers; the buffers after the run, or the trap.
fn launch(
    source: &str,
    threads: u32,
    buffers: Vec<Vec<u8>>,
) -> Result<Vec<Vec<u8>>, (String, u32)> {
    let program = ptxsim_exec::load(source, None)
        .unwrap_or_else(|e| panic!("the kernel checks: {e:?}\n{source}"));
    let arguments = buffers.into_iter().map(Argument::Buffer).collect();
    let (device, addresses) =
        grid::prepare(&program, [1, 1, 1], [threads, 1, 1], 100_000, arguments)
            .expect("a valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    if let Some(failure) = run.failure {
        return match failure.outcome {
            Ok(Outcome::Trapped { message, location }) => Err((message, location.line)),
            Err(stopped) => Err((stopped.message, stopped.location.line)),
            other => panic!("{other:?}"),
        };
    }
    Ok(addresses
        .iter()
        .map(|a| {
            device
                .global
                .buffer_at(a.expect("a buffer"))
                .expect("the buffer")
                .contents()
        })
        .collect())
}

const HEADER: &str = ".version 8.0
.target sm_90
.address_size 64
";

/// The kernel of a tile: load A (row), B (col), C (row) from global memory, mma, store D;
/// `extra` modifiers (`satfinite`, `xor`, `popc`) follow the types.
fn tile_kernel(shape: &str, d: &str, a: &str, c: &str, extra: &[&str]) -> (String, WmmaForm) {
    let mut types = if a == "f16" {
        vec![d, c]
    } else {
        vec![d, a, a, c]
    };
    types.extend(extra);
    let mut modifiers = vec!["mma", "sync", "aligned", "row", "col", shape];
    modifiers.extend(&types);
    let register = if a == "f64" { "f64" } else { "b32" };
    let form = decode_wmma(&modifiers).expect("a wmma.mma form");
    let n = |m| form.registers(m);
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
.reg .{register} %a<8>;
.reg .{register} %b<8>;
.reg .{register} %c<8>;
.reg .{register} %d<8>;
.reg .b64 %rd<5>;
ld.param.u64 %rd1, [pa];
ld.param.u64 %rd2, [pb];
ld.param.u64 %rd3, [pc];
ld.param.u64 %rd4, [pd];
wmma.load.a.sync.aligned.row.{shape}.global.{a} {va}, [%rd1];
wmma.load.b.sync.aligned.col.{shape}.global.{a} {vb}, [%rd2];
wmma.load.c.sync.aligned.row.{shape}.global.{c} {vc}, [%rd3];
wmma.mma.sync.aligned.row.col.{shape}.{types} {vd}, {va}, {vb}, {vc};
wmma.store.d.sync.aligned.row.{shape}.global.{d} [%rd4], {vd};
ret;
}}
",
        va = vector("a", n(WmmaMatrix::A)),
        vb = vector("b", n(WmmaMatrix::B)),
        vc = vector("c", n(WmmaMatrix::C)),
        vd = vector("d", n(WmmaMatrix::D)),
        types = types.join("."),
    );
    (source, form)
}

/// Runs `tile` through a `wmma.load`/`wmma.mma`/`wmma.store` kernel of its form; the number
/// of D elements that differ from the GPU's.
fn differing_elements(
    tile: &Tile,
    shape: &str,
    d: &str,
    a: &str,
    c: &str,
    satfinite: bool,
) -> usize {
    let extra: &[&str] = if satfinite { &["satfinite"] } else { &[] };
    let (source, form) = tile_kernel(shape, d, a, c, extra);
    let size = |ty: MmaType| (ty.bits() / 8) as usize;
    let expected = bytes(&tile.d, size(form.d));
    let out = launch(
        &source,
        32,
        vec![
            bytes(&tile.a, size(form.a)),
            bytes(&tile.b, size(form.b)),
            bytes(&tile.c, size(form.c)),
            vec![0xa5; expected.len()],
        ],
    )
    .unwrap_or_else(|e| panic!("{}: {e:?}", tile.name));
    out[3]
        .chunks(size(form.d))
        .zip(expected.chunks(size(form.d)))
        .filter(|(x, y)| x != y)
        .count()
}

#[test]
fn measured_tiles_through_the_executor() {
    let text = data();
    let all = tiles(&text);
    assert_eq!(all.len(), 24);
    let mut failures = Vec::new();
    for (number, tile) in all.iter().enumerate() {
        // `m16n16k16.f32.f16`: shape, C/D type, A/B type.
        let parts: Vec<&str> = tile.name.split('.').collect();
        let (shape, acc, input) = (parts[0], parts[1], parts[2]);
        let differing = differing_elements(tile, shape, acc, input, acc, false);
        if differing > 0 {
            failures.push(format!(
                "{} (tile {number}): {differing} elements differ",
                tile.name
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A one-warp kernel: `%rd1` the global buffer `buf`, `%r1` the lane, then `body`.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 buf)
{{
.reg .b32 %r<8>;
.reg .b32 %x<8>;
.reg .b64 %rd<8>;
.reg .pred %p<2>;
.shared .align 32 .b16 sm[1024];
.local .align 32 .b16 lm[256];
ld.param.u64 %rd1, [buf];
mov.u32 %r1, %tid.x;
{body}
ret;
}}
"
    )
}

/// Shared memory holds 16 rows of 24 halves (filled from the global buffer). `wmma.load.a`
/// through a generic address with stride 32 and `wmma.store.d` to global memory with a register
/// stride run; then a column-major `.f16` C is loaded from `.shared::cta` with stride 24 and
/// stored column-major to `.global` with stride 32: every element lands where the strides say.
#[test]
fn shared_generic_and_strides() {
    // Global: 16 rows of 24 halves (row r, column c holds 0x3c00 + 24r + c), then 16 rows of
    // 32 halves for the output.
    let mut input = vec![0u8; 2 * (16 * 24 + 16 * 32)];
    for i in 0..16 * 24 {
        input[2 * i..2 * i + 2].copy_from_slice(&(0x3c00u16 + i as u16).to_le_bytes());
    }
    let body = "
mov.u32 %r2, 0;
COPY:
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r3, [%rd3];
mov.u32 %r4, sm;
cvt.u32.u64 %r5, %rd2;
add.u32 %r4, %r4, %r5;
st.shared.u32 [%r4], %r3;
add.u32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, 192;
@%p1 bra COPY;
mov.u64 %rd4, sm;
cvta.shared.u64 %rd4, %rd4;
wmma.load.a.sync.aligned.row.m16n16k16.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd4], 32;
mov.u32 %r6, 32;
add.u64 %rd5, %rd1, 768;
wmma.store.d.sync.aligned.row.m16n16k16.f16 [%rd5], {%x0, %x1, %x2, %x3}, %r6;
mov.u32 %r4, sm;
wmma.load.c.sync.aligned.col.m16n16k16.shared::cta.f16 {%x0, %x1, %x2, %x3}, [%r4], 24;
wmma.store.d.sync.aligned.col.m16n16k16.global.f16 [%rd5], {%x0, %x1, %x2, %x3}, 32;
";
    // The copy loop runs in every lane (the same values), so the shared tile is complete.
    let out = launch(&kernel(body), 32, vec![input]).expect("runs");
    let half = |i: usize| u16::from_le_bytes([out[0][768 + 2 * i], out[0][768 + 2 * i + 1]]);
    // The A fragment read as a C fragment of 4 registers covers A's columns 0-3, 8-11 (the
    // `m16n8k16` A fragment: (g, 2t..2t+1), (g+8, ..), (g, 2t+8..), (g+8, 2t+8..)), stored at
    // the C fragment's positions. The second load/store pair (column-major, stride 24 both
    // ways in shared, 32 in global) then overwrites the output column-major: output position
    // (row, col) of the column-major store holds shared element col*24 + row for the C
    // fragment's elements, i.e. every (row, col) with col < 16, row < 16.
    for col in 0..16 {
        for row in 0..16 {
            let expected = 0x3c00 + (col * 24 + row) as u16;
            assert_eq!(half(col * 32 + row), expected, "({row}, {col})");
        }
    }
}

/// Rows padded to 24 halves (48 bytes: 16-byte aligned, not 32), the usual bank-conflict padding
/// of shared tiles (LeetCUDA's `hgemm_wmma_m16n16k16_mma4x2_warp2x4_dbuf_async`): CUDA's
/// `load_matrix_sync` takes any `ldm` that is "a multiple of 8 for `__half`" (16 bytes). A
/// (row-major, stride 24) times B = the identity (column-major, stride 24) gives D = A, checked
/// against the integers written here.
#[test]
fn a_and_b_rows_padded_to_24_halves() {
    let a = |r: usize, c: usize| ((r * 16 + c) % 7) as f32 - 3.0;
    let f16 = |x: f32| -> [u8; 2] {
        // Small integers: sign, exponent and the top fraction bits of the f32, exactly.
        let bits = x.to_bits();
        if x == 0.0 {
            return [0, 0];
        }
        let sign = (bits >> 16) & 0x8000;
        let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
        let frac = (bits >> 13) & 0x3ff;
        ((sign | ((exp as u32) << 10) | frac) as u16).to_le_bytes()
    };
    let mut input = vec![0u8; 2048];
    for r in 0..16 {
        for c in 0..16 {
            input[2 * (r * 24 + c)..][..2].copy_from_slice(&f16(a(r, c)));
            // B(k, n) column-major at 768 + 2 * (n * 24 + k): the identity.
            if r == c {
                input[768 + 2 * (c * 24 + r)..][..2].copy_from_slice(&f16(1.0));
            }
        }
    }
    let body = "
.reg .b32 %y<16>;
add.u64 %rd2, %rd1, 768;
add.u64 %rd3, %rd1, 1536;
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1], 24;
wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7}, [%rd2], 24;
mov.b32 %y8, 0;
wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 {%y12, %y13, %y14, %y15}, {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, {%y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7}, {%y8, %y8, %y8, %y8};
wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd3], {%y12, %y13, %y14, %y15};
";
    let out = launch(&kernel(body), 32, vec![input]).expect("runs");
    for r in 0..16 {
        for c in 0..16 {
            let at = 1536 + 2 * (r * 16 + c);
            assert_eq!(out[0][at..at + 2], f16(a(r, c)), "D({r}, {c})");
        }
    }
}

/// A 16x16 `.f16` A tile padded to 24 columns (48-byte rows, 16-byte aligned, as CUDA's
/// `load_matrix_sync` allows: its `ldm` "must be a multiple of 8 for __half element type",
/// CUDA C++ Programming Guide) loads the fragment that the same tile unpadded (stride 16) gives,
/// in every lane, and no padding element: LeetCUDA's `hgemm_wmma_m16n16k16_mma4x2_warp2x4_
/// dbuf_async` pads its shared tiles so, and ran into a trap here before.
#[test]
fn a_tile_padded_to_16_byte_rows_loads_as_unpadded() {
    // Bytes 0..768: the tile with stride 24 (pad halves 0xffff); 768..1280: stride 16; then
    // two output areas of 32 lanes x 8 registers.
    let mut input = vec![0u8; 768 + 512 + 2 * 1024];
    for row in 0..16 {
        for col in 0..24 {
            let value: u16 = if col < 16 {
                (row * 16 + col) as u16
            } else {
                0xffff
            };
            let at = 2 * (row * 24 + col);
            input[at..at + 2].copy_from_slice(&value.to_le_bytes());
        }
        for col in 0..16 {
            let at = 768 + 2 * (row * 16 + col);
            input[at..at + 2].copy_from_slice(&((row * 16 + col) as u16).to_le_bytes());
        }
    }
    let body = "
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1], 24;
mul.wide.u32 %rd2, %r1, 32;
add.u64 %rd3, %rd1, 1280;
add.u64 %rd3, %rd3, %rd2;
st.global.v4.b32 [%rd3], {%x0, %x1, %x2, %x3};
st.global.v4.b32 [%rd3+16], {%x4, %x5, %x6, %x7};
add.u64 %rd4, %rd1, 768;
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd4];
add.u64 %rd3, %rd3, 1024;
st.global.v4.b32 [%rd3], {%x0, %x1, %x2, %x3};
st.global.v4.b32 [%rd3+16], {%x4, %x5, %x6, %x7};
";
    let out = launch(&kernel(body), 32, vec![input]).expect("a 48-byte stride loads");
    let padded = &out[0][1280..2304];
    let plain = &out[0][2304..3328];
    assert_eq!(padded, plain);
    let halves: Vec<u16> = padded
        .chunks(2)
        .map(|h| u16::from_le_bytes([h[0], h[1]]))
        .collect();
    assert!(
        halves.iter().all(|&h| h < 256),
        "a padding element was loaded"
    );
    // Every element of the tile is in some lane's fragment (32 lanes x 16 halves hold each
    // of the 256 twice).
    let mut seen = halves;
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..256).collect::<Vec<u16>>());
}

#[test]
fn misaligned_addresses_and_strides_trap_with_a_location() {
    // p is 16-byte aligned, the f16 A fragment is 32 bytes.
    let body = "
add.u64 %rd2, %rd1, 16;
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd2];
";
    let (message, line) = launch(&kernel(body), 32, vec![vec![0; 4096]]).unwrap_err();
    assert!(message.contains("wmma.load.a"), "{message}");
    assert_eq!(line, 16);
    // A stride of 20 halves (40 bytes) leaves rows misaligned to 16 bytes.
    let body = "
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1], 20;
";
    let (message, _) = launch(&kernel(body), 32, vec![vec![0; 4096]]).unwrap_err();
    assert!(message.contains("stride 20"), "{message}");
    // Below the default stride.
    let body = "
wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1], 8;
";
    let (message, _) = launch(&kernel(body), 32, vec![vec![0; 4096]]).unwrap_err();
    assert!(message.contains("below the default"), "{message}");
    // A generic address into local memory.
    let body = "
mov.u64 %rd2, lm;
cvta.local.u64 %rd2, %rd2;
wmma.load.c.sync.aligned.row.m16n16k16.f16 {%x0, %x1, %x2, %x3}, [%rd2];
";
    let (message, _) = launch(&kernel(body), 32, vec![vec![0; 4096]]).unwrap_err();
    assert!(message.contains("not global or shared"), "{message}");
    // Out of bounds.
    let body = "
wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, 64;
";
    let (message, _) = launch(&kernel(body), 32, vec![vec![0; 256]]).unwrap_err();
    assert!(message.contains("wmma.store.d"), "{message}");
}

#[test]
fn a_partial_warp_traps() {
    let body = "
setp.lt.u32 %p1, %r1, 16;
@%p1 bra SKIP;
wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1];
SKIP:
";
    let (message, _) = launch(&kernel(body), 32, vec![vec![0; 4096]]).unwrap_err();
    assert!(message.contains("all 32 lanes"), "{message}");
    let body = "
wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd1];
";
    let (message, _) = launch(&kernel(body), 16, vec![vec![0; 4096]]).unwrap_err();
    assert!(message.contains("all 32 lanes"), "{message}");
}

/// The second H100 probe (`scripts/hardware/wmma/wmma2.cu`, `tests/hardware/wmma/wmma2.txt.xz`):
/// C and D of different types (`.f32` D from `.f16` C and the reverse), `.u8`, `.satfinite` with
/// accumulators near the `.s32` limits, `.f64` `m8n8k4`, and the crafted `.bf16`/`.tf32` tiles
/// whose tiny products show that the accumulator keeps no bit below 2^-158
/// (`alu::mma::LOWEST_BIT`: of the floors 2^-150 .. 2^-171 only 2^-158 gives all 256 elements).
/// Every D element through `wmma.load`/`wmma.mma`/`wmma.store` kernels, bit for bit.
#[test]
fn second_probe_tiles_through_the_executor() {
    let all = tiles(&read_xz("wmma2.txt.xz"));
    assert_eq!(all.len(), 28);
    let mut failures = Vec::new();
    for (number, tile) in all.iter().enumerate() {
        // `m16n16k16.f32.f16.f16.f16[.satfinite]`: shape, D, A, B, C types.
        let parts: Vec<&str> = tile.name.split('.').collect();
        let (shape, d, a, c) = (parts[0], parts[1], parts[2], parts[4]);
        let satfinite = parts.get(5) == Some(&"satfinite");
        let differing = differing_elements(tile, shape, d, a, c, satfinite);
        if differing > 0 {
            failures.push(format!(
                "{} (tile {number}): {differing} elements differ",
                tile.name
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The sub-byte `.m8n8k32` (`.s4`, `.u4`, with and without `.satfinite`) and single-bit
/// `.m8n8k128` (`.b1`, `.xor.popc` and `.and.popc`) forms through `wmma.load` (A row-major, B
/// column-major, as "Sub-byte loads" require), `wmma.mma` and `wmma.store`, against the
/// definition: D = A*B + C, exact and wrapped or clamped for `.s4`/`.u4` (9.7.14.4.5, "Integer
/// operations"), and for `.b1` "the XOR, AND respectively of a k-bit row of A with a k-bit
/// column of B, then counts the number of set bits in the result (popc)", added to C. Memory
/// packs the elements from the least significant bits of each byte up (CUTLASS's
/// `int4b_t`/`uint1b_t` arrays, which its sm_75 sub-byte WMMA GEMMs load); neither that order
/// nor the fragment layout can show in D (A and B are both packed along `k`, and a product
/// does not depend on the order of `k`). ptxas 13.5 accepts each kernel (`-arch sm_90a` and
/// `-arch sm_80`).
#[test]
fn sub_byte_and_single_bit_tiles() {
    let mut rng = super::mma::Rng(0x2545_f491_4f6c_dd1du64);
    let mut next = move || rng.next();
    let cases: [(&str, &str, &[&str]); 6] = [
        ("m8n8k32", "s4", &[]),
        ("m8n8k32", "u4", &[]),
        ("m8n8k32", "s4", &["satfinite"]),
        ("m8n8k32", "u4", &["satfinite"]),
        ("m8n8k128", "b1", &["xor", "popc"]),
        ("m8n8k128", "b1", &["and", "popc"]),
    ];
    for (shape, ty, extra) in cases {
        let (source, _) = tile_kernel(shape, "s32", ty, "s32", extra);
        let (k, bits) = if ty == "b1" { (128, 1) } else { (32, 4) };
        let mask = (1u64 << bits) - 1;
        let value = |field: u64| {
            if ty == "s4" {
                (field as i64) << 60 >> 60
            } else {
                field as i64
            }
        };
        let a: Vec<Vec<u64>> = (0..8)
            .map(|_| (0..k).map(|_| next() & mask).collect())
            .collect();
        let b: Vec<Vec<u64>> = (0..k)
            .map(|_| (0..8).map(|_| next() & mask).collect())
            .collect();
        // Rows 0 and 1 of C near the .s32 limits, so that sums wrap or clamp.
        let c: Vec<Vec<i64>> = (0..8)
            .map(|row| {
                (0..8)
                    .map(|_| match row {
                        0 => i64::from(i32::MAX) - (next() % 200) as i64,
                        1 => i64::from(i32::MIN) + (next() % 200) as i64,
                        _ => (next() % 20_001) as i64 - 10_000,
                    })
                    .collect()
            })
            .collect();
        // Packed memory: A row-major, B column-major (element (i, j) at j * k + i).
        let pack = |element: &dyn Fn(usize) -> u64, count: usize| {
            let mut out = vec![0u8; count * bits / 8];
            for index in 0..count {
                out[index * bits / 8] |= (element(index) << (index * bits % 8)) as u8;
            }
            out
        };
        let a_bytes = pack(&|index| a[index / k][index % k], 8 * k);
        let b_bytes = pack(&|index| b[index % k][index / k], 8 * k);
        let c_bytes: Vec<u8> = c
            .iter()
            .flatten()
            .flat_map(|&v| (v as i32).to_le_bytes())
            .collect();
        let expected: Vec<u8> = (0..8)
            .flat_map(|row| (0..8).map(move |col| (row, col)))
            .flat_map(|(row, col)| {
                let sum: i64 = (0..k)
                    .map(|i| match extra.first() {
                        Some(&"xor") => ((a[row][i] ^ b[i][col]) & 1) as i64,
                        Some(&"and") => (a[row][i] & b[i][col]) as i64,
                        _ => value(a[row][i]) * value(b[i][col]),
                    })
                    .sum::<i64>()
                    + c[row][col];
                let d = if extra.first() == Some(&"satfinite") {
                    sum.clamp(i32::MIN.into(), i32::MAX.into()) as i32
                } else {
                    sum as i32
                };
                d.to_le_bytes()
            })
            .collect();
        let out = launch(
            &source,
            32,
            vec![a_bytes, b_bytes, c_bytes, vec![0xa5; expected.len()]],
        )
        .unwrap_or_else(|e| panic!("{shape} {ty} {extra:?}: {e:?}"));
        assert!(out[3] == expected, "{shape} {ty} {extra:?}: D differs");
    }
}
