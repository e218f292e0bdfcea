//! The memory family: `ld`, `st`, `cvta`, `atom`/`red`, `cp.async`, `membar`/`fence`, and the
//! state spaces behind them (loads, stores and atomic updates resolved to the memory that holds
//! them; faults).

use ptxsim_isa::Type;
use ptxsim_isa::ops::{AtomOp, MbarrierOp, Space};

use super::{Executor, Put};

/// The response of a `clusterlaunchcontrol.try_cancel` that failed ([`Executor::cluster_cancel`]):
/// bit 0 (canceled) clear.
pub(crate) const CLUSTER_CANCEL_FAILED: u128 = 0;
use crate::alu;
use crate::ir::{
    Axis, Destination, Instruction, MemoryOperand, PredicateSource, Source, THREAD_PARAM_BASE,
};
use crate::lanes::ThreadStatus;
use crate::memory::{
    CLUSTER_RANK_STRIDE, Fault, FaultKind, SHARED_WINDOW, WINDOW_SIZE, from_generic,
    from_generic_to, load_bytes, store_bytes, to_generic,
};
use crate::semantics::chop;
use crate::step::MemoryWrite;

impl Executor<'_, '_> {
    /// `ld`/`ldu`: a uniform or a scalar global load in columns when it is one, else lane by
    /// lane; a lane whose access faults traps.
    #[inline(always)]
    pub(super) fn ld(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        space: Space,
        ty: Type,
        destinations: &[Option<Destination>],
        address: MemoryOperand,
    ) {
        // At most `.v8` destinations; a `Vec` here was an allocation per load.
        let mut slots = [None; 8];
        for (slot, destination) in slots.iter_mut().zip(destinations) {
            *slot = destination.map(|d| Put::new(d, ty));
        }
        let puts = &slots[..destinations.len().min(8)];
        if self.load_uniform(lanes, space, ty, address, puts)
            || self.load_columns(lanes, space, ty, address, puts)
        {
            return;
        }
        'lanes: for &lane in lanes {
            let (base, bytes) =
                match self.vector_access(lane, address, space, ty, destinations.len(), false) {
                    Ok(access) => access,
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue;
                    }
                };
            for (index, put) in puts.iter().enumerate() {
                let at = base.wrapping_add(u64::from(bytes) * index as u64);
                let value = match self.load(lane, space, at, bytes) {
                    Ok(value) => value,
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue 'lanes;
                    }
                };
                if let Some(put) = put {
                    self.put(lane, put, value);
                }
            }
        }
    }

    /// `st`: a scalar global store in columns when it is one, else lane by lane; a lane whose
    /// access faults traps.
    #[inline(always)]
    pub(super) fn st(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        space: Space,
        ty: Type,
        address: MemoryOperand,
        sources: &[Source],
    ) {
        if let ([source], Space::Global, true, None) =
            (sources, space, ty.bits() <= 64, &self.memory)
        {
            self.store_global(lanes, instruction, ty, address, *source);
            return;
        }
        if let ([source], Space::Shared, true, None) =
            (sources, space, ty.bits() <= 64, &self.memory)
            && self.store_shared(lanes, ty, address, *source)
        {
            return;
        }
        for &lane in lanes {
            let elements = sources.iter().map(|&source| Some(source));
            self.store_vector(lane, instruction, (space, ty), address, elements);
        }
    }

    /// Stores the elements of a vector (or one value) at `address` for `lane`, the whole
    /// vector aligned to its size (PTX ISA 5.1: vector accesses are aligned to the vector's
    /// size); a `None` element is skipped (a sink, "no data is being written at the
    /// corresponding destination address"). Returns the bytes the vector spans, or `None`
    /// after reporting the fault that stopped it.
    fn store_vector(
        &mut self,
        lane: usize,
        instruction: &Instruction,
        (space, ty): (Space, Type),
        address: MemoryOperand,
        elements: impl ExactSizeIterator<Item = Option<Source>>,
    ) -> Option<u64> {
        let count = elements.len();
        let (base, bytes) = match self.vector_access(lane, address, space, ty, count, true) {
            Ok(access) => access,
            Err(fault) => {
                self.fault(lane, instruction, fault);
                return None;
            }
        };
        for (index, source) in elements.enumerate() {
            let Some(source) = source else {
                continue;
            };
            let at = base.wrapping_add(u64::from(bytes) * index as u64);
            let value = chop(self.read(lane, source), ty.bits());
            if let Err(fault) = self.store(lane, space, at, bytes, value) {
                self.fault(lane, instruction, fault);
                return None;
            }
        }
        Some(u64::from(bytes) * count as u64)
    }

    /// `cvta`/`cvta.to`: an address moved into or out of the generic windows.
    #[inline(always)]
    pub(super) fn cvta(
        &mut self,
        lanes: &[usize],
        to: bool,
        space: Space,
        ty: Type,
        destination: Destination,
        source: Source,
    ) {
        let put = Put::new(destination, ty);
        self.map1(lanes, (source, ty.bits()), &put, |value| {
            if to {
                from_generic_to(space, value)
            } else {
                to_generic(space, value)
            }
        });
    }

    /// `atom`/`red` ([`alu::atom`]), lane by lane; a lane whose access faults traps.
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn atom(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        space: Space,
        op: AtomOp,
        ty: Type,
        destination: Option<Destination>,
        address: MemoryOperand,
        b: Source,
        c: Option<Source>,
    ) {
        if ty == Type::B128 {
            return self.atom_b128(instruction, lanes, space, op, destination, address, (b, c));
        }
        let bytes = ty.bits().div_ceil(8);
        let put = destination.map(|d| Put::new(d, ty));
        for &lane in lanes {
            let at = self.address(lane, address);
            let b = self.read_bits(lane, b, ty.bits());
            let c = match c {
                Some(c) => self.read_bits(lane, c, ty.bits()),
                None => 0,
            };
            let update = |old, global| alu::atom(op, ty, global, old, b, c);
            match self.atomic(lane, space, at, bytes, update) {
                Ok(old) => {
                    if let Some(put) = &put {
                        self.put(lane, put, u128::from(old));
                    }
                }
                Err(fault) => self.fault(lane, instruction, fault),
            }
        }
    }

    /// `atom.exch.b128` / `atom.cas.b128` (PTX ISA 9.7.13.5, sm_90), lane by lane
    /// ([`alu::atom_b128`]): the 16 bytes at a 16-byte aligned address ("the address must be
    /// naturally aligned to a multiple of the access size", 6.4.2 "Addresses as Operands") in
    /// global or shared memory; a misaligned or faulting access traps the lane. In global
    /// memory the read and the write of the two 64-bit words are one atomic step under
    /// [`crate::memory::GlobalMemory::update_b128`]'s lock, atomic with respect to every other
    /// 128-bit atomic (the ISA's atomicity is between atomics of the same location).
    #[allow(clippy::too_many_arguments)]
    fn atom_b128(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        space: Space,
        op: AtomOp,
        destination: Option<Destination>,
        address: MemoryOperand,
        (b, c): (Source, Option<Source>),
    ) {
        let put = destination.map(|d| Put::new(d, Type::B128));
        for &lane in lanes {
            let at = self.address(lane, address);
            let b = self.read(lane, b);
            let c = c.map_or(0, |c| self.read(lane, c));
            let Some(_) = alu::atom_b128(op, 0, b, c) else {
                let message = format!(
                    "`{}`: atom.{op:?}.b128 is not a form of the ISA",
                    instruction.text
                );
                self.trap(lane, instruction, message);
                continue;
            };
            let update = |old, _| alu::atom_b128(op, old, b, c).unwrap_or(old);
            match self.atomic_wide(space, at, 16, update) {
                Ok(old) => {
                    if let Some(put) = &put {
                        self.put(lane, put, old);
                    }
                }
                Err(fault) => self.fault(lane, instruction, fault),
            }
        }
    }

    /// `atom`/`red` `.v2`/`.v4`/`.v8` (PTX ISA 9.7.13.5): element `i` is [`alu::atom`] on the
    /// `i`-th element after the address (aligned to the whole vector); `d` gets the old
    /// elements.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atom_vector(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        space: Space,
        op: AtomOp,
        ty: Type,
        destinations: &[Option<Destination>],
        address: MemoryOperand,
        sources: &[Source],
    ) {
        let bytes = ty.bits().div_ceil(8);
        for &lane in lanes {
            let base = match self.vector_access(lane, address, space, ty, sources.len(), true) {
                Ok((base, _)) => base,
                Err(fault) => {
                    self.fault(lane, instruction, fault);
                    continue;
                }
            };
            for (index, &source) in sources.iter().enumerate() {
                let b = self.read_bits(lane, source, ty.bits());
                let at = base.wrapping_add(u64::from(bytes) * index as u64);
                let update = |old, global| alu::atom(op, ty, global, old, b, 0);
                match self.atomic(lane, space, at, bytes, update) {
                    Ok(old) => {
                        if let Some(Some(destination)) = destinations.get(index) {
                            let put = Put::new(*destination, ty);
                            self.put(lane, &put, u128::from(old));
                        }
                    }
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        break;
                    }
                }
            }
        }
    }

    /// `cp.async.bulk` (PTX ISA 9.0, cp.async.bulk): "initiates an asynchronous copy operation
    /// from the location specified by source address operand srcMem to the location specified
    /// by destination address operand dstMem"; "The operand size ... must be a multiple of 16"
    /// and both addresses 16-byte aligned (else the lane traps). The copy completes as it is
    /// issued; with `.mbarrier::complete_tx::bytes` "the complete-tx operation, with
    /// completeCount argument equal to amount of data copied in bytes, will be performed on the
    /// mbarrier object specified by the operand mbar" (then, as for `mbarrier.complete_tx`).
    /// A `.bulk_group` copy needs nothing more: `cp.async.bulk.wait_group` finds it done. With
    /// `.multicast::cluster`, "the source data is multicast to the same CTA-relative offset as
    /// dstMem in the shared memory of each destination CTA", the CTAs whose `%cluster_ctarank`
    /// bit is set in `ctaMask`, and so is the complete-tx on `[mbar]`.
    #[inline(always)]
    pub(super) fn cp_async_bulk(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (destination_space, destination): (Space, MemoryOperand),
        (source_space, source): (Space, MemoryOperand),
        size: Source,
        (mbarrier, cta_mask): (Option<MemoryOperand>, Option<Source>),
    ) {
        'lanes: for &lane in lanes {
            let Some((bytes, dst, src)) =
                self.bulk_operands(lane, instruction, size, destination, source)
            else {
                continue;
            };
            // Where the bytes go: `dst`, or its offset in each CTA of the mask.
            let targets: Vec<u64> = match cta_mask {
                Some(mask) => {
                    let mask = self.read_bits(lane, mask, 16);
                    (0..u64::from(self.cluster.size))
                        .filter(|rank| mask >> rank & 1 == 1)
                        .map(|rank| rank * CLUSTER_RANK_STRIDE)
                        .collect()
                }
                None => vec![0],
            };
            let relative = |base: u64, at: u64| {
                if cta_mask.is_some() {
                    base + at % CLUSTER_RANK_STRIDE
                } else {
                    at
                }
            };
            for at in (0..bytes).step_by(8) {
                let value = match self.load(lane, source_space, src + at, 8) {
                    Ok(value) => value,
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue 'lanes;
                    }
                };
                for &base in &targets {
                    let to = relative(base, dst) + at;
                    if let Err(fault) = self.store(lane, destination_space, to, 8, value) {
                        self.fault(lane, instruction, fault);
                        continue 'lanes;
                    }
                }
            }
            let Some(mbarrier) = mbarrier else {
                continue;
            };
            let at = self.address(lane, mbarrier);
            for &base in &targets {
                if let Err(fault) = self.complete_tx(lane, relative(base, at), bytes as i64) {
                    self.fault(lane, instruction, fault);
                    continue 'lanes;
                }
            }
        }
    }

    /// `cp.reduce.async.bulk` (PTX ISA 9.0, cp.reduce.async.bulk): "performs an element-wise
    /// reduction operation .redOp ... on the data at srcMem and dstMem and writes the result to
    /// dstMem"; size a multiple of 16 and both addresses 16-byte aligned (else the lane traps),
    /// each element combined as `red` combines it ([`alu::atom`]: `.add.f32` into `.global`
    /// flushes subnormals, `.add.noftz.f16`/`.bf16` keep them, `.inc`/`.dec` wrap at the source
    /// element). Completes at issue, with the complete-tx of the `.shared::cluster` form.
    #[inline(always)]
    pub(super) fn cp_reduce_async_bulk(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (op, ty, global): (AtomOp, Type, bool),
        (destination, source): (MemoryOperand, MemoryOperand),
        size: Source,
        mbarrier: Option<MemoryOperand>,
    ) {
        let space = if global {
            Space::Global
        } else {
            Space::SharedCluster
        };
        let element = ty.bits() / 8;
        'lanes: for &lane in lanes {
            let Some((bytes, dst, src)) =
                self.bulk_operands(lane, instruction, size, destination, source)
            else {
                continue;
            };
            for at in (0..bytes).step_by(element as usize) {
                let value = match self.load(lane, Space::Shared, src + at, element) {
                    Ok(value) => value as u64,
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue 'lanes;
                    }
                };
                let update = |old: u64, global: bool| alu::atom(op, ty, global, old, value, 0);
                if let Err(fault) = self.atomic(lane, space, dst + at, element, update) {
                    self.fault(lane, instruction, fault);
                    continue 'lanes;
                }
            }
            if let Some(mbarrier) = mbarrier {
                let at = self.address(lane, mbarrier);
                if let Err(fault) = self.complete_tx(lane, at, bytes as i64) {
                    self.fault(lane, instruction, fault);
                }
            }
        }
    }

    /// `clusterlaunchcontrol.try_cancel` (PTX ISA 9.7.13.17): "requests atomically cancelling
    /// the launch of a cluster that has not started running yet. It asynchronously writes an
    /// opaque response to shared memory indicating whether the operation succeeded or failed";
    /// then the complete-tx "with completeCount argument equal to amount of data stored in
    /// bytes" (16) on `[mbar]`; with `.multicast::cluster::all` "to the corresponding local
    /// shared memory addr of each CTA in the requesting cluster", each CTA's own `[mbar]`
    /// signalled. ptxsim cancels no cluster: every response says the request failed (one of
    /// the two answers the ISA allows: a GPU fails it too once every cluster of the grid has
    /// started), so a persistent kernel's CTAs each process their own work and exit. The
    /// response ([`CLUSTER_CANCEL_FAILED`]) is completed at issue. Without `.shared::cta` both
    /// addresses are generic: "The result is undefined if any of address operands do not fall
    /// within the address window of .shared::cta" (the lane traps), and `addr` must be
    /// "naturally aligned" (16 bytes; else the lane traps).
    pub(super) fn cluster_cancel(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (response, mbarrier): (MemoryOperand, MemoryOperand),
        generic: bool,
        multicast: bool,
    ) {
        'lanes: for &lane in lanes {
            let mut at = [self.address(lane, response), self.address(lane, mbarrier)];
            if generic {
                for address in &mut at {
                    match from_generic(*address) {
                        (Space::Shared, offset) => *address = offset,
                        _ => {
                            let message = format!(
                                "clusterlaunchcontrol.try_cancel: the generic address 0x{:x} is \
                                 not in the .shared::cta window",
                                *address
                            );
                            self.trap(lane, instruction, message);
                            continue 'lanes;
                        }
                    }
                }
            }
            if at[0] % 16 != 0 {
                let message = format!(
                    "clusterlaunchcontrol.try_cancel: the response address 0x{:x} is not \
                     16-byte aligned",
                    at[0]
                );
                self.trap(lane, instruction, message);
                continue;
            }
            // Each CTA of the cluster (rank r's shared memory starts at r *
            // CLUSTER_RANK_STRIDE), or this CTA alone.
            let own = self.cluster.shared_base();
            let bases: Vec<u64> = if multicast {
                (0..u64::from(self.cluster.size))
                    .map(|rank| rank * CLUSTER_RANK_STRIDE)
                    .collect()
            } else {
                vec![own]
            };
            let [response, mbar] = at.map(|address| address.wrapping_sub(own));
            for base in bases {
                let stored = self.store(
                    lane,
                    Space::SharedCluster,
                    base.wrapping_add(response),
                    16,
                    CLUSTER_CANCEL_FAILED,
                );
                let signalled =
                    stored.and_then(|()| self.complete_tx(lane, base.wrapping_add(mbar), 16));
                if let Err(fault) = signalled {
                    self.fault(lane, instruction, fault);
                    continue 'lanes;
                }
            }
        }
    }

    /// `clusterlaunchcontrol.query_cancel` (PTX ISA 9.7.13.17) of a response ptxsim wrote
    /// ([`Executor::cluster_cancel`]): `.is_canceled` is bit 0 of its first word; the ctaid of
    /// the first CTA of the canceled cluster is its words 1 to 3 (x, y, z; the `.v4` form's
    /// fourth element is 0). The ISA leaves the ctaid of a failed request undefined: these
    /// give the response's words as they are.
    pub(super) fn cluster_cancel_query(
        &mut self,
        lanes: &[usize],
        ctaid: Option<Option<Axis>>,
        destinations: &[Option<Destination>],
        handle: Source,
    ) {
        for &lane in lanes {
            let response = self.read(lane, handle);
            let word = |index: u32| (response >> (32 * index)) as u32;
            match ctaid {
                None => {
                    if let Some(Some(p)) = destinations.first() {
                        self.write(lane, *p, response & 1, Type::Pred);
                    }
                }
                Some(axis) => {
                    let values: Vec<u32> = match axis {
                        None => vec![word(1), word(2), word(3), 0],
                        Some(Axis::X) => vec![word(1)],
                        Some(Axis::Y) => vec![word(2)],
                        Some(Axis::Z) => vec![word(3)],
                    };
                    for (destination, value) in destinations.iter().zip(values) {
                        if let Some(destination) = destination {
                            self.write(lane, *destination, u128::from(value), Type::B32);
                        }
                    }
                }
            }
        }
    }

    /// `st` of a 256-bit vector with sinks (PTX ISA 9.0, st): the vector's alignment is
    /// checked as a whole, then every element that is not a sink is stored ("no data is being
    /// written at the corresponding destination address" for the others).
    pub(super) fn st_masked(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (space, ty): (Space, Type),
        address: MemoryOperand,
        sources: &[Option<Source>],
    ) {
        for &lane in lanes {
            let elements = sources.iter().copied();
            self.store_vector(lane, instruction, (space, ty), address, elements);
        }
    }

    /// `st.async` (PTX ISA 9.7.9.12): the value (or vector, aligned to its whole size: "Alignment
    /// of addr must be a multiple of vector size") is stored at `[a]` when the instruction
    /// issues, and with `[mbar]` "a complete-tx operation will be performed on the mbarrier
    /// object specified by the operand mbar, with completeCount argument equal to the amount of
    /// data stored in bytes" at once (ptxsim completes asynchronous operations as they issue).
    /// "The shared memory addresses of destination operand a and the mbarrier object mbar
    /// belong to the same CTA", else the behavior is undefined: ptxsim traps there, and when
    /// a generic `[mbar]` is outside the `.shared::cluster` window.
    #[inline(always)]
    pub(super) fn st_async(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (space, ty): (Space, Type),
        address: MemoryOperand,
        sources: &[Source],
        mbarrier: Option<MemoryOperand>,
    ) {
        for &lane in lanes {
            let Some(barrier) = self.async_barrier(lane, instruction, space, address, mbarrier)
            else {
                continue;
            };
            let elements = sources.iter().map(|&source| Some(source));
            let Some(stored) = self.store_vector(lane, instruction, (space, ty), address, elements)
            else {
                continue;
            };
            if let Some(at) = barrier
                && let Err(fault) = self.complete_tx(lane, at, stored as i64)
            {
                self.fault(lane, instruction, fault);
            }
        }
    }

    /// `red.async` (PTX ISA 9.7.13.7): the reduction as `red` makes it ([`alu::atom`]; "The
    /// .inc and .dec operations return a result in the range [0..b]"), then the complete-tx on
    /// `[mbar]` of the operand's size, as [`Executor::st_async`].
    #[inline(always)]
    pub(super) fn red_async(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (space, op, ty): (Space, AtomOp, Type),
        address: MemoryOperand,
        source: Source,
        mbarrier: Option<MemoryOperand>,
    ) {
        let bytes = ty.bits().div_ceil(8);
        for &lane in lanes {
            let Some(barrier) = self.async_barrier(lane, instruction, space, address, mbarrier)
            else {
                continue;
            };
            let at = self.address(lane, address);
            let b = self.read_bits(lane, source, ty.bits());
            let update = |old, global| alu::atom(op, ty, global, old, b, 0);
            if let Err(fault) = self.atomic(lane, space, at, bytes, update) {
                self.fault(lane, instruction, fault);
                continue;
            }
            if let Some(at) = barrier
                && let Err(fault) = self.complete_tx(lane, at, i64::from(bytes))
            {
                self.fault(lane, instruction, fault);
            }
        }
    }

    /// `st.bulk` (PTX ISA 9.7.9.13): `size` bytes from `[a]` set to zero. "size must be a
    /// multiple of 8. If the value is not a multiple of 8, then the behavior is undefined":
    /// ptxsim traps there, as on an address that is not 8-byte aligned (assumed: the ISA
    /// sentence names the size only) and on a size above the maximum, 16777216.
    #[inline(always)]
    pub(super) fn st_bulk(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        space: Space,
        address: MemoryOperand,
        size: Source,
    ) {
        'lanes: for &lane in lanes {
            let at = self.address(lane, address);
            let bytes = self.read_bits(lane, size, 64);
            if bytes % 8 != 0 || at % 8 != 0 || bytes > 1 << 24 {
                let message = format!(
                    "`{}`: size {bytes} and address {at:#x} must be multiples of 8 (size at most 16777216)",
                    instruction.text
                );
                self.trap(lane, instruction, message);
                continue;
            }
            for offset in (0..bytes).step_by(8) {
                if let Err(fault) = self.store(lane, space, at.wrapping_add(offset), 8, 0) {
                    self.fault(lane, instruction, fault);
                    continue 'lanes;
                }
            }
        }
    }

    /// The `.shared::cluster` address of an asynchronous store's or reduction's `[mbar]`, if it
    /// has one (`space` is the instruction's; a generic address must be in the `.shared`
    /// window), after checking that it is in the same CTA's shared memory as the destination
    /// `[a]`; `None` after trapping the lane when it is not (the PTX ISA leaves both
    /// undefined).
    fn async_barrier(
        &mut self,
        lane: usize,
        instruction: &Instruction,
        space: Space,
        address: MemoryOperand,
        mbarrier: Option<MemoryOperand>,
    ) -> Option<Option<u64>> {
        let Some(mbarrier) = mbarrier else {
            return Some(None);
        };
        let a = self.address(lane, address);
        let to_cluster = |space: Space, at: u64| match self.resolve(space, at) {
            (Space::Shared | Space::SharedCluster, at) => Some(at),
            _ => None,
        };
        let at = self.address(lane, mbarrier);
        let rank_of = |at: u64| at / CLUSTER_RANK_STRIDE;
        match (to_cluster(space, a), to_cluster(space, at)) {
            (Some(a), Some(at)) if rank_of(a) == rank_of(at) => Some(Some(at)),
            (_, Some(_)) => {
                let message = format!(
                    "`{}`: [a] ({a:#x}) and [mbar] ({at:#x}) are not in the shared memory of \
                     the same CTA",
                    instruction.text
                );
                self.trap(lane, instruction, message);
                None
            }
            (_, None) => {
                let message = format!(
                    "`{}`: [mbar] ({at:#x}) is not a shared-memory address",
                    instruction.text
                );
                self.trap(lane, instruction, message);
                None
            }
        }
    }

    /// The complete-tx operation of an asynchronous copy on the mbarrier at `.shared::cluster`
    /// address `at` (as `mbarrier.complete_tx` with `count`, which may complete the phase).
    pub(super) fn complete_tx(&mut self, lane: usize, at: u64, count: i64) -> Result<(), Fault> {
        let update = |old: u64, _global: bool| {
            MbarrierObject::decode(old)
                .apply(MbarrierOp::CompleteTx, count)
                .map_or(old, MbarrierObject::encode)
        };
        self.atomic(lane, Space::SharedCluster, at, 8, update)
            .map(|_| ())
    }

    /// One arrive-on operation (count 1) on the mbarrier at `.shared::cluster` address `at`,
    /// as `tcgen05.commit`'s `.mbarrier::arrive::one` makes it: `Ok(false)` when the mbarrier
    /// had no pending arrival left (the arrival is dropped; the PTX ISA leaves it undefined).
    pub(super) fn arrive_one(&mut self, lane: usize, at: u64) -> Result<bool, Fault> {
        let op = MbarrierOp::Arrive {
            drop: false,
            expect_tx: false,
            no_complete: false,
        };
        let update = |old: u64, _global: bool| {
            MbarrierObject::decode(old)
                .apply(op, 1)
                .map_or(old, MbarrierObject::encode)
        };
        let old = self.atomic(lane, Space::SharedCluster, at, 8, update)?;
        Ok(MbarrierObject::decode(old).apply(op, 1).is_some())
    }

    /// `mapa{.shared::cluster}.type d, a, b` (PTX ISA 9.0, mapa): "Destination register d will
    /// hold an address in CTA b corresponding to operand a": the offset of `a` in its CTA's
    /// shared memory (of any CTA of the cluster), placed in the shared memory of rank `b`
    /// (`b * CLUSTER_RANK_STRIDE + a % CLUSTER_RANK_STRIDE`, [`CLUSTER_RANK_STRIDE`]: what
    /// ptxas makes of it, a byte permute that puts `b` in bits 24 to 31); in the generic form
    /// both are generic addresses in the `.shared` window. A rank outside the cluster, or a
    /// generic address outside the `.shared` window, traps (the PTX ISA leaves them
    /// undefined).
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn mapa(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        cluster: bool,
        ty: Type,
        destination: Destination,
        address: Source,
        rank: Source,
    ) {
        for &lane in lanes {
            let a = self.read_bits(lane, address, ty.bits());
            let b = self.read_bits(lane, rank, 32);
            if b >= u64::from(self.cluster.size) {
                let message = format!(
                    "`{}`: CTA rank {b} is not in the cluster ({} CTAs)",
                    instruction.text, self.cluster.size
                );
                self.trap(lane, instruction, message);
                continue;
            }
            let shared = if cluster {
                a
            } else if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) {
                a - SHARED_WINDOW
            } else {
                let message = format!(
                    "`{}`: {a:#x} is not a generic address of shared memory",
                    instruction.text
                );
                self.trap(lane, instruction, message);
                continue;
            };
            let mapped = b * CLUSTER_RANK_STRIDE + shared % CLUSTER_RANK_STRIDE;
            let value = if cluster {
                mapped
            } else {
                to_generic(Space::SharedCluster, mapped)
            };
            self.write(lane, destination, u128::from(value), ty);
        }
    }

    /// `getctarank{.shared::cluster}.type d, a` (PTX ISA 9.0, getctarank): "the rank of the
    /// CTA which contains the address specified in operand a": bits 24 to 31 of its
    /// `.shared` address ([`CLUSTER_RANK_STRIDE`]; ptxas shifts the address right by 24).
    #[inline(always)]
    pub(super) fn getctarank(
        &mut self,
        lanes: &[usize],
        cluster: bool,
        ty: Type,
        destination: Destination,
        address: Source,
    ) {
        for &lane in lanes {
            let a = self.read_bits(lane, address, ty.bits());
            let shared = if cluster {
                a
            } else {
                a.wrapping_sub(SHARED_WINDOW)
            };
            let rank = (shared / CLUSTER_RANK_STRIDE) & 0xffff_ffff;
            self.write(lane, destination, u128::from(rank), Type::U32);
        }
    }

    /// `isspacep.space p, a` (PTX ISA 9.0, isspacep): "Write predicate register p with 1 if
    /// generic address a falls within the specified state space window". The `.shared::cta`
    /// window is the executing CTA's shared memory; the `.shared::cluster` window holds every
    /// CTA's of the cluster.
    #[inline(always)]
    pub(super) fn isspacep(
        &mut self,
        lanes: &[usize],
        space: Space,
        destination: Destination,
        address: Source,
    ) {
        for &lane in lanes {
            let a = self.read_bits(lane, address, 64);
            let (window, at) = from_generic(a);
            let rank = at / CLUSTER_RANK_STRIDE;
            let own = rank == u64::from(self.cluster.rank);
            let within = rank < u64::from(self.cluster.size);
            let inside = match space {
                Space::Shared => window == Space::Shared && own,
                Space::SharedCluster => window == Space::Shared && within,
                Space::Generic => true,
                other => window == other,
            };
            self.write(lane, destination, u128::from(inside), Type::Pred);
        }
    }

    /// `membar`/`fence`: a no-op; every memory access takes effect when it is issued.
    #[inline(always)]
    pub(super) fn fence(&self) {}

    /// A load that reads the same value for every lane: a kernel parameter or a constant at a
    /// fixed address (read-only memory, the same for every thread), read once and written to
    /// every lane. Returns `false` (nothing done) for other loads and when the access faults,
    /// so that the per-lane path reports the fault of each lane.
    fn load_uniform(
        &mut self,
        lanes: &[usize],
        space: Space,
        ty: Type,
        address: MemoryOperand,
        puts: &[Option<Put>],
    ) -> bool {
        let (Some(&lane), Source::Immediate(base)) = (lanes.first(), address.base) else {
            return false;
        };
        let at = address.at(base as u64);
        let uniform = match space {
            Space::Const => true,
            Space::Param => at < THREAD_PARAM_BASE,
            _ => false,
        };
        if !uniform || ty.bits() > 64 || lanes.len() < 2 {
            return false;
        }
        let Ok((base, bytes)) = self.vector_access(lane, address, space, ty, puts.len(), false)
        else {
            return false;
        };
        let mut values = Vec::with_capacity(puts.len());
        for index in 0..puts.len() {
            let at = base.wrapping_add(u64::from(bytes) * index as u64);
            match self.load(lane, space, at, bytes) {
                Ok(value) => values.push(value as u64),
                Err(_) => return false,
            }
        }
        let mut columns = std::mem::take(self.columns);
        for (put, &value) in puts.iter().zip(&values) {
            if let Some(put) = put {
                columns.out.clear();
                columns.out.resize(lanes.len(), value);
                self.scatter(lanes, put, &columns.out);
            }
        }
        *self.columns = columns;
        true
    }

    /// A scalar `ld.global`, or an `ld.shared` of this CTA's own shared memory, for every lane,
    /// with addresses and results in columns. Returns `false` (nothing done) for other loads
    /// and when a lane's access would fault (misaligned, out of bounds, another CTA's shared
    /// memory), so that the per-lane path reports each lane's fault (loads have no side effects
    /// to repeat).
    fn load_columns(
        &mut self,
        lanes: &[usize],
        space: Space,
        ty: Type,
        address: MemoryOperand,
        puts: &[Option<Put>],
    ) -> bool {
        let ([Some(put)], Space::Global | Space::Shared, true) = (puts, space, ty.bits() <= 64)
        else {
            return false;
        };
        let bytes = ty.bits().div_ceil(8).max(1);
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, address.base, 64, &mut columns.a);
        columns.out.clear();
        let addresses = columns.a.iter().map(|&base| address.at(base));
        let loaded = if space == Space::Global {
            self.device
                .global
                .load_each(addresses, bytes, &mut columns.out)
                .is_ok()
        } else {
            // Addresses outside this CTA's window name other CTAs' memory (per lane).
            let own = self.cluster.shared_base();
            let addresses = addresses.map(|at| at.wrapping_sub(own));
            let len = self.shared.len().min(CLUSTER_RANK_STRIDE as usize);
            let shared: &[u8] = &self.shared[..len];
            match bytes {
                1 => read_columns::<1>(shared, addresses, &mut columns.out),
                2 => read_columns::<2>(shared, addresses, &mut columns.out),
                4 => read_columns::<4>(shared, addresses, &mut columns.out),
                _ => read_columns::<8>(shared, addresses, &mut columns.out),
            }
        };
        if loaded {
            self.scatter(lanes, put, &columns.out);
        }
        *self.columns = columns;
        loaded
    }

    /// A scalar `st.shared` of this CTA's own shared memory for every lane, in columns, when
    /// every lane's access is aligned and in bounds (checked before anything is stored, so that
    /// `false` leaves memory as it was for the per-lane path, which faults).
    fn store_shared(
        &mut self,
        lanes: &[usize],
        ty: Type,
        address: MemoryOperand,
        source: Source,
    ) -> bool {
        let bytes = ty.bits().div_ceil(8).max(1);
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, address.base, 64, &mut columns.a);
        let len = self.shared.len();
        let own = self.cluster.shared_base();
        let fits = columns
            .a
            .iter()
            .all(|&base| own_shared(own, len, address.at(base), bytes).is_some());
        if fits {
            self.gather(lanes, source, ty.bits(), &mut columns.b);
            for (&base, &value) in columns.a.iter().zip(&columns.b) {
                let at = address.at(base).wrapping_sub(own);
                // In bounds and aligned: checked above.
                let _ = store_bytes(self.shared, 0, at, bytes, value);
            }
        }
        *self.columns = columns;
        fits
    }

    /// A scalar `st.global` for every lane, with addresses and values in columns; a lane whose
    /// access faults traps as on the per-lane path (the other lanes still store).
    fn store_global(
        &mut self,
        lanes: &[usize],
        instruction: &Instruction,
        ty: Type,
        address: MemoryOperand,
        source: Source,
    ) {
        let bytes = ty.bits().div_ceil(8).max(1);
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, address.base, 64, &mut columns.a);
        self.gather(lanes, source, ty.bits(), &mut columns.b);
        let stores = columns
            .a
            .iter()
            .map(|&base| address.at(base))
            .zip(columns.b.iter().copied());
        let mut faults = Vec::new();
        self.device
            .global
            .store_each(stores, bytes, |index, at, kind| {
                faults.push((index, at, kind))
            });
        for (index, at, kind) in faults {
            let fault = fault(kind, Space::Global, at, u64::from(bytes), true);
            self.fault(lanes[index], instruction, fault);
        }
        *self.columns = columns;
    }

    /// The base address and element size of an access of `count` elements of `ty`, or the
    /// fault when the whole access is not aligned to its size (PTX ISA 5.1: vector accesses are
    /// aligned to the vector's size).
    fn vector_access(
        &self,
        lane: usize,
        address: MemoryOperand,
        space: Space,
        ty: Type,
        count: usize,
        store: bool,
    ) -> Result<(u64, u32), Fault> {
        let base = self.address(lane, address);
        let bytes = ty.bits().div_ceil(8).max(1);
        let total = u64::from(bytes) * count as u64;
        if total.is_power_of_two() && base % total != 0 {
            return Err(fault(FaultKind::Misaligned, space, base, total, store));
        }
        Ok((base, bytes))
    }

    /// Copies `bytes` within the thread's `.param` space.
    pub(super) fn copy_param(&mut self, lane: usize, from: u64, to: u64, bytes: u64) -> bool {
        let (Some(from), Some(to)) = (
            from.checked_sub(THREAD_PARAM_BASE),
            to.checked_sub(THREAD_PARAM_BASE),
        ) else {
            return false;
        };
        let params = &mut self.threads[lane].params;
        let len = params.len() as u64;
        if from + bytes > len || to + bytes > len {
            return false;
        }
        params.copy_within(from as usize..(from + bytes) as usize, to as usize);
        true
    }

    /// `cp.async` (PTX ISA 9.7.9.25.3.1): "copies `cp-size` bytes from `src` to `dst`"; with
    /// `src-size`, "the remaining bytes of `dst` ... are filled with zeros" (a `src-size`
    /// above `cp-size` traps); with `ignore-src` true, `src` is not read and zeros are written.
    /// Both addresses must be aligned to `cp-size`. The copy happens now; `commit_group` and
    /// `wait_group` then have nothing to wait for.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cp_async(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        bytes: u32,
        destination: MemoryOperand,
        source: MemoryOperand,
        source_size: Option<Source>,
        ignore_source: Option<PredicateSource>,
    ) {
        for &lane in lanes {
            let dst = self.address(lane, destination);
            let src = self.address(lane, source);
            let ignore = ignore_source
                .is_some_and(|p| (self.read_bits(lane, p.source, 1) != 0) != p.negated);
            let size = match (ignore, source_size) {
                (true, _) => 0,
                (false, Some(size)) => self.read_bits(lane, size, 32) as u32,
                (false, None) => bytes,
            };
            if size > bytes {
                let message =
                    format!("cp.async's src-size {size} is larger than its cp-size {bytes}");
                self.trap(lane, instruction, message);
                continue;
            }
            for (address, space, store) in [(src, Space::Global, false), (dst, Space::Shared, true)]
            {
                if address % u64::from(bytes) != 0 && (store || size > 0) {
                    let fault = fault(FaultKind::Misaligned, space, address, bytes.into(), store);
                    self.fault(lane, instruction, fault);
                }
            }
            if matches!(self.lanes.status[lane], ThreadStatus::Done(_)) {
                continue;
            }
            let mut value = 0u128;
            if size == bytes {
                match self.load(lane, Space::Global, src, bytes) {
                    Ok(v) => value = v,
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue;
                    }
                }
            } else {
                let mut failed = false;
                for k in 0..size {
                    match self.load(lane, Space::Global, src + u64::from(k), 1) {
                        Ok(byte) => value |= (byte & 0xff) << (8 * k),
                        Err(fault) => {
                            self.fault(lane, instruction, fault);
                            failed = true;
                            break;
                        }
                    }
                }
                if failed {
                    continue;
                }
            }
            if let Err(fault) = self.store(lane, Space::Shared, dst, bytes, value) {
                self.fault(lane, instruction, fault);
            }
        }
    }

    pub(super) fn address(&self, lane: usize, operand: MemoryOperand) -> u64 {
        operand.at(self.read(lane, operand.base) as u64)
    }

    /// Resolves a space and address to the memory that holds it.
    pub(super) fn load(
        &mut self,
        lane: usize,
        space: Space,
        address: u64,
        bytes: u32,
    ) -> Result<u128, Fault> {
        if bytes == 16 {
            let low = self.load(lane, space, address, 8)?;
            let high = self.load(lane, space, address.wrapping_add(8), 8)?;
            return Ok(low | (high << 64));
        }
        let (resolved, at) = self.resolve(space, address);
        let thread = &self.threads[lane];
        let result = match resolved {
            Space::Global | Space::Generic => self.device.global.load(at, bytes),
            Space::Shared | Space::SharedCluster => match self.cluster_shared(space, at) {
                Ok((None, at)) => load_bytes(self.shared, 0, at, bytes),
                Ok((Some(rank), at)) => load_bytes(&self.cluster.peers[rank], 0, at, bytes),
                Err(kind) => Err(kind),
            },
            Space::Local => load_bytes(&thread.local, 0, at, bytes),
            Space::Const => crate::memory::load_const(self.device.constants(), at, bytes),
            Space::Param => {
                if at < THREAD_PARAM_BASE {
                    load_bytes(&self.device.params, 0, at, bytes)
                } else {
                    load_bytes(&thread.params, THREAD_PARAM_BASE, at, bytes)
                }
            }
        };
        result
            .map(u128::from)
            .map_err(|kind| fault(kind, space, address, u64::from(bytes), false))
    }

    pub(super) fn store(
        &mut self,
        lane: usize,
        space: Space,
        address: u64,
        bytes: u32,
        value: u128,
    ) -> Result<(), Fault> {
        if bytes == 16 {
            self.store(lane, space, address, 8, value & u128::from(u64::MAX))?;
            return self.store(lane, space, address.wrapping_add(8), 8, value >> 64);
        }
        let (resolved, at) = self.resolve(space, address);
        let low = value as u64;
        let thread = &mut self.threads[lane];
        let result = match resolved {
            Space::Global | Space::Generic => self.device.global.store(at, bytes, low),
            Space::Shared | Space::SharedCluster => match self.cluster_shared(space, at) {
                Ok((None, at)) => store_bytes(self.shared, 0, at, bytes, low),
                Ok((Some(rank), at)) => {
                    store_bytes(&mut self.cluster.peers[rank], 0, at, bytes, low)
                }
                Err(kind) => Err(kind),
            },
            Space::Local => store_bytes(&mut thread.local, 0, at, bytes, low),
            Space::Const => Err(FaultKind::ReadOnly),
            Space::Param => {
                if at < THREAD_PARAM_BASE {
                    Err(FaultKind::ReadOnly)
                } else {
                    store_bytes(&mut thread.params, THREAD_PARAM_BASE, at, bytes, low)
                }
            }
        };
        result.map_err(|kind| fault(kind, space, address, u64::from(bytes), true))?;
        if let Some(memory) = self.memory.as_deref_mut() {
            memory.push(MemoryWrite {
                space: resolved,
                address: at,
                bytes,
                value,
            });
        }
        Ok(())
    }

    /// An atomic read-modify-write of `bytes` (1, 2, 4 or 8) at `address` in `space`: `f(old,
    /// global)` is written (`global`: the location is in global memory, whose atomic unit
    /// behaves differently, `alu::atom`), `old` returned.
    pub(super) fn atomic(
        &mut self,
        _lane: usize,
        space: Space,
        address: u64,
        bytes: u32,
        f: impl Fn(u64, bool) -> u64,
    ) -> Result<u64, Fault> {
        self.atomic_wide(space, address, bytes, |old, global| {
            u128::from(f(old as u64, global))
        })
        .map(|old| old as u64)
    }

    /// [`Executor::atomic`] of up to 16 bytes: a 16-byte one (`atom.exch.b128`,
    /// `atom.cas.b128`) must be 16-byte aligned, and in global memory is one step under
    /// [`crate::memory::GlobalMemory::update_b128`]'s lock.
    fn atomic_wide(
        &mut self,
        space: Space,
        address: u64,
        bytes: u32,
        f: impl Fn(u128, bool) -> u128,
    ) -> Result<u128, Fault> {
        let (resolved, at) = self.resolve(space, address);
        // Whether the location is in global memory (also through a generic address).
        let global = matches!(resolved, Space::Global | Space::Generic);
        let f = |old| f(old, global);
        let to_fault = |kind| fault(kind, space, address, u64::from(bytes), true);
        if bytes == 16 && address % 16 != 0 {
            return Err(to_fault(FaultKind::Misaligned));
        }
        let old = match resolved {
            Space::Global | Space::Generic if bytes == 16 => {
                self.device.global.update_b128(at, f).map_err(to_fault)?
            }
            Space::Global | Space::Generic => self
                .device
                .global
                .update(at, bytes, |old| f(u128::from(old)) as u64)
                .map(u128::from)
                .map_err(to_fault)?,
            Space::Shared | Space::SharedCluster => {
                let (rank, at) = self.cluster_shared(space, at).map_err(to_fault)?;
                let memory = match rank {
                    None => &mut *self.shared,
                    Some(rank) => &mut self.cluster.peers[rank],
                };
                // Eight bytes at a time (a 16-byte access is two).
                let part = bytes.min(8);
                let mut old = 0u128;
                for offset in (0..bytes).step_by(part as usize) {
                    let bits = load_bytes(memory, 0, at + u64::from(offset), part);
                    old |= u128::from(bits.map_err(to_fault)?) << (8 * offset);
                }
                let new = f(old);
                for offset in (0..bytes).step_by(part as usize) {
                    let bits = (new >> (8 * offset)) as u64;
                    store_bytes(memory, 0, at + u64::from(offset), part, bits).map_err(to_fault)?;
                }
                old
            }
            Space::Local | Space::Const | Space::Param => {
                return Err(to_fault(FaultKind::Unmapped));
            }
        };
        if let Some(memory) = self.memory.as_deref_mut() {
            memory.push(MemoryWrite {
                space: resolved,
                address: at,
                bytes,
                value: f(old),
            });
        }
        Ok(old)
    }

    /// Where a shared-memory address `at` of an access in `space` is: the CTA of rank `r` has
    /// its shared memory at `r * CLUSTER_RANK_STRIDE` ([`CLUSTER_RANK_STRIDE`]; docs/clusters.md,
    /// "Addresses"). `None` for this CTA's shared memory, else the rank of another CTA of the
    /// cluster (whose memory is in [`crate::lanes::ClusterLink::peers`]), with the offset in
    /// that memory. A `.shared::cta` access (`space` [`Space::Shared`]) reaches this CTA's
    /// window only: "the .shared::cta window ... addresses in it refer to the executing CTA's
    /// shared memory" (PTX ISA 9.0, 5.1.4); a `.shared::cluster` or generic access reaches
    /// every CTA of the cluster. An address of no CTA it reaches is unmapped.
    fn cluster_shared(&self, space: Space, at: u64) -> Result<(Option<usize>, u64), FaultKind> {
        let rank = at / CLUSTER_RANK_STRIDE;
        let offset = at % CLUSTER_RANK_STRIDE;
        if rank == u64::from(self.cluster.rank) {
            return Ok((None, offset));
        }
        if space == Space::Shared {
            return Err(FaultKind::Unmapped);
        }
        let rank = usize::try_from(rank).map_err(|_| FaultKind::Unmapped)?;
        match self.cluster.peers.get(rank) {
            Some(memory) if rank < self.cluster.size as usize && !memory.is_empty() => {
                Ok((Some(rank), offset))
            }
            _ => Err(FaultKind::Unmapped),
        }
    }

    /// A bulk copy's or reduction's size, destination and source address for `lane`, or `None`
    /// after trapping the lane when one is not a multiple of 16 (PTX ISA 9.7.9.25: the size
    /// and both addresses are 16-byte aligned).
    fn bulk_operands(
        &mut self,
        lane: usize,
        instruction: &Instruction,
        size: Source,
        destination: MemoryOperand,
        source: MemoryOperand,
    ) -> Option<(u64, u64, u64)> {
        let bytes = self.read_bits(lane, size, 32);
        let dst = self.address(lane, destination);
        let src = self.address(lane, source);
        if bytes % 16 != 0 || dst % 16 != 0 || src % 16 != 0 {
            let message = format!(
                "`{}`: size ({bytes}) and addresses ({dst:#x}, {src:#x}) must be multiples of 16",
                instruction.text
            );
            self.trap(lane, instruction, message);
            return None;
        }
        Some((bytes, dst, src))
    }

    /// The space an access goes to: generic addresses are looked up in the windows.
    fn resolve(&self, space: Space, address: u64) -> (Space, u64) {
        crate::compiled::resolve(space, address)
    }
}

/// Reads `N` little-endian bytes (1, 2, 4 or 8) of `memory` at each address into `out`, while
/// every access is aligned and in bounds; `false` at the first that is not.
#[inline(always)]
fn read_columns<const N: usize>(
    memory: &[u8],
    addresses: impl Iterator<Item = u64>,
    out: &mut Vec<u64>,
) -> bool {
    for at in addresses {
        let Some(bytes) = usize::try_from(at)
            .ok()
            .filter(|&at| at % N == 0)
            .and_then(|at| memory.get(at..at + N))
        else {
            return false;
        };
        let mut word = [0u8; 8];
        word[..N].copy_from_slice(bytes);
        out.push(u64::from_le_bytes(word));
    }
    true
}

/// The offset of `at` in the CTA's own shared memory of `len` bytes, which starts at `own`,
/// when an access of `bytes` there is aligned and lies in it (not in another CTA's window).
#[inline(always)]
fn own_shared(own: u64, len: usize, at: u64, bytes: u32) -> Option<u64> {
    let aligned = at & u64::from(bytes - 1) == 0;
    let offset = at.wrapping_sub(own);
    (aligned && offset < CLUSTER_RANK_STRIDE && offset + u64::from(bytes) <= len as u64)
        .then_some(offset)
}

fn fault(kind: FaultKind, space: Space, address: u64, bytes: u64, store: bool) -> Fault {
    Fault {
        kind,
        space,
        address,
        bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
        store,
    }
}

/// The 64-bit mbarrier object (PTX ISA 9.7.13.15.1, "Contents of the mbarrier object": its
/// phase, pending arrival count, expected arrival count and transaction count; the layout is
/// opaque, this is ptxsim's): bits 0..21 the pending count, 21..42 the expected count, 42..63
/// the transaction count (signed, 21 bits), bit 63 the current phase's parity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MbarrierObject {
    pending: i64,
    expected: i64,
    tx: i64,
    phase: u64,
}

const FIELD: u64 = (1 << 21) - 1;

impl MbarrierObject {
    fn decode(bits: u64) -> Self {
        let tx = ((bits >> 42 & FIELD) << 43) as i64 >> 43;
        Self {
            pending: (bits & FIELD) as i64,
            expected: (bits >> 21 & FIELD) as i64,
            tx,
            phase: bits >> 63,
        }
    }

    fn encode(self) -> u64 {
        (self.pending as u64 & FIELD)
            | (self.expected as u64 & FIELD) << 21
            | (self.tx as u64 & FIELD) << 42
            | self.phase << 63
    }

    /// "The current phase is complete when the pending arrival count reaches zero and the
    /// tx-count reaches zero; the object then moves to the next phase": the parity flips, the
    /// pending count is the expected count again.
    fn settle(mut self) -> Self {
        if self.pending == 0 && self.tx == 0 {
            self.phase ^= 1;
            self.pending = self.expected;
        }
        self
    }

    /// The arrivals an operation makes with operand `count`: `count` for `arrive` (one with
    /// `.expect_tx`, whose operand is a transaction count), one for a `.noinc`
    /// `cp.async.mbarrier.arrive` (without `.noinc` the pending count goes up by one first, then
    /// the arrive-on of the already complete copies takes it down again: none), none otherwise.
    fn arrivals(op: MbarrierOp, count: i64) -> i64 {
        match op {
            MbarrierOp::Arrive {
                expect_tx: false, ..
            } => count,
            MbarrierOp::Arrive { .. } | MbarrierOp::CpAsyncArrive { noinc: true } => 1,
            _ => 0,
        }
    }

    /// The object after `op` with operand `count`; `None` for more arrivals than pending.
    fn apply(self, op: MbarrierOp, count: i64) -> Option<Self> {
        let arrivals = Self::arrivals(op, count);
        if arrivals > self.pending {
            return None;
        }
        let mut object = self;
        object.pending -= arrivals;
        match op {
            // "Initialization ... setting the current phase to zero, the expected and pending
            // arrival counts to count, the tx-count to zero."
            MbarrierOp::Init => {
                return Some(MbarrierObject {
                    pending: count,
                    expected: count,
                    tx: 0,
                    phase: 0,
                });
            }
            MbarrierOp::Inval => return Some(MbarrierObject::decode(0)),
            MbarrierOp::Arrive {
                drop, expect_tx, ..
            } => {
                if expect_tx {
                    object.tx += count;
                }
                if drop {
                    object.expected -= arrivals;
                }
            }
            MbarrierOp::ExpectTx => object.tx += count,
            MbarrierOp::CompleteTx => object.tx -= count,
            MbarrierOp::CpAsyncArrive { .. }
            | MbarrierOp::Wait { .. }
            | MbarrierOp::PendingCount => {}
        }
        // An arrival or a completed transaction may complete the phase.
        let settles = matches!(
            op,
            MbarrierOp::Arrive { .. }
                | MbarrierOp::CompleteTx
                | MbarrierOp::CpAsyncArrive { noinc: true }
        );
        Some(if settles { object.settle() } else { object })
    }
}

impl Executor<'_, '_> {
    /// `mbarrier.*` and `cp.async.mbarrier.arrive` (9.7.13.15), lane by lane in lane order, each
    /// a read-modify-write of the object. `arrive` returns a state holding the phase it arrived
    /// in (bit 63) and the pending count after it (bits 0..21, what `pending_count` reads); the
    /// waits test whether that phase (or the phase of the given parity) has completed, without
    /// waiting: `try_wait` behaves as `test_wait` (it may return false "after a
    /// system-dependent time limit"; here the limit is zero). More arrivals than pending is a
    /// trap with the instruction's location.
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind.
    pub(super) fn mbarrier(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        op: MbarrierOp,
        space: Space,
        destination: Option<Destination>,
        address: Option<MemoryOperand>,
        operand: Option<Source>,
    ) {
        for &lane in lanes {
            let value = operand.map(|o| self.read_bits(lane, o, 64));
            if op == MbarrierOp::PendingCount {
                if let Some(d) = destination {
                    let pending = value.unwrap_or(0) & FIELD;
                    self.write(lane, d, u128::from(pending), Type::U32);
                }
                continue;
            }
            let Some(address) = address else {
                continue;
            };
            let at = self.address(lane, address);
            if let MbarrierOp::Wait { parity, .. } = op {
                // The waits read the object and change nothing.
                let object = match self.load(lane, space, at, 8) {
                    Ok(bits) => MbarrierObject::decode(bits as u64),
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue;
                    }
                };
                let waited = if parity {
                    value.unwrap_or(0) & 1
                } else {
                    value.unwrap_or(0) >> 63
                };
                let complete = object.phase != waited;
                if let Some(waiting) = self.lanes.waiting.get_mut(lane) {
                    *waiting = !complete;
                }
                if let Some(d) = destination {
                    self.write(lane, d, u128::from(complete), Type::Pred);
                }
                continue;
            }
            let count = value.unwrap_or(1) as u32 as i64;
            let update = |old: u64, _global: bool| {
                MbarrierObject::decode(old)
                    .apply(op, count)
                    .map_or(old, MbarrierObject::encode)
            };
            let old = match self.atomic(lane, space, at, 8, update) {
                Ok(old) => old,
                Err(fault) => {
                    self.fault(lane, instruction, fault);
                    continue;
                }
            };
            let before = MbarrierObject::decode(old);
            let overflow = before.apply(op, count).is_none();
            if let (MbarrierOp::Arrive { .. }, Some(d), false) = (op, destination, overflow) {
                let pending = (before.pending - MbarrierObject::arrivals(op, count)) as u64 & FIELD;
                let state = before.phase << 63 | pending;
                self.write(lane, d, u128::from(state), Type::B64);
            }
            if overflow {
                let message = format!(
                    "`{}`: more arrivals than the mbarrier's pending count ({}); the PTX ISA \
                     leaves this undefined",
                    instruction.text, before.pending
                );
                self.trap(lane, instruction, message);
            }
        }
    }
}
