//! `wgmma.mma_async{.sp}.sync.aligned` (PTX ISA 9.7.15.5.2, 9.7.15.6.3): warpgroup-collective.
//! The sparse form reads its stored `64 x k/2` A as the dense form reads A, and expands it
//! with each thread's `sp-meta` ([`wgmma::expand_sparse`]). The machine runs it once for the
//! 128 threads of a warpgroup when all have arrived (`machine.rs`, `Cta::arrive_warpgroup`); "The mandatory .aligned qualifier indicates that all threads in the
//! warpgroup must execute the same wgmma.mma_async instruction ... otherwise behavior is
//! undefined": ptxsim traps every thread unless the whole warpgroup executes it together.
//!
//! The multiply-accumulate runs at issue: A and B are read from shared memory and D written
//! then. That is one of the executions the ISA allows: the result may only be read after
//! `wgmma.commit_group` and `wgmma.wait_group` ("must be used to wait for the completion ...
//! before the results are accessed"), and a program that changes the shared-memory inputs or
//! the accumulator registers before that point is undefined; so `wgmma.fence`,
//! `wgmma.commit_group` and `wgmma.wait_group N` have nothing left to order and are accepted
//! as no-ops ([`crate::ir::InstructionKind::Fence`]).

use ptxsim_isa::Type;
use ptxsim_isa::mma::MmaType;
use ptxsim_isa::ops::Space;
use ptxsim_isa::wgmma::WARPGROUP_THREADS;

use super::{Executor, Put};
use crate::alu::wgmma::{self, Descriptor};
use crate::ir::wgmma::{Wgmma, WgmmaA};
use crate::ir::{Instruction, Source};

impl Executor<'_, '_> {
    /// Traps every lane with `message`.
    fn trap_all(&mut self, instruction: &Instruction, lanes: &[usize], message: String) {
        for &lane in lanes {
            self.trap(lane, instruction, message.clone());
        }
    }

    /// `wgmma.mma_async` for the lanes that arrived together (module docs).
    pub(super) fn wgmma(&mut self, instruction: &Instruction, lanes: &[usize], op: &Wgmma) {
        let complete = lanes.len() == WARPGROUP_THREADS
            && lanes
                .first()
                .is_some_and(|&first| first % WARPGROUP_THREADS == 0)
            && lanes.windows(2).all(|pair| pair[1] == pair[0] + 1);
        if !complete {
            let message = format!(
                "`{}`: wgmma.mma_async.sync.aligned needs all 128 threads of the warpgroup (four \
                 consecutive warps); {} executed it together (undefined in the PTX ISA)",
                instruction.text,
                lanes.len()
            );
            return self.trap_all(instruction, lanes, message);
        }
        let form = op.form;
        let b_bits = self.read_bits(lanes[0], op.b, 64);
        let a_bits = match &op.a {
            WgmmaA::Descriptor(source) => self.read_bits(lanes[0], *source, 64),
            WgmmaA::Registers(_) => 0,
        };
        let scale_d = |executor: &Self, lane: usize| {
            (executor.read_bits(lane, op.scale_d.source, 1) != 0) != op.scale_d.negated
        };
        let accumulate = scale_d(self, lanes[0]);
        // "The contents of a matrix descriptor must be same across all the warps in the
        // warpgroup"; scale-d likewise (one operation for the warpgroup).
        let differs = lanes.iter().find(|&&lane| {
            self.read_bits(lane, op.b, 64) != b_bits
                || matches!(&op.a, WgmmaA::Descriptor(s) if self.read_bits(lane, *s, 64) != a_bits)
                || scale_d(self, lane) != accumulate
        });
        if let Some(&lane) = differs {
            let message = format!(
                "`{}`: thread {} of the warpgroup gives another matrix descriptor or scale-d than \
                 thread 0 (they must be the same across the warpgroup; undefined in the PTX ISA)",
                instruction.text,
                lane % WARPGROUP_THREADS
            );
            return self.trap_all(instruction, lanes, message);
        }
        let n = usize::from(form.n);
        // A as stored: `k/2` columns for `.sp` ("packed format Mx(K/2)", 9.7.15.6.3).
        let operands = [
            (
                Descriptor::decode(a_bits),
                op.trans_a,
                wgmma::ROWS,
                usize::from(form.stored_k()),
                form.a,
                op.negate_a,
                "A",
            ),
            (
                Descriptor::decode(b_bits),
                op.trans_b,
                n,
                usize::from(form.k),
                form.b,
                op.negate_b,
                "B",
            ),
        ];
        let mut matrices: Vec<Vec<Vec<u64>>> = Vec::with_capacity(2);
        for (descriptor, mn_major, rows, k, ty, negate, name) in operands {
            if let (WgmmaA::Registers(sources), "A") = (&op.a, name) {
                matrices.push(self.a_from_registers(lanes, sources, ty, k, negate));
                continue;
            }
            // `.b1` (K-major only: no `imm-trans`) is read as bytes of eight elements each,
            // from the least significant bit up, like the registers' "Elements (low to high)".
            let (size, per_unit) = if ty == MmaType::B1 {
                (1, 8)
            } else {
                (wgmma::element_bytes(ty), 1)
            };
            let mut matrix = Vec::with_capacity(rows);
            for row in 0..rows {
                let mut elements = Vec::with_capacity(k);
                for column in 0..k / per_unit {
                    // The descriptor holds the address's low 18 bits: an offset in the
                    // executing CTA's shared memory ([`ClusterLink::shared_base`]).
                    let address = self.cluster.shared_base()
                        + descriptor.address(mn_major, row, column, size);
                    match self.load(lanes[0], Space::Shared, address, size as u32) {
                        Ok(bits) if per_unit == 8 => {
                            elements.extend((0..8).map(|bit| (bits as u64) >> bit & 1));
                        }
                        Ok(bits) => {
                            let bits = bits as u64;
                            elements.push(if negate {
                                wgmma::negate(bits, ty)
                            } else {
                                bits
                            });
                        }
                        Err(fault) => {
                            let why = fault.to_string();
                            let message = format!(
                                "`{}`: element ({row}, {column}) of {name} through its matrix \
                                 descriptor: {why}",
                                instruction.text
                            );
                            return self.trap_all(instruction, lanes, message);
                        }
                    }
                }
                matrix.push(elements);
            }
            matrices.push(matrix);
        }
        if let Some(sparse) = &op.sparse {
            let metadata: Vec<u32> = lanes
                .iter()
                .map(|&lane| self.read_bits(lane, sparse.metadata, 32) as u32)
                .collect();
            match wgmma::expand_sparse(&form, &matrices[0], &metadata, sparse.selector) {
                Ok(dense) => matrices[0] = dense,
                Err(why) => {
                    let message = format!("`{}`: {why}", instruction.text);
                    return self.trap_all(instruction, lanes, message);
                }
            }
        }
        let before: Option<Vec<Vec<u64>>> = accumulate.then(|| {
            lanes
                .iter()
                .map(|&lane| {
                    op.d.iter()
                        .map(|d| self.lanes.get(lane, d.register) as u64 & 0xffff_ffff)
                        .collect()
                })
                .collect()
        });
        let result = wgmma::wgmma(&form, &matrices[0], &matrices[1], before.as_deref());
        for (&lane, registers) in lanes.iter().zip(result) {
            for (&destination, value) in op.d.iter().zip(registers) {
                self.put(lane, &Put::new(destination, Type::B32), u128::from(value));
            }
        }
    }

    /// A (64 x `k`) from the `a` vector of the warpgroup's 128 threads: warp `w` holds rows
    /// `16w .. 16w + 15` as the A fragment of `mma.m16n8k{k}` (lane `4g + q`, element `j` of
    /// register `r`: row `16w + g + 8(r % 2)`, column `pq + j + 4p(r / 2)`, `p` elements a
    /// register). Measured on an H100 for `.f16` (`tests/hardware/wgmma/wgmma-layouts.txt`,
    /// case `registers`: every one of the 1,024 elements where this puts it); the other types
    /// follow the same `mma` fragments (not measured).
    fn a_from_registers(
        &self,
        lanes: &[usize],
        sources: &[Source],
        ty: MmaType,
        k: usize,
        negate: bool,
    ) -> Vec<Vec<u64>> {
        // Elements per 32-bit register and their width (`.b1`: 32 of one bit).
        let width = ty.bits().min(32);
        let per_register = (32 / width) as usize;
        let mut matrix = vec![vec![0u64; k]; wgmma::ROWS];
        for (thread, &lane) in lanes.iter().enumerate() {
            let (warp, g, q) = (thread / 32, (thread % 32) / 4, thread % 4);
            for (r, &source) in sources.iter().enumerate() {
                let word = self.read_bits(lane, source, 32);
                for j in 0..per_register {
                    let row = 16 * warp + g + 8 * (r % 2);
                    let column = per_register * q + j + 4 * per_register * (r / 2);
                    let bits = (word >> (width as usize * j)) & ((1u64 << width) - 1);
                    if let Some(element) = matrix.get_mut(row).and_then(|row| row.get_mut(column)) {
                        *element = if negate {
                            wgmma::negate(bits, ty)
                        } else {
                            bits
                        };
                    }
                }
            }
        }
        matrix
    }
}
