//! `wmma.load`, `wmma.store`, `wmma.mma` (PTX ISA 9.7.14.4). Each is warp-collective ("The
//! mandatory .aligned qualifier indicates that all threads in the warp must execute the same
//! wmma.load instruction"; "The behavior of wmma.load is undefined if all threads do not use
//! the same qualifiers and the same values of p and stride, or if any thread in the warp has
//! exited"): ptxsim traps every lane unless all 32 lanes of the warp execute it together.
//!
//! Each lane moves the elements of its own fragment ([`alu::wmma::fragment`]) from or to the
//! address its own `p` and `stride` give: element (row, column) is at `p + size * (row *
//! stride + column)` row-major, `p + size * (column * stride + row)` column-major ("stride ...
//! provides an offset in terms of matrix elements between the start of consecutive instances
//! of the leading dimension"). Checked, with a located trap:
//!
//! * "The starting address of each instance of the leading dimension (row or column) must be
//!   aligned with the size of the corresponding fragment in bytes": `p` must be a multiple of
//!   the fragment's bytes (a misaligned-access fault), and `stride * size` a multiple of the
//!   largest power of two dividing both the fragment's bytes and the default stride's bytes,
//!   and at most 16 bytes. Taken literally, the rule would reject the default stride of some
//!   shapes (the 8-element columns of a column-major `.m8n32k16` `.f16` A are 16 bytes, its
//!   fragment 32), and strides that CUDA's `wmma::load_matrix_sync` and `store_matrix_sync`
//!   accept and compile to this instruction unchanged: the CUDA C++ Programming Guide (Warp
//!   Matrix Functions) asks of their `ldm` only that it be "a multiple of 8 for __half element
//!   type or multiple of 4 for float element type (i.e., multiple of 16 bytes in both cases)",
//!   so rows 16-byte aligned (a `.f16` tile padded to 24 columns, as LeetCUDA's
//!   `hgemm_wmma_*_dbuf_async` kernels pad theirs, is 48 bytes a row);
//! * "Specifying a value lower than the default value results in undefined behavior": a trap;
//! * "wmma.load operation may be used only with .global and .shared spaces and with generic
//!   addressing, where the address points to .global or .shared space": a generic address in
//!   another window traps.
//!
//! A store checks every lane's addresses before it writes anything.

use ptxsim_isa::Type;
use ptxsim_isa::mma::MmaType;
use ptxsim_isa::ops::Space;
use ptxsim_isa::wmma::{WmmaForm, WmmaMatrix};

use super::{Executor, Put};
use crate::alu::wmma;
use crate::ir::{Destination, Instruction, MemoryOperand, Source};
use crate::memory::{Fault, FaultKind, from_generic};

/// The alignment in bytes that every row (column) of a `wmma.load`/`wmma.store` matrix needs
/// at most: CUDA's `load_matrix_sync`/`store_matrix_sync` take any `ldm` that is "a multiple
/// of 16 bytes" (CUDA C++ Programming Guide, Warp Matrix Functions).
const ROW_ALIGNMENT: usize = 16;

/// Why a lane's access cannot be made.
enum Failure {
    Fault(Fault),
    Trap(String),
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn register_type(ty: MmaType) -> Type {
    if ty == MmaType::F64 {
        Type::B64
    } else {
        Type::B32
    }
}

impl Executor<'_, '_> {
    /// Whether `lanes` are the 32 lanes of one warp in order; if not, every lane traps.
    fn wmma_whole_warp(&mut self, instruction: &Instruction, lanes: &[usize]) -> bool {
        let complete = lanes.len() == 32
            && lanes.first().is_some_and(|&first| first % 32 == 0)
            && lanes.windows(2).all(|pair| pair[1] == pair[0] + 1);
        if !complete {
            let message = format!(
                "`{}`: wmma needs all 32 lanes of the warp; {} executed it together (undefined \
                 in the PTX ISA)",
                instruction.text,
                lanes.len()
            );
            for &lane in lanes {
                self.trap(lane, instruction, message.clone());
            }
        }
        complete
    }

    /// Stops `culprit` with its failure and traps the warp's other lanes.
    fn wmma_fail(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        culprit: usize,
        failure: Failure,
    ) {
        let why = match failure {
            Failure::Fault(fault) => {
                let why = fault.to_string();
                self.fault(culprit, instruction, fault);
                why
            }
            Failure::Trap(message) => {
                self.trap(culprit, instruction, message.clone());
                message
            }
        };
        let message = format!(
            "`{}`: the access of lane {} failed ({why}); the warp-collective instruction stops \
             every lane",
            instruction.text,
            culprit % 32
        );
        for &lane in lanes.iter().filter(|&&lane| lane != culprit) {
            self.trap(lane, instruction, message.clone());
        }
    }

    /// The addresses of `lane`'s fragment elements, checked (alignment, stride, space).
    #[allow(clippy::too_many_arguments)]
    fn wmma_addresses(
        &self,
        instruction: &Instruction,
        lane: usize,
        form: &WmmaForm,
        space: Space,
        address: MemoryOperand,
        stride: Option<Source>,
        store: bool,
    ) -> Result<Vec<(u64, u32)>, Failure> {
        let matrix = form.matrix();
        let bits = form.element_bits(matrix);
        let base = self.address(lane, address);
        let fragment_bytes = form.fragment_bytes(matrix);
        if base % fragment_bytes as u64 != 0 {
            return Err(Failure::Fault(Fault {
                kind: FaultKind::Misaligned,
                space,
                address: base,
                bytes: fragment_bytes as u32,
                store,
            }));
        }
        let default = form.default_stride();
        let stride = match stride {
            Some(source) => self.read_bits(lane, source, 32) as usize,
            None => default,
        };
        let lane_id = lane % 32;
        if stride < default {
            return Err(Failure::Trap(format!(
                "`{}`: lane {lane_id}'s stride {stride} is below the default {default} \
                 (undefined in the PTX ISA)",
                instruction.text
            )));
        }
        let unit = gcd(fragment_bytes, default * bits / 8).min(ROW_ALIGNMENT);
        if (stride * bits) % (8 * unit) != 0 {
            return Err(Failure::Trap(format!(
                "`{}`: lane {lane_id}'s stride {stride} ({} bits) does not keep every row or \
                 column aligned to {unit} bytes (the PTX ISA: the starting address of each \
                 instance of the leading dimension must be aligned with the size of the \
                 fragment)",
                instruction.text,
                stride * bits
            )));
        }
        if space == Space::Generic {
            let (window, _) = from_generic(base);
            if !matches!(window, Space::Global | Space::Shared) {
                return Err(Failure::Trap(format!(
                    "`{}`: the generic address {base:#x} of lane {lane_id} is in {window:?} \
                     memory, not global or shared (undefined in the PTX ISA)",
                    instruction.text
                )));
            }
        }
        Ok(wmma::fragment(form, matrix, lane_id)
            .into_iter()
            .map(|(row, col)| {
                let index = if form.a_row {
                    row * stride + col
                } else {
                    col * stride + row
                };
                // A sub-byte element: its byte and its bits in it, from the least significant
                // up (as CUTLASS packs `int4b_t`/`uint1b_t` for its sm_75 sub-byte WMMA).
                let bit = index * bits;
                (base.wrapping_add((bit / 8) as u64), (bit % 8) as u32)
            })
            .collect())
    }

    /// `wmma.load.{a,b,c}` (9.7.14.4.3): each lane reads its fragment's elements.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wmma_load(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        form: &WmmaForm,
        space: Space,
        d: &[Destination],
        address: MemoryOperand,
        stride: Option<Source>,
    ) {
        if !self.wmma_whole_warp(instruction, lanes) {
            return;
        }
        let matrix = form.matrix();
        let ty = form.element(matrix);
        let bits = form.element_bits(matrix);
        // Sub-byte elements are read as their byte.
        let size = bits.div_ceil(8) as u32;
        let distinct = form.distinct_registers(matrix);
        let mut fragments = Vec::with_capacity(32);
        for &lane in lanes {
            let addresses =
                match self.wmma_addresses(instruction, lane, form, space, address, stride, false) {
                    Ok(addresses) => addresses,
                    Err(failure) => return self.wmma_fail(instruction, lanes, lane, failure),
                };
            let mut registers = vec![0u64; distinct];
            for (e, (at, shift)) in addresses.into_iter().enumerate() {
                match self.load(lane, space, at, size) {
                    Ok(value) => {
                        let value = (value as u64) >> shift;
                        wmma::set_element(&mut registers, ty, e, value);
                    }
                    Err(fault) => {
                        return self.wmma_fail(instruction, lanes, lane, Failure::Fault(fault));
                    }
                }
            }
            fragments.push(registers);
        }
        let put_type = register_type(ty);
        for (&lane, registers) in lanes.iter().zip(&fragments) {
            for (i, &destination) in d.iter().enumerate() {
                let value = registers[i % distinct];
                self.put(lane, &Put::new(destination, put_type), u128::from(value));
            }
        }
    }

    /// `wmma.store.d` (9.7.14.4.4): each lane writes its fragment's elements; every lane's
    /// addresses are checked before anything is written.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wmma_store(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        form: &WmmaForm,
        space: Space,
        address: MemoryOperand,
        sources: &[Source],
        stride: Option<Source>,
    ) {
        if !self.wmma_whole_warp(instruction, lanes) {
            return;
        }
        let ty = form.d;
        // `.f16`, `.f32`, `.s32` or `.f64`: whole bytes.
        let size = (form.element_bits(WmmaMatrix::D) / 8) as u32;
        let bits = if ty == MmaType::F64 { 64 } else { 32 };
        let mut all = Vec::with_capacity(32);
        for &lane in lanes {
            match self.wmma_addresses(instruction, lane, form, space, address, stride, true) {
                Ok(addresses) => all.push(addresses),
                Err(failure) => return self.wmma_fail(instruction, lanes, lane, failure),
            }
        }
        for (&lane, addresses) in lanes.iter().zip(all) {
            let registers: Vec<u64> = sources
                .iter()
                .map(|&source| self.read_bits(lane, source, bits))
                .collect();
            for (e, (at, _)) in addresses.into_iter().enumerate() {
                let value = wmma::element(&registers, ty, e);
                if let Err(fault) = self.store(lane, space, at, size, u128::from(value)) {
                    return self.wmma_fail(instruction, lanes, lane, Failure::Fault(fault));
                }
            }
        }
    }

    /// `wmma.mma` (9.7.14.4.5): the warp's fragments gathered, `D = A * B + C` computed by
    /// [`wmma::mma`], each lane's `d` registers written.
    pub(super) fn wmma_mma(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        form: &WmmaForm,
        d: &[Destination],
        sources: &[Vec<Source>; 3],
    ) {
        if !self.wmma_whole_warp(instruction, lanes) {
            return;
        }
        let read = |executor: &Self, operand: &[Source], ty: MmaType| {
            let bits = if ty == MmaType::F64 { 64 } else { 32 };
            lanes
                .iter()
                .map(|&lane| {
                    operand
                        .iter()
                        .map(|&source| executor.read_bits(lane, source, bits))
                        .collect::<Vec<u64>>()
                })
                .collect::<Vec<_>>()
        };
        let a = read(self, &sources[0], form.a);
        let b = read(self, &sources[1], form.b);
        let c = read(self, &sources[2], form.c);
        let result = wmma::mma(self.device.tensor_cores(), form, &a, &b, &c);
        let put_type = register_type(form.d);
        for (&lane, registers) in lanes.iter().zip(result) {
            for (&destination, value) in d.iter().zip(registers) {
                self.put(lane, &Put::new(destination, put_type), u128::from(value));
            }
        }
    }
}
