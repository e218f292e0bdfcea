//! The sparse `mma.sp` / `mma.sp::ordered_metadata` (PTX ISA 9.7.14.6) through the whole of
//! ptxsim, against a plain CPU matrix product: a random structured-sparse A (9.7.14.6.1: 2:4
//! for `.f16`/`.bf16`/`.s8`/`.u8`/FP8, 1:2 for `.tf32`, pairwise 4:8 for `.s4`/`.u4`) is
//! compressed into the lanes' `a` registers and their metadata `e`, and D must be `A*B + C` of
//! the dense A. The floating-point tiles hold small integers, so every accumulation order and
//! rounding gives the same exact result; the integer ones cover the whole ranges, with sums that
//! wrap or, with `.satfinite`, clamp.
//!
//! Typed here from the sources, not from the executor: the A fragments from the ISA's
//! "firstcol" formulas (9.7.14.6.2.1 to .8); the index encodings from 9.7.14.6.1 ("two 2-bit
//! indices", `.tf32`'s "0b1110 and 0b0100", `.s4`'s two-wide sub-chunks); which lane's `e`
//! covers which rows and columns from CUTLASS's `ELayout`s of the same instructions
//! (`cute/atom/mma_traits_sm80_sparse.hpp`: for example `SM80_SPARSE_16x8x32_F16F16F16F16_TN`,
//! `Shape<Shape<_2,_2,_8>, Shape<_16,_2>>, Stride<Stride<_256,_0,_1>, Stride<_0,_8>>>`: lane bit
//! 0 selects columns 16-31, the quad selects rows, each 16-bit half a row), the ISA's figures
//! not being in its text; B from the dense fragments of the same `k` (CUTLASS's `BLayout`s for
//! the shapes without a dense form). Every kernel is accepted by ptxas 13.5 (`-arch sm_90a`,
//! and the non-FP8 ones `-arch sm_80`; the `.kind::f8f6f4` ones `-arch sm_120a`).

use super::mma::{Rng, run_tiles, tile_kernel};

/// One sparse form: `m16n8k<k>`, A/B type, D/C type, `.satfinite`, `.sp::ordered_metadata`.
pub(super) struct Form {
    pub(super) k: usize,
    pub(super) ab: (&'static str, &'static str),
    pub(super) dc: &'static str,
    pub(super) satfinite: bool,
    pub(super) ordered: bool,
}

/// Bits of one element of an A/B type.
pub(super) fn width(ty: &str) -> usize {
    match ty {
        "f16" | "bf16" => 16,
        "tf32" => 32,
        "s4" | "u4" => 4,
        _ => 8,
    }
}

/// The bits of the integer `v` (exactly representable) in a floating-point type, from the format's
/// fields: `2^e * (1 + f / 2^mbits)`.
pub(super) fn float_bits(ty: &str, v: i64) -> u64 {
    let (ebits, mbits, total) = match ty {
        "f16" => (5, 10, 16),
        "bf16" => (8, 7, 16),
        "tf32" | "f32" => (8, 23, 32),
        "e4m3" => (4, 3, 8),
        "e5m2" => (5, 2, 8),
        // FP6 in the low 6 bits of its 8-bit container (9.7.14.5.14: "resides in the lower 6
        // bits of the 8-bit container").
        "e3m2" => (3, 2, 6),
        "e2m3" => (2, 3, 6),
        // FP4 (moved to the central 4 bits of its container below).
        "e2m1" => (2, 1, 4),
        _ => unreachable!(),
    };
    if v == 0 {
        return 0;
    }
    let magnitude = v.unsigned_abs();
    let exponent = 63 - magnitude.leading_zeros() as u64;
    let fraction = ((magnitude << mbits) >> exponent) & ((1 << mbits) - 1);
    let bias = (1u64 << (ebits - 1)) - 1;
    let sign = u64::from(v < 0) << (total - 1);
    let bits = sign | (exponent + bias) << mbits | fraction;
    // "The matrix element of type .e2m1 resides in central 4 bits of the 8-bit container"
    // (9.7.14.5.14).
    if ty == "e2m1" { bits << 2 } else { bits }
}

/// A random element of an A/B type: its value and its bits.
pub(super) fn random_element(rng: &mut Rng, ty: &str) -> (i64, u64) {
    match ty {
        "s8" | "u8" | "s4" | "u4" => {
            let bits = width(ty);
            let field = rng.below(1 << bits);
            let unused = 64 - bits;
            let value = if ty.starts_with('s') {
                (field as i64) << unused >> unused
            } else {
                field as i64
            };
            (value, field)
        }
        float => {
            let v = rng.below(7) as i64 - 3;
            (v, float_bits(float, v))
        }
    }
}

/// What one lane's metadata word covers: `(row offset from groupID, first bit)` of each row it
/// holds, and the columns `from..to` of those rows.
pub(super) struct Coverage {
    pub(super) rows: Vec<(usize, u32)>,
    pub(super) columns: (usize, usize),
}

/// Which lanes of a quad hold metadata, as CUTLASS's `ELayout`s give it: for the lane's
/// position `t` in its quad and the selector, what it covers (`None`: it supplies none).
pub(super) fn coverage(form: &Form, t: usize, selector: usize) -> Option<Coverage> {
    let k = form.k;
    let ty = form.ab.0;
    let by_columns = matches!((ty, k), ("f16" | "bf16", 32) | ("tf32", 16));
    let one = matches!((ty, k), ("f16" | "bf16", 16) | ("tf32", 8));
    let all = matches!(
        (ty, k),
        ("s8" | "u8" | "e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1", 64) | ("s4" | "u4", 128)
    );
    if one {
        // Stride<_0,_1> over (4, 8) lanes, Stride<_0,_8> over (16|8, 2) values.
        return (t == selector).then(|| Coverage {
            rows: vec![(0, 0), (8, 16)],
            columns: (0, k),
        });
    }
    if by_columns {
        // Stride<_256|_128, _0, _1>: lane bit 0 picks the column half.
        if t / 2 != selector {
            return None;
        }
        let half = t % 2;
        return Some(Coverage {
            rows: vec![(0, 0), (8, 16)],
            columns: (half * k / 2, (half + 1) * k / 2),
        });
    }
    if all {
        // Stride<_8, _512|_1024, _1>: lane bit 0 the row, lane bit 1 the column half.
        let (row, half) = (t % 2, t / 2);
        return Some(Coverage {
            rows: vec![(8 * row, 0)],
            columns: (half * k / 2, (half + 1) * k / 2),
        });
    }
    // Stride<_8, _0, _1>, one 32-bit value per row: lane bit 0 the row.
    if t / 2 != selector {
        return None;
    }
    Some(Coverage {
        rows: vec![(8 * (t % 2), 0)],
        columns: (0, k),
    })
}

/// A random structured-sparse A of `m` rows and `k` columns (9.7.14.6.1, 9.7.15.6.1): the dense
/// values, the bits of the stored elements (`k/2` a row, in column order) and the 4-bit index
/// of each chunk.
pub(super) struct SparseTile {
    pub(super) dense: Vec<Vec<i64>>,
    pub(super) stored: Vec<Vec<u64>>,
    pub(super) nibbles: Vec<Vec<u32>>,
}

/// Columns to a chunk and stored elements to a chunk of an A type: 1:2 for `.tf32`, pairwise
/// 4:8 for `.s4`/`.u4`, 2:4 for the others.
pub(super) fn chunking(a_ty: &str) -> (usize, usize) {
    match a_ty {
        "tf32" => (2, 1),
        "s4" | "u4" => (8, 4),
        _ => (4, 2),
    }
}

/// A random [`SparseTile`]: the two indices of a 2:4 chunk in any order, or increasing with
/// `ordered`; `.tf32`'s index "0b0100" for the first element of its two-wide chunk, "0b1110"
/// for the second.
pub(super) fn random_sparse(
    rng: &mut Rng,
    a_ty: &str,
    ordered: bool,
    m: usize,
    k: usize,
) -> SparseTile {
    let (chunk, stored) = chunking(a_ty);
    let mut dense = vec![vec![0i64; k]; m];
    let mut stored_bits = vec![vec![0u64; k / 2]; m];
    let mut nibbles = vec![vec![0u32; k / chunk]; m];
    for row in 0..m {
        for c in 0..k / chunk {
            // The positions of the stored elements in the chunk, and the 4-bit index.
            let (positions, nibble): (Vec<usize>, u32) = match a_ty {
                "tf32" => {
                    let at = rng.below(2) as usize;
                    (vec![at], if at == 0 { 0b0100 } else { 0b1110 })
                }
                _ => {
                    let first = rng.below(4) as u32;
                    let mut second = rng.below(3) as u32;
                    if second >= first {
                        second += 1;
                    }
                    let (first, second) = if ordered {
                        (first.min(second), first.max(second))
                    } else {
                        (first, second)
                    };
                    let positions = if chunk == 8 {
                        // Two-wide sub-chunks: elements 2i, 2i + 1.
                        [first, second]
                            .iter()
                            .flat_map(|&i| [2 * i as usize, 2 * i as usize + 1])
                            .collect()
                    } else {
                        vec![first as usize, second as usize]
                    };
                    (positions, first | second << 2)
                }
            };
            nibbles[row][c] = nibble;
            for (j, &position) in positions.iter().enumerate() {
                let (value, bits) = random_element(rng, a_ty);
                dense[row][c * chunk + position] = value;
                stored_bits[row][c * stored + j] = bits;
            }
        }
    }
    SparseTile {
        dense,
        stored: stored_bits,
        nibbles,
    }
}

/// The metadata word of the lane at `t` in its quad whose `groupID` rows start at row `base`
/// of `nibbles`: the chunks [`coverage`] gives it, chunk `c` of a covered range at bit `4c`
/// from the row's first bit, or random bits when it supplies none.
pub(super) fn metadata_word(
    form: &Form,
    t: usize,
    selector: usize,
    nibbles: &[Vec<u32>],
    base: usize,
    rng: &mut Rng,
) -> u32 {
    let (chunk, _) = chunking(form.ab.0);
    match coverage(form, t, selector) {
        Some(Coverage {
            rows,
            columns: (from, to),
        }) => {
            let mut word = 0u32;
            for (row_offset, bit) in rows {
                for column in (from..to).step_by(chunk) {
                    let nibble = nibbles[base + row_offset][column / chunk];
                    word |= nibble << (bit + 4 * ((column - from) / chunk) as u32);
                }
            }
            word
        }
        None => rng.next() as u32,
    }
}

/// The first column of A register `r` of a lane with `threadID_in_group` `t` and whether it is
/// row `groupID + 8` (9.7.14.6.2's formulas).
fn a_register(form: &Form, t: usize, r: usize) -> (usize, bool) {
    match (form.ab.0, form.k) {
        // .f16/.bf16 m16n8k16: "row = groupID for a0 and a1, groupID + 8 for a2 and a3";
        // firstcol = threadID_in_group * 4 (two elements to a register).
        ("f16" | "bf16", 16) => (t * 4, r == 1),
        // m16n8k32: "row = groupID for ai where 0 <= i < 2 || 4 <= i < 6"; firstcol = t * 4
        // for i < 4, (t * 4) + 16 for i >= 4.
        ("f16" | "bf16", _) => (t * 4 + 16 * (r / 2), r % 2 == 1),
        // .tf32 m16n8k8: "row = groupID for a0, groupID + 8 for a1"; firstcol = t * 2.
        ("tf32", 8) => (t * 2, r == 1),
        // m16n8k16: "row = groupID for a0 and a2"; firstcol = t * 2 for a0 and a1, + 8 for
        // a2 and a3.
        ("tf32", _) => (t * 2 + 8 * (r / 2), r % 2 == 1),
        // .u8/.s8 m16n8k32: "row = groupID for ai where 0 <= i < 4"; firstcol = t * 8.
        ("s8" | "u8", 32) => (t * 8, r == 1),
        // .u8/.s8/FP8 m16n8k64 (and `.kind::f8f6f4`'s FP6/FP4 in 8-bit containers): "row =
        // groupID for ai where 0 <= i < 4 || 8 <= i < 12"; firstcol = t * 8 for i < 8, + 32
        // for i >= 8.
        ("s8" | "u8" | "e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1", _) => {
            (t * 8 + 32 * (r / 2), r % 2 == 1)
        }
        // .u4/.s4 m16n8k64: "row = groupID for ai where 0 <= i < 8"; firstcol = t * 16.
        ("s4" | "u4", 64) => (t * 16, r == 1),
        // m16n8k128: "row = groupID for ai where 0 <= i < 8 || 16 <= i < 24"; firstcol =
        // t * 16 for i < 16, + 64 for i >= 16.
        _ => (t * 16 + 64 * (r / 2), r % 2 == 1),
    }
}

fn forms() -> Vec<Form> {
    let form = |k, ab, dc, satfinite, ordered| Form {
        k,
        ab,
        dc,
        satfinite,
        ordered,
    };
    vec![
        form(16, ("f16", "f16"), "f16", false, false),
        form(16, ("f16", "f16"), "f32", false, true),
        form(32, ("f16", "f16"), "f32", false, false),
        form(32, ("f16", "f16"), "f16", false, true),
        form(16, ("bf16", "bf16"), "f32", false, true),
        form(32, ("bf16", "bf16"), "f32", false, false),
        form(8, ("tf32", "tf32"), "f32", false, false),
        form(16, ("tf32", "tf32"), "f32", false, true),
        form(64, ("e4m3", "e5m2"), "f32", false, true),
        form(64, ("e5m2", "e4m3"), "f32", false, false),
        form(32, ("s8", "s8"), "s32", false, false),
        form(32, ("u8", "s8"), "s32", true, true),
        form(64, ("s8", "u8"), "s32", true, false),
        form(64, ("u8", "u8"), "s32", false, true),
        form(64, ("s4", "s4"), "s32", false, true),
        form(64, ("u4", "s4"), "s32", true, false),
        form(128, ("s4", "u4"), "s32", true, true),
        form(128, ("u4", "u4"), "s32", false, false),
    ]
}

/// The sparse `.kind::f8f6f4` forms (sm_120a; 9.7.14.6.3 `mma.spvariant.sync.aligned.m16n8k64.
/// row.col.kind::f8f6f4.dtype.f8f6f4type.f8f6f4type.ctype`, which ptxas 13.5 takes with
/// `.sp::ordered_metadata` only and the selector 0): FP8, FP6 and FP4 in 8-bit containers, laid
/// out as the 8-bit `.m16n8k64` forms (CUTLASS's `SM120_SPARSE_16x8x64_TN`, in
/// `cute/atom/mma_traits_sm120_sparse.hpp`, shares the FP8 `ELayout`).
fn kind_f8f6f4_forms() -> Vec<Form> {
    let form = |ab, dc| Form {
        k: 64,
        ab,
        dc,
        satfinite: false,
        ordered: true,
    };
    vec![
        form(("e2m1", "e3m2"), "f32"),
        form(("e2m3", "e2m1"), "f16"),
        form(("e4m3", "e2m1"), "f32"),
        form(("e3m2", "e5m2"), "f16"),
    ]
}

/// D = A*B + C for every sparse form and every selector the ISA allows it, with random sparsity
/// patterns (in any order of the two indices for `.sp`, increasing for
/// `.sp::ordered_metadata`) and random metadata words in the lanes that supply none.
#[test]
fn sparse_forms_match_a_plain_matrix_product() {
    let mut rng = Rng(0x5ba5_0e5e);
    let mut checked = 0;
    let forms = forms().into_iter().map(|form| (form, false));
    for (form, kind) in forms.chain(kind_f8f6f4_forms().into_iter().map(|form| (form, true))) {
        let (m, n, k) = (16usize, 8usize, form.k);
        let (a_ty, b_ty) = form.ab;
        let integer = form.dc == "s32";
        let bits = width(a_ty);
        let per_register = 32 / bits;
        // Chunk width, stored elements to a chunk.
        let (chunk, stored) = chunking(a_ty);
        let selectors = match (a_ty, k) {
            ("f16" | "bf16", 16) | ("tf32", 8) => 4,
            ("s8" | "u8" | "e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1", 64) | ("s4" | "u4", 128) => {
                1
            }
            _ => 2,
        };
        for selector in 0..selectors {
            let SparseTile {
                dense,
                stored: stored_bits,
                nibbles,
            } = random_sparse(&mut rng, a_ty, form.ordered, m, k);
            let b: Vec<Vec<(i64, u64)>> = (0..k)
                .map(|_| (0..n).map(|_| random_element(&mut rng, b_ty)).collect())
                .collect();
            let c: Vec<Vec<i64>> = (0..m)
                .map(|row| {
                    (0..n)
                        .map(|_| match (integer, row) {
                            (true, 0) => i64::from(i32::MAX) - rng.below(1 << 20) as i64,
                            (true, 9) => i64::from(i32::MIN) + rng.below(1 << 20) as i64,
                            (true, _) => rng.below(2_000_001) as i64 - 1_000_000,
                            (false, _) => rng.below(201) as i64 - 100,
                        })
                        .collect()
                })
                .collect();
            let d: Vec<Vec<i64>> = (0..m)
                .map(|row| {
                    (0..n)
                        .map(|col| {
                            let sum = (0..k).map(|i| dense[row][i] * b[i][col].0).sum::<i64>()
                                + c[row][col];
                            match (integer, form.satfinite) {
                                (true, true) => sum.clamp(i32::MIN.into(), i32::MAX.into()),
                                (true, false) => i64::from(sum as i32),
                                (false, _) => sum,
                            }
                        })
                        .collect()
                })
                .collect();
            // C and D: row = groupID (+ 8 for i >= 2), col = threadID_in_group * 2 + (i & 1);
            // `.f16` two to a register.
            let accumulator_bits = |v: i64| match form.dc {
                "s32" => v as u32 as u64,
                other => float_bits(other, v),
            };
            let (accumulator_per_register, accumulator_width) =
                if form.dc == "f16" { (2, 16) } else { (1, 32) };
            let nc = 4 / accumulator_per_register;
            let na = m * k / 2 * bits / 1024;
            let nb = k * n * bits / 1024;
            let mut input = Vec::new();
            let mut expected = Vec::new();
            let pack = |out: &mut Vec<u8>,
                        count: usize,
                        per: usize,
                        w: usize,
                        value: &dyn Fn(usize) -> u64| {
                for register in 0..count {
                    let mut word = 0u32;
                    for j in 0..per {
                        word |= (value(register * per + j) as u32) << (j * w);
                    }
                    out.extend_from_slice(&word.to_le_bytes());
                }
            };
            for lane in 0..32 {
                let (group, t) = (lane / 4, lane % 4);
                // A: register r holds the stored elements of its 2p columns, in column order.
                pack(&mut input, na, per_register, bits, &|i| {
                    let (first, high) = a_register(&form, t, i / per_register);
                    let row = group + if high { 8 } else { 0 };
                    stored_bits[row][first / chunk * stored + i % per_register]
                });
                // B: row = threadID_in_group * p + (i % p) + 4p * (i / p), col = groupID.
                let q = 32 / width(b_ty);
                pack(&mut input, nb, q, width(b_ty), &|i| {
                    b[t * q + i % q + 4 * q * (i / q)][group].1
                });
                let accumulator = |i: usize| (group + 8 * (i / 2), 2 * t + i % 2);
                pack(
                    &mut input,
                    nc,
                    accumulator_per_register,
                    accumulator_width,
                    &|i| {
                        let (row, col) = accumulator(i);
                        accumulator_bits(c[row][col])
                    },
                );
                // e: the chunks this lane covers, or random bits.
                let metadata = metadata_word(&form, t, selector, &nibbles, group, &mut rng);
                input.extend_from_slice(&metadata.to_le_bytes());
                pack(
                    &mut expected,
                    nc,
                    accumulator_per_register,
                    accumulator_width,
                    &|i| {
                        let (row, col) = accumulator(i);
                        accumulator_bits(d[row][col])
                    },
                );
            }
            let name = format!(
                "m16n8k{k}.row.col{}{}.{}.{a_ty}.{b_ty}.{}",
                if kind { ".kind::f8f6f4" } else { "" },
                if form.satfinite { ".satfinite" } else { "" },
                form.dc,
                form.dc
            );
            let variant = if form.ordered {
                "sp::ordered_metadata"
            } else {
                "sp"
            };
            let d_ty = match form.dc {
                "f16" => "b32",
                other => other,
            };
            let source = tile_kernel(
                &name,
                [na, nb, nc, nc],
                false,
                d_ty,
                Some((variant, selector as u32)),
            );
            let source = if kind {
                source.replace(".target sm_90", ".target sm_120a")
            } else {
                source
            };
            let out = run_tiles(&name, &source, 1, input, expected.len());
            assert!(
                out == expected,
                "mma.{variant}.{name} with selector {selector}: D differs from the matrix product"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 42);
}

/// A selector inside 0..3 but outside the ISA's range for the form ("the sparsity selector
/// must be either 0 (threads T0, T1) or 1 (threads T2, T3); any other value results in an
/// undefined behavior") stops the warp with a located trap; one outside 0..3 is a check error.
#[test]
fn an_undefined_selector_traps() {
    use ptxsim_exec::Outcome;
    use ptxsim_exec::grid::{self, GridOptions};
    let name = "m16n8k32.row.col.f32.f16.f16.f32";
    let source = tile_kernel(name, [4, 4, 4, 4], false, "f32", Some(("sp", 2)));
    let program = ptxsim_exec::load(&source, None).expect("ptxas accepts selector 2");
    // ptxas 13.5 rejects 4: "value '4' out of range, expected to be in range [0..3]".
    let four = tile_kernel(name, [4, 4, 4, 4], false, "f32", Some(("sp", 4)));
    let error = ptxsim_exec::load(&four, None).expect_err("selector 4 is refused");
    assert!(format!("{error:?}").contains("0..3"), "{error:?}");
    let (device, _) = grid::prepare(
        &program,
        [1, 1, 1],
        [32, 1, 1],
        10_000,
        vec![
            ptxsim_exec::Argument::Buffer(vec![0; 32 * 13 * 4]),
            ptxsim_exec::Argument::Buffer(vec![0; 32 * 4 * 4]),
        ],
    )
    .expect("a valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    let failure = run.failure.expect("the selector traps");
    match failure.outcome {
        Ok(Outcome::Trapped { message, location }) => {
            assert!(message.contains("sparsity selector 2"), "{message}");
            assert!(location.line > 0);
        }
        other => panic!("{other:?}"),
    }
}

/// ptxas 13.5 refuses the sparse `.kind::f8f6f4` with `.sp` ("Illegal modifier '.sp' for
/// instruction 'mma'") and with a selector other than 0 ("Argument 5 of instruction 'mma':
/// unexpected value '1', expected to be 0"); so does the checker.
#[test]
fn the_sparse_kind_f8f6f4_takes_ordered_metadata_and_selector_0() {
    let name = "m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32";
    let kernel = |variant, selector| {
        tile_kernel(name, [4, 4, 4, 4], false, "f32", Some((variant, selector)))
            .replace(".target sm_90", ".target sm_120a")
    };
    ptxsim_exec::load(&kernel("sp::ordered_metadata", 0), None).expect("ptxas accepts it");
    for (variant, selector) in [("sp", 0), ("sp::ordered_metadata", 1)] {
        let Err(ptxsim_exec::LoadError::Diagnostics(diagnostics)) =
            ptxsim_exec::load(&kernel(variant, selector), None)
        else {
            panic!("mma.{variant} with selector {selector}: ptxas refuses it");
        };
        assert!(!diagnostics.is_empty());
    }
}
