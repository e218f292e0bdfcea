//! The sparse `wgmma.mma_async.sp` (PTX ISA 9.7.15.6) through the whole of ptxsim — checker,
//! program builder, the warpgroup's rendezvous, the descriptors, the metadata — against a plain
//! CPU matrix product: a random structured-sparse A (9.7.15.6.1: 2:4 for `.f16`/`.bf16`/FP8/
//! `.s8`/`.u8`, 1:2 for `.tf32`) is stored as `64 x K/2` ("The matrix A is stored in the packed
//! format Mx(K/2)") in shared memory or in the threads' `a` registers, with each thread's
//! `sp-meta`, and D must be `A*B + C` of the dense A (the floating-point tiles hold small
//! integers, so every accumulation order and rounding gives the same exact sum). One more tile
//! is worked by hand from the Hopper model where the rounding shows.
//!
//! Typed here from the sources, not from the executor: the index encodings of 9.7.15.6.1 and
//! the metadata lanes of CUTLASS's `ELayout_64x32`, `ELayout_64x16` and `ELayout_64x64`
//! (`cute/atom/mma_traits_sm90_gmma_sparse.hpp`: e.g. `ELayout_64x32` is `((2,2,8,4),(16,2)) :
//! ((1024,0,1,16),(64,8))` over the 64 x 32 A: lane bit 0 the column half, lane bit 1 none (the
//! selector picks the pair), the quad the row `g`, the warp 16 rows, each 16-bit half a row),
//! which are, warp by warp, the `mma.sp` layouts [`super::mma_sparse::coverage`] types; "Each
//! warp in the warpgroup provides sparsity information for 16 rows of matrix A". A in registers
//! is the stored matrix in the dense `wgmma` A fragment of `K/2` (lane `4g + q` of warp `w`,
//! register `r`, element `j`: row `16w + g + 8 (r % 2)`, stored column `pq + j + 4p (r / 2)`,
//! `p` elements a register; the ISA draws it in Figures 175, 177 and 179, not in its text), D
//! in the accumulator fragment of 9.7.15.5.1.1. Shared memory as the descriptors describe it
//! (9.7.15.5.1.2, K-major, no swizzle): core matrices of 8 rows of 16 bytes, the leading byte
//! offset (128) to the next 16 bytes of `k`, the stride byte offset to the next 8 rows. Every
//! kernel is accepted by ptxas 13.5 (`-arch sm_90a`).

use super::mma::Rng;
use super::mma_sparse::{Form, SparseTile, float_bits, metadata_word, random_element, width};

const THREADS: usize = 128;
/// The stored A: 64 rows of 32 bytes (`K/2` elements) for every type.
const A_BYTES: usize = 2048;

/// One sparse tile: shape and types, where A comes from, the selector, the immediates.
struct Case {
    n: usize,
    dc: &'static str,
    ab: (&'static str, &'static str),
    satfinite: bool,
    registers: bool,
    selector: usize,
    negate_a: bool,
    /// `imm-trans-a = 1`: A M-major in shared memory (`.f16`/`.bf16` by descriptor).
    trans_a: bool,
}

impl Case {
    /// The dense `k`: 32 bytes of A elements a row, twice.
    fn k(&self) -> usize {
        2 * 256 / width(self.ab.0)
    }

    /// The instruction's modifiers after `wgmma.mma_async.sp.sync.aligned`.
    fn name(&self) -> String {
        format!(
            "m64n{}k{}{}.{}.{}.{}",
            self.n,
            self.k(),
            if self.satfinite { ".satfinite" } else { "" },
            self.dc,
            self.ab.0,
            self.ab.1
        )
    }

    /// The operands after `scale-d` (9.7.15.6.3, "Syntax").
    fn immediates(&self) -> String {
        let scale_a = if self.negate_a { -1 } else { 1 };
        match self.ab.0 {
            "s8" | "u8" => String::new(),
            "f16" | "bf16" if self.registers => format!(", {scale_a}, 1, 0"),
            "f16" | "bf16" => format!(", {scale_a}, 1, {}, 0", u8::from(self.trans_a)),
            _ => format!(", {scale_a}, 1"),
        }
    }

    /// `d` registers a thread: `N/2` of `.f32`/`.s32`, `N/4` of `.f16x2`.
    fn nd(&self) -> usize {
        if self.dc == "f16" {
            self.n / 4
        } else {
            self.n / 2
        }
    }
}

/// B: `N` rows of `K` elements, 64 bytes a row for every type (4 core-matrix columns, the
/// stride byte offset 512).
fn b_bytes(n: usize) -> usize {
    n * 64
}

/// One CTA of 128 threads. Input: the A region, the B region, each thread's `sp-meta`, its four
/// A registers, its `nd` C words; output: its `nd` D words.
fn kernel(case: &Case) -> String {
    let nd = case.nd();
    let bb = b_bytes(case.n);
    let d_list = (0..nd)
        .map(|i| format!("%d{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut body = format!(
        ".version 8.4\n.target sm_90a\n.address_size 64\n\
         .shared .align 1024 .b8 sa[{A_BYTES}];\n.shared .align 1024 .b8 sb[{bb}];\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .b32 %d<{nd}>, %a<4>, %w, %t, %sa, %sb, %s, %meta;\n\
         .reg .b64 %p, %q, %off, %da, %db;\n.reg .pred %scale;\n\
         mov.u32 %t, %tid.x;\nld.param.u64 %p, [in];\nld.param.u64 %q, [out];\n\
         mov.u32 %sa, sa;\nmov.u32 %sb, sb;\n\
         mul.wide.u32 %off, %t, 4;\nadd.u64 %p, %p, %off;\n\
         shl.b32 %s, %t, 2;\nadd.u32 %sa, %sa, %s;\nadd.u32 %sb, %sb, %s;\n"
    );
    for i in 0..A_BYTES / 4 / THREADS {
        let at = i * THREADS * 4;
        body += &format!("ld.global.b32 %w, [%p+{at}];\nst.shared.b32 [%sa+{at}], %w;\n");
    }
    for i in 0..bb / 4 / THREADS {
        let at = i * THREADS * 4;
        body += &format!(
            "ld.global.b32 %w, [%p+{}];\nst.shared.b32 [%sb+{at}], %w;\n",
            A_BYTES + at
        );
    }
    let meta = A_BYTES + bb;
    body += &format!("ld.global.b32 %meta, [%p+{meta}];\n");
    // A registers and C: thread t's at their regions + t * size (undo the t * 4 above).
    body += "sub.u64 %p, %p, %off;\nmul.wide.u32 %off, %t, 16;\nadd.u64 %p, %p, %off;\n";
    let registers = meta + THREADS * 4;
    for r in 0..4 {
        body += &format!("ld.global.b32 %a{r}, [%p+{}];\n", registers + 4 * r);
    }
    body += &format!(
        "sub.u64 %p, %p, %off;\nmul.wide.u32 %off, %t, {};\nadd.u64 %p, %p, %off;\n",
        nd * 4
    );
    let c = registers + THREADS * 16;
    for i in 0..nd {
        body += &format!("ld.global.b32 %d{i}, [%p+{}];\n", c + 4 * i);
    }
    body += "bar.sync 0;\n\
             mov.u32 %sa, sa;\nmov.u32 %sb, sb;\n\
             cvt.u64.u32 %da, %sa;\nshr.u64 %da, %da, 4;\nand.b64 %da, %da, 0x3fff;\n\
             or.b64 %da, %da, 0x0000001000080000;\n\
             cvt.u64.u32 %db, %sb;\nshr.u64 %db, %db, 4;\nand.b64 %db, %db, 0x3fff;\n\
             or.b64 %db, %db, 0x0000002000080000;\n\
             setp.ne.b32 %scale, 1, 0;\n\
             wgmma.fence.sync.aligned;\n";
    let a = if case.registers {
        "{%a0, %a1, %a2, %a3}"
    } else {
        "%da"
    };
    body += &format!(
        "wgmma.mma_async.sp.sync.aligned.{} {{{d_list}}}, {a}, %db, %meta, {}, %scale{};\n",
        case.name(),
        case.selector,
        case.immediates()
    );
    body += "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n";
    body += &format!(
        "mul.wide.u32 %off, %t, {};\nadd.u64 %q, %q, %off;\n",
        nd * 4
    );
    for i in 0..nd {
        body += &format!("st.global.b32 [%q+{}], %d{i};\n", i * 4);
    }
    body + "ret;\n}\n"
}

/// Runs one CTA of `kernel`'s source: D's words, or the failure.
fn run(source: &str, input: Vec<u8>, out: usize) -> Result<Vec<u8>, String> {
    super::wgmma::run(source, 1, THREADS as u32, input, out)
}

/// The byte offset of element `(row, column)` of `size`-byte elements in a K-major,
/// unswizzled region: 8-row core matrices of 16 bytes, 16-byte columns 128 bytes apart, 8-row
/// groups `stride` bytes apart.
fn k_major(row: usize, column: usize, size: usize, stride: usize) -> usize {
    let byte = column * size;
    (row % 8) * 16 + (row / 8) * stride + (byte / 16) * 128 + byte % 16
}

/// The byte offset of element `(row, column)` of `size`-byte elements in an M-major,
/// unswizzled region (9.7.15.5.1.2.1.3, "MN-major, no-swizzling": `((T,1,m),(8,k)) :
/// ((1,T,SBO),(1T,LBO))` in `T = 16 / size` elements): 16 bytes of consecutive rows, the next
/// `k` 16 bytes on, 8 `k` a block, blocks `leading` bytes apart, 8-row groups `stride` apart.
fn m_major(row: usize, column: usize, size: usize, (leading, stride): (usize, usize)) -> usize {
    let per = 16 / size;
    (row / per) * stride + (row % per) * size + (column % 8) * 16 + (column / 8) * leading
}

/// Writes `value`'s low `size` bytes at `at`.
fn put(region: &mut [u8], at: usize, size: usize, value: u64) {
    region[at..at + size].copy_from_slice(&value.to_le_bytes()[..size]);
}

/// The input of one tile and the D words it must give: A (`tile.stored`, 64 x K/2), B (`k x
/// n`), C (`64 x n`) as bits of their types, D the exact `A*B + C` (negated product with
/// `imm-scale-a = -1`), wrapped or clamped for `.s32`.
fn tile_input(
    case: &Case,
    tile: &SparseTile,
    metadata: &[u32],
    b: &[Vec<(i64, u64)>],
    c: &[Vec<i64>],
) -> (Vec<u8>, Vec<u8>) {
    let (a_ty, b_ty) = case.ab;
    let (size_a, size_b) = (width(a_ty) / 8, width(b_ty) / 8);
    let (n, k, nd) = (case.n, case.k(), case.nd());
    let mut a_region = vec![0u8; A_BYTES];
    for (row, elements) in tile.stored.iter().enumerate() {
        for (column, &bits) in elements.iter().enumerate() {
            let at = if case.trans_a {
                m_major(row, column, size_a, (128, 256))
            } else {
                k_major(row, column, size_a, 256)
            };
            put(&mut a_region, at, size_a, bits);
        }
    }
    let mut b_region = vec![0u8; b_bytes(n)];
    for (kk, row) in b.iter().enumerate() {
        for (col, &(_, bits)) in row.iter().enumerate() {
            put(&mut b_region, k_major(col, kk, size_b, 512), size_b, bits);
        }
    }
    let integer = case.dc == "s32";
    let d = |row: usize, col: usize| {
        let product: i64 = (0..k).map(|i| tile.dense[row][i] * b[i][col].0).sum();
        let sum = c[row][col] + if case.negate_a { -product } else { product };
        match (integer, case.satfinite) {
            (true, true) => sum.clamp(i32::MIN.into(), i32::MAX.into()),
            (true, false) => i64::from(sum as i32),
            (false, _) => sum,
        }
    };
    let accumulator_bits = |v: i64| match case.dc {
        "s32" => u64::from(v as u32),
        other => float_bits(other, v),
    };
    let mut registers = Vec::new();
    let (mut c_words, mut d_words) = (Vec::new(), Vec::new());
    let p = 32 / width(a_ty);
    for thread in 0..THREADS {
        let (warp, g, q) = (thread / 32, (thread % 32) / 4, thread % 4);
        for r in 0..4 {
            let row = 16 * warp + g + 8 * (r % 2);
            let word = (0..p).fold(0u64, |word, j| {
                let column = p * q + j + 4 * p * (r / 2);
                word | tile.stored[row][column] << (j * width(a_ty))
            });
            registers.extend_from_slice(&(word as u32).to_le_bytes());
        }
        // Element i: row 16w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2q + i % 2; `.f16` two
        // to a register, the lower column in the low half.
        let (per, bits) = if case.dc == "f16" { (2, 16) } else { (1, 32) };
        for register in 0..nd {
            let (mut cw, mut dw) = (0u64, 0u64);
            for half in 0..per {
                let i = register * per + half;
                let row = 16 * warp + g + 8 * ((i / 2) % 2);
                let col = 8 * (i / 4) + 2 * q + i % 2;
                cw |= accumulator_bits(c[row][col]) << (half * bits);
                dw |= accumulator_bits(d(row, col)) << (half * bits);
            }
            c_words.extend_from_slice(&(cw as u32).to_le_bytes());
            d_words.extend_from_slice(&(dw as u32).to_le_bytes());
        }
    }
    let meta: Vec<u8> = metadata.iter().flat_map(|m| m.to_le_bytes()).collect();
    let input = [a_region, b_region, meta, registers, c_words].concat();
    (input, d_words)
}

fn cases() -> Vec<Case> {
    let case = |n, dc, ab, registers, selector| Case {
        n,
        dc,
        ab,
        satfinite: false,
        registers,
        selector,
        negate_a: false,
        trans_a: false,
    };
    vec![
        case(16, "f32", ("f16", "f16"), false, 0),
        Case {
            negate_a: true,
            ..case(16, "f32", ("f16", "f16"), false, 1)
        },
        Case {
            trans_a: true,
            ..case(16, "f32", ("bf16", "bf16"), false, 0)
        },
        case(8, "f16", ("f16", "f16"), true, 1),
        case(8, "f32", ("bf16", "bf16"), true, 0),
        case(8, "f32", ("bf16", "bf16"), false, 1),
        case(8, "f32", ("tf32", "tf32"), false, 1),
        case(16, "f32", ("tf32", "tf32"), true, 0),
        case(8, "f32", ("e4m3", "e5m2"), false, 0),
        Case {
            negate_a: true,
            ..case(8, "f16", ("e5m2", "e4m3"), true, 0)
        },
        case(8, "s32", ("s8", "u8"), false, 0),
        Case {
            satfinite: true,
            ..case(16, "s32", ("u8", "u8"), true, 0)
        },
        Case {
            satfinite: true,
            ..case(8, "s32", ("s8", "s8"), false, 0)
        },
    ]
}

/// D = A*B + C for each case: every type, A from shared memory (K-major, and M-major with
/// `imm-trans-a = 1`) and from registers, both selectors of the 16- and 32-bit types, random
/// metadata in the threads that supply none, `imm-scale-a = -1`, and `.s32` sums that wrap or
/// clamp.
#[test]
fn sparse_wgmma_matches_a_plain_matrix_product() {
    let mut rng = Rng(0x7a5e_11ad);
    for case in cases() {
        let (n, k) = (case.n, case.k());
        let (a_ty, b_ty) = case.ab;
        let form = Form {
            k,
            ab: case.ab,
            dc: case.dc,
            satfinite: case.satfinite,
            ordered: false,
        };
        let tile = super::mma_sparse::random_sparse(&mut rng, a_ty, false, 64, k);
        let metadata: Vec<u32> = (0..THREADS)
            .map(|thread| {
                let (warp, lane) = (thread / 32, thread % 32);
                let base = 16 * warp + lane / 4;
                metadata_word(
                    &form,
                    lane % 4,
                    case.selector,
                    &tile.nibbles,
                    base,
                    &mut rng,
                )
            })
            .collect();
        let b: Vec<Vec<(i64, u64)>> = (0..k)
            .map(|_| (0..n).map(|_| random_element(&mut rng, b_ty)).collect())
            .collect();
        let c: Vec<Vec<i64>> = (0..64)
            .map(|row| {
                (0..n)
                    .map(|_| match (case.dc, row) {
                        ("s32", 0) => i64::from(i32::MAX) - rng.below(64) as i64,
                        ("s32", 9) => i64::from(i32::MIN) + rng.below(64) as i64,
                        ("s32", _) => rng.below(2_000_001) as i64 - 1_000_000,
                        _ => rng.below(201) as i64 - 100,
                    })
                    .collect()
            })
            .collect();
        let (input, expected) = tile_input(&case, &tile, &metadata, &b, &c);
        let source = kernel(&case);
        let out = run(&source, input, expected.len())
            .unwrap_or_else(|e| panic!("{}: {e}\n{source}", case.name()));
        let differing = out
            .chunks(4)
            .zip(expected.chunks(4))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differing,
            0,
            "sp.{} (A from {}, selector {}): {differing} D words differ",
            case.name(),
            if case.registers {
                "registers"
            } else {
                "shared memory"
            },
            case.selector
        );
    }
}

/// A tile whose sum is inexact, worked by hand from the Hopper tensor-core model
/// (docs/tensor-cores.md; MMA-Sim's algorithm with ptxsim's measured width): every product
/// exact, aligned to the largest exponent among the products and C, each cut to 25 fraction
/// bits below it, summed, the sum rounded toward zero to `.f32`. Row 0 of A holds `2^-12` at
/// column 0 and `2^-13` at columns 2, 5, 7 and 8 (chunks 0 and 1 with indices (0, 2) and
/// (1, 3), chunk 2 with (0, 1) and a stored zero, the rest zero); column 0 of B the same values
/// at those columns; C is 1. The products are `2^-24` and four of `2^-26`: the `2^-26` fall
/// below `2^-25` and are cut, and `1 + 2^-24` rounds toward zero to 1 — `0x3f800000`, where an
/// exact sum (`1 + 2^-23`) would give `0x3f800001`. Row 8 (the same thread's next element) holds
/// `2^-12` at columns 0 and 1 against `2^-12` in B: `1 + 2^-23` exactly, `0x3f800001`.
#[test]
fn an_inexact_sparse_sum_follows_the_hopper_model() {
    let case = Case {
        n: 8,
        dc: "f32",
        ab: ("f16", "f16"),
        satfinite: false,
        registers: false,
        selector: 0,
        negate_a: false,
        trans_a: false,
    };
    let f16 = |exponent: i32| ((exponent + 15) as u64) << 10;
    // The stored rows 0 and 8 of A, the rest zero (`dense` is not used: the words checked are
    // the hand-worked ones).
    let dense = vec![vec![0i64; 32]; 64];
    let mut stored = vec![vec![0u64; 16]; 64];
    let mut nibbles = vec![vec![0u32; 8]; 64];
    // Chunk indices as "two 2-bit indices", the first stored element's in the low bits; the
    // chunks of zeros keep (0, 1) with zero elements.
    for row in &mut nibbles {
        row.fill(0b0100);
    }
    stored[0][..6].copy_from_slice(&[f16(-12), f16(-13), f16(-13), f16(-13), f16(-13), 0]);
    nibbles[0][..3].copy_from_slice(&[0b1000, 0b1101, 0b0100]);
    stored[8][..2].copy_from_slice(&[f16(-12), f16(-12)]);
    let tile = SparseTile {
        dense,
        stored,
        nibbles,
    };
    let form = Form {
        k: 32,
        ab: case.ab,
        dc: case.dc,
        satfinite: false,
        ordered: false,
    };
    let mut rng = Rng(1);
    let metadata: Vec<u32> = (0..THREADS)
        .map(|thread| {
            let (warp, lane) = (thread / 32, thread % 32);
            let base = 16 * warp + lane / 4;
            metadata_word(&form, lane % 4, 0, &tile.nibbles, base, &mut rng)
        })
        .collect();
    let mut b = vec![vec![(0i64, 0u64); 8]; 32];
    b[0][0].1 = f16(-12);
    b[1][0].1 = f16(-12);
    for column in [2, 5, 7, 8] {
        b[column][0].1 = f16(-13);
    }
    let c = vec![vec![0i64; 8]; 64];
    let (mut input, expected) = tile_input(&case, &tile, &metadata, &b, &c);
    // C = 1.0 in every register of thread 0 (rows 0 and 8, columns 0 and 1).
    let c_at = input.len() - THREADS * 4 * case.nd();
    for register in 0..4 {
        let at = c_at + 4 * register;
        input[at..at + 4].copy_from_slice(&0x3f80_0000u32.to_le_bytes());
    }
    let out = run(&kernel(&case), input, expected.len()).expect("the tile runs");
    let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().expect("a word"));
    // Thread 0: register 0 is D(0, 0), register 2 is D(8, 0); registers 1 and 3 (column 1)
    // keep C.
    assert_eq!(word(0), 0x3f80_0000, "D(0, 0)");
    assert_eq!(word(2), 0x3f80_0001, "D(8, 0)");
    assert_eq!((word(1), word(3)), (0x3f80_0000, 0x3f80_0000), "column 1");
}
