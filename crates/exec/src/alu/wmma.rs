//! `wmma` (PTX ISA 9.7.14.4): the fragment layouts and the arithmetic of `wmma.mma`.
//!
//! **Layouts.** "The layout of the fragments held by different threads is unspecified"
//! (9.7.14.4.1), so they were measured on an H100 (`tests/hardware/wmma/wmma.txt.xz`, made by
//! `scripts/hardware/wmma/wmma.cu`; `crates/exec/tests/suite/wmma.rs` checks [`fragment`] against
//! all 30 dumps). Every fragment is made of `mma.m16n8kK` fragments ([`crate::alu::mma`]'s
//! layouts, `g = lane / 4`, `t = lane % 4`, `p` elements per 32-bit register):
//!
//! * `.m16n16k16`, `.m32n8k16`, `.m16n16k8`: A is one `m16n8kK` A fragment per 16 rows, B one
//!   `m16n8kK` B fragment per 8 columns, C/D one `m16n8` C fragment per 16x8 tile (row tiles
//!   first); `.tf32` uses the `m16n8k8` fragments;
//! * `.m8n32k16` is computed transposed, `D^T = B^T * A^T` as two `m16n8k16` tiles: A holds an
//!   `m16n8k16` B fragment of `A^T`, B two `m16n8k16` A fragments of `B^T` (n 0-15, 16-31), C/D
//!   two `m16n8` C fragments of `D^T`;
//! * `.m8n8k4` `.f64` is the `mma.m8n8k4.f64` fragment (A `(g, t)`, B `(t, g)`, C `(g, 2t+i)`);
//! * `.m8n8k32` (`.s4`/`.u4`) and `.m8n8k128` (`.b1`) are taken to be the `mma.m8n8k32` and
//!   `mma.m8n8k128` fragments (A `(g, pt + i)`, B `(pt + i, g)`, C `(g, 2t+i)`, p = 8 or 32), as
//!   every measured shape is its `mma`'s; not measured.
//!
//! An `.f16` A or B fragment is always eight `.f16x2` registers: the distinct registers above,
//! repeated to fill eight (measured: `a.row.m16n16k16.f16` lane 0 holds A(0,0), A(0,1), A(8,0),
//! A(8,1), A(0,8), A(0,9), A(8,8), A(8,9) twice). `wmma.mma` reads the first copy.
//!
//! The fragment does not depend on the memory layout (`.row`/`.col`: measured for every `.f16`
//! A and B and for the `.f32` C). Measured: all `.f16` A/B layouts, `.bf16` a.row/b.col
//! `.m16n16k16`, `.tf32` a.row/b.col, `.s8` a.row/b.col `.m16n16k16`, `.f64` a.row/b.col, C
//! `.f32`/`.f16`/`.s32` of the three big shapes (`.m8n32k16`/`.m32n8k16` `.f32`, `.m32n8k16`
//! `.f16`, `.m16n16k16` `.s32`) and `.f64`. Derived from those siblings (same formulas, not
//! measured): `.bf16` at `.m32n8k16`/`.m8n32k16` and with the other memory layout, `.s8`/`.u8`
//! at the other shapes and layouts, `.u8` altogether, the `.s32` C of the other shapes.
//!
//! **Arithmetic.** ptxas lowers `wmma.mma` for sm_90 to `mma` instructions
//! (`tests/hardware/wmma/wmma-sass.txt`): `.f16`/`.bf16` to two `HMMA.16816`, `.s8` to two
//! `IMMA.16816`, `.tf32` `.m16n16k8` to four `HMMA.1684.F32.TF32` (two chained k4 steps per
//! 8-column half). So each element of D is the `mma.m16n8k16` dot product of its row of A and
//! column of B ([`mma::dot_float`], [`mma::dot_integer`]; the sub-byte forms as `mma`'s exact
//! integer sum, `.b1` as [`mma::dot_single_bit`]); for `.tf32` the `k = 0..4` step runs
//! first and its result is the accumulator of the `k = 4..8` step (matches the H100's tiles;
//! the other order does not); `.f64` is `mma.m8n8k4.f64` ([`mma::dot_f64`]).

use super::mma;
use ptxsim_isa::mma::{MmaForm, MmaType};
use ptxsim_isa::wmma::{WmmaForm, WmmaMatrix};

/// Elements per 32-bit register (`.f64`: one per 64-bit register; `.s4`/`.u4` eight, `.b1`
/// 32).
fn per_register(ty: MmaType) -> usize {
    (32 / ty.bits().min(32)) as usize
}

/// `(row, column)` in the matrix (A: M x K, B: K x N, C/D: M x N) of each distinct element of
/// `lane`'s fragment, in fragment order (element `e` is in register `e / p`, bits
/// `(e % p) * width` up, `p` elements per register).
pub fn fragment(form: &WmmaForm, matrix: WmmaMatrix, lane: usize) -> Vec<(usize, usize)> {
    let (g, t) = (lane / 4, lane % 4);
    let p = per_register(form.element(matrix));
    let k = form.k as usize;
    // The `mma.m16n8kK` fragments.
    let mma_a = move |e: usize| {
        let (r, j) = (e / p, e % p);
        (g + 8 * (r % 2), t * p + j + (r / 2) * 4 * p)
    };
    let mma_b = move |e: usize| {
        let (r, j) = (e / p, e % p);
        (t * p + j + r * 4 * p, g)
    };
    let mma_c = move |i: usize| (g + 8 * (i / 2), 2 * t + i % 2);
    let (a_count, b_count) = (16 * k / 32, k * 8 / 32);
    let c_matrix = matches!(matrix, WmmaMatrix::C | WmmaMatrix::D);
    match (form.m, form.n) {
        // `.m8n8k4` `.f64` (one element of A and B per lane), and the sub-byte `.m8n8k32` /
        // single-bit `.m8n8k128`: the `mma.m8n8k32` / `mma.m8n8k128` fragments (9.7.14.5.4,
        // .5: A row groupID, col `threadID_in_group * p + i`; B transposed), p = 8 or 32.
        (8, 8) => match matrix {
            WmmaMatrix::A => (0..p).map(mma_a).collect(),
            WmmaMatrix::B => (0..p).map(mma_b).collect(),
            _ => vec![(g, 2 * t), (g, 2 * t + 1)],
        },
        (8, 32) => match matrix {
            WmmaMatrix::A => (0..b_count)
                .map(|e| {
                    let (kk, m) = mma_b(e);
                    (m, kk)
                })
                .collect(),
            WmmaMatrix::B => (0..2)
                .flat_map(|tile| {
                    (0..a_count).map(move |e| {
                        let (n, kk) = mma_a(e);
                        (kk, n + 16 * tile)
                    })
                })
                .collect(),
            _ => (0..2)
                .flat_map(|tile| {
                    (0..4).map(move |i| {
                        let (n, m) = mma_c(i);
                        (m, n + 16 * tile)
                    })
                })
                .collect(),
        },
        _ => {
            let (row_tiles, column_tiles) = (form.m as usize / 16, form.n as usize / 8);
            if matrix == WmmaMatrix::A {
                (0..row_tiles)
                    .flat_map(|tile| {
                        (0..a_count).map(move |e| {
                            let (r, c) = mma_a(e);
                            (r + 16 * tile, c)
                        })
                    })
                    .collect()
            } else if !c_matrix {
                (0..column_tiles)
                    .flat_map(|tile| {
                        (0..b_count).map(move |e| {
                            let (r, c) = mma_b(e);
                            (r, c + 8 * tile)
                        })
                    })
                    .collect()
            } else {
                (0..row_tiles)
                    .flat_map(|ti| (0..column_tiles).map(move |tj| (ti, tj)))
                    .flat_map(|(ti, tj)| {
                        (0..4).map(move |i| {
                            let (r, c) = mma_c(i);
                            (r + 16 * ti, c + 8 * tj)
                        })
                    })
                    .collect()
            }
        }
    }
}

/// Element `e` of a fragment's registers (64-bit values; 32-bit registers in the low half).
pub fn element(registers: &[u64], ty: MmaType, e: usize) -> u64 {
    if ty == MmaType::F64 {
        return registers.get(e).copied().unwrap_or(0);
    }
    let p = per_register(ty);
    let width = ty.bits().min(32);
    let register = registers.get(e / p).copied().unwrap_or(0);
    (register >> ((e % p) as u32 * width)) & ((1u64 << width) - 1)
}

/// Sets element `e` of a fragment's registers.
pub fn set_element(registers: &mut [u64], ty: MmaType, e: usize, value: u64) {
    if ty == MmaType::F64 {
        registers[e] = value;
        return;
    }
    let p = per_register(ty);
    let width = ty.bits().min(32);
    let shift = (e % p) as u32 * width;
    let mask = ((1u64 << width) - 1) << shift;
    registers[e / p] = (registers[e / p] & !mask) | (value << shift & mask);
}

/// The equivalent `mma` form whose dot product gives one element of D.
fn equivalent(form: &WmmaForm) -> MmaForm {
    let k = match form.a {
        MmaType::Tf32 => 4,
        _ => form.k,
    };
    MmaForm {
        m: if form.a == MmaType::F64 { 8 } else { 16 },
        n: 8,
        k: k.into(),
        a_row: true,
        b_col: true,
        satfinite: form.satfinite,
        kind_f8f6f4: false,
        block_scale: None,
        bit_op: form.bit_op,
        sparse: None,
        d: form.d,
        a: form.a,
        b: form.b,
        c: form.c,
        rounding: form.rounding,
    }
}

/// Runs one `wmma.mma` for a warp on `cores`' arithmetic: `registers[lane]` are each lane's fragment registers of a,
/// b and c (only the distinct ones are read). Returns each lane's d registers.
pub fn mma(
    cores: mma::TensorCores,
    form: &WmmaForm,
    a: &[Vec<u64>],
    b: &[Vec<u64>],
    c: &[Vec<u64>],
) -> Vec<Vec<u64>> {
    let (m, n, k) = (form.m as usize, form.n as usize, form.k as usize);
    let mut am = vec![vec![0u64; k]; m];
    let mut bt = vec![vec![0u64; k]; n];
    let mut cm = vec![vec![0u64; n]; m];
    for lane in 0..32 {
        for (e, (row, col)) in fragment(form, WmmaMatrix::A, lane).into_iter().enumerate() {
            am[row][col] = element(&a[lane], form.a, e);
        }
        for (e, (row, col)) in fragment(form, WmmaMatrix::B, lane).into_iter().enumerate() {
            bt[col][row] = element(&b[lane], form.b, e);
        }
        for (e, (row, col)) in fragment(form, WmmaMatrix::C, lane).into_iter().enumerate() {
            cm[row][col] = element(&c[lane], form.c, e);
        }
    }
    let equivalent = equivalent(form);
    let dot = |row: &[u64], column: &[u64], c: u64| -> u64 {
        match form.a {
            MmaType::S8 | MmaType::U8 | MmaType::S4 | MmaType::U4 => {
                mma::dot_integer(&equivalent, row, column, c)
            }
            MmaType::B1 => mma::dot_single_bit(&equivalent, row, column, c),
            MmaType::F64 => mma::dot_f64(row, column, c, form.rounding),
            MmaType::Tf32 => {
                let mut step = equivalent;
                step.c = MmaType::F32;
                let first = mma::dot_float_on(cores, &step, &row[..4], &column[..4], c);
                mma::dot_float_on(cores, &step, &row[4..], &column[4..], first)
            }
            _ if form.d == MmaType::F16 && form.c == MmaType::F32 => {
                // An `.f16` D from an `.f32` C: ptxas runs `HMMA.16816.F32` (the f32
                // accumulator, truncated) and converts with `F2FP` to nearest even
                // (`tests/hardware/wmma/wmma2-sass.txt`); one direct rounding of the exact sum
                // to f16 differs on the H100's tiles (`wmma2.txt.xz`).
                let mut step = equivalent;
                step.d = MmaType::F32;
                let wide = mma::dot_float_on(cores, &step, row, column, c) as u32;
                if wide & 0x7f80_0000 == 0x7f80_0000 && wide & 0x007f_ffff != 0 {
                    0x7fff
                } else {
                    u64::from(ptxsim_softfloat::f32_to_f16(
                        wide,
                        ptxsim_softfloat::Rounding::Rn,
                        ptxsim_softfloat::Flags::default(),
                    ))
                }
            }
            _ => mma::dot_float_on(cores, &equivalent, row, column, c),
        }
    };
    (0..32)
        .map(|lane| {
            let mut registers = vec![0u64; form.distinct_registers(WmmaMatrix::D)];
            for (e, (row, col)) in fragment(form, WmmaMatrix::D, lane).into_iter().enumerate() {
                set_element(
                    &mut registers,
                    form.d,
                    e,
                    dot(&am[row], &bt[col], cm[row][col]),
                );
            }
            registers
        })
        .collect()
}
