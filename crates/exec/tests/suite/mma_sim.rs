//! `mma.sync.aligned` on each modelled GPU generation against MMA-Sim (Microsoft, arXiv
//! 2511.10909): every tile of `tests/mma-sim/mma-sim.tsv.xz` (made by
//! `scripts/mma-sim/generate.py` from MMA-Sim's own code) runs as a PTX kernel whose `.target`
//! is the generation's (`sm_80`, `sm_89`, `sm_90`, `sm_100`, `sm_120`), through the checker and
//! the executor, and D must be MMA-Sim's, bit for bit.
//!
//! The fragment layouts are the PTX ISA's (9.7.14.5.x, "Matrix Fragments for mma.m16n8k*" and
//! "for mma.m8n8k4 with .f64"), written out here from its figures: with `g = lane / 4`,
//! `t = lane % 4` and `p` elements per 32-bit register, element `i` of A is row
//! `g + 8 * ((i / p) % 2)` (row `g` for the `m8` shape), column `t * p + i % p + (i / p) / 2 * 4p`
//! (`t * p + i % p + (i / p) * 4p` for `m8`); element `i` of B is row `t * p + i % p + (i / p) * 4p`,
//! column `g`; element `i` of C and D is row `g + 8 * (i / 2)`, column `2t + i % 2`.

use ptxsim_exec::alu::mma::TensorCores;
use ptxsim_exec::grid::{self, GridOptions};

/// The generations of the data's columns, with the `.target` their kernels name (sm_120a:
/// `.kind::f8f6f4` needs the arch-specific target).
const GENERATIONS: [(&str, &str, TensorCores); 5] = [
    ("sm_80", "sm_80", TensorCores::Ampere),
    ("sm_89", "sm_89", TensorCores::Ada),
    ("sm_90", "sm_90", TensorCores::Hopper),
    ("sm_100", "sm_100", TensorCores::Blackwell),
    ("sm_120", "sm_120a", TensorCores::RtxBlackwell),
];

/// The qualifier's types, `[d, a, b, c]` (after the shape, the layouts and any `.kind`).
fn types(qualifier: &str) -> Vec<&str> {
    qualifier
        .split('.')
        .filter(|part| !part.starts_with("kind::"))
        .skip(3)
        .collect()
}

/// One line of the data: a qualifier's tile, its inputs and each generation's D (`None`: the
/// generation has no such form in MMA-Sim).
struct Case {
    qualifier: String,
    class: String,
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
    d: Vec<Option<Vec<u64>>>,
}

/// The element width in bits of a type name (`.tf32` is stored as its 32-bit word).
fn width(ty: &str) -> usize {
    match ty {
        "e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1" => 8,
        "f16" | "bf16" => 16,
        "f64" => 64,
        _ => 32,
    }
}

fn elements(hex: &str, ty: &str) -> Vec<u64> {
    let digits = width(ty) / 4;
    (0..hex.len() / digits)
        .map(|i| u64::from_str_radix(&hex[i * digits..(i + 1) * digits], 16).expect("hex"))
        .collect()
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/mma-sim/mma-sim.tsv.xz"
    );
    let packed = std::fs::read(path).expect("the MMA-Sim data");
    let mut text = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut text).expect("xz");
    let text = String::from_utf8(text).expect("utf-8");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let columns: Vec<&str> = GENERATIONS.iter().map(|(column, ..)| *column).collect();
    assert_eq!(header[5..], columns[..], "the generations' columns");
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let types = types(fields[0]);
            let (d, a, b, c) = (types[0], types[1], types[2], types[3]);
            Case {
                qualifier: fields[0].to_string(),
                class: fields[1].to_string(),
                a: elements(fields[2], a),
                b: elements(fields[3], b),
                c: elements(fields[4], c),
                d: fields[5..]
                    .iter()
                    .map(|&f| (f != "-").then(|| elements(f, d)))
                    .collect(),
            }
        })
        .collect()
}

/// The ISA's fragment layout: `(row, column)` of element `i` of a lane's A, B or C/D fragment.
fn place(operand: char, (m, p): (usize, usize), lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let (r, j) = (i / p, i % p);
    match operand {
        'a' if m == 8 => (g, t * p + j + r * 4 * p),
        'a' => (g + 8 * (r % 2), t * p + j + (r / 2) * 4 * p),
        'b' => (t * p + j + r * 4 * p, g),
        _ => (g + 8 * (i / 2), 2 * t + i % 2),
    }
}

/// A lane's register words (32-bit; two per `.f64` register, low first) of a matrix with
/// `columns` columns held row-major in `matrix`.
fn lane_words(
    operand: char,
    matrix: &[u64],
    columns: usize,
    (m, count, ty): (usize, usize, &str),
    lane: usize,
) -> Vec<u32> {
    let w = width(ty);
    if w == 64 {
        return (0..count)
            .flat_map(|i| {
                let (row, col) = place(operand, (m, 1), lane, i);
                let v = matrix[row * columns + col];
                [v as u32, (v >> 32) as u32]
            })
            .collect();
    }
    let p = 32 / w;
    (0..count.div_ceil(p))
        .map(|register| {
            (0..p).fold(0u32, |word, j| {
                let i = register * p + j;
                let (row, col) = place(operand, (m, p), lane, i);
                word | (matrix[row * columns + col] as u32) << (j * w)
            })
        })
        .collect()
}

/// A kernel that runs `mma.sync.aligned.<qualifier>` once (one warp) for `.target <target>`:
/// lane `l` loads its A, B and C register words from `in` (lane-major, then A, B, C) and stores
/// its D words to `out`.
fn kernel(qualifier: &str, target: &str, [ra, rb, rc, rd]: [usize; 4], f64_form: bool) -> String {
    let d_type = types(qualifier)[0];
    let (w, ld, ab) = if f64_form {
        (8, "b64", "f64")
    } else {
        (4, "b32", "b32")
    };
    let cd = match d_type {
        "f16" => "b32",
        other => other,
    };
    let list = |prefix: &str, n: usize| {
        (0..n)
            .map(|i| format!("%{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut body = format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .{ab} %a<{ra}>, %b<{rb}>;\n.reg .{cd} %c<{rc}>, %d<{rd}>;\n\
         .reg .u32 %l;\n.reg .u64 %p, %q, %off;\n\
         mov.u32 %l, %tid.x;\nld.param.u64 %p, [in];\nld.param.u64 %q, [out];\n\
         mul.wide.u32 %off, %l, {};\nadd.u64 %p, %p, %off;\n\
         mul.wide.u32 %off, %l, {};\nadd.u64 %q, %q, %off;\n",
        (ra + rb + rc) * w,
        rd * w
    );
    for (prefix, n, start) in [("a", ra, 0), ("b", rb, ra), ("c", rc, ra + rb)] {
        for i in 0..n {
            body += &format!("ld.global.{ld} %{prefix}{i}, [%p+{}];\n", (start + i) * w);
        }
    }
    body += &format!(
        "mma.sync.aligned.{qualifier} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
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

/// Runs `case` as a kernel for `target` (with `cores` in place of the target's model when
/// given); D row-major.
fn run(case: &Case, target: &str, cores: Option<TensorCores>) -> Vec<u64> {
    let shape = case.qualifier.split('.').next().expect("a shape");
    let (m, rest) = shape[1..].split_once('n').expect("mNnNkN");
    let (n, k) = rest.split_once('k').expect("mNnNkN");
    let [m, n, k]: [usize; 3] = [m, n, k].map(|x| x.parse().expect("a number"));
    let types = types(&case.qualifier);
    let (d_ty, a_ty, b_ty, c_ty) = (types[0], types[1], types[2], types[3]);
    let f64_form = a_ty == "f64";
    let mut input = Vec::new();
    let mut counts = [0; 4];
    for lane in 0..32 {
        let words = [
            lane_words('a', &case.a, k, (m, m * k / 32, a_ty), lane),
            lane_words('b', &case.b, n, (m, k * n / 32, b_ty), lane),
            lane_words('c', &case.c, n, (m, m * n / 32, c_ty), lane),
        ];
        for (count, w) in counts.iter_mut().zip(&words) {
            *count = w.len();
        }
        input.extend(words.iter().flatten().flat_map(|w| w.to_le_bytes()));
    }
    let d_words = (m * n / 32 * width(d_ty)).div_ceil(32);
    counts[3] = d_words;
    let registers = counts.map(|c| if f64_form { c / 2 } else { c });
    let source = kernel(&case.qualifier, target, registers, f64_form);
    let program = ptxsim_exec::load(&source, None)
        .unwrap_or_else(|e| panic!("{}: {e:?}\n{source}", case.qualifier));
    let (mut device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [32, 1, 1],
        10_000,
        vec![
            ptxsim_exec::Argument::Buffer(input),
            ptxsim_exec::Argument::Buffer(vec![0xa5; 32 * d_words * 4]),
        ],
    )
    .expect("a valid launch");
    if let Some(cores) = cores {
        device.set_tensor_cores(cores);
    }
    let outcome = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(
        outcome.failure.is_none(),
        "{}: {:?}",
        case.qualifier,
        outcome.failure
    );
    let out = device
        .global
        .buffer_at(addresses[1].expect("a buffer"))
        .expect("the buffer")
        .contents();
    let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    let mut d = vec![0u64; m * n];
    let w = width(d_ty);
    for lane in 0..32 {
        for i in 0..m * n / 32 {
            let (row, col) = place('d', (m, 1), lane, i);
            let base = lane * d_words;
            d[row * n + col] = match w {
                64 => u64::from(word(base + 2 * i)) | u64::from(word(base + 2 * i + 1)) << 32,
                16 => u64::from(word(base + i / 2) >> (16 * (i % 2)) & 0xffff),
                _ => u64::from(word(base + i)),
            };
        }
    }
    d
}

/// Every tile on every generation MMA-Sim models for it gives MMA-Sim's D.
#[test]
fn every_generation_matches_mma_sim() {
    let cases = cases();
    assert!(cases.len() >= 80, "{} tiles", cases.len());
    let mut failures = Vec::new();
    let mut checked = [0usize; 5];
    for case in &cases {
        for (column, (_, target, _)) in GENERATIONS.iter().enumerate() {
            let Some(expected) = &case.d[column] else {
                continue;
            };
            let d = run(case, target, None);
            checked[column] += 1;
            let wrong = d.iter().zip(expected).filter(|(x, y)| x != y).count();
            if wrong > 0 {
                let first = d.iter().zip(expected).position(|(x, y)| x != y);
                failures.push(format!(
                    "{} {} on {target}: {wrong} of {} elements differ (first {first:?})",
                    case.qualifier,
                    case.class,
                    d.len()
                ));
            }
        }
    }
    eprintln!("tiles per generation (sm_80, 89, 90, 100, 120): {checked:?}");
    assert!(checked.iter().all(|&n| n >= 12), "{checked:?}");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The data tells the generations apart — Ampere and Ada Lovelace from Hopper (`.bf16`,
/// `.f16`, `.tf32`), RTX Blackwell from Ada Lovelace (FP8) — and a module built for `sm_80` run
/// on a modelled H100 (the override) gives Hopper's D, as on the GPU.
#[test]
fn the_generations_differ_and_the_device_overrides_the_target() {
    let cases = cases();
    let hopper = 2;
    for (x, y) in [(0, hopper), (1, hopper), (4, 1)] {
        let differ = cases
            .iter()
            .any(|case| matches!((&case.d[x], &case.d[y]), (Some(p), Some(q)) if p != q));
        assert!(
            differ,
            "{} gives {}'s D on every tile",
            GENERATIONS[x].0, GENERATIONS[y].0
        );
    }
    let case = cases
        .iter()
        .find(|c| {
            c.qualifier.starts_with("m16n8k16.row.col.f32.bf16")
                && matches!((&c.d[0], &c.d[hopper]), (Some(x), Some(y)) if x != y)
        })
        .expect("a bf16 k16 tile that differs");
    assert_eq!(
        Some(run(case, "sm_80", Some(TensorCores::Hopper))),
        case.d[hopper]
    );
    assert_eq!(
        Some(run(case, "sm_90", Some(TensorCores::Ampere))),
        case.d[0]
    );
}

/// sm_120a's FP6 and FP4 operands of `.kind::f8f6f4`, which MMA-Sim's `mma` does not run: one
/// row of A and one column of B whose products are exact and whose sum needs no alignment, so
/// D(0,0) is the exact `c + sum(a * b)` on every model. The elements sit in 8-bit containers as
/// 9.7.14.5.14 says ("the matrix element of type .e2m1 resides in central 4 bits of the 8-bit
/// container with padding in the upper 2 bits and lower 2 bits", ".e3m2 or .e2m3 ... in the
/// lower 6 bits ... with padding in the upper 2 bits"; the padding here is set, and ignored);
/// their values are the OCP formats' (e2m1 bias 1: 0.5, 1, 1.5, 2, 3, 4, 6; e3m2 bias 3; e2m3
/// bias 1; no infinity or NaN).
#[test]
fn fp6_and_fp4_operands_of_kind_f8f6f4() {
    // (qualifier, A(0, 0..), B(0.., 0), C(0, 0), the exact D(0, 0)).
    type Exact = (&'static str, &'static [u64], &'static [u64], f32, f32);
    let cases: [Exact; 2] = [
        (
            "m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32",
            // 6.0 (0111), -0.5 (1001), 1.0 (0010), 3.0 (0101), the padding bits set.
            &[0x1c | 0xc3, 0x24 | 0x03, 0x08 | 0xc0, 0x14],
            // 28 = 1.75 * 2^4 (0 111 11), 1.75 (0 011 11), -0.25 (1 001 00), 0.0625 (0 000 01,
            // subnormal: 0.25 * 2^-2), the padding bits set.
            &[0x1f | 0xc0, 0x0f, 0x24 | 0x40, 0x01 | 0x80],
            0.5,
            // 168 - 0.875 - 0.25 + 0.0625 * 3 + 0.5
            167.5625,
        ),
        (
            "m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16",
            // 7.5 = 1.875 * 2^2 (0 11 111), -1.0 (1 01 000).
            &[0x1f | 0xc0, 0x28],
            // 6.0 (0111), 0.5 (0001).
            &[0x1c, 0x04 | 0x03],
            -0.25,
            // 45 - 0.5 - 0.25
            44.25,
        ),
    ];
    for (qualifier, row, column, c, d) in cases {
        let types = types(qualifier);
        let half = types[0] == "f16";
        let bits = |x: f32| {
            if half {
                u64::from(ptxsim_softfloat::f32_to_f16(
                    x.to_bits(),
                    ptxsim_softfloat::Rounding::Rn,
                    ptxsim_softfloat::Flags::default(),
                ))
            } else {
                u64::from(x.to_bits())
            }
        };
        let (m, n, k) = (16, 8, 32);
        let mut case = Case {
            qualifier: qualifier.to_string(),
            class: "exact".to_string(),
            a: vec![0; m * k],
            b: vec![0; k * n],
            c: vec![0; m * n],
            d: Vec::new(),
        };
        case.a[..row.len()].copy_from_slice(row);
        for (i, &value) in column.iter().enumerate() {
            case.b[i * n] = value;
        }
        case.c[0] = bits(c);
        let out = run(&case, "sm_120a", None);
        assert_eq!(out[0], bits(d), "{qualifier}: {:#x}", out[0]);
        assert!(out[1..].iter().all(|&x| x == 0), "{qualifier}: {out:x?}");
    }
}

/// Runs sm_120a's `mma.sync.aligned.<qualifier> d, a, b, c, sa, {byte_a, thread_a}, sb,
/// {byte_b, thread_b}` once: A (16 x k) and B (k x 8) hold element codes (`.e2m1` of
/// `.kind::mxf4*` packed 8 to a register, the other types one to a byte, as 9.7.14.5.14 places
/// them), C is zero; `sfa[lane]` / `sfb[lane]` are the lanes' scale data. Returns D row-major
/// as `.f32` bits. The module declares PTX ISA 9.1, which `.scale_vec::4X` with `.ue8m0`
/// factors needs (ptxas 13.5: "Feature 'mma with .scale_vec::4X and .ue8m0 scale type'
/// requires PTX ISA .version 9.1 or later").
fn run_block_scaled(
    qualifier: &str,
    (a, b): (&[u64], &[u64]),
    (sfa, sfb): (&[u32; 32], &[u32; 32]),
    (byte_a, thread_a, byte_b, thread_b): (u32, u32, u32, u32),
) -> Vec<u64> {
    let k = a.len() / 16;
    let p = if k == 64 { 8 } else { 4 };
    let w = 32 / p;
    let words = |operand: char, matrix: &[u64], columns: usize, count: usize, lane: usize| {
        (0..count / p)
            .map(|register| {
                (0..p).fold(0u32, |word, j| {
                    let (row, col) = place(operand, (16, p), lane, register * p + j);
                    word | (matrix[row * columns + col] as u32) << (j * w)
                })
            })
            .collect::<Vec<u32>>()
    };
    let mut input = Vec::new();
    for lane in 0..32 {
        let mut lane_in = words('a', a, k, 16 * k / 32, lane);
        lane_in.extend(words('b', b, 8, 8 * k / 32, lane));
        lane_in.extend([sfa[lane], sfb[lane]]);
        input.extend(lane_in.iter().flat_map(|w| w.to_le_bytes()));
    }
    let loads: String = (0..8)
        .map(|i| {
            let register = match i {
                0..4 => format!("%a{i}"),
                4..6 => format!("%b{}", i - 4),
                6 => "%sa".to_string(),
                _ => "%sb".to_string(),
            };
            format!("ld.global.b32 {register}, [%p+{}];\n", 4 * i)
        })
        .collect();
    let source = format!(
        ".version 9.1\n.target sm_120a\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .b32 %a<4>, %b<2>, %sa, %sb;\n.reg .f32 %d<4>;\n\
         .reg .u32 %l;\n.reg .u64 %p, %q, %off;\n\
         mov.u32 %l, %tid.x;\nld.param.u64 %p, [in];\nld.param.u64 %q, [out];\n\
         mul.wide.u32 %off, %l, 32;\nadd.u64 %p, %p, %off;\n\
         mul.wide.u32 %off, %l, 16;\nadd.u64 %q, %q, %off;\n{loads}\
         mma.sync.aligned.{qualifier} {{%d0, %d1, %d2, %d3}}, {{%a0, %a1, %a2, %a3}}, \
         {{%b0, %b1}}, {{0f00000000, 0f00000000, 0f00000000, 0f00000000}}, %sa, \
         {{{byte_a}, {thread_a}}}, %sb, {{{byte_b}, {thread_b}}};\n\
         st.global.v4.f32 [%q], {{%d0, %d1, %d2, %d3}};\nret;\n}}\n"
    );
    let program =
        ptxsim_exec::load(&source, None).unwrap_or_else(|e| panic!("{qualifier}: {e:?}\n{source}"));
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [32, 1, 1],
        10_000,
        vec![
            ptxsim_exec::Argument::Buffer(input),
            ptxsim_exec::Argument::Buffer(vec![0xa5; 32 * 16]),
        ],
    )
    .expect("a valid launch");
    let outcome = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(
        outcome.failure.is_none(),
        "{qualifier}: {:?}",
        outcome.failure
    );
    let out = device
        .global
        .buffer_at(addresses[1].expect("a buffer"))
        .expect("the buffer")
        .contents();
    let mut d = vec![0u64; 16 * 8];
    for lane in 0..32 {
        for i in 0..4 {
            let (row, col) = place('d', (16, 1), lane, i);
            let at = 16 * lane + 4 * i;
            d[row * 8 + col] = u64::from(u32::from_le_bytes(out[at..at + 4].try_into().unwrap()));
        }
    }
    d
}

/// The OCP code of a small integer (|v| <= 4) in a format of `bias` and `fraction` bits with
/// the sign at `sign`.
fn small(v: i32, bias: u32, fraction: u32, sign: u32) -> u64 {
    if v == 0 {
        return 0;
    }
    let magnitude = v.unsigned_abs();
    let exponent = 31 - magnitude.leading_zeros();
    let bits =
        (exponent + bias) << fraction | (magnitude << fraction >> exponent) & ((1 << fraction) - 1);
    u64::from(u32::from(v < 0) << sign | bits)
}

/// sm_120a's block-scaled `mma.sync` (9.7.14.3): the integer product of A and B, each block of
/// K scaled by its row's and column's factor, every sum exact (so any correct arithmetic gives
/// these bits). The factors sit in the lanes and bytes the selectors pick: row `r` of A in lane
/// `4 (r % 8) + 2 thread-id-a + r / 8`, column `n` of B in lane `4n + thread-id-b` (CUTLASS's
/// SM120 `SFALayout`/`SFBLayout` for the ids 0; ptxas 13.5 bounds the ids: thread-id-a 0..1,
/// thread-id-b 0..3, byte-id 0..3 / 0, 2 / 0 for 1X / 2X / 4X); every other byte is a decoy.
#[test]
fn block_scaled_mma_sync_scales_each_block_by_the_selected_factors() {
    let a_int = |m: usize, k: usize| ((m * 5 + k * 3) % 9) as i32 - 4;
    let b_int = |k: usize, n: usize| ((k * 7 + n * 2) % 7) as i32 - 3;
    // (qualifier, K, factors per row, A's and B's code, .ue4m3, selectors).
    type Form = (
        &'static str,
        usize,
        usize,
        fn(i32) -> u64,
        fn(i32) -> u64,
        bool,
        [u32; 4],
    );
    let e2m1_packed: fn(i32) -> u64 = |v| small(v, 1, 1, 3);
    let e4m3: fn(i32) -> u64 = |v| small(v, 7, 3, 7);
    // e2m1 in the central 4 bits of its 8-bit container (9.7.14.5.14).
    let e2m1_container: fn(i32) -> u64 = |v| small(v, 1, 1, 3) << 2;
    let forms: [Form; 5] = [
        (
            "m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
            64,
            2,
            e2m1_packed,
            e2m1_packed,
            false,
            [2, 1, 0, 3],
        ),
        (
            "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
            64,
            2,
            e2m1_packed,
            e2m1_packed,
            false,
            [0, 0, 2, 1],
        ),
        (
            "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
            64,
            4,
            e2m1_packed,
            e2m1_packed,
            false,
            [0, 1, 0, 2],
        ),
        (
            "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
            64,
            4,
            e2m1_packed,
            e2m1_packed,
            true,
            [0, 0, 0, 3],
        ),
        (
            "m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0",
            32,
            1,
            e4m3,
            e2m1_container,
            false,
            [3, 1, 1, 2],
        ),
    ];
    for (qualifier, k, vec, a_code, b_code, ue4m3, selectors) in forms {
        let [byte_a, thread_a, byte_b, thread_b] = selectors;
        let a: Vec<u64> = (0..16 * k).map(|i| a_code(a_int(i / k, i % k))).collect();
        let b: Vec<u64> = (0..k * 8).map(|i| b_code(b_int(i / 8, i % 8))).collect();
        // Factor codes and worths: .ue8m0 2^(e - 127), e in 125..128; .ue4m3 (1 + f/8) 2^(e - 7)
        // with e in 6..7.
        let code = |i: usize, j: usize, salt: usize| -> u32 {
            if ue4m3 {
                (6 + ((i + j + salt) % 2) as u32) << 3 | ((i * 3 + j * 5 + salt) % 8) as u32
            } else {
                125 + ((i * 3 + j + salt) % 4) as u32
            }
        };
        let worth = |code: u32| -> f64 {
            if ue4m3 {
                (1.0 + f64::from(code & 7) / 8.0) * 2f64.powi((code >> 3) as i32 - 7)
            } else {
                2f64.powi(code as i32 - 127)
            }
        };
        let mut sfa = [0x5a5a_5a5au32; 32];
        let mut sfb = [0xa5a5_a5a5u32; 32];
        for r in 0..16 {
            let lane = 4 * (r % 8) + 2 * thread_a as usize + r / 8;
            for j in 0..vec {
                let shift = 8 * (byte_a as usize + j);
                sfa[lane] = sfa[lane] & !(0xff << shift) | code(r, j, 0) << shift;
            }
        }
        for n in 0..8 {
            let lane = 4 * n + thread_b as usize;
            for j in 0..vec {
                let shift = 8 * (byte_b as usize + j);
                sfb[lane] = sfb[lane] & !(0xff << shift) | code(n, j, 1) << shift;
            }
        }
        let d = run_block_scaled(
            qualifier,
            (&a, &b),
            (&sfa, &sfb),
            (byte_a, thread_a, byte_b, thread_b),
        );
        let block = k / vec;
        for m in 0..16 {
            for n in 0..8 {
                let want: f64 = (0..vec)
                    .map(|j| {
                        let sum: i32 = (block * j..block * (j + 1))
                            .map(|kk| a_int(m, kk) * b_int(kk, n))
                            .sum();
                        f64::from(sum) * worth(code(m, j, 0)) * worth(code(n, j, 1))
                    })
                    .sum();
                assert_eq!(
                    d[m * 8 + n],
                    u64::from((want as f32).to_bits()),
                    "{qualifier}: D({m}, {n})"
                );
            }
        }
    }
}
