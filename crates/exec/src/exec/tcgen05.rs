//! `tcgen05` (PTX ISA 9.7.16): the CTA's tensor memory ([`crate::tensor_memory`]) and the
//! Blackwell tensor-core instructions on it.
//!
//! `.sync.aligned` instructions (alloc, dealloc, relinquish_alloc_permit, ld, st) run once for
//! a warp whose 32 threads all arrived ("all threads in the warp must execute the same
//! instruction ... otherwise behavior is undefined": ptxsim traps every thread of an
//! incomplete warp). mma, cp, shift and commit are issued by each thread that executes them.
//!
//! The asynchronous operations (mma, cp, shift) complete at issue. That is one of the
//! executions the ISA allows: their results may only be read after `tcgen05.commit` has
//! arrived on an mbarrier and a thread has waited on it, and `tcgen05.wait::ld/st` and the
//! fences have nothing left to order (they are [`crate::ir::InstructionKind::Fence`]). So
//! `tcgen05.commit` arrives on its mbarrier at once (`.mbarrier::arrive::one`: "an
//! arrive-on operation on the mbarrier object ... upon the completion of all prior async
//! tcgen05 operations").

use ptxsim_isa::ops::{MbarrierOp, Space};

use super::Executor;
use crate::alu::tcgen05::{self as alu, InstrDescriptor, SubByte};
use crate::alu::wgmma::Descriptor;
use crate::ir::tcgen05::{CopyShape, Mma, MmaA, Shape, Tcgen05};
use crate::ir::{Destination, Instruction, MemoryOperand, Source};
use crate::tensor_memory;

/// The scale factors of each row of A and each column of B (`vec` each).
type ScaleFactors = (Vec<Vec<u32>>, Vec<Vec<u32>>);

impl Executor<'_, '_> {
    fn trap_lanes(&mut self, instruction: &Instruction, lanes: &[usize], message: String) {
        for &lane in lanes {
            self.trap(lane, instruction, message.clone());
        }
    }

    /// After `exit`/`ret`: "All of the Tensor Memory that was allocated using tcgen05.alloc
    /// instruction in a kernel, must be explicitly deallocated using tcgen05.dealloc before the
    /// kernel exits". When the last threads of the CTA leave with columns still allocated, the
    /// last of them traps with the allocations.
    pub(super) fn tmem_left_allocated(&mut self, instruction: &Instruction, lanes: &[usize]) {
        if self.tmem.allocated() == 0 {
            return;
        }
        let all_done = self
            .lanes
            .status
            .iter()
            .all(|status| matches!(status, crate::machine::ThreadStatus::Done(_)));
        let Some(&last) = lanes.last() else {
            return;
        };
        let exited = matches!(
            self.lanes.status[last],
            crate::machine::ThreadStatus::Done(crate::machine::Outcome::Exited)
        );
        if all_done && exited {
            let message = format!(
                "`{}`: the CTA's threads exited with tensor memory still allocated ({}); \
                 tcgen05.dealloc must free it before the kernel exits",
                instruction.text,
                self.tmem.describe()
            );
            self.trap(last, instruction, message);
        }
    }

    /// A tensor-memory address operand (`[taddr]`), 32 bits.
    fn taddr(&self, lane: usize, operand: MemoryOperand) -> u32 {
        self.address(lane, operand) as u32
    }

    /// One `tcgen05` instruction for `lanes` (module docs).
    pub(super) fn tcgen05(&mut self, instruction: &Instruction, lanes: &[usize], op: &Tcgen05) {
        if op.warp_collective() {
            let complete = lanes.len() == 32
                && lanes.first().is_some_and(|&first| first % 32 == 0)
                && lanes.windows(2).all(|pair| pair[1] == pair[0] + 1);
            if !complete {
                let message = format!(
                    "`{}`: a .sync.aligned tcgen05 instruction needs all 32 threads of the warp; \
                     {} executed it together (undefined in the PTX ISA)",
                    instruction.text,
                    lanes.len()
                );
                return self.trap_lanes(instruction, lanes, message);
            }
        }
        match op {
            Tcgen05::Alloc {
                dst,
                space,
                columns,
            } => self.tmem_alloc(instruction, lanes, *dst, *space, *columns),
            Tcgen05::Dealloc { taddr, columns } => {
                let address = self.read_bits(lanes[0], *taddr, 32) as u32;
                let columns = self.read_bits(lanes[0], *columns, 32) as u32;
                if let Err(why) = self.tmem.dealloc(address, columns) {
                    let message = format!("`{}`: {why}", instruction.text);
                    self.trap_lanes(instruction, lanes, message);
                }
            }
            Tcgen05::Relinquish => self.tmem.relinquish(),
            Tcgen05::Ld {
                shape,
                num,
                pack,
                d,
                taddr,
                split,
            } => self.tmem_ld(instruction, lanes, (*shape, *num, *pack, *split), d, *taddr),
            Tcgen05::St {
                shape,
                num,
                unpack,
                sources,
                taddr,
                split,
            } => self.tmem_st(
                instruction,
                lanes,
                (*shape, *num, *unpack, *split),
                sources,
                *taddr,
            ),
            Tcgen05::Cp { shape, taddr, desc } => {
                for &lane in lanes {
                    if let Err(message) = self.tmem_cp(lane, *shape, *taddr, *desc) {
                        let message = format!("`{}`: {message}", instruction.text);
                        self.trap(lane, instruction, message);
                    }
                }
            }
            Tcgen05::Shift { taddr } => {
                for &lane in lanes {
                    if let Err(message) = self.tmem_shift(lane, *taddr) {
                        let message = format!("`{}`: {message}", instruction.text);
                        self.trap(lane, instruction, message);
                    }
                }
            }
            Tcgen05::Mma(mma) => {
                for &lane in lanes {
                    if let Err(message) = self.tcgen05_mma(lane, mma) {
                        let message = format!("`{}`: {message}", instruction.text);
                        self.trap(lane, instruction, message);
                    }
                }
            }
            Tcgen05::Commit { mbar, space } => {
                let arrive = MbarrierOp::Arrive {
                    drop: false,
                    expect_tx: false,
                    no_complete: false,
                };
                self.mbarrier(instruction, lanes, arrive, *space, None, Some(*mbar), None);
            }
        }
    }

    /// `tcgen05.alloc`: "allocates the specified number of columns in the Tensor Memory and
    /// writes the address of the allocated Tensor Memory into shared memory at the location
    /// specified by address operand dst". One allocation for the warp.
    fn tmem_alloc(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        dst: MemoryOperand,
        space: Space,
        columns: Source,
    ) {
        let lane = lanes[0];
        let columns = self.read_bits(lane, columns, 32) as u32;
        let address = match self.tmem.alloc(columns) {
            Ok(address) => address,
            Err(why) => {
                let message = format!("`{}`: {why}", instruction.text);
                return self.trap_lanes(instruction, lanes, message);
            }
        };
        let at = self.address(lane, dst);
        if let Err(fault) = self.store(lane, space, at, 4, u128::from(address)) {
            self.fault(lane, instruction, fault);
        }
    }

    /// The lane quarter warp `warp` of the CTA may access: "a warp can access only a
    /// quarter of the lanes": warp `w` lanes `32 (w % 4)` to `32 (w % 4) + 31` (9.7.16.2.2,
    /// "Access restrictions").
    fn check_quarter(warp: usize, lane: u32, shape: Shape) -> Result<(), String> {
        let quarter = (warp % 4) as u32;
        let first = lane;
        let last = lane + tensor_memory::lanes_of(shape) - 1;
        if first / 32 != quarter || last / 32 != quarter {
            return Err(format!(
                "warp {warp} of the CTA may access tensor-memory lanes {}..{} only (warp % 4 \
                 picks the lane quarter); this access spans lanes {first}..{last}",
                32 * quarter,
                32 * quarter + 31
            ));
        }
        Ok(())
    }

    /// The cells register `register` of `thread` reaches, as (lane, column, high half):
    /// one cell, or two 16-bit halves with `.pack::16b`.
    fn cells(
        base: (u32, u32),
        (shape, pack, split): (Shape, bool, u32),
        thread: usize,
        register: usize,
    ) -> Vec<(u32, u32)> {
        let (lane, column, second) = tensor_memory::fragment(shape, thread, register);
        let column = if pack { 2 * column } else { column };
        let column = base.1 + column + if second { split } else { 0 };
        let lane = base.0 + lane;
        if pack {
            vec![(lane, column), (lane, column + 1)]
        } else {
            vec![(lane, column)]
        }
    }

    /// `tcgen05.ld`: each thread's registers from the warp's fragment of tensor memory.
    fn tmem_ld(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (shape, num, pack, split): (Shape, u32, bool, u32),
        d: &[Destination],
        taddr: MemoryOperand,
    ) {
        let base = tensor_memory::split(self.taddr(lanes[0], taddr));
        let warp = lanes[0] / 32;
        if let Err(why) = Self::check_quarter(warp, base.0, shape) {
            let message = format!("`{}`: {why}", instruction.text);
            return self.trap_lanes(instruction, lanes, message);
        }
        let registers = shape.registers() * num as usize;
        let mut values = Vec::with_capacity(lanes.len());
        for thread in 0..lanes.len() {
            let mut row = Vec::with_capacity(registers);
            for register in 0..registers {
                let mut value = 0u32;
                for (half, (lane, column)) in
                    Self::cells(base, (shape, pack, split), thread, register)
                        .into_iter()
                        .enumerate()
                {
                    match self.tmem.read(lane, column) {
                        Ok(cell) if pack => value |= (cell & 0xffff) << (16 * half),
                        Ok(cell) => value = cell,
                        Err(why) => {
                            let message = format!("`{}`: {why}", instruction.text);
                            return self.trap_lanes(instruction, lanes, message);
                        }
                    }
                }
                row.push(value);
            }
            values.push(row);
        }
        for (&lane, row) in lanes.iter().zip(values) {
            for (&destination, value) in d.iter().zip(row) {
                self.write(lane, destination, u128::from(value), ptxsim_isa::Type::B32);
            }
        }
    }

    /// `tcgen05.st`: each thread's registers into the warp's fragment of tensor memory.
    fn tmem_st(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (shape, num, unpack, split): (Shape, u32, bool, u32),
        sources: &[Source],
        taddr: MemoryOperand,
    ) {
        let base = tensor_memory::split(self.taddr(lanes[0], taddr));
        let warp = lanes[0] / 32;
        if let Err(why) = Self::check_quarter(warp, base.0, shape) {
            let message = format!("`{}`: {why}", instruction.text);
            return self.trap_lanes(instruction, lanes, message);
        }
        let registers = shape.registers() * num as usize;
        let mut writes = Vec::with_capacity(lanes.len() * registers);
        for (thread, &lane) in lanes.iter().enumerate() {
            for (register, &source) in sources.iter().enumerate().take(registers) {
                let value = self.read_bits(lane, source, 32) as u32;
                let cells = Self::cells(base, (shape, unpack, split), thread, register);
                for (half, (row, column)) in cells.into_iter().enumerate() {
                    let cell = if unpack {
                        (value >> (16 * half)) & 0xffff
                    } else {
                        value
                    };
                    writes.push((row, column, cell));
                }
            }
        }
        for (row, column, cell) in writes {
            if let Err(why) = self.tmem.write(row, column, cell) {
                let message = format!("`{}`: {why}", instruction.text);
                return self.trap_lanes(instruction, lanes, message);
            }
        }
    }

    /// `tcgen05.cp`: rows of shared memory, described by `s-desc`, into tensor memory: row
    /// `r` to lane `lane + r`, its bytes to the columns from `taddr`'s (little-endian, four to
    /// a cell). Shared memory is read through the descriptor's canonical K-major layout with
    /// one-byte elements (rows of core matrices of 8 x 16 bytes, [`Descriptor::address`]).
    fn tmem_cp(
        &mut self,
        lane: usize,
        shape: CopyShape,
        taddr: MemoryOperand,
        desc: Source,
    ) -> Result<(), String> {
        let (row0, column0) = tensor_memory::split(self.taddr(lane, taddr));
        let descriptor = Descriptor::decode_tcgen05(self.read_bits(lane, desc, 64))?;
        let (rows, bytes) = shape.rows_and_bytes();
        for row in 0..rows {
            for cell in 0..bytes / 4 {
                let mut value = 0u32;
                for byte in 0..4 {
                    let address = descriptor.address(false, row, 4 * cell + byte, 1);
                    let bits = self
                        .load(lane, Space::Shared, address, 1)
                        .map_err(|fault| format!("row {row} of the source: {fault}"))?;
                    value |= (bits as u32 & 0xff) << (8 * byte);
                }
                self.tmem
                    .write(row0 + row as u32, column0 + cell as u32, value)?;
            }
        }
        Ok(())
    }

    /// `tcgen05.shift.down`: "shifting of 32-byte elements downwards across all the rows,
    /// except the last, by one row" in the 32 lanes from `taddr`'s ("must be aligned to 32").
    fn tmem_shift(&mut self, lane: usize, taddr: MemoryOperand) -> Result<(), String> {
        let (row0, column0) = tensor_memory::split(self.taddr(lane, taddr));
        if row0 % 32 != 0 {
            return Err(format!("the lane of taddr ({row0}) must be aligned to 32"));
        }
        for row in (row0..row0 + 31).rev() {
            for column in column0..column0 + 8 {
                let value = self.tmem.read(row, column)?;
                self.tmem.write(row + 1, column, value)?;
            }
        }
        Ok(())
    }

    /// Element `(row, k)` of an operand in shared memory, through its descriptor; a sub-byte
    /// element ([`SubByte`]) from its 16-byte unit, as its 8-bit container.
    fn smem_element(
        &mut self,
        lane: usize,
        descriptor: &Descriptor,
        (mn_major, sub_byte): (bool, Option<SubByte>),
        (row, k): (usize, usize),
        ty: ptxsim_isa::mma::MmaType,
    ) -> Result<u64, String> {
        if let Some(format) = sub_byte {
            // The unit's first element, addressed as a one-byte element (16 to 16 bytes) or
            // as a byte of two packed elements.
            let first = k - k % format.per_unit();
            let column = if format == SubByte::Packed {
                first / 2
            } else {
                first
            };
            let address = descriptor.address(false, row, column, 1);
            let unit = self
                .load(lane, Space::Shared, address, 16)
                .map_err(|fault| fault.to_string())?;
            return Ok(format.extract(unit, k));
        }
        let size = alu::element_bytes(ty);
        let address = descriptor.address(mn_major, row, k, size);
        self.load(lane, Space::Shared, address, size as u32)
            .map(|bits| bits as u64)
            .map_err(|fault| fault.to_string())
    }

    /// The scale factors of `.block_scale` (M = 128), `vec` per row of A and column of B
    /// (`.scale_vec::1X/2X/4X`). Their layout in tensor memory is the one CUTLASS's
    /// `tmem_sf_frg` writes (`ScaleFactorDuplicated4by1`): the factors of row `m` in lane `m`
    /// (lanes `m % 32 + 32q` hold the same bytes), column `m / 32` from the address's, bytes
    /// `id .. id + vec` (the instruction descriptor's scale-factor id, then one byte per block
    /// of K); the factors of column `n` of B in lane `n % 32` from the address's, column
    /// `n / 32`, its bytes likewise. Bits 30-31 of the addresses (where CUTLASS keeps the byte
    /// id) are ignored. The id must leave room for `vec` bytes: a multiple of `vec`.
    fn scale_factors(
        &self,
        lane: usize,
        (desc, vec): (&InstrDescriptor, u32),
        (a_id, b_id): (u32, u32),
        (sfa, sfb): (MemoryOperand, MemoryOperand),
    ) -> Result<ScaleFactors, String> {
        for (id, name) in [(a_id, "A"), (b_id, "B")] {
            if id % vec != 0 {
                return Err(format!(
                    "the scale-factor id of {name} is {id}: with {vec} factors per row it must \
                     be a multiple of {vec}"
                ));
            }
        }
        let base = |operand| tensor_memory::split(self.taddr(lane, operand) & 0x3fff_ffff);
        let read = |(lane, column): (u32, u32), id: u32| {
            self.tmem.read(lane, column).map(|cell| {
                (0..vec)
                    .map(|j| cell >> (8 * (id + j)) & 0xff)
                    .collect::<Vec<u32>>()
            })
        };
        let (a_lane, a_column) = base(sfa);
        let (b_lane, b_column) = base(sfb);
        let rows = (0..desc.m as u32)
            .map(|m| read((a_lane + m, a_column + m / 32), a_id))
            .collect::<Result<_, _>>()?;
        let columns = (0..desc.n as u32)
            .map(|n| read((b_lane + n % 32, b_column + n / 32), b_id))
            .collect::<Result<_, _>>()?;
        Ok((rows, columns))
    }

    /// `tcgen05.mma` issued by thread `lane`: `D = A * B + D` (or `A * B` when
    /// `enable-input-d` is false) with D in tensor memory, row `m` in lane
    /// [`InstrDescriptor::lane`] from `d-tmem`'s (every lane for M = 128; for M = 64 the first or
    /// second 16 lanes of each quarter), column `n` at `d-tmem`'s column plus `n`.
    fn tcgen05_mma(&mut self, lane: usize, op: &Mma) -> Result<(), String> {
        let idesc = self.read_bits(lane, op.idesc, 32) as u32;
        let desc = InstrDescriptor::decode(op.kind, idesc)?;
        if let Some(scale) = op.scale_input_d {
            let scale = self.read_bits(lane, scale, 32);
            if scale != 0 {
                return Err(format!(
                    "scale-input-d = {scale} is not supported by ptxsim yet (only 0)"
                ));
            }
        }
        let k = op.kind.k();
        let (d_lane, d_column) = tensor_memory::split(self.taddr(lane, op.d));
        if d_lane != 0 && !(desc.m == 64 && d_lane == 16) {
            return Err(format!(
                "d-tmem's lane is {d_lane}: an M = {} D starts at lane 0{}",
                desc.m,
                if desc.m == 64 { " or 16" } else { "" }
            ));
        }
        let negate = |bits: u64, yes: bool, ty| if yes { alu::negate(bits, ty) } else { bits };
        // A: M x K.
        let mut a = vec![vec![0u64; k]; desc.m];
        match op.a {
            MmaA::Descriptor(source) => {
                let descriptor = Descriptor::decode_tcgen05(self.read_bits(lane, source, 64))?;
                let layout = (desc.transpose_a, SubByte::of(op.kind, desc.a));
                for (m, row) in a.iter_mut().enumerate() {
                    for (kk, element) in row.iter_mut().enumerate() {
                        let bits = self
                            .smem_element(lane, &descriptor, layout, (m, kk), desc.a)
                            .map_err(|why| format!("element ({m}, {kk}) of A: {why}"))?;
                        *element = negate(bits, desc.negate_a, desc.a);
                    }
                }
            }
            MmaA::Tmem(operand) => {
                // A in tensor memory: row m in D's lane for row m (lane m for M = 128; the
                // same half-quarter lanes as D assumed for M = 64), its elements packed into
                // 32-bit cells from the address's column, the lowest k in the low bits (FP6
                // and FP4 of `.kind::f8f6f4` one to a byte, `.kind::mxf4*`'s FP4 two).
                let (a_lane, a_column) = tensor_memory::split(self.taddr(lane, operand));
                let bits = if op.kind.packed_fp4() {
                    4
                } else {
                    desc.a.bits()
                };
                let per_cell = (32 / bits) as usize;
                for (m, row) in a.iter_mut().enumerate() {
                    for (kk, element) in row.iter_mut().enumerate() {
                        let cell = self
                            .tmem
                            .read(a_lane + desc.lane(m), a_column + (kk / per_cell) as u32)?;
                        let shift = bits as usize * (kk % per_cell);
                        let value = (u64::from(cell) >> shift) & ((1u64 << bits) - 1);
                        let value = if bits == 4 { value << 2 } else { value };
                        *element = negate(value, desc.negate_a, desc.a);
                    }
                }
            }
        }
        // B: N x K.
        let descriptor = Descriptor::decode_tcgen05(self.read_bits(lane, op.b, 64))?;
        let mut b = vec![vec![0u64; k]; desc.n];
        let layout = (desc.transpose_b, SubByte::of(op.kind, desc.b));
        for (n, row) in b.iter_mut().enumerate() {
            for (kk, element) in row.iter_mut().enumerate() {
                let bits = self
                    .smem_element(lane, &descriptor, layout, (n, kk), desc.b)
                    .map_err(|why| format!("element ({n}, {kk}) of B: {why}"))?;
                *element = negate(bits, desc.negate_b, desc.b);
            }
        }
        let accumulate =
            (self.read_bits(lane, op.enable_input_d.source, 1) != 0) != op.enable_input_d.negated;
        let disabled: Vec<u32> = op
            .disable_output_lane
            .iter()
            .map(|&mask| self.read_bits(lane, mask, 32) as u32)
            .collect();
        let cores = self.device.tensor_cores();
        if desc.scale_ue4m3 && op.scale_vec != 4 {
            return Err(
                ".ue4m3 scale factors (instruction descriptor bit 23 clear) go with \
                 .scale_vec::4X"
                    .to_string(),
            );
        }
        let scales = match (desc.scale_ids, op.scales) {
            (Some(ids), Some(operands)) => {
                Some(self.scale_factors(lane, (&desc, op.scale_vec), ids, operands)?)
            }
            _ => None,
        };
        for (m, a_row) in a.iter().enumerate() {
            let row = d_lane + desc.lane(m);
            if disabled
                .get(row as usize / 32)
                .is_some_and(|mask| mask >> (row % 32) & 1 == 1)
            {
                continue;
            }
            for (n, b_row) in b.iter().enumerate() {
                let column = d_column + n as u32;
                let c = if accumulate {
                    u64::from(self.tmem.read(row, column)?)
                } else {
                    0
                };
                let value = match &scales {
                    Some((sfa, sfb)) if op.kind.packed_fp4() => {
                        alu::dot_fp4_scaled(a_row, b_row, c, (&sfa[m], &sfb[n]), desc.scale_ue4m3)
                    }
                    Some((sfa, sfb)) => {
                        alu::dot_scaled(&desc, a_row, b_row, c, (sfa[m][0], sfb[n][0])).ok_or_else(
                            || {
                                format!(
                                    "D({m}, {n}): a NaN scale factor, or a scaled value outside \
                                     the normal .f32 range, is not supported by ptxsim yet"
                                )
                            },
                        )?
                    }
                    None => alu::dot(cores, &desc, a_row, b_row, c),
                };
                self.tmem.write(row, column, value as u32)?;
            }
        }
        Ok(())
    }
}
