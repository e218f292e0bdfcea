//! Operands and results of an instruction for all its lanes at once: gathering a source's values
//! into a column, mapping columns through a lane function, and writing results back by the
//! destination's rule (straight into the register's row when the lanes are consecutive). The
//! lockstep machinery every instruction family uses.

use ptxsim_isa::Type;

use super::{Executor, Put};
use crate::dim::{Dim3, flatten};
use crate::ir::{Axis, Destination, RegisterId, ReservedSmem, Source, SpecialRegister};
use crate::lanes::run_start;
use crate::semantics::chop;
use crate::step::Write;

/// `%lanemask_*` of lane `lane` (PTX ISA 10.8-10.12): "32-bit mask with a bit set in the
/// position equal to the thread's lane number in the warp" (`_eq`), "... with bits set in
/// positions less than or equal to" (`_le`), "less than" (`_lt`), "greater than or equal to"
/// (`_ge`), "greater than" (`_gt`).
fn lanemask(compare: ptxsim_isa::ops::Compare, lane: u32) -> u64 {
    use ptxsim_isa::ops::Compare;
    let eq = 1u32 << lane;
    let lt = eq - 1;
    u64::from(match compare {
        Compare::Eq => eq,
        Compare::Le => lt | eq,
        Compare::Lt => lt,
        Compare::Ge => !lt,
        Compare::Gt => !(lt | eq),
        _ => 0,
    })
}

impl Executor<'_, '_> {
    /// The values of `source` for every lane of `lanes`, chopped to `bits` (at most 64), into
    /// `out`.
    #[inline(always)]
    pub(super) fn gather(&self, lanes: &[usize], source: Source, bits: u32, out: &mut Vec<u64>) {
        out.clear();
        let m = chop(u128::from(u64::MAX), bits) as u64;
        match source {
            Source::Register(register) => {
                let row =
                    run_start(lanes).and_then(|first| self.lanes.row(register, first, lanes.len()));
                match row {
                    Some(row) => out.extend(row.iter().map(|&v| v & m)),
                    None => out.extend(
                        lanes
                            .iter()
                            .map(|&lane| self.lanes.get(lane, register) as u64 & m),
                    ),
                }
            }
            Source::Immediate(value) => out.resize(lanes.len(), value as u64 & m),
            Source::SharedAddress(address) => out.resize(
                lanes.len(),
                address.wrapping_add(self.cluster.shared_base()) & m,
            ),
            Source::RegisterPlus(register, offset) => out.extend(lanes.iter().map(|&lane| {
                (self.lanes.get(lane, register) as u64).wrapping_add(offset as u64) & m
            })),
            Source::Special(
                special @ (SpecialRegister::Ntid(_)
                | SpecialRegister::Ctaid(_)
                | SpecialRegister::Nctaid(_)
                | SpecialRegister::Nwarpid
                | SpecialRegister::Smid
                | SpecialRegister::Gridid
                | SpecialRegister::Nsmid
                | SpecialRegister::Envreg(_)
                | SpecialRegister::ClusterCtaid(_)
                | SpecialRegister::ClusterNctaid(_)
                | SpecialRegister::Clusterid(_)
                | SpecialRegister::Nclusterid(_)
                | SpecialRegister::ClusterCtarank
                | SpecialRegister::ClusterNctarank
                | SpecialRegister::IsExplicitCluster),
            ) => {
                // The same for every thread of the CTA: read once.
                let value = lanes.first().map_or(0, |&lane| self.special(lane, special));
                out.resize(lanes.len(), value as u64 & m);
            }
            Source::Special(special) => out.extend(
                lanes
                    .iter()
                    .map(|&lane| self.special(lane, special) as u64 & m),
            ),
        }
    }

    /// Writes `values` (one per lane of `lanes`) by the rule `put`.
    #[inline(always)]
    pub(super) fn scatter(&mut self, lanes: &[usize], put: &Put, values: &[u64]) {
        self.emit(lanes, put, values.iter().copied());
    }

    /// Writes the values `values` yields (one per lane of `lanes`) by the rule `put`: straight
    /// into the register's row when the lanes are consecutive, the register is at most 64 bits
    /// wide (it has no high half) and nothing is recorded; else lane by lane.
    #[inline(always)]
    fn emit(&mut self, lanes: &[usize], put: &Put, values: impl Iterator<Item = u64>) {
        if self.writes.is_some() {
            for (&lane, value) in lanes.iter().zip(values) {
                self.put(lane, put, u128::from(value));
            }
            return;
        }
        let extension = put.extension;
        let base = put.register.index() * self.lanes.stride;
        let count = lanes.len();
        let row = run_start(lanes)
            .filter(|_| extension.narrow())
            .and_then(|first| self.lanes.low.get_mut(base + first..base + first + count));
        match (row, extension.mask64()) {
            // No sign extension: a plain mask, which the compiler vectorises.
            (Some(row), Some(mask)) => {
                for (slot, value) in row.iter_mut().zip(values) {
                    *slot = value & mask;
                }
            }
            (Some(row), None) => {
                for (slot, value) in row.iter_mut().zip(values) {
                    *slot = extension.apply64(value);
                }
            }
            (None, _) => {
                for (&lane, value) in lanes.iter().zip(values) {
                    let new = extension.apply(u128::from(value));
                    self.lanes.set(lane, put.register, new);
                }
            }
        }
    }

    /// `put = f(a)` for every lane; operands are `(source, bits)`.
    #[inline(always)]
    pub(super) fn map1(
        &mut self,
        lanes: &[usize],
        a: (Source, u32),
        put: &Put,
        f: impl Fn(u64) -> u64,
    ) {
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, a.0, a.1, &mut columns.a);
        let values = columns.a.iter().map(|&a| f(a));
        self.emit(lanes, put, values);
        *self.columns = columns;
    }

    /// `put = f(a, b)` for every lane.
    #[inline(always)]
    pub(super) fn map2(
        &mut self,
        lanes: &[usize],
        a: (Source, u32),
        b: (Source, u32),
        put: &Put,
        f: impl Fn(u64, u64) -> u64,
    ) {
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, a.0, a.1, &mut columns.a);
        self.gather(lanes, b.0, b.1, &mut columns.b);
        let values = columns.a.iter().zip(&columns.b).map(|(&a, &b)| f(a, b));
        self.emit(lanes, put, values);
        *self.columns = columns;
    }

    /// `put = f(a, b, c)` for every lane.
    #[inline(always)]
    pub(super) fn map3(
        &mut self,
        lanes: &[usize],
        [a, b, c]: [(Source, u32); 3],
        put: &Put,
        f: impl Fn(u64, u64, u64) -> u64,
    ) {
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, a.0, a.1, &mut columns.a);
        self.gather(lanes, b.0, b.1, &mut columns.b);
        self.gather(lanes, c.0, c.1, &mut columns.c);
        let values = columns
            .a
            .iter()
            .zip(&columns.b)
            .zip(&columns.c)
            .map(|((&a, &b), &c)| f(a, b, c));
        self.emit(lanes, put, values);
        *self.columns = columns;
    }

    /// A register's value.
    #[inline(always)]
    fn read_register(&self, lane: usize, register: RegisterId) -> u128 {
        self.lanes.get(lane, register)
    }

    #[inline(always)]
    pub(super) fn read(&self, lane: usize, source: Source) -> u128 {
        match source {
            Source::Register(register) => self.read_register(lane, register),
            Source::Immediate(bits) => bits,
            Source::SharedAddress(address) => {
                u128::from(address.wrapping_add(self.cluster.shared_base()))
            }
            Source::Special(special) => self.special(lane, special),
            Source::RegisterPlus(register, offset) => self
                .read_register(lane, register)
                .wrapping_add(offset as i128 as u128),
        }
    }

    /// A source chopped to `bits` (Table 27), as `u64`.
    #[inline(always)]
    pub(crate) fn read_bits(&self, lane: usize, source: Source, bits: u32) -> u64 {
        chop(self.read(lane, source), bits.min(64)) as u64
    }

    /// The special registers (PTX ISA chapter 10); `%clock`/`%clock64` count the thread's
    /// issued instructions, `%smid` is 0, warps are 32 consecutive threads of the CTA.
    #[inline(always)]
    fn special(&self, lane: usize, special: SpecialRegister) -> u128 {
        let axis = |dims: Dim3, axis: Axis| -> u64 {
            u64::from(match axis {
                Axis::X => dims[0],
                Axis::Y => dims[1],
                Axis::Z => dims[2],
            })
        };
        let thread = &self.threads[lane];
        let steps = self.lanes.steps[lane] + self.lanes.pending;
        let block = self.device.block;
        let linear = flatten(thread.tid, block);
        let threads = self.device.threads_per_cta();
        let value: u64 = match special {
            SpecialRegister::Tid(a) => axis(thread.tid, a),
            SpecialRegister::Ntid(a) => axis(block, a),
            SpecialRegister::Ctaid(a) => axis(self.ctaid, a),
            SpecialRegister::Nctaid(a) => axis(self.device.grid, a),
            SpecialRegister::Laneid => linear % 32,
            SpecialRegister::Warpid => linear / 32,
            SpecialRegister::Nwarpid => threads.div_ceil(32),
            SpecialRegister::Smid | SpecialRegister::Gridid => 0,
            SpecialRegister::Nsmid => 1,
            SpecialRegister::Clock => steps & 0xffff_ffff,
            SpecialRegister::ClockHi => steps >> 32,
            SpecialRegister::Clock64 | SpecialRegister::GlobalTimer(None) => steps,
            SpecialRegister::GlobalTimer(Some(false)) => steps & 0xffff_ffff,
            SpecialRegister::GlobalTimer(Some(true)) => steps >> 32,
            SpecialRegister::Lanemask(compare) => lanemask(compare, (linear % 32) as u32),
            SpecialRegister::DynamicSmemSize => self.device.dynamic_shared(),
            SpecialRegister::TotalSmemSize => self.device.shared_size(),
            SpecialRegister::Envreg(number) => self.device.envreg(number),
            // PTX ISA 9.0, Special Registers: %cluster_ctaid, %cluster_nctaid, %clusterid,
            // %nclusterid, %cluster_ctarank, %cluster_nctarank, %is_explicit_cluster.
            SpecialRegister::ClusterCtaid(a) => {
                axis(self.ctaid, a) % axis(self.device.cluster(), a).max(1)
            }
            SpecialRegister::ClusterNctaid(a) => axis(self.device.cluster(), a),
            SpecialRegister::Clusterid(a) => {
                axis(self.ctaid, a) / axis(self.device.cluster(), a).max(1)
            }
            SpecialRegister::Nclusterid(a) => axis(self.device.clusters(), a),
            SpecialRegister::ClusterCtarank => u64::from(self.cluster.rank),
            SpecialRegister::ClusterNctarank => self.device.cluster_ctas(),
            SpecialRegister::IsExplicitCluster => u64::from(self.device.explicit_cluster()),
            SpecialRegister::AggrSmemSize => {
                self.device.reserved_shared_start() + crate::ir::RESERVED_SHARED_BYTES
            }
            SpecialRegister::ReservedSmem(which) => {
                let begin = self.device.reserved_shared_start();
                let cap = crate::ir::RESERVED_SHARED_BYTES;
                match which {
                    ReservedSmem::Begin | ReservedSmem::Offset0 => begin,
                    ReservedSmem::End => begin + cap,
                    ReservedSmem::Cap => cap,
                    ReservedSmem::Offset1 => begin + cap / 2,
                }
            }
            SpecialRegister::Pm(..) | SpecialRegister::CurrentGraphExec => 0,
        };
        u128::from(value)
    }

    /// Writes `value` of instruction type `ty` to a register, extended per Table 28.
    #[inline(always)]
    pub(super) fn write(&mut self, lane: usize, destination: Destination, value: u128, ty: Type) {
        self.put(lane, &Put::new(destination, ty), value);
    }

    /// Writes `value` to a register by a rule decided once per instruction.
    #[inline(always)]
    pub(super) fn put(&mut self, lane: usize, rule: &Put, value: u128) {
        let new = rule.extension.apply(value);
        if let Some(writes) = self.writes.as_deref_mut() {
            writes.push(Write {
                register: rule.register,
                old: self.lanes.get(lane, rule.register),
                new,
            });
        }
        self.lanes.set(lane, rule.register, new);
    }
}
