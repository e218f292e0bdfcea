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
