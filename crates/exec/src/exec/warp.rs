//! The warp family: `shfl`, `vote`, `activemask`, `redux`, `match`, `elect`, `bar.warp.sync`.
//! The machine calls these once for the lanes of one warp that wait at the instruction, when
//! every lane the instruction waits for has arrived (`machine.rs`, `Cta::release_warp`); each
//! reads the operands of all those lanes before it writes any result, so a destination that is
//! also a source (`shfl.sync.bfly.b32 %r1, %r1, ...`) reads the values from before.
//!
//! A warp is 32 threads with consecutive linear indices in the CTA (`%laneid` = index % 32).
//! Where the ISA leaves a value undefined (`shfl` reading a lane that does not take part), the
//! choice is written at the function.

use ptxsim_isa::Type;
use ptxsim_isa::ops::{ReduxOp, ShflMode, VoteMode};

use super::{Executor, Put};
use crate::alu;
use crate::ir::{Destination, PredicateSource, Source};
use crate::lanes::run_start;

/// The lane's position in its warp.
fn laneid(lane: usize) -> u32 {
    (lane % 32) as u32
}

/// The mask of the lanes' positions in their warp.
fn lane_mask(lanes: &[usize]) -> u32 {
    lanes.iter().fold(0, |mask, &lane| mask | 1 << laneid(lane))
}

impl Executor<'_, '_> {
    /// `shfl` (PTX ISA 9.7.9.6): each lane copies `a` of the lane [`alu::shfl_lane`] picks
    /// (its own when out of range) and sets `p` to whether it was in range. "Results are
    /// undefined ... if an active thread sources a register from an inactive thread": an sm_90
    /// GPU then gives 0 (a lane outside the membermask, in another branch, exited or past the
    /// end of the CTA; measured, `tests/hardware/warp`), and so does ptxsim.
    pub(super) fn shfl(
        &mut self,
        lanes: &[usize],
        mode: ShflMode,
        destination: Destination,
        predicate: Option<Destination>,
        [a, b, c]: [Source; 3],
    ) {
        if run_start(lanes).is_some_and(|first| first % 32 == 0) {
            self.shfl_columns(lanes, mode, destination, predicate, [a, b, c]);
            return;
        }
        let participants = lane_mask(lanes);
        let results: Vec<(u64, bool)> = lanes
            .iter()
            .map(|&lane| {
                let b = self.read_bits(lane, b, 32) as u32;
                let c = self.read_bits(lane, c, 32) as u32;
                let (j, in_range) = alu::shfl_lane(mode, laneid(lane), b, c);
                let source = lane - laneid(lane) as usize + j as usize;
                let value = if j == laneid(lane) {
                    self.read_bits(lane, a, 32)
                } else if participants >> j & 1 == 1 {
                    self.read_bits(source, a, 32)
                } else {
                    // A source lane that does not execute this shfl with the reader (outside
                    // the membermask, in another branch, exited): undefined in the ISA; an
                    // sm_90 GPU reads 0 (tests/hardware/warp, `shfl_partial`, `shfl_exited`).
                    0
                };
                (value, in_range)
            })
            .collect();
        let put = Put::new(destination, Type::B32);
        for (&lane, &(value, _)) in lanes.iter().zip(&results) {
            self.put(lane, &put, u128::from(value));
        }
        if let Some(predicate) = predicate {
            let put = Put::new(predicate, Type::Pred);
            for (&lane, &(_, in_range)) in lanes.iter().zip(&results) {
                self.put(lane, &put, u128::from(in_range));
            }
        }
    }

    /// [`Executor::shfl`] for the lanes `first..first + n` of a warp from its first lane (a
    /// converged warp): operands and results in columns. A source lane past `n` does not take
    /// part: 0, as in [`Executor::shfl`].
    fn shfl_columns(
        &mut self,
        lanes: &[usize],
        mode: ShflMode,
        destination: Destination,
        predicate: Option<Destination>,
        [a, b, c]: [Source; 3],
    ) {
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, a, 32, &mut columns.a);
        self.gather(lanes, b, 32, &mut columns.b);
        self.gather(lanes, c, 32, &mut columns.c);
        columns.out.clear();
        let mut in_range = 0u32;
        for lane in 0..lanes.len() {
            let (j, pval) = alu::shfl_lane(
                mode,
                lane as u32,
                columns.b[lane] as u32,
                columns.c[lane] as u32,
            );
            let value = if j as usize == lane {
                columns.a[lane]
            } else {
                columns.a.get(j as usize).copied().unwrap_or(0)
            };
            columns.out.push(value);
            in_range |= u32::from(pval) << lane;
        }
        let put = Put::new(destination, Type::B32);
        self.scatter(lanes, &put, &columns.out);
        if let Some(predicate) = predicate {
            columns.b.clear();
            columns
                .b
                .extend((0..lanes.len()).map(|lane| u64::from(in_range >> lane & 1)));
            let put = Put::new(predicate, Type::Pred);
            self.scatter(lanes, &put, &columns.b);
        }
        *self.columns = columns;
    }

    /// Each lane's own membermask where some lane is not in it and the lanes are not all in
    /// it (a group `machine.rs` joined, `join_outside_lanes`); `None` in the usual case, where
    /// the lanes executing together are exactly the non-exited lanes of their common
    /// membermask, so restricting to it changes nothing.
    fn outside_masks(&self, lanes: &[usize], membermask: Option<Source>) -> Option<Vec<u32>> {
        let membermask = membermask?;
        let all = lane_mask(lanes);
        let masks: Vec<u32> = lanes
            .iter()
            .map(|&lane| self.read_bits(lane, membermask, 32) as u32)
            .collect();
        masks.iter().any(|&mask| all & !mask != 0).then_some(masks)
    }

    /// `vote` (9.7.13.8-9) over the lanes that take part: [`alu::vote`]. "A thread not
    /// specified in membermask will contribute a 0 for its entry in vote.sync.ballot.b32": in a
    /// group with a lane outside its own membermask each lane votes over the lanes of its own
    /// membermask (D56).
    pub(super) fn vote(
        &mut self,
        lanes: &[usize],
        mode: VoteMode,
        destination: Destination,
        a: PredicateSource,
        membermask: Option<Source>,
    ) {
        let participants = lane_mask(lanes);
        let votes = lanes.iter().fold(0u32, |votes, &lane| {
            let value = self.read_bits(lane, a.source, 1) != 0;
            if value != a.negated {
                votes | 1 << laneid(lane)
            } else {
                votes
            }
        });
        let ty = if mode == VoteMode::Ballot {
            Type::B32
        } else {
            Type::Pred
        };
        match self.outside_masks(lanes, membermask) {
            None => {
                let result = alu::vote(mode, votes, participants);
                self.put_all(lanes, destination, ty, u64::from(result));
            }
            Some(masks) => {
                let put = Put::new(destination, ty);
                for (&lane, mask) in lanes.iter().zip(masks) {
                    let result = alu::vote(mode, votes & mask, participants & mask);
                    self.put(lane, &put, u128::from(result));
                }
            }
        }
    }

    /// `activemask` (9.7.13.11): "An active thread will contribute 1 for its entry in the
    /// result and exited or inactive or predicated-off thread will contribute 0": the lanes of
    /// the warp that execute it together.
    pub(super) fn activemask(&mut self, lanes: &[usize], destination: Destination) {
        let mask = lane_mask(lanes);
        self.put_all(lanes, destination, Type::B32, u64::from(mask));
    }

    /// `redux.sync` (9.7.13.12): the reduction of `a` over the lanes, [`alu::redux`]; in a
    /// group with a lane outside its own membermask, over the lanes of each lane's membermask
    /// (D56; none: 0, or the canonical NaN for `.f32`, as an empty reduction gives).
    pub(super) fn redux(
        &mut self,
        lanes: &[usize],
        op: ReduxOp,
        (ty, abs, nan): (Type, bool, bool),
        destination: Destination,
        a: Source,
        membermask: Source,
    ) {
        let signed = ty == Type::S32;
        let values: Vec<u32> = lanes
            .iter()
            .map(|&lane| self.read_bits(lane, a, 32) as u32)
            .collect();
        let reduce = |mask: u32| {
            let values = lanes
                .iter()
                .zip(&values)
                .filter(|&(&lane, _)| mask >> laneid(lane) & 1 == 1)
                .map(|(_, &value)| value);
            if ty == Type::F32 {
                alu::redux_f32(op == ReduxOp::Max, abs, nan, values)
            } else {
                values
                    .reduce(|x, y| alu::redux(op, signed, x, y))
                    .unwrap_or(0)
            }
        };
        match self.outside_masks(lanes, Some(membermask)) {
            None => {
                let result = reduce(u32::MAX);
                self.put_all(lanes, destination, ty, u64::from(result));
            }
            Some(masks) => {
                let put = Put::new(destination, ty);
                for (&lane, mask) in lanes.iter().zip(masks) {
                    self.put(lane, &put, u128::from(reduce(mask)));
                }
            }
        }
    }

    /// `match.sync` (9.7.13.10): "`.any`: `d` is set to mask corresponding to non-exited
    /// threads in membermask that have same value of operand `a`"; "`.all`: `d` is set to mask
    /// corresponding to non-exited threads in membermask if all non-exited threads in
    /// membermask have same value of operand `a`; otherwise `d` is set to 0. Optionally
    /// predicate `p` is set to true if all non-exited threads in membermask have same value of
    /// operand `a`; otherwise `p` is set to false."
    ///
    /// In a group with a lane outside its own membermask each lane compares over the lanes of
    /// its own membermask (D56).
    pub(super) fn match_sync(
        &mut self,
        lanes: &[usize],
        (all, ty): (bool, Type),
        destination: Destination,
        predicate: Option<Destination>,
        a: Source,
        membermask: Source,
    ) {
        let values: Vec<u64> = lanes
            .iter()
            .map(|&lane| self.read_bits(lane, a, ty.bits()))
            .collect();
        let masks = self
            .outside_masks(lanes, Some(membermask))
            .unwrap_or_else(|| vec![u32::MAX; lanes.len()]);
        let put = Put::new(destination, Type::B32);
        let put_predicate = predicate.map(|predicate| Put::new(predicate, Type::Pred));
        for ((&lane, &value), &mask) in lanes.iter().zip(&values).zip(&masks) {
            let members = lanes
                .iter()
                .zip(&values)
                .filter(|&(&other, _)| mask >> laneid(other) & 1 == 1);
            let participants = members
                .clone()
                .fold(0u32, |bits, (&other, _)| bits | 1 << laneid(other));
            let same = members
                .clone()
                .filter(|&(_, &other)| other == value)
                .fold(0u32, |bits, (&other, _)| bits | 1 << laneid(other));
            let first = members.clone().next().map(|(_, &other)| other);
            let uniform = members.clone().all(|(_, &other)| Some(other) == first);
            let result = match (all, uniform) {
                (false, _) => same,
                (true, true) => participants,
                (true, false) => 0,
            };
            self.put(lane, &put, u128::from(result));
            if let Some(put_predicate) = &put_predicate {
                self.put(lane, put_predicate, u128::from(uniform));
            }
        }
    }

    /// `elect.sync` (9.7.13.14): "Election of a leader thread happens deterministically": the
    /// lowest lane that takes part; `d` is its `%laneid` in every lane, `p` true in it alone.
    pub(super) fn elect(
        &mut self,
        lanes: &[usize],
        destination: Option<Destination>,
        predicate: Option<Destination>,
    ) {
        let leader = lanes.iter().map(|&lane| laneid(lane)).min().unwrap_or(0);
        if let Some(destination) = destination {
            self.put_all(lanes, destination, Type::B32, u64::from(leader));
        }
        if let Some(predicate) = predicate {
            let put = Put::new(predicate, Type::Pred);
            for &lane in lanes {
                self.put(lane, &put, u128::from(laneid(lane) == leader));
            }
        }
    }

    /// Writes one value to `destination` in every lane.
    fn put_all(&mut self, lanes: &[usize], destination: Destination, ty: Type, value: u64) {
        let put = Put::new(destination, ty);
        for &lane in lanes {
            self.put(lane, &put, u128::from(value));
        }
    }

    /// `mma.sync.aligned` (9.7.14.5.14): the warp's fragments are gathered, `D = A * B + C` is
    /// computed by [`alu::mma::mma`] and each lane's `d` registers written. "The behavior of mma
    /// instruction is undefined if all threads in the same warp do not use the same qualifiers,
    /// or if any thread in the warp has exited": ptxsim traps every lane unless all 32 lanes of
    /// the warp execute it together. The sparse forms go through [`alu::mma::mma_sparse`].
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    pub(super) fn mma(
        &mut self,
        instruction: &crate::ir::Instruction,
        lanes: &[usize],
        form: &ptxsim_isa::mma::MmaForm,
        d: &[Destination],
        sources: &[Vec<Source>; 3],
        scales: Option<&[Source; 6]>,
        sparse: Option<&[Source; 2]>,
    ) {
        let complete = lanes.len() == 32
            && lanes.first().is_some_and(|&first| first % 32 == 0)
            && lanes.windows(2).all(|pair| pair[1] == pair[0] + 1);
        if !complete {
            let message = format!(
                "`{}`: mma.sync.aligned needs all 32 lanes of the warp; {} executed it together \
                 (undefined in the PTX ISA)",
                instruction.text,
                lanes.len()
            );
            for &lane in lanes {
                self.trap(lane, instruction, message.clone());
            }
            return;
        }
        let read = |executor: &Self, operand: &[Source], ty: ptxsim_isa::mma::MmaType| {
            let bits = if ty == ptxsim_isa::mma::MmaType::F64 {
                64
            } else {
                32
            };
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
        let factors = match (form.block_scale, scales) {
            (Some(scale), Some(scales)) => match self.mma_scale_factors(lanes, scale.vec, scales) {
                Ok(factors) => Some(factors),
                Err(why) => {
                    let message = format!("`{}`: {why}", instruction.text);
                    for &lane in lanes {
                        self.trap(lane, instruction, message.clone());
                    }
                    return;
                }
            },
            _ => None,
        };
        let cores = self.device.tensor_cores();
        if let Some([e, f]) = sparse {
            // Each lane's metadata `e`; the selector `f` is a constant (the same in every lane).
            let metadata: Vec<u32> = lanes
                .iter()
                .map(|&lane| self.read_bits(lane, *e, 32) as u32)
                .collect();
            let selector = self.read_bits(lanes[0], *f, 32) as u32;
            match alu::mma::mma_sparse(cores, form, &a, &b, &c, &metadata, selector) {
                Ok(result) => self.write_mma(lanes, form, d, result),
                Err(why) => {
                    let message = format!("`{}`: {why}", instruction.text);
                    for &lane in lanes {
                        self.trap(lane, instruction, message.clone());
                    }
                }
            }
            return;
        }
        let Some(result) = alu::mma::mma_scaled(cores, form, &a, &b, &c, factors.as_ref()) else {
            let message = format!(
                "`{}`: mma.sync.aligned.{} is not supported by ptxsim yet (or, with \
                 .block_scale, a scaled value left the normal .f32 range)",
                instruction.text,
                form.name()
            );
            for &lane in lanes {
                self.trap(lane, instruction, message.clone());
            }
            return;
        };
        self.write_mma(lanes, form, d, result);
    }

    /// Writes each lane's `d` registers of an `mma`.
    fn write_mma(
        &mut self,
        lanes: &[usize],
        form: &ptxsim_isa::mma::MmaForm,
        d: &[Destination],
        result: Vec<Vec<u64>>,
    ) {
        let ty = if form.d == ptxsim_isa::mma::MmaType::F64 {
            Type::B64
        } else {
            Type::B32
        };
        for (&lane, registers) in lanes.iter().zip(result) {
            for (&destination, value) in d.iter().zip(registers) {
                self.put(lane, &Put::new(destination, ty), u128::from(value));
            }
        }
    }

    /// The scale factors of `mma ... .block_scale` (9.7.14.3), `vec` bytes from
    /// `byte-id` of a lane's `scale-a-data` / `scale-b-data`: row `r` of A from lane
    /// `4 (r % 8) + 2 thread-id-a + r / 8`, column `n` of B from lane `4 n + thread-id-b`.
    /// With the ids 0 these are CUTLASS's `SM120_16x8x{32,64}_TN_VS` `SFALayout` (rows `g` and
    /// `g + 8` from the first two lanes of quad `g`) and `SFBLayout` (column `g` from quad
    /// `g`); the ids select the other pair of a quad, or another lane of it, as ptxas 13.5
    /// bounds them (thread-id-a in 0..1, thread-id-b in 0..3, byte-id 0..3, 0 or 2 with
    /// `.scale_vec::2X`, 0 with `4X`). The selectors are read from the first lane.
    fn mma_scale_factors(
        &self,
        lanes: &[usize],
        vec: u8,
        scales: &[Source; 6],
    ) -> Result<alu::mma::ScaleFactors, String> {
        let first = lanes[0];
        let value = |source: Source| self.read_bits(first, source, 16) as u32;
        let (byte_a, thread_a, byte_b, thread_b) = (
            value(scales[1]),
            value(scales[2]),
            value(scales[4]),
            value(scales[5]),
        );
        let vec = u32::from(vec);
        for (byte, name) in [(byte_a, "byte-id-a"), (byte_b, "byte-id-b")] {
            if byte >= 4 || byte % vec != 0 {
                return Err(format!(
                    "{name} is {byte}: with {vec} factors per row it must be a multiple of \
                     {vec} below 4"
                ));
            }
        }
        if thread_a > 1 || thread_b > 3 {
            return Err(format!(
                "thread-id-a ({thread_a}) must be 0 or 1 and thread-id-b ({thread_b}) 0 to 3"
            ));
        }
        let bytes = |lane: usize, data: Source, byte: u32| {
            let word = self.read_bits(lanes[0] + lane, data, 32) as u32;
            (0..vec)
                .map(|j| word >> (8 * (byte + j)) & 0xff)
                .collect::<Vec<u32>>()
        };
        let rows = (0..16)
            .map(|r| {
                bytes(
                    4 * (r % 8) + 2 * thread_a as usize + r / 8,
                    scales[0],
                    byte_a,
                )
            })
            .collect();
        let columns = (0..8)
            .map(|n| bytes(4 * n + thread_b as usize, scales[3], byte_b))
            .collect();
        Ok((rows, columns))
    }
}
