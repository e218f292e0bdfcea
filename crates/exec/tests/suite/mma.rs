//! `mma.sync.aligned` against an H200: every tile of `tests/hardware/mma/mma-golden.bin.xz`
//! (inputs and outputs as per-lane register words, `scripts/hardware/mma/README.md`) through
//! ptxsim's tensor-core model (`alu::mma`, fragment layouts included), compared bit for bit.
//! Forms that do not match yet are listed in [`EXPECTED`] with their current counts; the test
//! fails if a count drops (or rises: then raise it here).

use ptxsim_isa::mma::decode_mma;

/// (form, tiles matching, tiles) as of this model: empty, every form matches all its tiles
/// (the quad-pair `m8n8k4.f16` forms since they follow ptxas's FP32 emulation,
/// `alu::mma::quad_pair`; the last `.tf32` k8 tile since `alu::mma::LOWEST_BIT`). A form
/// that stops matching goes here with its count.
const EXPECTED: &[(&str, usize, usize)] = &[];

fn golden() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/hardware/mma/mma-golden.bin.xz"
    );
    let packed = std::fs::read(path).expect("golden file");
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut out).expect("xz");
    out
}

fn word(raw: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(raw[offset..offset + 4].try_into().unwrap())
}

#[test]
fn golden_tiles_match() {
    let raw = golden();
    assert_eq!(&raw[..16], b"PTXSIM-MMA-GOLD1");
    let length = word(&raw, 16) as usize;
    let index: serde_json::Value = serde_json::from_slice(&raw[20..20 + length]).unwrap();
    let mut report = Vec::new();
    for entry in index["forms"].as_array().unwrap() {
        if entry["status"] != "ok" {
            continue;
        }
        let name = entry["name"].as_str().unwrap();
        let modifiers: Vec<&str> = ["sync", "aligned"]
            .into_iter()
            .chain(name.split('.'))
            .collect();
        let form = decode_mma(&modifiers).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tiles = entry["tiles"].as_u64().unwrap() as usize;
        let words = |x: &str| entry["words"][x].as_u64().unwrap() as usize;
        let offset = |x: &str| entry["offsets"][x].as_u64().unwrap() as usize;
        let f64_form = form.a == ptxsim_isa::mma::MmaType::F64;
        // The lanes' registers of one operand of one tile (f64: two words per register).
        let lanes = |x: &str, tile: usize| -> Vec<Vec<u64>> {
            let n = words(x);
            (0..32)
                .map(|lane| {
                    let base = offset(x) + ((tile * 32 + lane) * n) * 4;
                    let w: Vec<u64> = (0..n)
                        .map(|i| u64::from(word(&raw, base + 4 * i)))
                        .collect();
                    if f64_form {
                        w.chunks(2).map(|p| p[0] | p[1] << 32).collect()
                    } else {
                        w
                    }
                })
                .collect()
        };
        let mut matching = 0;
        for tile in 0..tiles {
            let (a, b, c, d) = (
                lanes("a", tile),
                lanes("b", tile),
                lanes("c", tile),
                lanes("d", tile),
            );
            if ptxsim_exec::alu::mma::mma(
                ptxsim_exec::alu::mma::TensorCores::Hopper,
                &form,
                &a,
                &b,
                &c,
            )
            .as_ref()
                == Some(&d)
            {
                matching += 1;
            }
        }
        report.push((name.to_string(), matching, tiles));
    }
    let mut failures = Vec::new();
    for (name, matching, tiles) in &report {
        let expected = EXPECTED
            .iter()
            .find(|(n, ..)| n == name)
            .map_or(*tiles, |&(_, m, _)| m);
        eprintln!("{name}: {matching}/{tiles}");
        if *matching != expected {
            failures.push(format!("{name}: {matching}/{tiles}, expected {expected}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A kernel that runs `mma.sync.aligned.<name>` once per CTA (one warp): lane `l` of CTA `t`
/// loads its A, B and C register words from `in` (tile-major, then lane-major, then A, B, C)
/// and stores its D words to `out` (the same order). With `sparse = Some((variant, f))` it runs
/// `mma.<variant>.sync.aligned.<name> d, a, b, c, e, f` instead, each lane's metadata `e` the
/// word after its C words.
pub(super) fn tile_kernel(
    name: &str,
    [na, nb, nc, nd]: [usize; 4],
    f64_form: bool,
    d_ty: &str,
    sparse: Option<(&str, u32)>,
) -> String {
    let (w, ld) = if f64_form { (8, "b64") } else { (4, "b32") };
    let regs = |n: usize| if f64_form { n / 2 } else { n };
    let (ra, rb, rc, rd) = (regs(na), regs(nb), regs(nc), regs(nd));
    let ab_ty = if f64_form { "f64" } else { "b32" };
    let in_row = (ra + rb + rc + usize::from(sparse.is_some())) * w;
    let out_row = rd * w;
    let list = |prefix: &str, n: usize| {
        (0..n)
            .map(|i| format!("%{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut body = format!(
        ".version 8.7\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .{ab_ty} %a<{ra}>, %b<{rb}>, %e;\n.reg .{d_ty} %c<{rc}>, %d<{rd}>;\n\
         .reg .u32 %t, %l, %row;\n.reg .u64 %p, %q, %off;\n\
         mov.u32 %t, %ctaid.x;\nmov.u32 %l, %tid.x;\nmad.lo.u32 %row, %t, 32, %l;\n\
         ld.param.u64 %p, [in];\nld.param.u64 %q, [out];\n\
         mul.wide.u32 %off, %row, {in_row};\nadd.u64 %p, %p, %off;\n\
         mul.wide.u32 %off, %row, {out_row};\nadd.u64 %q, %q, %off;\n"
    );
    for (prefix, n, start) in [("a", ra, 0), ("b", rb, ra), ("c", rc, ra + rb)] {
        for i in 0..n {
            body += &format!("ld.global.{ld} %{prefix}{i}, [%p+{}];\n", (start + i) * w);
        }
    }
    let (variant, metadata) = match sparse {
        Some((variant, selector)) => {
            body += &format!("ld.global.{ld} %e, [%p+{}];\n", (ra + rb + rc) * w);
            (format!(".{variant}"), format!(", %e, {selector}"))
        }
        None => (String::new(), String::new()),
    };
    body += &format!(
        "mma{variant}.sync.aligned.{name} {{{}}}, {{{}}}, {{{}}}, {{{}}}{metadata};\n",
        list("d", rd),
        list("a", ra),
        list("b", rb),
        list("c", rc)
    );
    for i in 0..rd {
        body += &format!("st.global.{ld} [%q+{}], %d{i};\n", i * w);
    }
    body + "ret;\n}\n"
}

/// A small deterministic generator (SplitMix64) for the generated tiles.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value below `bound`.
    pub(super) fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

/// Runs a [`tile_kernel`] over `tiles` CTAs of one warp on `input`; returns the `out_len`
/// bytes of `out` (`name` labels the failures).
pub(super) fn run_tiles(
    name: &str,
    source: &str,
    tiles: usize,
    input: Vec<u8>,
    out_len: usize,
) -> Vec<u8> {
    use ptxsim_exec::grid::{self, GridOptions};
    let program =
        ptxsim_exec::load(source, None).unwrap_or_else(|e| panic!("{name}: {e:?}\n{source}"));
    let (device, addresses) = grid::prepare(
        &program,
        [tiles as u32, 1, 1],
        [32, 1, 1],
        10_000,
        vec![
            ptxsim_exec::Argument::Buffer(input),
            ptxsim_exec::Argument::Buffer(vec![0xa5; out_len]),
        ],
    )
    .expect("a valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{name}: {:?}", run.failure);
    device
        .global
        .buffer_at(addresses[1].expect("a buffer"))
        .expect("the buffer")
        .contents()
}

/// The same golden tiles through the whole of ptxsim — checker, program builder, the warp's
/// rendezvous at `mma.sync.aligned`, the fragment gathering and scattering of the executor —
/// from generated kernels that load each lane's register words (as `scripts/hardware/mma/mma.cu`
/// does on the GPU): every form the model matches completely gives the GPU's D words on every
/// tile.
#[test]
fn golden_tiles_through_the_executor() {
    let raw = golden();
    let length = word(&raw, 16) as usize;
    let index: serde_json::Value = serde_json::from_slice(&raw[20..20 + length]).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in index["forms"].as_array().unwrap() {
        let name = entry["name"].as_str().unwrap();
        if entry["status"] != "ok" || EXPECTED.iter().any(|(n, ..)| *n == name) {
            continue;
        }
        let tiles = entry["tiles"].as_u64().unwrap() as usize;
        let words = |x: &str| entry["words"][x].as_u64().unwrap() as usize;
        let offset = |x: &str| entry["offsets"][x].as_u64().unwrap() as usize;
        let [na, nb, nc, nd] = ["a", "b", "c", "d"].map(words);
        // The D type follows shape and layouts (and `.satfinite`, which is no type: a
        // `.reg .satfinite` declaration is not PTX).
        let d_type = name
            .split('.')
            .skip(3)
            .find(|word| *word != "satfinite")
            .unwrap_or("f32");
        let f64_form = d_type == "f64";
        let d_ty = match d_type {
            "f16" => "b32",
            other => other,
        };
        let mut input = Vec::new();
        let mut expected = Vec::new();
        for tile in 0..tiles {
            for lane in 0..32 {
                for (x, n) in [("a", na), ("b", nb), ("c", nc)] {
                    let base = offset(x) + ((tile * 32 + lane) * n) * 4;
                    input.extend_from_slice(&raw[base..base + 4 * n]);
                }
                let base = offset("d") + ((tile * 32 + lane) * nd) * 4;
                expected.extend_from_slice(&raw[base..base + 4 * nd]);
            }
        }
        let source = tile_kernel(name, [na, nb, nc, nd], f64_form, d_ty, None);
        let out = run_tiles(name, &source, tiles, input, expected.len());
        checked += 1;
        if out != expected {
            let first = out.iter().zip(&expected).position(|(a, b)| a != b);
            failures.push(format!("{name}: first differing byte {first:?}"));
        }
    }
    assert!(checked >= 20, "only {checked} forms run");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Products far below the smallest subnormal with a zero accumulator round to +0 (this once
/// overflowed a shift in the rounding).
#[test]
fn tiny_products_round_to_zero() {
    let modifiers = [
        "sync", "aligned", "m16n8k8", "row", "col", "f32", "tf32", "tf32", "f32",
    ];
    let form = decode_mma(&modifiers).unwrap();
    // The smallest positive tf32 subnormal (f32 bits 0x00002000): each product is 2^-272.
    let tiny = vec![0x2000u64; 8];
    assert_eq!(ptxsim_exec::alu::mma::dot_float(&form, &tiny, &tiny, 0), 0);
    let modifiers = [
        "sync", "aligned", "m16n8k16", "row", "col", "f16", "f16", "f16", "f16",
    ];
    let form = decode_mma(&modifiers).unwrap();
    let tiny = vec![0x0001u64; 16];
    assert_eq!(ptxsim_exec::alu::mma::dot_float(&form, &tiny, &tiny, 0), 0);
}

/// Element `index` of a lane's A (`b == false`) or B fragment in the quad-pair `m8n8k4` `.f16`
/// form, as `(quad pair, row, column)`: PTX ISA 9.7.14.5.1 ("Matrix Fragments for mma.m8n8k4
/// with .f16 floating point type"), written out here apart from the model's own table.
fn quad_pair_ab(b: bool, major_row: bool, lane: usize, index: usize) -> (usize, usize, usize) {
    let (q, high, l4) = ((lane / 4) % 4, if lane < 16 { 0 } else { 4 }, lane % 4);
    let (row, col) = match (b, major_row) {
        (false, true) => (l4 + high, index),      // A .row
        (false, false) => (index % 4 + high, l4), // A .col
        (true, true) => (l4, index + high),       // B .row
        (true, false) => (index, l4 + high),      // B .col
    };
    (q, row, col)
}

/// The quad-pair `m8n8k4` forms in every layout the ISA allows (`.row`/`.col` for A and for B),
/// of which only `.row.col` was measured: the A and B matrices of each golden tile, moved into
/// the registers of another layout by the ISA's fragment tables, give the GPU's D words, through
/// the model and through generated kernels (the same products, accumulated in the same `k`
/// order: the layouts only move elements between lanes).
#[test]
fn quad_pair_layouts() {
    let raw = golden();
    let length = word(&raw, 16) as usize;
    let index: serde_json::Value = serde_json::from_slice(&raw[20..20 + length]).unwrap();
    let mut checked = 0;
    for entry in index["forms"].as_array().unwrap() {
        let name = entry["name"].as_str().unwrap();
        if entry["status"] != "ok" || !name.starts_with("m8n8k4.row.col.") || name.ends_with("f64")
        {
            continue;
        }
        let tiles = entry["tiles"].as_u64().unwrap() as usize;
        let words = |x: &str| entry["words"][x].as_u64().unwrap() as usize;
        let offset = |x: &str| entry["offsets"][x].as_u64().unwrap() as usize;
        let lanes = |x: &str, tile: usize| -> Vec<Vec<u64>> {
            let n = words(x);
            (0..32)
                .map(|lane| {
                    let base = offset(x) + ((tile * 32 + lane) * n) * 4;
                    (0..n)
                        .map(|i| u64::from(word(&raw, base + 4 * i)))
                        .collect()
                })
                .collect()
        };
        let types = name.strip_prefix("m8n8k4.row.col.").unwrap();
        for (a_row, b_row) in [(true, false), (true, true), (false, false), (false, true)] {
            let layout = format!(
                "m8n8k4.{}.{}.{types}",
                if a_row { "row" } else { "col" },
                if b_row { "row" } else { "col" }
            );
            let modifiers: Vec<&str> = ["sync", "aligned"]
                .into_iter()
                .chain(layout.split('.'))
                .collect();
            let form = decode_mma(&modifiers).unwrap_or_else(|e| panic!("{layout}: {e}"));
            let mut input = Vec::new();
            let mut expected = Vec::new();
            for tile in 0..tiles {
                let (a, b, c, d) = (
                    lanes("a", tile),
                    lanes("b", tile),
                    lanes("c", tile),
                    lanes("d", tile),
                );
                // The matrices of the four quad pairs, from the measured `.row.col` registers.
                let half =
                    |registers: &[u64], i: usize| (registers[i / 2] >> (16 * (i % 2))) & 0xffff;
                let mut am = [[[0u64; 4]; 8]; 4];
                let mut bm = [[[0u64; 8]; 4]; 4];
                for lane in 0..32 {
                    for i in 0..4 {
                        let (q, r, k) = quad_pair_ab(false, true, lane, i);
                        am[q][r][k] = half(&a[lane], i);
                        let (q, k, n) = quad_pair_ab(true, false, lane, i);
                        bm[q][k][n] = half(&b[lane], i);
                    }
                }
                let pack = |element: &dyn Fn(usize, usize) -> u64| -> Vec<Vec<u64>> {
                    (0..32)
                        .map(|lane| {
                            (0..2)
                                .map(|r| element(lane, 2 * r) | element(lane, 2 * r + 1) << 16)
                                .collect()
                        })
                        .collect()
                };
                let a2 = pack(&|lane, i| {
                    let (q, r, k) = quad_pair_ab(false, a_row, lane, i);
                    am[q][r][k]
                });
                let b2 = pack(&|lane, i| {
                    let (q, k, n) = quad_pair_ab(true, b_row, lane, i);
                    bm[q][k][n]
                });
                let model = ptxsim_exec::alu::mma::mma(
                    ptxsim_exec::alu::mma::TensorCores::Hopper,
                    &form,
                    &a2,
                    &b2,
                    &c,
                );
                assert_eq!(model.as_ref(), Some(&d), "{layout}, tile {tile}");
                for lane in 0..32 {
                    for value in a2[lane].iter().chain(&b2[lane]).chain(&c[lane]) {
                        input.extend_from_slice(&(*value as u32).to_le_bytes());
                    }
                    for value in &d[lane] {
                        expected.extend_from_slice(&(*value as u32).to_le_bytes());
                    }
                }
            }
            let d_ty = if types.starts_with("f16") {
                "b32"
            } else {
                "f32"
            };
            let source = tile_kernel(&layout, ["a", "b", "c", "d"].map(words), false, d_ty, None);
            let out = run_tiles(&layout, &source, tiles, input, expected.len());
            assert!(out == expected, "{layout}: the executor differs");
            checked += 1;
        }
    }
    assert_eq!(checked, 8, "two forms in four layouts");
}
