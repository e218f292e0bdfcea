//! `shfl.sync` generated inline in the warp function: where the membermask, `b` and `c` are
//! the same known constants in every lane (an immediate, or a register that an unguarded
//! `mov` of an immediate set on every way to the shuffle, as nvcc's `__shfl_down_sync(~0u, v,
//! 16)` is compiled), the source lane `j` and the in-range bit `pval` of every lane are worked
//! out while compiling, with the interpreter's own [`ptxsim_exec::alu::shfl_lane`]
//! ([`ShflLanes::new`]), and the shuffle is 32 loads of `a`'s row, then 32 stores to `d`'s row
//! (and the constant `pval`s to `p`'s), with no call.

use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;
use ptxsim_exec::ir::{Destination, Instruction, InstructionKind as K, Program, Source};
use ptxsim_exec::semantics::Extension;
use ptxsim_isa::Type;

use super::{ShflLanes, WARP, WarpOp};
use crate::registers::{self, Use, successors};
use crate::writeback;

/// What is known of a register's value where the threads reach an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    /// No way from the kernel's first instruction reaches the instruction (yet).
    Unreached,
    /// Every way there leaves this value in the register.
    Value(u64),
    /// Some way may leave another value.
    Unknown,
}

impl Known {
    fn meet(self, other: Self) -> Self {
        match (self, other) {
            (Self::Unreached, x) | (x, Self::Unreached) => x,
            (Self::Value(a), Self::Value(b)) if a == b => self,
            _ => Self::Unknown,
        }
    }
}

/// Whether `registers::registers_of` reports every register `kind` may write (as a
/// [`Use::Write`]), or, for the warp-synchronous instructions, [`written_besides`] names the
/// rest. Any other instruction makes every value unknown.
fn writes_listed(kind: &K) -> bool {
    matches!(
        kind,
        K::Mov { .. }
            | K::MovPack { .. }
            | K::MovUnpack { .. }
            | K::MovVector { .. }
            | K::Cvt { .. }
            | K::CvtPack { .. }
            | K::FloatPair { .. }
            | K::FloatMixed { .. }
            | K::IntBinary { .. }
            | K::FloatBinary { .. }
            | K::IntUnary { .. }
            | K::FloatUnary { .. }
            | K::Mad { .. }
            | K::Fma { .. }
            | K::Prmt { .. }
            | K::Lop3 { .. }
            | K::IntTernary { .. }
            | K::Slct { .. }
            | K::Bfe { .. }
            | K::Bfi { .. }
            | K::Setp { .. }
            | K::Set { .. }
            | K::Selp { .. }
            | K::Ld { .. }
            | K::St { .. }
            | K::Cvta { .. }
            | K::Bra { .. }
            | K::Ret
            | K::Exit
            | K::Shfl { .. }
            | K::Vote { .. }
            | K::Redux { .. }
            | K::Activemask { .. }
            | K::BarWarpSync { .. }
            | K::Barrier {
                destination: None,
                ..
            }
    )
}

/// The registers the warp-synchronous instructions may write that `registers_of` leaves out
/// (it lists only writes that surely happen).
fn written_besides(kind: &K, mut visit: impl FnMut(usize)) {
    match kind {
        K::Shfl {
            destination,
            predicate,
            ..
        } => {
            visit(destination.register.index());
            if let Some(p) = predicate {
                visit(p.register.index());
            }
        }
        K::Vote { destination, .. } | K::Redux { destination, .. } => {
            visit(destination.register.index());
        }
        _ => {}
    }
}

/// The value an unguarded `mov.ty d, imm` leaves in `d` (Table 28's rule, as the interpreter
/// and [`crate::translate`]'s constant tracking write it).
fn moved_immediate(instruction: &Instruction) -> Option<(usize, u64)> {
    match instruction.kind {
        K::Mov {
            ty,
            destination,
            source: Source::Immediate(v),
        } if instruction.guard.is_none() && ty.bits() <= 64 => {
            let extension = Extension::new(ty, destination.ty);
            extension.narrow().then(|| {
                let bits = ty.bits();
                let chopped = if bits >= 64 {
                    v as u64
                } else {
                    v as u64 & ((1u64 << bits) - 1)
                };
                (destination.register.index(), extension.apply64(chopped))
            })
        }
        _ => None,
    }
}

/// What an instruction does to the values [`known_values`] tracks: the ones it may write
/// become unknown, then the one an unguarded `mov` of an immediate sets is known.
struct Transfer {
    killed: Vec<usize>,
    set: Option<(usize, u64)>,
}

/// Per instruction, what is known of each register of `tracked` where the threads reach it: a
/// forward analysis over the program from its first instruction (every register unknown there),
/// in which an unguarded `mov` of an immediate sets the value and any other write (guarded or
/// not, surely made or not) makes it unknown; ways join by keeping only values they agree on.
/// `None` when an instruction's register use is not listed (a call, a matrix instruction).
pub(super) fn known_values(program: &Program, tracked: &[usize]) -> Option<Vec<Vec<Known>>> {
    let count = program.instructions.len();
    let slot = |r: usize| tracked.iter().position(|&t| t == r);
    let mut listed = true;
    // Per instruction: what it does to the tracked values (`None`: makes them all unknown).
    let mut transfer: Vec<Option<Transfer>> = Vec::with_capacity(count);
    for instruction in &program.instructions {
        let mut written = Vec::new();
        listed &= registers::registers_of(instruction, |r, how| {
            if how == Use::Write {
                written.push(r);
            }
        });
        if !writes_listed(&instruction.kind) {
            transfer.push(None);
            continue;
        }
        written_besides(&instruction.kind, |r| written.push(r));
        transfer.push(Some(Transfer {
            killed: written.into_iter().filter_map(slot).collect(),
            set: moved_immediate(instruction).and_then(|(r, v)| Some((slot(r)?, v))),
        }));
    }
    if !listed {
        return None;
    }
    if tracked.is_empty() {
        return Some(vec![Vec::new(); count]);
    }
    let mut known = vec![vec![Known::Unreached; tracked.len()]; count];
    if let Some(first) = known.first_mut() {
        first.fill(Known::Unknown);
    }
    let mut changed = true;
    while changed {
        changed = false;
        for index in 0..count {
            if known[index].iter().all(|&k| k == Known::Unreached) {
                continue;
            }
            let mut out = known[index].clone();
            match &transfer[index] {
                None => out.fill(Known::Unknown),
                Some(step) => {
                    for &k in &step.killed {
                        out[k] = Known::Unknown;
                    }
                    if let Some((k, v)) = step.set {
                        out[k] = Known::Value(v);
                    }
                }
            }
            for next in successors(program, index) {
                let Some(state) = known.get_mut(next) else {
                    continue;
                };
                for (held, &new) in state.iter_mut().zip(&out) {
                    let met = held.meet(new);
                    if met != *held {
                        *held = met;
                        changed = true;
                    }
                }
            }
        }
    }
    Some(known)
}

/// The registers [`known_values`] is asked about: the membermask, `b` and `c` of every
/// `shfl` the warp function makes.
pub(super) fn tracked(ops: &[WarpOp]) -> Vec<usize> {
    let mut tracked = Vec::new();
    for op in ops {
        if let WarpOp::Shfl {
            sources: [_, b, c],
            membermask,
            ..
        } = op
        {
            for source in [b, c, membermask] {
                if let Source::Register(r) = source
                    && !tracked.contains(&r.index())
                {
                    tracked.push(r.index());
                }
            }
        }
    }
    tracked
}

/// The lanes of `op` where it can be generated inline: a `shfl` whose membermask is all 32
/// lanes and whose `b` and `c` are known constants where the threads reach it (`known`, for
/// the registers of `tracked`).
pub(super) fn constant_lanes(op: &WarpOp, tracked: &[usize], known: &[Known]) -> Option<ShflLanes> {
    let WarpOp::Shfl {
        mode,
        sources: [_, b, c],
        membermask,
        ..
    } = op
    else {
        return None;
    };
    // A `.b32` operand: the register's low 32 bits (Table 27).
    let value = |source: &Source| match *source {
        Source::Immediate(v) => Some(v as u64 & 0xffff_ffff),
        Source::Register(r) => match known[tracked.iter().position(|&t| t == r.index())?] {
            Known::Value(v) => Some(v & 0xffff_ffff),
            _ => None,
        },
        _ => None,
    };
    (value(membermask)? == 0xffff_ffff).then_some(())?;
    Some(ShflLanes::new(*mode, value(b)?, value(c)?))
}

/// The address of lane `lane`'s register `r` in the warp's rows (`row`: lane 0 of register
/// 0), as a value and an offset.
fn lane_address(
    builder: &mut FunctionBuilder<'_>,
    row: Value,
    stride: u64,
    r: usize,
    lane: usize,
) -> (Value, i32) {
    let (at, offset) = crate::translate::register_address(builder, row, stride, r);
    match offset.checked_add(8 * lane as i32) {
        Some(offset) => (at, offset),
        None => (builder.ins().iadd_imm_s(at, 8 * lane as i64), 0),
    }
}

/// Two lanes' 64-bit values as a vector: `first`, and `second` where it differs.
fn pair(builder: &mut FunctionBuilder<'_>, first: u64, second: u64) -> Value {
    let low = builder.ins().iconst(types::I64, first as i64);
    let both = builder.ins().splat(types::I64X2, low);
    if second == first {
        return both;
    }
    let high = builder.ins().iconst(types::I64, second as i64);
    builder.ins().insertlane(both, high, 1)
}

/// Generates `op` (a [`WarpOp::Shfl`] whose lanes `lanes` are) for the 32 lanes of the warp
/// whose rows start at `row`: PTX ISA 9.7.9.6's Semantics, `d = SourceA[j]` in every lane
/// (all active), `a` read in every lane before any result is written, as the interpreter's
/// warp family does. Two lanes a step: the host's 128-bit vectors over the register rows (one
/// load where the two lanes read neighbouring lanes, as `.down`, `.up` and `.bfly` mostly
/// do). A result register `keep` leaves out (nothing reads it after the shuffle, in any lane
/// or the interpreter) is not written.
pub(super) fn generate(
    builder: &mut FunctionBuilder<'_>,
    op: &WarpOp,
    lanes: &ShflLanes,
    (row, stride): (Value, u64),
    keep: Option<&writeback::Set>,
) {
    let WarpOp::Shfl {
        destination,
        predicate,
        sources: [a, ..],
        ..
    } = op
    else {
        return;
    };
    // The rows are 8-byte aligned: vector accesses are not marked aligned.
    let scalar = MemFlagsData::trusted();
    let vector = MemFlagsData::new().with_notrap();
    let kept =
        |d: &Destination| keep.is_none_or(|keep| writeback::contains(keep, d.register.index()));
    // `a` read as a `.b32` operand (Table 27: its low 32 bits) and written to `d` by Table
    // 28 from `.b32` (never sign-extended): one mask.
    let (source_mask, _, register_mask) = Extension::new(Type::B32, destination.ty).parts64();
    let mask = 0xffff_ffff & source_mask & register_mask;
    let values: Vec<Value> = (0..WARP / 2)
        .map(|p| {
            let [first, second] = [2 * p, 2 * p + 1].map(|lane| usize::from(lanes.j[lane]));
            match *a {
                Source::Register(r) => {
                    let r = r.index();
                    let both = if second == first + 1 {
                        let (at, offset) = lane_address(builder, row, stride, r, first);
                        builder.ins().load(types::I64X2, vector, at, offset)
                    } else {
                        let [x, y] = [first, second].map(|j| {
                            let (at, offset) = lane_address(builder, row, stride, r, j);
                            builder.ins().load(types::I64, scalar, at, offset)
                        });
                        let both = builder.ins().splat(types::I64X2, x);
                        builder.ins().insertlane(both, y, 1)
                    };
                    let mask = pair(builder, mask, mask);
                    builder.ins().band(both, mask)
                }
                // `warp_op` takes registers and immediates only.
                Source::Immediate(v) => pair(builder, v as u64 & mask, v as u64 & mask),
                _ => pair(builder, 0, 0),
            }
        })
        .collect();
    if kept(destination) {
        for (p, &value) in values.iter().enumerate() {
            let (at, offset) =
                lane_address(builder, row, stride, destination.register.index(), 2 * p);
            builder.ins().store(vector, value, at, offset);
        }
    }
    if let Some(p) = predicate.filter(kept) {
        let extension = Extension::new(Type::Pred, p.ty);
        for lane in (0..WARP).step_by(2) {
            let [first, second] = [lane, lane + 1].map(|l| extension.apply64(lanes.in_range[l]));
            let value = pair(builder, first, second);
            let (at, offset) = lane_address(builder, row, stride, p.register.index(), lane);
            builder.ins().store(vector, value, at, offset);
        }
    }
}
