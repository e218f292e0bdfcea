//! The sub-byte integer (`.s4`/`.u4`) and single-bit (`.b1`, `.xor.popc`/`.and.popc`) forms of
//! `mma.sync.aligned` (PTX ISA 9.7.14.5.14) through the whole of ptxsim, against a plain CPU
//! matrix product written from the ISA's definition: "D = A*B+C" with the exact integer sum
//! ("Integer operations": wrapped, or limited to MIN_INT32..MAX_INT32 with `.satfinite`), and
//! for `.b1` "the XOR, AND respectively of a k-bit row of A with a k-bit column of B, then
//! counts the number of set bits in the result (popc). This result is added to the
//! corresponding element of C".
//!
//! The matrices reach the lanes' registers through the fragment layouts typed here from the
//! ISA's sections (9.7.14.5.4 `.m8n8k32`, .5 `.m8n8k128`, .10 `.m16n8k32`, .11 `.m16n8k64`,
//! .12 `.m16n8k128`, .13 `.m16n8k256`), element `i` of a lane at bits `i * width` of its
//! registers ("Elements (low to high)"), independently of the executor's layout code. Every
//! kernel the test generates is accepted by ptxas 13.5 (`ptxas -arch sm_90a`, and `-arch
//! sm_80`), with the register counts used here.

use super::mma::{Rng, run_tiles, tile_kernel};

/// An operand of the fragment tables.
#[derive(Clone, Copy, PartialEq)]
enum Matrix {
    A,
    B,
    Accumulator,
}

/// `(row, column)` of element `i` of lane `lane`'s fragment, as the ISA's "The row and column
/// of a matrix fragment can be computed as" formulas give it for shape `(m, k)` and width `bits`
/// (4 for `.s4`/`.u4`, 1 for `.b1`). The `.m16n8k256` A formula prints `(threadID_in_group *
/// 32) + i` for `i < 64`; `i & 0x1F` is meant (as in `.m16n8k128`: a32..a63 are row
/// `groupID + 8`, columns `threadID_in_group * 32 ..`).
fn place(
    matrix: Matrix,
    (m, k): (usize, usize),
    bits: u32,
    lane: usize,
    i: usize,
) -> (usize, usize) {
    let (group, thread) = (lane >> 2, lane % 4);
    match (matrix, m, k, bits) {
        // 9.7.14.5.4: row = groupID, col = (threadID_in_group * 8) + i.
        (Matrix::A, 8, 32, 4) => (group, thread * 8 + i),
        // row = (threadID_in_group * 8) + i, col = groupID.
        (Matrix::B, 8, 32, 4) => (thread * 8 + i, group),
        // 9.7.14.5.5: row = groupID, col = (threadID_in_group * 32) + i.
        (Matrix::A, 8, 128, 1) => (group, thread * 32 + i),
        (Matrix::B, 8, 128, 1) => (thread * 32 + i, group),
        // 9.7.14.5.10: row = groupID for i < 8, groupID + 8 for i >= 8;
        // col = (threadID_in_group * 8) + (i & 0x7).
        (Matrix::A, 16, 32, 4) => (group + if i < 8 { 0 } else { 8 }, thread * 8 + (i & 7)),
        (Matrix::B, 16, 32, 4) => (thread * 8 + (i & 7), group),
        // 9.7.14.5.11: row = groupID for 0 <= i < 8 || 16 <= i < 24, else groupID + 8;
        // col = (threadID_in_group * 8) + (i & 0x7) (+ 32 for i >= 16).
        (Matrix::A, 16, 64, 4) => (
            group + if i < 8 || (16..24).contains(&i) { 0 } else { 8 },
            thread * 8 + (i & 7) + if i >= 16 { 32 } else { 0 },
        ),
        // row = (threadID_in_group * 8) + (i & 0x7) (+ 32 for i >= 8), col = groupID.
        (Matrix::B, 16, 64, 4) => (thread * 8 + (i & 7) + if i >= 8 { 32 } else { 0 }, group),
        // 9.7.14.5.12: row = groupID for i < 32, groupID + 8 for i >= 32;
        // col = (threadID_in_group * 32) + (i & 0x1F).
        (Matrix::A, 16, 128, 1) => (group + if i < 32 { 0 } else { 8 }, thread * 32 + (i & 31)),
        (Matrix::B, 16, 128, 1) => (thread * 32 + i, group),
        // 9.7.14.5.13: row = groupID for 0 <= i < 32 || 64 <= i < 96, else groupID + 8;
        // col = (threadID_in_group * 32) + (i & 0x1F) (+ 128 for i >= 64).
        (Matrix::A, 16, 256, 1) => (
            group
                + if i < 32 || (64..96).contains(&i) {
                    0
                } else {
                    8
                },
            thread * 32 + (i & 31) + if i >= 64 { 128 } else { 0 },
        ),
        // row = (threadID_in_group * 32) + (i & 0x1F) (+ 128 for i >= 32), col = groupID.
        (Matrix::B, 16, 256, 1) => (
            thread * 32 + (i & 31) + if i >= 32 { 128 } else { 0 },
            group,
        ),
        // C and D (.s32): row = groupID (+ 8 for i >= 2 in the m16 shapes),
        // col = (threadID_in_group * 2) + (i & 0x1).
        (Matrix::Accumulator, 8, ..) => (group, thread * 2 + i),
        (Matrix::Accumulator, 16, ..) => (group + if i < 2 { 0 } else { 8 }, thread * 2 + (i & 1)),
        _ => unreachable!("no such fragment"),
    }
}

/// One form: shape, A and B types, `.satfinite`, the single-bit operation.
struct Form {
    m: usize,
    k: usize,
    a: &'static str,
    b: &'static str,
    satfinite: bool,
    bit_op: Option<&'static str>,
}

impl Form {
    fn bits(&self) -> u32 {
        if self.a == "b1" { 1 } else { 4 }
    }

    fn name(&self) -> String {
        format!(
            "m{}n8k{}.row.col{}.s32.{}.{}.s32{}",
            self.m,
            self.k,
            if self.satfinite { ".satfinite" } else { "" },
            self.a,
            self.b,
            self.bit_op
                .map_or(String::new(), |op| format!(".{op}.popc"))
        )
    }

    /// The value of a field of `bits` bits of type `ty`.
    fn value(ty: &str, field: u64) -> i64 {
        match ty {
            "s4" => (field as i64) << 60 >> 60,
            _ => field as i64,
        }
    }
}

/// Every sub-byte and single-bit form of the ISA's syntax.
fn forms() -> Vec<Form> {
    let mut forms = Vec::new();
    for (m, k) in [(8, 32), (16, 32), (16, 64)] {
        for a in ["s4", "u4"] {
            for b in ["s4", "u4"] {
                for satfinite in [false, true] {
                    forms.push(Form {
                        m,
                        k,
                        a,
                        b,
                        satfinite,
                        bit_op: None,
                    });
                }
            }
        }
    }
    for (m, k) in [(8, 128), (16, 128), (16, 256)] {
        for op in ["xor", "and"] {
            forms.push(Form {
                m,
                k,
                a: "b1",
                b: "b1",
                satfinite: false,
                bit_op: Some(op),
            });
        }
    }
    forms
}

/// D = A*B + C for every form on random tiles (C near the `.s32` limits in some rows, so that
/// the sums wrap or, with `.satfinite`, clamp), through generated kernels.
#[test]
fn sub_byte_and_single_bit_forms_match_a_plain_matrix_product() {
    const TILES: usize = 2;
    let mut rng = Rng(0x5eed_0b17);
    let mut checked = 0;
    for form in forms() {
        let (m, n, k, bits) = (form.m, 8, form.k, form.bits());
        let per_register = (32 / bits) as usize;
        // Registers per lane: A and B packed, C and D one `.s32` each.
        let [na, nb] = [m * k, k * n].map(|elements| elements * bits as usize / 1024);
        let nc = m * n / 32;
        let mut input = Vec::new();
        let mut expected = Vec::new();
        for tile in 0..TILES {
            let mask = (1u64 << bits) - 1;
            let a: Vec<Vec<u64>> = (0..m)
                .map(|_| (0..k).map(|_| rng.next() & mask).collect())
                .collect();
            let b: Vec<Vec<u64>> = (0..k)
                .map(|_| (0..n).map(|_| rng.next() & mask).collect())
                .collect();
            // Row 0 of C near i32::MAX and row 1 near i32::MIN on the second tile.
            let c: Vec<Vec<i32>> = (0..m)
                .map(|row| {
                    (0..n)
                        .map(|_| match (tile, row) {
                            (1, 0) => i32::MAX - (rng.next() % 64) as i32,
                            (1, 1) => i32::MIN + (rng.next() % 64) as i32,
                            _ => (rng.next() % 20_001) as i32 - 10_000,
                        })
                        .collect()
                })
                .collect();
            // The reference, from the definition.
            let d: Vec<Vec<i32>> = (0..m)
                .map(|row| {
                    (0..n)
                        .map(|col| {
                            let sum: i64 = (0..k)
                                .map(|i| match form.bit_op {
                                    Some("xor") => (a[row][i] ^ b[i][col]) as i64,
                                    Some(_) => (a[row][i] & b[i][col]) as i64,
                                    None => {
                                        Form::value(form.a, a[row][i])
                                            * Form::value(form.b, b[i][col])
                                    }
                                })
                                .sum::<i64>()
                                + i64::from(c[row][col]);
                            if form.satfinite {
                                sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
                            } else {
                                sum as i32 // wraps
                            }
                        })
                        .collect()
                })
                .collect();
            for lane in 0..32 {
                let mut registers =
                    |matrix,
                     count: usize,
                     per: usize,
                     width: u32,
                     value: &dyn Fn(usize, usize) -> u64| {
                        let mut words = vec![0u32; count];
                        for i in 0..count * per {
                            let (row, col) = place(matrix, (m, k), bits, lane, i);
                            words[i / per] |=
                                (value(row, col) as u32) << ((i % per) as u32 * width);
                        }
                        for word in words {
                            input.extend_from_slice(&word.to_le_bytes());
                        }
                    };
                registers(Matrix::A, na, per_register, bits, &|row, col| a[row][col]);
                registers(Matrix::B, nb, per_register, bits, &|row, col| b[row][col]);
                registers(Matrix::Accumulator, nc, 1, 32, &|row, col| {
                    c[row][col] as u32 as u64
                });
                for i in 0..nc {
                    let (row, col) = place(Matrix::Accumulator, (m, k), bits, lane, i);
                    expected.extend_from_slice(&d[row][col].to_le_bytes());
                }
            }
        }
        let name = form.name();
        let source = tile_kernel(&name, [na, nb, nc, nc], false, "s32", None);
        let out = run_tiles(&name, &source, TILES, input, expected.len());
        assert!(out == expected, "{name}: D differs from the matrix product");
        checked += 1;
    }
    assert_eq!(checked, 30);
}
