//! The fragment layouts of `ldmatrix`, `stmatrix` and `movmatrix` (PTX ISA 9.7.14.5.15-17), as
//! pure functions between matrix rows and the lanes' registers: the `.m8n8` shape with `.b16`
//! elements, and the sm_100a 8-bit shapes (below).
//!
//! An 8x8 matrix of 16-bit elements is held by a warp as one 32-bit register per lane: "Each
//! thread in a warp loads fragments of a row, with thread 0 receiving the first fragment in its
//! register r, and so on. A group of four threads loads an entire row of the matrix": lane `t`
//! holds row `t / 4`, columns `2 * (t % 4)` (low half) and `2 * (t % 4) + 1` (high half).
//! `.trans` ("the matrix is loaded in column-major format") makes the memory row `r` the
//! matrix's column `r`: lane `t` then holds memory rows `2 * (t % 4)` and `2 * (t % 4) + 1` at
//! column `t / 4`.

use ptxsim_isa::matrix::ROWS;

/// One row of 8-bit elements: the 16 bytes at a row address, column 0 first.
pub type ByteRow = [u8; 16];

/// The 16 bytes of a row (little-endian, as memory holds them).
pub fn bytes_from_bits(bits: u128) -> ByteRow {
    bits.to_le_bytes()
}

/// A row's bytes as memory holds them.
pub fn bytes_to_bits(row: &ByteRow) -> u128 {
    u128::from_le_bytes(*row)
}

/// The `.b8x16` row `ldmatrix` unpacks from a 16-byte source row of `.b6x16_p32` (`width` 6)
/// or `.b4x16_p64` (`width` 4): "source data is 16 unsigned 6-bit elements with 32 bits
/// padding" / "16 unsigned 4-bit elements with 64 bits padding" (9.7.14.5.15), element `e` in
/// bits `width * e ..` of the row (the padding above them), and each 8-bit element holds its
/// value in its low bits ("For 4-bit or 6-bit data, 8-bit element will have 4 bits or 2 bits of
/// padding respectively"; the padding is the high bits: CUTLASS's sm_120 block-scaled
/// mainloops note "ld.matrix b4x16_p64 places FP4 data at the first four bits in each eight-bit
/// container" and shift it left by two for `mma`, "Same transformation is NOT needed for FP6").
pub fn unpack_row(bits: u128, width: u32) -> ByteRow {
    std::array::from_fn(|e| ((bits >> (width as usize * e)) as u8) & ((1u8 << width) - 1))
}

/// `ldmatrix.m8n16` (after unpacking): "An entire row of the matrix can be loaded by a group of
/// four consecutive and aligned threads. Each thread in a warp loads 4 consecutive columns":
/// lane `t` holds row `t / 4`, elements `4 (t % 4) ..` (the lowest in the low byte).
pub fn ldmatrix_m8n16(rows: &[ByteRow; ROWS]) -> [u32; 32] {
    std::array::from_fn(|lane| {
        let at = 4 * (lane % 4);
        u32::from_le_bytes(std::array::from_fn(|k| rows[lane / 4][at + k]))
    })
}

/// `ldmatrix.m16n16.trans` of 8-bit elements (after unpacking): the two registers each lane
/// receives of one matrix whose 16 memory rows are `rows`. "Each thread in a warp loads 4
/// consecutive columns across 2 rows" of the matrix, which `.trans` reads column-major: lane
/// `t`'s register `r` holds, byte `k`, memory row `4 (t % 4) + k` at column `t / 4 + 8 r` (the
/// matrix's row `t / 4 + 8 r`, columns `4 (t % 4) ..`). The figure this comes from (Figure 105)
/// is not in the ISA's text; the layout is CUTLASS's `SM100_U8x8_LDSM_T` (its source and
/// destination layouts, less the byte shuffle its copy applies after the instruction).
pub fn ldmatrix_m16n16_trans(rows: &[ByteRow; 16]) -> [[u32; 2]; 32] {
    std::array::from_fn(|lane| {
        std::array::from_fn(|r| {
            u32::from_le_bytes(std::array::from_fn(|k| {
                rows[4 * (lane % 4) + k][lane / 4 + 8 * r]
            }))
        })
    })
}

/// `stmatrix.m16n8.trans.b8`: the 8 rows of 16 bytes written for one 16x8 matrix from each
/// lane's register ("each of the 32 threads in the warp provides four elements of data per
/// matrix ... e0, e1, e2, e3 with e0 and e3 containing the LSB and MSB"): lane `t` holds the
/// matrix's rows `t / 4` (`e0`, `e1`) and `t / 4 + 8` (`e2`, `e3`), columns `2 (t % 4)` and
/// the next, and `.trans` writes column `c` as memory row `c`. From CUTLASS's
/// `SM100_U8x4_STSM_T` layouts (Figure 107's 16x8 form is not in the ISA's text).
pub fn stmatrix_m16n8_trans(registers: &[u32; 32]) -> [ByteRow; ROWS] {
    let mut rows = [[0u8; 16]; ROWS];
    for (lane, register) in registers.iter().enumerate() {
        for (j, byte) in register.to_le_bytes().into_iter().enumerate() {
            rows[2 * (lane % 4) + (j & 1)][lane / 4 + 8 * (j >> 1)] = byte;
        }
    }
    rows
}

/// One row of an 8x8 matrix: eight 16-bit elements, column 0 first (the 16 bytes at a row
/// address, little-endian).
pub type Row = [u16; ROWS];

/// The 16 bytes of a row (little-endian, as memory holds them) as its elements.
pub fn row_from_bits(bits: u128) -> Row {
    std::array::from_fn(|column| (bits >> (16 * column)) as u16)
}

/// A row's elements as the 16 bytes memory holds.
pub fn row_to_bits(row: &Row) -> u128 {
    row.iter().enumerate().fold(0, |bits, (column, &e)| {
        bits | (u128::from(e) << (16 * column))
    })
}

/// `(memory row, column)` of the two elements lane `lane` (0..32) holds in its register of a
/// matrix, low half first.
fn fragment(lane: usize, trans: bool) -> [(usize, usize); 2] {
    let (row, column) = (lane / 4, 2 * (lane % 4));
    if trans {
        [(column, row), (column + 1, row)]
    } else {
        [(row, column), (row, column + 1)]
    }
}

/// `ldmatrix`: the register each lane receives for one matrix whose rows (as read from the
/// eight row addresses) are `rows`; index `t` is lane `t`.
pub fn ldmatrix(rows: &[Row; ROWS], trans: bool) -> [u32; 32] {
    std::array::from_fn(|lane| {
        let [(r0, c0), (r1, c1)] = fragment(lane, trans);
        u32::from(rows[r0][c0]) | (u32::from(rows[r1][c1]) << 16)
    })
}

/// `stmatrix`: the rows written at the eight row addresses of one matrix, from each lane's
/// register for it (index `t` is lane `t`); the inverse of [`ldmatrix`].
pub fn stmatrix(registers: &[u32; 32], trans: bool) -> [Row; ROWS] {
    let mut rows = [[0u16; ROWS]; ROWS];
    for (lane, &register) in registers.iter().enumerate() {
        let [(r0, c0), (r1, c1)] = fragment(lane, trans);
        rows[r0][c0] = register as u16;
        rows[r1][c1] = (register >> 16) as u16;
    }
    rows
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`: each lane's register of the transposed matrix,
/// from each lane's register of the row-major input ("Each thread in a warp holds a fragment
/// of a column of the result matrix").
pub fn movmatrix(registers: &[u32; 32]) -> [u32; 32] {
    // The input as rows, then read back column-major: element (i, j) of the result is
    // element (j, i) of the input.
    ldmatrix(&stmatrix(registers, false), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered() -> [Row; ROWS] {
        std::array::from_fn(|r| std::array::from_fn(|c| (r * 8 + c) as u16))
    }

    #[test]
    fn lane_t_holds_row_t_over_4() {
        let registers = ldmatrix(&numbered(), false);
        assert_eq!(registers[0], 1 << 16);
        assert_eq!(registers[5], 10 | (11 << 16)); // row 1, columns 2 and 3
        assert_eq!(registers[31], 62 | (63 << 16));
        let transposed = ldmatrix(&numbered(), true);
        // Lane 5: matrix row 1, columns 2 and 3 = memory rows 2 and 3, column 1.
        assert_eq!(transposed[5], (2 * 8 + 1) | ((3 * 8 + 1) << 16));
    }

    #[test]
    fn stmatrix_inverts_ldmatrix() {
        for trans in [false, true] {
            assert_eq!(stmatrix(&ldmatrix(&numbered(), trans), trans), numbered());
        }
        let bits = row_to_bits(&numbered()[3]);
        assert_eq!(row_from_bits(bits), numbered()[3]);
    }

    #[test]
    fn movmatrix_transposes() {
        let input = ldmatrix(&numbered(), false);
        let output = movmatrix(&input);
        // Lane 1 holds row 0, columns 2 and 3 of the transpose: input (2, 0) and (3, 0).
        assert_eq!(output[1], 16 | (24 << 16));
        assert_eq!(movmatrix(&output), input);
    }
}
