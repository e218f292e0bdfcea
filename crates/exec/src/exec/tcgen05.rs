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
//!
//! `.cta_group::2` runs over a CTA pair of a cluster: the CTA and its peer, whose
//! `%cluster_ctarank` differs in bit 0 (CUTLASS's 2x1SM atoms take a CTA's place in the pair
//! from `block_rank_in_cluster() % 2`; the even CTA is the first). The runner of a cluster
//! lends the running CTA the other CTAs' tensor memories as it lends their shared memories
//! (the `grid` module).

use ptxsim_isa::mma::MmaType;
use ptxsim_isa::ops::{MbarrierOp, Space};

use super::Executor;
use crate::alu::tcgen05::{self as alu, Form, InstrDescriptor, SubByte};
use crate::alu::wgmma::Descriptor;
use crate::ir::tcgen05::{CollectorUsage, CopyShape, LoadReduction, Mma, MmaA, Shape, Tcgen05};
use crate::ir::{Destination, Instruction, MemoryOperand, Source};
use crate::memory::CLUSTER_RANK_STRIDE;
use crate::tensor_memory::{self, TensorMemory};

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
        let all_done = self
            .lanes
            .status
            .iter()
            .all(|status| matches!(status, crate::lanes::ThreadStatus::Done(_)));
        let Some(&last) = lanes.last() else {
            return;
        };
        let exited = matches!(
            self.lanes.status[last],
            crate::lanes::ThreadStatus::Done(crate::step::Outcome::Exited)
        );
        if all_done {
            self.tmem.finished = true;
        }
        if let (true, true, Some(pending)) = (all_done, exited, self.tmem.pending()) {
            let message = format!(
                "`{}`: the CTA's threads exited, but the peer CTA's warp performed {pending}, \
                 which no warp of this CTA performed (one warp of each CTA of the pair must)",
                instruction.text
            );
            return self.trap(last, instruction, message);
        }
        if all_done && exited && self.tmem.allocated() > 0 {
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

    /// The `%cluster_ctarank` of the peer CTA of `.cta_group::2`: "Issue from a single thread
    /// from the CTA-Pair would initiate the base operation. When the current CTA issues the
    /// operation, the peer CTA should be active and should not have exited" (PTX ISA
    /// 9.7.16.5, Table 46). A CTA without a peer in its cluster, or whose peer exited, is an
    /// error.
    fn peer(&self) -> Result<u32, String> {
        let peer = self.cluster.rank ^ 1;
        if peer >= self.cluster.size || self.cluster.tmem.len() <= peer as usize {
            return Err(format!(
                ".cta_group::2 needs the CTA's peer in a CTA pair (%cluster_ctarank {peer}), \
                 but the CTA's cluster has {} CTA(s); launch clusters of an even number of CTAs",
                self.cluster.size
            ));
        }
        if self.cluster.tmem[peer as usize].finished {
            return Err(format!(
                "the peer CTA (%cluster_ctarank {peer}) has exited; .cta_group::2 needs it \
                 active"
            ));
        }
        Ok(peer)
    }

    /// The CTAs an operation of `.cta_group::1` (this one) or `::2` (the pair, the even CTA
    /// first) reaches, by `%cluster_ctarank`.
    fn group(&self, pair: bool) -> Result<Vec<u32>, String> {
        if pair {
            let peer = self.peer()?;
            Ok(vec![peer & !1, peer | 1])
        } else {
            Ok(vec![self.cluster.rank])
        }
    }

    /// The tensor memory of the cluster's CTA `rank` (this one's, or a peer's lent to it).
    fn cta_tmem(&self, rank: u32) -> &TensorMemory {
        if rank == self.cluster.rank {
            self.tmem
        } else {
            &self.cluster.tmem[rank as usize]
        }
    }

    fn cta_tmem_mut(&mut self, rank: u32) -> &mut TensorMemory {
        if rank == self.cluster.rank {
            self.tmem
        } else {
            &mut self.cluster.tmem[rank as usize]
        }
    }

    /// Where the shared memory of the cluster's CTA `rank` starts in `.shared::cluster`
    /// addresses: a descriptor's CTA-relative address (its low 18 bits) plus this reaches the
    /// same offset in that CTA ([`CLUSTER_RANK_STRIDE`]).
    fn shared_base(&self, rank: u32) -> u64 {
        u64::from(rank) * CLUSTER_RANK_STRIDE
    }

    /// "All tcgen05 instructions within a kernel must specify the same value for the
    /// .cta_group qualifier" (9.7.16.7.1): the CTA's first value holds; another traps (ptxas
    /// refuses such a kernel: "uses single CTA(.cta_group::1) and CTA pair
    /// granularity(.cta_group::2) and that is not allowed").
    fn same_cta_group(&mut self, op: &Tcgen05) -> Result<(), String> {
        let Some(group) = op.cta_group() else {
            return Ok(());
        };
        match self.tmem.cta_group {
            Some(first) if first != group => Err(format!(
                ".cta_group::{group}, but an earlier tcgen05 instruction of the CTA named \
                 .cta_group::{first}: all tcgen05 instructions within a kernel must specify the \
                 same value"
            )),
            _ => {
                self.tmem.cta_group = Some(group);
                Ok(())
            }
        }
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
        if let Err(why) = self.same_cta_group(op) {
            let message = format!("`{}`: {why}", instruction.text);
            return self.trap_lanes(instruction, lanes, message);
        }
        match op {
            Tcgen05::Alloc {
                dst,
                space,
                columns,
                pair,
            } => self.tmem_alloc(instruction, lanes, *dst, *space, (*columns, *pair)),
            Tcgen05::Dealloc {
                taddr,
                columns,
                pair,
            } => {
                let address = self.read_bits(lanes[0], *taddr, 32) as u32;
                let columns = self.read_bits(lanes[0], *columns, 32) as u32;
                let result = if *pair {
                    let peer = self
                        .peer()
                        .map(|peer| &mut self.cluster.tmem[peer as usize]);
                    tensor_memory::pair_dealloc(self.tmem, peer, address, columns)
                } else {
                    self.tmem.dealloc(address, columns)
                };
                if let Err(why) = result {
                    let message = format!("`{}`: {why}", instruction.text);
                    self.trap_lanes(instruction, lanes, message);
                }
            }
            Tcgen05::Relinquish { pair } => {
                let result = if *pair {
                    let peer = self
                        .peer()
                        .map(|peer| &mut self.cluster.tmem[peer as usize]);
                    tensor_memory::pair_relinquish(self.tmem, peer)
                } else {
                    self.tmem.relinquish();
                    Ok(())
                };
                if let Err(why) = result {
                    let message = format!("`{}`: {why}", instruction.text);
                    self.trap_lanes(instruction, lanes, message);
                }
            }
            Tcgen05::Ld {
                shape,
                num,
                pack,
                d,
                taddr,
                split,
                red,
            } => self.tmem_ld(
                instruction,
                lanes,
                (*shape, *num, *pack, *split),
                (d, red.as_ref()),
                *taddr,
            ),
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
            Tcgen05::Cp {
                shape,
                taddr,
                desc,
                pair,
            } => {
                for &lane in lanes {
                    if let Err(message) = self.tmem_cp(lane, (*shape, *pair), *taddr, *desc) {
                        let message = format!("`{}`: {message}", instruction.text);
                        self.trap(lane, instruction, message);
                    }
                }
            }
            Tcgen05::Shift { taddr, pair } => {
                for &lane in lanes {
                    if let Err(message) = self.tmem_shift(lane, *taddr, *pair) {
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
            Tcgen05::Commit {
                mbar,
                space,
                cta_mask,
                pair,
            } => {
                if let Err(why) = self.group(*pair) {
                    let message = format!("`{}`: {why}", instruction.text);
                    return self.trap_lanes(instruction, lanes, message);
                }
                if let Some(mask) = cta_mask {
                    return self.commit_multicast(instruction, lanes, (*mbar, *space), *mask);
                }
                let arrive = MbarrierOp::Arrive {
                    drop: false,
                    expect_tx: false,
                    no_complete: false,
                };
                self.mbarrier(instruction, lanes, arrive, *space, None, Some(*mbar), None);
            }
        }
    }

    /// `tcgen05.commit ... .multicast::cluster [mbar], ctaMask`: "signaling on the mbarrier
    /// objects of multiple CTAs in the cluster. Operand ctaMask specifies the CTAs in the
    /// cluster such that each bit position in the 16-bit ctaMask operand corresponds to the
    /// %cluster_ctarank of the destination CTA. The mbarrier signal is multicast to the same
    /// offset as mbar in the shared memory of each destination CTA" (9.7.16.12.1), for
    /// `.cta_group::1` and `::2` alike. One arrive-on operation on each. A bit for a rank
    /// outside the cluster traps (the ISA leaves it undefined).
    fn commit_multicast(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (mbar, space): (MemoryOperand, Space),
        mask: Source,
    ) {
        for &lane in lanes {
            let (resolved, at) = crate::compiled::resolve(space, self.address(lane, mbar));
            if !matches!(resolved, Space::Shared | Space::SharedCluster) {
                let message = format!(
                    "`{}`: mbar ({at:#x}) is not a shared-memory address",
                    instruction.text
                );
                self.trap(lane, instruction, message);
                continue;
            }
            let offset = at % CLUSTER_RANK_STRIDE;
            let mask = self.read_bits(lane, mask, 16) as u32;
            if mask >> self.cluster.size != 0 {
                let message = format!(
                    "`{}`: ctaMask {mask:#06x} names a CTA outside the cluster of {}",
                    instruction.text, self.cluster.size
                );
                self.trap(lane, instruction, message);
                continue;
            }
            for rank in (0..self.cluster.size).filter(|rank| mask >> rank & 1 == 1) {
                let target = u64::from(rank) * CLUSTER_RANK_STRIDE + offset;
                match self.arrive_one(lane, target) {
                    Ok(true) => {}
                    Ok(false) => {
                        let message = format!(
                            "`{}`: more arrivals than the pending count of the mbarrier of CTA \
                             {rank}; the PTX ISA leaves this undefined",
                            instruction.text
                        );
                        self.trap(lane, instruction, message);
                        break;
                    }
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        break;
                    }
                }
            }
        }
    }

    /// `tcgen05.alloc`: "allocates the specified number of columns in the Tensor Memory and
    /// writes the address of the allocated Tensor Memory into shared memory at the location
    /// specified by address operand dst". One allocation for the warp; with `.cta_group::2`
    /// one for the pair ([`tensor_memory::pair_alloc`]).
    fn tmem_alloc(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        dst: MemoryOperand,
        space: Space,
        (columns, pair): (Source, bool),
    ) {
        let lane = lanes[0];
        let columns = self.read_bits(lane, columns, 32) as u32;
        let allocated = if pair {
            let peer = self
                .peer()
                .map(|peer| &mut self.cluster.tmem[peer as usize]);
            tensor_memory::pair_alloc(self.tmem, peer, columns)
        } else {
            self.tmem.alloc(columns).map_err(|why| why.to_string())
        };
        let address = match allocated {
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

    /// The base lane of a `tcgen05.ld`/`tcgen05.st` address, with rows 128 to 255 of a
    /// `.cta_group::2` tile (M = 256) named as lanes 128 to 255 of the pair's odd CTA, which
    /// holds them in its lanes 0 to 127. The ISA has 128 lanes per CTA ("a warp can access only
    /// a quarter of the lanes", 9.7.16.2.2) and says nothing of larger lanes; kernels that
    /// address the odd CTA's rows this way run on B200 GPUs (gau-nernst/learn-cuda's 2-SM
    /// `matmul_v5` to `v7`, checked against PyTorch by their author; not measured here). Only
    /// that case is folded: a larger lane anywhere else still fails the quarter check.
    fn pair_lane(&self, lane: u32) -> u32 {
        let rows = tensor_memory::LANES;
        let odd = self.cluster.rank % 2 == 1;
        if odd && self.tmem.cta_group == Some(2) && (rows..2 * rows).contains(&lane) {
            lane - rows
        } else {
            lane
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

    /// `tcgen05.ld`: each thread's registers from the warp's fragment of tensor memory; with
    /// `.red` also their minimum or maximum in `redval` ([`alu::load_reduction`]).
    fn tmem_ld(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (shape, num, pack, split): (Shape, u32, bool, u32),
        (d, red): (&[Destination], Option<&LoadReduction>),
        taddr: MemoryOperand,
    ) {
        let (lane, column) = tensor_memory::split(self.taddr(lanes[0], taddr));
        let base = (self.pair_lane(lane), column);
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
            if let Some(red) = red {
                let reduced = alu::load_reduction((red.max, red.ty, red.abs, red.nan), &row);
                self.write(lane, red.dest, u128::from(reduced), red.ty);
            }
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
        let (lane, column) = tensor_memory::split(self.taddr(lanes[0], taddr));
        let base = (self.pair_lane(lane), column);
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
    /// a cell); with multicast (`.warpx4`, `.warpx2::02_13`, `.warpx2::01_23`) to the lanes
    /// of [`CopyShape::destination_lanes`]. Shared memory is read through the descriptor's
    /// canonical K-major layout with
    /// one-byte elements (rows of core matrices of 8 x 16 bytes, [`Descriptor::address`]).
    /// With `.cta_group::2` each CTA of the pair copies from its own shared memory, at the
    /// descriptor's offset, into its own tensor memory (assumed: how CUTLASS's `*_2cta` copies
    /// of per-CTA scale factors are used; no sentence of the ISA read).
    fn tmem_cp(
        &mut self,
        lane: usize,
        (shape, pair): (CopyShape, bool),
        taddr: MemoryOperand,
        desc: Source,
    ) -> Result<(), String> {
        let (row0, column0) = tensor_memory::split(self.taddr(lane, taddr));
        let descriptor = Descriptor::decode_tcgen05(self.read_bits(lane, desc, 64))?;
        let (rows, bytes) = shape.rows_and_bytes();
        for rank in self.group(pair)? {
            let base = self.shared_base(rank);
            for row in 0..rows {
                for cell in 0..bytes / 4 {
                    let mut value = 0u32;
                    for byte in 0..4 {
                        let address = base + descriptor.address(false, row, 4 * cell + byte, 1);
                        let bits = self
                            .load(lane, Space::SharedCluster, address, 1)
                            .map_err(|fault| format!("row {row} of the source: {fault}"))?;
                        value |= (bits as u32 & 0xff) << (8 * byte);
                    }
                    for to in shape.destination_lanes(row) {
                        self.cta_tmem_mut(rank).write(
                            row0 + to as u32,
                            column0 + cell as u32,
                            value,
                        )?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `tcgen05.shift.down`: "shifting of 32-byte elements downwards across all the rows,
    /// except the last, by one row" in the 32 lanes from `taddr`'s ("must be aligned to 32");
    /// with `.cta_group::2` in both CTAs of the pair.
    fn tmem_shift(&mut self, lane: usize, taddr: MemoryOperand, pair: bool) -> Result<(), String> {
        let (row0, column0) = tensor_memory::split(self.taddr(lane, taddr));
        if row0 % 32 != 0 {
            return Err(format!("the lane of taddr ({row0}) must be aligned to 32"));
        }
        for rank in self.group(pair)? {
            let tmem = self.cta_tmem_mut(rank);
            for row in (row0..row0 + 31).rev() {
                for column in column0..column0 + 8 {
                    let value = tmem.read(row, column)?;
                    tmem.write(row + 1, column, value)?;
                }
            }
        }
        Ok(())
    }

    /// Element `(row, k)` of an operand in shared memory, through its descriptor, in the CTA
    /// whose shared memory starts at `base` ([`Executor::shared_base`]); a sub-byte element
    /// ([`SubByte`]) from its 16-byte unit, as its 8-bit container.
    fn smem_element(
        &mut self,
        lane: usize,
        (descriptor, base): (&Descriptor, u64),
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
            let address = base + descriptor.address(false, row, column, 1);
            let unit = self
                .load(lane, Space::SharedCluster, address, 16)
                .map_err(|fault| fault.to_string())?;
            return Ok(format.extract(unit, k));
        }
        let size = alu::element_bytes(ty);
        let address = base + descriptor.address(mn_major, row, k, size);
        self.load(lane, Space::SharedCluster, address, size as u32)
            .map(|bits| bits as u64)
            .map_err(|fault| fault.to_string())
    }

    /// The scale factors of `.block_scale` (128 rows of A a CTA, in the tensor memory of CTA
    /// `rank`; over a pair each CTA holds its rows' factors and those of all N columns of B, as
    /// CUTLASS's 2x1SM atoms copy them), `vec` per row of A and column of B
    /// (`.scale_vec::1X/2X/4X`). Their layout is the one
    /// CUTLASS's `tmem_sf_frg` writes (`ScaleFactorDuplicated4by1`): the factors of row `m` in
    /// lane `m` (lanes `m % 32 + 32q` hold the same bytes), column `m / 32` from the
    /// address's, bytes `id .. id + vec` (the instruction descriptor's scale-factor id, then
    /// one byte per block of K); the factors of column `n` of B in lane `n % 32` from the
    /// address's, column `n / 32`, its bytes likewise. Bits 30-31 of the addresses (where
    /// CUTLASS keeps the byte id) are ignored. The id must leave room for `vec` bytes: a
    /// multiple of `vec`.
    ///
    /// At M = 64 (one CTA) the factors of row `m` are in the same lanes and column (CUTLASS's
    /// `tmem_sf_frg` of 64 rows: `((32, 2), 4) : ((1, 512), 32)` bytes, "Data is always
    /// replicated across subpartitions"), but which quarter's copy the tensor core reads for
    /// a row is written nowhere: the four copies must agree, or the instruction traps.
    fn scale_factors(
        &self,
        (lane, rank): (usize, u32),
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
        let tmem = self.cta_tmem(rank);
        let base = |operand| tensor_memory::split(self.taddr(lane, operand) & 0x3fff_ffff);
        let read = |(lane, column): (u32, u32), id: u32| {
            tmem.read(lane, column).map(|cell| {
                (0..vec)
                    .map(|j| cell >> (8 * (id + j)) & 0xff)
                    .collect::<Vec<u32>>()
            })
        };
        let (a_lane, a_column) = base(sfa);
        let (b_lane, b_column) = base(sfb);
        let rows = (0..desc.rows_per_cta() as u32)
            .map(|m| {
                let factors = read((a_lane + m, a_column + m / 32), a_id)?;
                if desc.rows_per_cta() == 64 {
                    for quarter in 0..4 {
                        let lane = a_lane + m % 32 + 32 * quarter;
                        if read((lane, a_column + m / 32), a_id)? != factors {
                            return Err(format!(
                                "the scale factors of row {m} of A differ between lanes {} + \
                                 32q of column {} (lane {lane}): at M = 64 ptxsim models only \
                                 factors replicated into all four lane quarters, as CUTLASS \
                                 writes them (which quarter the tensor core reads is not \
                                 written)",
                                a_lane + m % 32,
                                a_column + m / 32
                            ));
                        }
                    }
                }
                Ok(factors)
            })
            .collect::<Result<_, String>>()?;
        let columns = (0..desc.n as u32)
            .map(|n| read((b_lane + n % 32, b_column + n / 32), b_id))
            .collect::<Result<_, _>>()?;
        Ok((rows, columns))
    }

    /// The dense columns of the stored elements of each row of a sparse A (`tcgen05.mma.sp`,
    /// M = 128, `.cta_group::1`), from the metadata at `[sp-meta-tmem]` in the CTA's tensor
    /// memory ([`alu::sparse_metadata_cell`], [`alu::sparse_columns`]).
    fn sparse_columns(
        &self,
        lane: usize,
        (operand, selector): (MemoryOperand, u32),
        kind: crate::ir::tcgen05::Kind,
        m: usize,
    ) -> Result<Vec<Vec<usize>>, String> {
        let (meta_lane, meta_column) = tensor_memory::split(self.taddr(lane, operand));
        (0..m)
            .map(|row| {
                alu::sparse_columns(kind, kind.k(), |chunk| {
                    let (lane, column, bit) = alu::sparse_metadata_cell(kind, row, chunk, selector);
                    let cell = self.tmem.read(meta_lane + lane, meta_column + column)?;
                    Ok(cell >> bit & 0xf)
                })
                .map_err(|why| format!("row {row} of A: {why}"))
            })
            .collect()
    }

    /// B (N x K) from shared memory, column `n` from CTA `n / (N / CTAs)` of the group.
    fn b_from_shared(
        &mut self,
        lane: usize,
        (op, k): (&Mma, usize),
        desc: &InstrDescriptor,
        ctas: &[u32],
    ) -> Result<Vec<Vec<u64>>, String> {
        let descriptor = Descriptor::decode_tcgen05(self.read_bits(lane, op.b, 64))?;
        let columns = desc.columns_per_cta();
        let mut b = vec![vec![0u64; k]; desc.n];
        let layout = (desc.transpose_b, SubByte::of(op.kind, desc.b));
        for (n, row) in b.iter_mut().enumerate() {
            let base = self.shared_base(ctas[n / columns]);
            for (kk, element) in row.iter_mut().enumerate() {
                *element = self
                    .smem_element(lane, (&descriptor, base), layout, (n % columns, kk), desc.b)
                    .map_err(|why| format!("element ({n}, {kk}) of B: {why}"))?;
            }
        }
        Ok(b)
    }

    /// B from the collector buffer `buffer` of `tcgen05.mma.ws` (`::use`, `::lastuse`, which
    /// empties it): what an earlier `::fill` read, of `shape` (N rows of K). An empty buffer or
    /// one of another shape is an error (the PTX ISA leaves it undefined).
    fn collected(
        &mut self,
        buffer: usize,
        usage: CollectorUsage,
        shape: (usize, usize),
    ) -> Result<Vec<Vec<u64>>, String> {
        let slot = &mut self.tmem.collectors[buffer];
        let b = if usage == CollectorUsage::LastUse {
            slot.take()
        } else {
            slot.clone()
        };
        let b = b.ok_or_else(|| {
            format!(
                "the collector buffer b{buffer} is empty: ::use and ::lastuse take the B of an \
                 earlier ::fill (and ::lastuse empties it)"
            )
        })?;
        if (b.len(), b.first().map_or(0, Vec::len)) != shape {
            return Err(format!(
                "the collector buffer b{buffer} holds a B of {} x {}, this instruction's is {} x \
                 {} (N x K)",
                b.len(),
                b.first().map_or(0, Vec::len),
                shape.0,
                shape.1
            ));
        }
        Ok(b)
    }

    /// `tcgen05.mma` issued by thread `lane`: `D = A * B + D` (or `A * B` when
    /// `enable-input-d` is false) with D in tensor memory, row `m` and column `n` where
    /// [`InstrDescriptor::place`] puts them from `d-tmem`'s lane and column (every lane for
    /// M = 128; for M = 64 the first or second 16 lanes of each quarter).
    ///
    /// `.cta_group::2` (M = 128 or 256 over the pair): "Issue from a single thread from the
    /// CTA-Pair" (Table 46), either CTA. The layout is CUTLASS's 2x1SM atoms'
    /// (`SM100_MMA_*_2x1SM_*`: `ALayout`, `BLayout`, `CLayout`): the even CTA of the pair holds
    /// rows `0 .. M/2` of A (in its shared memory at the descriptor's offset, or in its tensor
    /// memory at `[a-tmem]`) and of D (in its tensor memory at `d-tmem`) and columns
    /// `0 .. N/2` of B; the odd CTA the rest, at the same offsets. `disable-output-lane` has
    /// eight masks, the even CTA's lanes in the first four (assumed).
    ///
    /// `.ws` (weight-stationary, M = 32, 64 or 128, N = 64, 128 or 256): D where
    /// [`InstrDescriptor::place`] puts it (CUTLASS's `tmem_frg_ws`), and B through the
    /// collector buffer `bN` of `.collector::bN::usage`: `::fill` reads B from shared memory
    /// and keeps it, `::use` takes the kept B instead of reading, `::lastuse` too and empties
    /// the buffer, `::discard` (the default) reads B and keeps nothing.
    ///
    /// `.sp` (`[sp-meta-tmem]`): "the matrix A of shape MxK is stored in a packed form as
    /// Mx(K/2) in memory" (9.7.16.10.8), read as the dense kind's A (whose K is the sparse
    /// K / 2); B has the sparse K; each stored element meets the row of B its metadata names
    /// ([`Executor::sparse_columns`]), so D is the dense kind's step over the stored elements.
    fn tcgen05_mma(&mut self, lane: usize, op: &Mma) -> Result<(), String> {
        let idesc = self.read_bits(lane, op.idesc, 32) as u32;
        let form = match (op.pair, op.ws.is_some()) {
            (true, _) => Form::Pair,
            (false, true) => Form::WeightStationary,
            (false, false) => Form::One,
        };
        let desc = InstrDescriptor::decode(op.kind, idesc, form)?;
        let ctas = self.group(op.pair)?;
        let scale_input_d = match op.scale_input_d {
            Some(scale) => match self.read_bits(lane, scale, 32) as u32 {
                scale @ 0..=15 => scale,
                scale => {
                    return Err(format!(
                        "scale-input-d is {scale}: its valid range is [0, 15]"
                    ));
                }
            },
            None => 0,
        };
        if op.sparse_metadata.is_some() != desc.sparse.is_some() {
            return Err(format!(
                "{} but the instruction descriptor's sparse bit (bit 2) is {}: they go together",
                if op.sparse_metadata.is_some() {
                    "tcgen05.mma.sp"
                } else {
                    "a dense tcgen05.mma"
                },
                u32::from(desc.sparse.is_some())
            ));
        }
        // K of the stored A (the kind's dense K; a sparse A keeps half of its 2K columns,
        // "stored in a packed form as Mx(K/2)", 9.7.16.10.8) and of B.
        let k = op.kind.k();
        let k_b = if desc.sparse.is_some() { 2 * k } else { k };
        let (d_lane, d_column) = tensor_memory::split(self.taddr(lane, op.d));
        let half_quarters = desc.m == 64 && form == Form::One;
        if d_lane != 0 && !(half_quarters && d_lane == 16) {
            return Err(format!(
                "d-tmem's lane is {d_lane}: an M = {} D starts at lane 0{}",
                desc.m,
                if half_quarters { " or 16" } else { "" }
            ));
        }
        let rows = desc.rows_per_cta();
        let negate = |bits: u64, yes: bool, ty| if yes { alu::negate(bits, ty) } else { bits };
        // A: M x K, row m from CTA m / rows of the group.
        let mut a = vec![vec![0u64; k]; desc.m];
        match op.a {
            MmaA::Descriptor(source) => {
                let descriptor = Descriptor::decode_tcgen05(self.read_bits(lane, source, 64))?;
                let layout = (desc.transpose_a, SubByte::of(op.kind, desc.a));
                for (m, row) in a.iter_mut().enumerate() {
                    let base = self.shared_base(ctas[m / rows]);
                    for (kk, element) in row.iter_mut().enumerate() {
                        let bits = self
                            .smem_element(lane, (&descriptor, base), layout, (m % rows, kk), desc.a)
                            .map_err(|why| format!("element ({m}, {kk}) of A: {why}"))?;
                        *element = negate(bits, desc.negate_a, desc.a);
                    }
                }
            }
            MmaA::Tmem(_) if desc.ws && desc.m != 128 => {
                return Err(format!(
                    "A in tensor memory with .ws and M = {} is not supported by ptxsim yet \
                     (its lanes are not settled by the sources read)",
                    desc.m
                ));
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
                    let tmem = self.cta_tmem(ctas[m / rows]);
                    for (kk, element) in row.iter_mut().enumerate() {
                        let cell = tmem.read(
                            a_lane + desc.lane(m % rows),
                            a_column + (kk / per_cell) as u32,
                        )?;
                        let shift = bits as usize * (kk % per_cell);
                        let value = (u64::from(cell) >> shift) & ((1u64 << bits) - 1);
                        let value = if bits == 4 { value << 2 } else { value };
                        *element = negate(value, desc.negate_a, desc.a);
                    }
                }
            }
        }
        // B: N x K, column n from CTA n / (N / CTAs) of the group, or `.ws`'s collector buffer.
        let collector = op
            .ws
            .map(|collector| (collector.buffer as usize, collector.usage));
        let mut b = match collector {
            Some((buffer, usage @ (CollectorUsage::Use | CollectorUsage::LastUse))) => {
                self.collected(buffer, usage, (desc.n, k))?
            }
            _ => self.b_from_shared(lane, (op, k_b), &desc, &ctas)?,
        };
        if let Some((buffer, CollectorUsage::Fill)) = collector {
            self.tmem.collectors[buffer] = Some(b.clone());
        }
        for element in b.iter_mut().flatten() {
            *element = negate(*element, desc.negate_b, desc.b);
        }
        let accumulate =
            (self.read_bits(lane, op.enable_input_d.source, 1) != 0) != op.enable_input_d.negated;
        let disabled: Vec<u32> = op
            .disable_output_lane
            .iter()
            .map(|&mask| self.read_bits(lane, mask, 32) as u32)
            .collect();
        if !disabled.is_empty() && disabled.len() != 4 * ctas.len() {
            return Err(format!(
                "disable-output-lane has {} masks: .cta_group::{} takes {}",
                disabled.len(),
                ctas.len(),
                4 * ctas.len()
            ));
        }
        let cores = self.device.tensor_cores();
        if desc.scale_ue4m3 && op.scale_vec != 4 {
            return Err(
                ".ue4m3 scale factors (instruction descriptor bit 23 clear) go with \
                 .scale_vec::4X"
                    .to_string(),
            );
        }
        // The scale factors, per CTA of the group.
        let scales = match (desc.scale_ids, op.scales) {
            (Some(ids), Some(operands)) => Some(
                ctas.iter()
                    .map(|&rank| {
                        self.scale_factors((lane, rank), (&desc, op.scale_vec), ids, operands)
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            _ => None,
        };
        let sparse_columns = match (op.sparse_metadata, desc.sparse) {
            (Some(operand), Some(selector)) => {
                Some(self.sparse_columns(lane, (operand, selector), op.kind, desc.m)?)
            }
            _ => None,
        };
        let mut gathered = Vec::new();
        for (m, a_row) in a.iter().enumerate() {
            let (cta, local) = (m / rows, m % rows);
            let rank = ctas[cta];
            for (n, b_row) in b.iter().enumerate() {
                // A sparse A's product is the dense one over the expanded A: its stored
                // elements meet the elements of B at the columns the metadata names.
                let b_row = match &sparse_columns {
                    Some(columns) => {
                        gathered.clear();
                        gathered.extend(columns[m].iter().map(|&column| b_row[column]));
                        &gathered
                    }
                    None => b_row,
                };
                let (lane_offset, column_offset) = desc.place(local, n);
                let row = d_lane + lane_offset;
                let column = d_column + column_offset;
                if disabled
                    .get(4 * cta + row as usize / 32)
                    .is_some_and(|mask| mask >> (row % 32) & 1 == 1)
                {
                    continue;
                }
                let c = if accumulate {
                    let c = u64::from(self.cta_tmem(rank).read(row, column)?);
                    if desc.d == MmaType::F16 {
                        // An `.f16` element of D in the low half of its cell (assumed:
                        // CUTLASS's `tmem_frg_1sm<half_t>` keeps one per 32-bit column).
                        if scale_input_d != 0 {
                            return Err(format!(
                                "scale-input-d = {scale_input_d} with an .f16 D is not \
                                 supported by ptxsim yet"
                            ));
                        }
                        c & 0xffff
                    } else if scale_input_d == 0 {
                        c
                    } else {
                        alu::scale_input_d(c, scale_input_d).ok_or_else(|| {
                            format!(
                                "D({m}, {n}) x 2^-{scale_input_d} leaves the normal .f32 range, \
                             which ptxsim does not model"
                            )
                        })?
                    }
                } else {
                    0
                };
                let value = match scales.as_ref().map(|scales| &scales[cta]) {
                    Some((sfa, sfb)) if op.kind.packed_fp4() => crate::alu::mma::dot_fp4_scaled(
                        a_row,
                        b_row,
                        c,
                        (&sfa[local], &sfb[n]),
                        desc.scale_ue4m3,
                    ),
                    Some((sfa, sfb)) => {
                        alu::dot_scaled(&desc, a_row, b_row, c, (sfa[local][0], sfb[n][0]))
                            .ok_or_else(|| {
                                format!(
                                    "D({m}, {n}): a NaN scale factor, or a scaled value outside \
                                     the normal .f32 range, is not supported by ptxsim yet"
                                )
                            })?
                    }
                    None => alu::dot(cores, &desc, a_row, b_row, c),
                };
                self.cta_tmem_mut(rank).write(row, column, value as u32)?;
            }
        }
        Ok(())
    }
}
