//! The warp-level matrix family: `ldmatrix`, `stmatrix`, `movmatrix` (PTX ISA 9.7.14.5.15-17,
//! the `.m8n8` `.b16` forms and the sm_100a 8-bit shapes). Like `mma`, each is warp-collective ("The mandatory .aligned
//! qualifier indicates that all threads in the warp must execute the same ... instruction"):
//! the machine runs it once for the lanes that arrived together, and ptxsim traps every lane
//! unless all 32 lanes of the warp execute it together (undefined in the ISA).
//!
//! The row addresses of matrix `i` come from lanes `8i..8i+7` ("Addresses addr0–addr7
//! correspond to the rows of the first matrix, addresses addr8–addr15 correspond to the rows
//! of the second matrix, and so on"); the other lanes' addresses are not read. Each row is 16
//! bytes through the executor's memory path: a row address must be 16-byte aligned ("a group
//! of four consecutive threads loads 16 bytes. The matrix addresses must be naturally aligned
//! accordingly"), inside shared memory, and a generic address must fall in the shared window
//! ("If the generic address doesn't fall in .shared state space, then the behavior is
//! undefined": ptxsim traps). When a row address fails, the lane that gave it stops with the
//! fault and the other lanes of the warp trap naming that lane.

use ptxsim_isa::Type;
use ptxsim_isa::matrix::{MatrixForm, MatrixShape, ROWS};
use ptxsim_isa::ops::Space;

use super::{Executor, Put};
use crate::alu::matrix::{self, Row};
use crate::ir::{Destination, Instruction, MemoryOperand, Source};
use crate::memory::{Fault, FaultKind, from_generic};

/// Why a row address cannot be used.
enum RowFailure {
    /// A fault of the memory path (alignment, bounds).
    Fault(Fault),
    /// A generic address outside the shared window.
    NotShared(String),
}

/// The bytes of one matrix row.
const ROW_BYTES: u32 = 16;

impl Executor<'_, '_> {
    /// Whether `lanes` are the 32 lanes of one warp in order; if not, every lane traps.
    fn whole_warp(&mut self, instruction: &Instruction, lanes: &[usize], name: &str) -> bool {
        let complete = lanes.len() == 32
            && lanes.first().is_some_and(|&first| first % 32 == 0)
            && lanes.windows(2).all(|pair| pair[1] == pair[0] + 1);
        if !complete {
            let message = format!(
                "`{}`: {name} needs all 32 lanes of the warp; {} executed it together \
                 (undefined in the PTX ISA)",
                instruction.text,
                lanes.len()
            );
            for &lane in lanes {
                self.trap(lane, instruction, message.clone());
            }
        }
        complete
    }

    /// The row address lane `lane` gives, checked: 16-byte aligned, and in shared memory when
    /// generic.
    fn row_address(
        &self,
        instruction: &Instruction,
        lane: usize,
        space: Space,
        operand: MemoryOperand,
        store: bool,
    ) -> Result<u64, RowFailure> {
        let address = self.address(lane, operand);
        if address % u64::from(ROW_BYTES) != 0 {
            return Err(RowFailure::Fault(Fault {
                kind: FaultKind::Misaligned,
                space,
                address,
                bytes: ROW_BYTES,
                store,
            }));
        }
        if space == Space::Generic && from_generic(address).0 != Space::Shared {
            return Err(RowFailure::NotShared(format!(
                "`{}`: the generic row address {address:#x} of lane {} is not in shared memory \
                 (undefined in the PTX ISA)",
                instruction.text,
                lane % 32
            )));
        }
        Ok(address)
    }

    /// Stops `culprit` with its failure and traps the warp's other lanes.
    fn fail_warp(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        culprit: usize,
        failure: RowFailure,
    ) {
        let why = match failure {
            RowFailure::Fault(fault) => {
                let why = fault.to_string();
                self.fault(culprit, instruction, fault);
                why
            }
            RowFailure::NotShared(message) => {
                let why = "not in shared memory".to_string();
                self.trap(culprit, instruction, message);
                why
            }
        };
        let message = format!(
            "`{}`: the row address of lane {} failed ({why}); the warp-collective instruction \
             stops every lane",
            instruction.text,
            culprit % 32
        );
        for &lane in lanes.iter().filter(|&&lane| lane != culprit) {
            self.trap(lane, instruction, message.clone());
        }
    }

    /// `ldmatrix` (9.7.14.5.15): reads the `rows * count` rows from their lanes' addresses
    /// (lanes `rows * i ..` for matrix `i`: 8 rows a matrix, 16 for `.m16n16`), unpacks the
    /// `.b8x16` formats, and gives each lane its registers of every matrix
    /// ([`matrix::ldmatrix`] and the sm_100a layouts beside it).
    pub(super) fn ldmatrix(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        form: MatrixForm,
        space: Space,
        d: &[Option<Destination>],
        address: MemoryOperand,
    ) {
        if !self.whole_warp(instruction, lanes, "ldmatrix") {
            return;
        }
        let rows_per_matrix = form.shape.rows();
        // One `[u32; 32]` (a register of every lane) per element of `d`, in order.
        let mut fragments: Vec<[u32; 32]> = Vec::with_capacity(form.registers());
        for i in 0..usize::from(form.count) {
            let mut rows = Vec::with_capacity(rows_per_matrix);
            for r in 0..rows_per_matrix {
                let lane = lanes[rows_per_matrix * i + r];
                let bits = self
                    .row_address(instruction, lane, space, address, false)
                    .and_then(|at| {
                        self.load(lane, space, at, ROW_BYTES)
                            .map_err(RowFailure::Fault)
                    });
                match bits {
                    Ok(bits) => rows.push(bits),
                    Err(failure) => return self.fail_warp(instruction, lanes, lane, failure),
                }
            }
            let bytes = |rows: &[u128]| -> Vec<matrix::ByteRow> {
                rows.iter()
                    .map(|&bits| match form.elements.packed_bits() {
                        Some(width) => matrix::unpack_row(bits, width),
                        None => matrix::bytes_from_bits(bits),
                    })
                    .collect()
            };
            match form.shape {
                MatrixShape::M8n8 => {
                    let rows: [Row; ROWS] = std::array::from_fn(|r| matrix::row_from_bits(rows[r]));
                    fragments.push(matrix::ldmatrix(&rows, form.trans));
                }
                MatrixShape::M8n16 => {
                    let rows = bytes(&rows);
                    let rows: [matrix::ByteRow; ROWS] = std::array::from_fn(|r| rows[r]);
                    fragments.push(matrix::ldmatrix_m8n16(&rows));
                }
                MatrixShape::M16n16 => {
                    let rows = bytes(&rows);
                    let rows: [matrix::ByteRow; 16] = std::array::from_fn(|r| rows[r]);
                    let registers = matrix::ldmatrix_m16n16_trans(&rows);
                    fragments.extend((0..2).map(|r| std::array::from_fn(|t| registers[t][r])));
                }
                // A `stmatrix` shape the decoder never gives `ldmatrix`.
                MatrixShape::M16n8 => {
                    let message = format!("`{}`: ldmatrix has no .m16n8 shape", instruction.text);
                    for &lane in lanes {
                        self.trap(lane, instruction, message.clone());
                    }
                    return;
                }
            }
        }
        for (t, &lane) in lanes.iter().enumerate() {
            for (destination, fragment) in d.iter().zip(&fragments) {
                if let Some(destination) = destination {
                    let put = Put::new(*destination, Type::B32);
                    self.put(lane, &put, u128::from(fragment[t]));
                }
            }
        }
    }

    /// `stmatrix` (9.7.14.5.16): gathers every lane's registers and writes the `8 * count`
    /// rows at their lanes' addresses ([`matrix::stmatrix`], [`matrix::stmatrix_m16n8_trans`]).
    /// All row addresses are checked before any row is written.
    pub(super) fn stmatrix(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        form: MatrixForm,
        space: Space,
        address: MemoryOperand,
        sources: &[Source],
    ) {
        if !self.whole_warp(instruction, lanes, "stmatrix") {
            return;
        }
        let count = usize::from(form.count);
        let mut addresses = Vec::with_capacity(ROWS * count);
        for &lane in &lanes[..ROWS * count] {
            match self.row_address(instruction, lane, space, address, true) {
                Ok(at) => addresses.push(at),
                Err(failure) => return self.fail_warp(instruction, lanes, lane, failure),
            }
        }
        for (i, &source) in sources.iter().enumerate().take(count) {
            let registers: [u32; 32] =
                std::array::from_fn(|t| self.read_bits(lanes[t], source, 32) as u32);
            let rows: [u128; ROWS] = if form.shape == MatrixShape::M16n8 {
                let rows = matrix::stmatrix_m16n8_trans(&registers);
                std::array::from_fn(|r| matrix::bytes_to_bits(&rows[r]))
            } else {
                let rows = matrix::stmatrix(&registers, form.trans);
                std::array::from_fn(|r| matrix::row_to_bits(&rows[r]))
            };
            for (r, &row) in rows.iter().enumerate() {
                let lane = lanes[ROWS * i + r];
                let at = addresses[ROWS * i + r];
                if let Err(fault) = self.store(lane, space, at, ROW_BYTES, row) {
                    return self.fail_warp(instruction, lanes, lane, RowFailure::Fault(fault));
                }
            }
        }
    }

    /// `movmatrix.sync.aligned.m8n8.trans.b16` (9.7.14.5.17): every lane's `a` read, the
    /// transposed fragments written to `d` ([`matrix::movmatrix`]).
    pub(super) fn movmatrix(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        d: Option<Destination>,
        a: Source,
    ) {
        if !self.whole_warp(instruction, lanes, "movmatrix") {
            return;
        }
        let registers: [u32; 32] = std::array::from_fn(|t| self.read_bits(lanes[t], a, 32) as u32);
        let result = matrix::movmatrix(&registers);
        if let Some(d) = d {
            let put = Put::new(d, Type::B32);
            for (t, &lane) in lanes.iter().enumerate() {
                self.put(lane, &put, u128::from(result[t]));
            }
        }
    }
}
