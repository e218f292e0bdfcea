//! The warp function (issue 35): a second function per kernel that runs the 32 threads of a
//! converged warp **in lockstep**, for kernels with warp-synchronous instructions (`shfl.sync`,
//! `vote.sync`, `redux.sync`, `activemask`, `bar.warp.sync`). The work-item function ([`crate::translate`])
//! runs a CTA's threads one after another and leaves every warp-synchronous instruction to the
//! interpreter's lockstep issue, with an exit from and an entry into the generated code around
//! each; here the whole warp runs each step together:
//!
//! * a **segment** (a run of instructions the work-item function compiles, without branches,
//!   `ret` or `exit`, and starting at every branch target) is one loop over the warp's lanes
//!   whose body is the work-item function's code for one thread
//!   ([`crate::translate::Translator::for_lanes`]: one definition of every operation), with
//!   the thread's registers loaded from the register file at the start of the body and every
//!   write stored at once. Lanes run the segment one after another, as the work-item function
//!   runs threads between two instructions the interpreter issues; a segment ends before a
//!   shared (or generic) load that a shared (or generic) store or atomic of the same segment
//!   precedes, so that code exchanging values through shared memory inside a warp without
//!   `__syncwarp` reads what every lane stored, as in lockstep;
//! * a **warp-synchronous instruction** is made for the 32 lanes at once by
//!   [`WarpOp::run`] (through `ptxsim_jit_warp`), with the interpreter's lane arithmetic
//!   ([`ptxsim_exec::alu::shfl_lane`], [`ptxsim_exec::alu::vote`]); a membermask other than
//!   all 32 lanes hands the warp to the interpreter at the instruction;
//! * a **branch** whose guard holds in every lane or in none goes on for the warp; a divergent
//!   one is made per lane (each lane's program counter set to its way, the step counted) and
//!   the warp leaves: its lanes go on in the work-item function or the interpreter;
//! * `ret` (without calls) and `exit`, unguarded, end the warp's threads.
//!
//! The warp function is entered at node starts only (`WarpCode::entries`) by a warp whose 32
//! threads are all ready at one program counter ([`crate::native::Code::run`] checks it); it
//! counts the warp's steps in one counter and checks, at each node, that the node's length
//! keeps every lane below its step limit (the lanes' own counts may differ: the driver passes
//! the limit less the largest).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, FuncRef, InstBuilder, JumpTableData, MemFlagsData, Signature, Value, types,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use ptxsim_exec::ir::{
    Destination, Instruction, InstructionKind as K, PredicateSource, Program, Source,
};
use ptxsim_exec::semantics::Extension;
use ptxsim_isa::Type;
use ptxsim_isa::ops::{ReduxOp, ShflMode, Space, VoteMode};

use crate::native::Context;
use crate::registers::{self, Use};
use crate::translate::{self, Helpers, LaneFrame, Plan, Translator, offset_i32};
use crate::writeback;

mod shuffle;

/// The threads of a warp (PTX ISA 10.3, `%laneid`: "A predefined, read-only special register
/// that returns the thread's lane within the warp"; lanes 0 to `WARP_SZ` - 1, 32).
pub(crate) const WARP: usize = 32;

/// A warp-synchronous instruction the warp function makes for all 32 lanes at once.
#[derive(Clone, Debug)]
pub(crate) enum WarpOp {
    /// `shfl.sync.mode.b32 d{|p}, a, b, c, membermask` (PTX ISA 9.7.9.6).
    Shfl {
        mode: ShflMode,
        destination: Destination,
        predicate: Option<Destination>,
        sources: [Source; 3],
        membermask: Source,
        /// The lanes [`ptxsim_exec::alu::shfl_lane`] picks for the first `b` and `c` the
        /// instruction ran with, the same in every lane (most programs' only ones).
        lanes: Box<std::sync::OnceLock<ShflLanes>>,
    },
    /// `vote.sync.mode d, {!}a, membermask` (9.7.13.9).
    Vote {
        mode: VoteMode,
        destination: Destination,
        a: PredicateSource,
        membermask: Source,
    },
    /// `redux.sync.op.type d, a, membermask` (9.7.13.12), the integer forms.
    Redux {
        op: ReduxOp,
        ty: Type,
        destination: Destination,
        a: Source,
        membermask: Source,
    },
    /// `activemask.b32 d` (9.7.13.11).
    Activemask { destination: Destination },
    /// `bar.warp.sync membermask` (9.7.13.2).
    BarWarpSync { membermask: Source },
}

/// The source lane `j` and the in-range bit `pval` of every lane of a `shfl` for one `b` and
/// `c`, the same in every lane ([`ptxsim_exec::alu::shfl_lane`]).
#[derive(Clone, Debug)]
pub(crate) struct ShflLanes {
    b: u64,
    c: u64,
    j: [u8; WARP],
    in_range: [u64; WARP],
}

impl ShflLanes {
    /// The lanes of `mode` for `b` and `c` in every lane.
    fn new(mode: ShflMode, b: u64, c: u64) -> Self {
        let mut j = [0; WARP];
        let mut in_range = [0; WARP];
        for lane in 0..WARP {
            let (source, pval) = ptxsim_exec::alu::shfl_lane(mode, lane as u32, b as u32, c as u32);
            j[lane] = (source as usize % WARP) as u8;
            in_range[lane] = u64::from(pval);
        }
        Self { b, c, j, in_range }
    }
}

/// The registers of one warp in the register file: register `r` of lane `l` is
/// `registers[r * stride + first + l]`.
pub(crate) struct WarpRegisters<'a> {
    pub(crate) registers: &'a mut [u64],
    pub(crate) stride: usize,
    pub(crate) first: usize,
}

impl WarpRegisters<'_> {
    /// Where register `r`'s row for the warp starts in the file, if the whole row is in it.
    fn at(&self, r: ptxsim_exec::ir::RegisterId) -> Option<usize> {
        let at = r
            .index()
            .checked_mul(self.stride)?
            .checked_add(self.first)?;
        (at.checked_add(WARP)? <= self.registers.len()).then_some(at)
    }

    /// The 32 lanes' values of `source` chopped to `bits` (Table 27), as the interpreter reads
    /// them; `None` for a source the plan does not take or a register outside the file.
    fn row(&self, source: Source, bits: u32) -> Option<[u64; WARP]> {
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        match source {
            Source::Register(r) => {
                let at = self.at(r)?;
                let mut row = [0; WARP];
                for (value, &held) in row.iter_mut().zip(&self.registers[at..at + WARP]) {
                    *value = held & mask;
                }
                Some(row)
            }
            Source::Immediate(v) => Some([v as u64 & mask; WARP]),
            _ => None,
        }
    }

    /// Writes `values` (results of type `ty`, one per lane) to `destination` by Table 28
    /// ([`Extension::apply64`]); [`WarpRegisters::holds`] said the row is in the file.
    fn write(&mut self, destination: Destination, ty: Type, values: &[u64; WARP]) {
        // `Extension::apply64` with its parts taken once.
        let (source_mask, shift, register_mask) = Extension::new(ty, destination.ty).parts64();
        let Some(at) = self.at(destination.register) else {
            return;
        };
        let row = &mut self.registers[at..at + WARP];
        if shift == 0 {
            // No sign extension: a mask, which the host does a row at a time.
            let mask = source_mask & register_mask;
            for (slot, &value) in row.iter_mut().zip(values) {
                *slot = value & mask;
            }
        } else {
            for (slot, &value) in row.iter_mut().zip(values) {
                let value = value & source_mask;
                *slot = ((((value << shift) as i64) >> shift) as u64) & register_mask;
            }
        }
    }

    /// The 32-bit value of `source` when it is the same in every lane.
    fn same(&self, source: Source) -> Option<u64> {
        const LOW: u64 = 0xffff_ffff;
        match source {
            Source::Immediate(v) => Some(v as u64 & LOW),
            Source::Register(r) => {
                let at = self.at(r)?;
                let row = &self.registers[at..at + WARP];
                let first = row[0] & LOW;
                row.iter().all(|&v| v & LOW == first).then_some(first)
            }
            _ => None,
        }
    }

    /// Whether every lane's membermask is all 32 lanes.
    fn full(&self, membermask: Source) -> bool {
        self.same(membermask) == Some(0xffff_ffff)
    }

    /// Whether `destination`'s row lies in the register file.
    fn holds(&self, destination: Destination) -> bool {
        self.at(destination.register).is_some()
    }
}

impl WarpOp {
    /// Makes the instruction for the 32 lanes of a converged warp (every lane active at it),
    /// reading every operand before writing any result, as the interpreter's warp family
    /// does (`exec/warp.rs`). Returns false, having written nothing, where some lane's
    /// membermask is not all 32 lanes (the interpreter then runs it: the lanes outside a
    /// membermask are its business).
    pub(crate) fn run(&self, warp: &mut WarpRegisters<'_>) -> bool {
        match self {
            Self::Shfl {
                mode,
                destination,
                predicate,
                sources: [a, b, c],
                membermask,
                lanes,
            } => {
                let Some(a) = warp.row(*a, 32) else {
                    return false;
                };
                if !warp.full(*membermask)
                    || !warp.holds(*destination)
                    || predicate.is_some_and(|p| !warp.holds(p))
                {
                    return false;
                }
                // PTX ISA 9.7.9.6's Semantics: `j` from the mode, `b` and `c`; `d = SourceA[j]`
                // (every lane of the warp is active and its guard true: there is none).
                let own;
                let picked = match (warp.same(*b), warp.same(*c)) {
                    (Some(b), Some(c)) => {
                        let cached = lanes.get_or_init(|| ShflLanes::new(*mode, b, c));
                        if (cached.b, cached.c) == (b, c) {
                            cached
                        } else {
                            own = ShflLanes::new(*mode, b, c);
                            &own
                        }
                    }
                    _ => {
                        let (Some(b), Some(c)) = (warp.row(*b, 32), warp.row(*c, 32)) else {
                            return false;
                        };
                        let mut each = ShflLanes::new(*mode, 0, 0);
                        for lane in 0..WARP {
                            let (j, pval) = ptxsim_exec::alu::shfl_lane(
                                *mode,
                                lane as u32,
                                b[lane] as u32,
                                c[lane] as u32,
                            );
                            each.j[lane] = (j as usize % WARP) as u8;
                            each.in_range[lane] = u64::from(pval);
                        }
                        own = each;
                        &own
                    }
                };
                let mut d = [0; WARP];
                for (value, &j) in d.iter_mut().zip(&picked.j) {
                    *value = a[usize::from(j)];
                }
                warp.write(*destination, Type::B32, &d);
                if let Some(predicate) = predicate {
                    warp.write(*predicate, Type::Pred, &picked.in_range);
                }
                true
            }
            Self::Vote {
                mode,
                destination,
                a,
                membermask,
            } => {
                let Some(values) = warp.row(a.source, 1) else {
                    return false;
                };
                if !warp.full(*membermask) || !warp.holds(*destination) {
                    return false;
                }
                let votes = values
                    .iter()
                    .enumerate()
                    .fold(0u32, |votes, (lane, &value)| {
                        votes | u32::from((value != 0) != a.negated) << lane
                    });
                let result = ptxsim_exec::alu::vote(*mode, votes, u32::MAX);
                let ty = if *mode == VoteMode::Ballot {
                    Type::B32
                } else {
                    Type::Pred
                };
                warp.write(*destination, ty, &[u64::from(result); WARP]);
                true
            }
            // "The reduction is performed over the non-exited threads in membermask" (all 32,
            // in any order: `alu::redux` is associative and commutative).
            Self::Redux {
                op,
                ty,
                destination,
                a,
                membermask,
            } => {
                let Some(values) = warp.row(*a, 32) else {
                    return false;
                };
                if !warp.full(*membermask) || !warp.holds(*destination) {
                    return false;
                }
                let signed = *ty == Type::S32;
                let result = values
                    .iter()
                    .map(|&v| v as u32)
                    .reduce(|x, y| ptxsim_exec::alu::redux(*op, signed, x, y))
                    .unwrap_or(0);
                warp.write(*destination, *ty, &[u64::from(result); WARP]);
                true
            }
            // "An active thread will contribute 1 for its entry in the result": all 32.
            Self::Activemask { destination } => {
                if !warp.holds(*destination) {
                    return false;
                }
                warp.write(*destination, Type::B32, &[0xffff_ffff; WARP]);
                true
            }
            // Every lane of the membermask is here: nothing to wait for.
            Self::BarWarpSync { membermask } => warp.full(*membermask),
        }
    }
}

/// Whether `register` is at most 64 bits wide.
fn narrow(program: &Program, register: ptxsim_exec::ir::RegisterId) -> bool {
    program
        .registers
        .get(register.index())
        .is_some_and(|r| r.bits() <= 64)
}

/// The [`WarpOp`] of `instruction`, for the forms the warp function makes: the `.sync` forms
/// (a membermask), unguarded, with register or immediate operands of at most 64 bits.
pub(crate) fn warp_op(program: &Program, instruction: &Instruction) -> Option<WarpOp> {
    if instruction.guard.is_some() {
        return None;
    }
    let source_ok = |source: Source| match source {
        Source::Register(r) => narrow(program, r),
        Source::Immediate(_) => true,
        _ => false,
    };
    let destination_ok =
        |d: Destination| narrow(program, d.register) && d.ty.bits() <= 64 && d.ty.bits() > 0;
    let op = match instruction.kind {
        K::Shfl {
            mode,
            destination,
            predicate,
            sources,
            membermask: Some(membermask),
        } => WarpOp::Shfl {
            mode,
            destination,
            predicate,
            sources,
            membermask,
            lanes: Box::default(),
        },
        K::Vote {
            mode,
            destination,
            a,
            membermask: Some(membermask),
        } => WarpOp::Vote {
            mode,
            destination,
            a,
            membermask,
        },
        K::Redux {
            op,
            ty,
            destination,
            a,
            membermask,
            ..
        } if ty != Type::F32 => WarpOp::Redux {
            op,
            ty,
            destination,
            a,
            membermask,
        },
        K::Activemask { destination } => WarpOp::Activemask { destination },
        K::BarWarpSync { membermask } => WarpOp::BarWarpSync { membermask },
        _ => return None,
    };
    let ok = match &op {
        WarpOp::Shfl {
            destination,
            predicate,
            sources,
            membermask,
            ..
        } => {
            sources.iter().all(|&s| source_ok(s))
                && source_ok(*membermask)
                && destination_ok(*destination)
                && predicate.is_none_or(destination_ok)
        }
        WarpOp::Vote {
            destination,
            a,
            membermask,
            ..
        } => source_ok(a.source) && source_ok(*membermask) && destination_ok(*destination),
        WarpOp::Redux {
            destination,
            a,
            membermask,
            ..
        } => source_ok(*a) && source_ok(*membermask) && destination_ok(*destination),
        WarpOp::Activemask { destination } => destination_ok(*destination),
        WarpOp::BarWarpSync { membermask } => source_ok(*membermask),
    };
    ok.then_some(op)
}

/// What the warp function does at an instruction where it is entered or goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    /// A segment up to (not including) this instruction.
    Segment(usize),
    /// `bra`.
    Branch,
    /// An unguarded `ret` or `exit`.
    End,
    /// Warp-synchronous instruction number `n` of [`WarpBuilt::ops`].
    Op(usize),
}

/// Whether instruction `instruction`, which the work-item function compiles as `plan` says,
/// goes into a segment: not a branch, `ret` or `exit`, and no read of the clock registers
/// (whose value is the thread's own step count, which the warp function does not keep).
fn in_segment(instruction: &Instruction, plan: Option<&Plan>) -> bool {
    plan.is_some()
        && !matches!(instruction.kind, K::Bra { .. } | K::Ret | K::Exit)
        && !instruction.text.contains("%clock")
        && !instruction.text.contains("%globaltimer")
}

/// Whether a store or atomic of `instruction` may write shared memory, and whether a load may
/// read it.
fn shared_access(instruction: &Instruction) -> (bool, bool) {
    let shared =
        |space: Space| matches!(space, Space::Shared | Space::SharedCluster | Space::Generic);
    match instruction.kind {
        K::St { space, .. } | K::Atom { space, .. } => (shared(space), false),
        K::Ld { space, .. } => (false, shared(space)),
        _ => (false, false),
    }
}

/// The nodes of the warp function, by the instruction each starts at, and its
/// warp-synchronous instructions.
fn nodes(program: &Program, plans: &[Option<Plan>]) -> (Vec<Option<Node>>, Vec<WarpOp>) {
    let count = program.instructions.len();
    let mut targets = vec![false; count];
    for instruction in &program.instructions {
        if let K::Bra { target } = instruction.kind
            && let Some(slot) = targets.get_mut(target)
        {
            *slot = true;
        }
    }
    let segment = |i: usize| in_segment(&program.instructions[i], plans[i].as_ref());
    let mut nodes = vec![None; count];
    let mut ops = Vec::new();
    let mut i = 0;
    while i < count {
        let instruction = &program.instructions[i];
        if segment(i) {
            let start = i;
            let mut stored = false;
            while i < count && segment(i) && (i == start || !targets[i]) {
                let (stores, loads) = shared_access(&program.instructions[i]);
                if loads && stored {
                    break;
                }
                stored |= stores;
                i += 1;
            }
            nodes[start] = Some(Node::Segment(i));
            continue;
        }
        nodes[i] = match instruction.kind {
            K::Bra { .. } if plans[i].is_some() => Some(Node::Branch),
            K::Ret | K::Exit if plans[i].is_some() && instruction.guard.is_none() => {
                Some(Node::End)
            }
            _ => warp_op(program, instruction).map(|op| {
                ops.push(op);
                Node::Op(ops.len() - 1)
            }),
        };
        i += 1;
    }
    (nodes, ops)
}

/// Whether `program` has a warp-synchronous instruction the warp function makes (`auto` builds
/// the warp function for such kernels only).
pub(crate) fn worth_building(program: &Program) -> bool {
    program
        .instructions
        .iter()
        .any(|instruction| warp_op(program, instruction).is_some())
}

/// The helpers the warp function calls besides the work-item function's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpHelpers {
    pub(crate) op: FuncRef,
    pub(crate) leave: FuncRef,
    pub(crate) stop: FuncRef,
    pub(crate) diverge: FuncRef,
}

/// The signatures of the warp helpers ([`native`]'s `ptxsim_jit_warp*`), for `call_conv`.
pub(crate) fn helper_signatures(
    call_conv: cranelift_codegen::isa::CallConv,
) -> [(&'static str, Signature); 4] {
    let signature = |params: usize, returns: bool| {
        let returns: &[types::Type] = if returns { &[types::I32] } else { &[] };
        crate::translate::helper_signature(call_conv, &vec![types::I64; params], returns)
    };
    [
        ("ptxsim_jit_warp", signature(2, true)),
        ("ptxsim_jit_warp_leave", signature(3, false)),
        ("ptxsim_jit_warp_stop", signature(8, false)),
        ("ptxsim_jit_warp_diverge", signature(6, false)),
    ]
}

/// What [`build`] made besides the code.
#[derive(Debug)]
pub(crate) struct WarpBuilt {
    /// Per instruction: a converged warp there enters the warp function.
    pub(crate) entries: Vec<bool>,
    /// The warp-synchronous instructions, by the number the code passes.
    pub(crate) ops: Vec<WarpOp>,
    /// The window slots taken in all (the work-item function's first) and the parameter and
    /// `.const` bytes read without a check.
    pub(crate) slots: usize,
    pub(crate) needs: [u64; 2],
    /// How many shuffles are generated inline (`shuffle::generate`).
    pub(crate) inline: usize,
}

/// Where a divergent `@{!}p bra target` at `index` lets the warp go on with a mask (PTX ISA,
/// bra: "Conditional branches are specified by using a guard predicate": a lane
/// whose guard holds continues at the target, the others at the next instruction): the
/// instructions up to the target are one segment (an `if` without `else`: nvcc's
/// `if (lane == 0) out[...] = sum;`) that does not write `p`, so that the lanes where the
/// guard is false run it and the others wait at the target, where the warp is together again.
/// The segment's end (the target), if so.
fn masked_region(
    program: &Program,
    nodes: &[Option<Node>],
    index: usize,
    target: usize,
    guard: ptxsim_exec::ir::Guard,
) -> Option<usize> {
    let Some(Some(Node::Segment(end))) = nodes.get(index + 1) else {
        return None;
    };
    let mut writes_guard = false;
    for instruction in program.instructions.get(index + 1..*end)? {
        let listed = registers::registers_of(instruction, |r, how| {
            writes_guard |= how == Use::Write && r == guard.predicate.index();
        });
        writes_guard |= !listed;
    }
    (*end == target && target > index + 1 && !writes_guard).then_some(target)
}

/// What every segment's loop over the lanes uses ([`Segments::segment`]).
struct Segments<'v> {
    variables: &'v [Option<Variable>],
    analysis: &'v writeback::Analysis,
    /// The context, shared memory and its length, the windows, the warp's lane 0 of register
    /// 0, its first thread, 0, and the threads' step counts.
    values: [Value; 8],
    /// The step count, the counters of a way out, the lane's register 0 and thread, and the
    /// lane the loop runs (0..32).
    variables_of: [Variable; 6],
    helpers: Helpers,
    stop: FuncRef,
    stride: u64,
    block: [u32; 3],
    limits: [u64; 2],
}

/// The per-instruction state a segment's translation takes and gives back: the plans (each
/// taken once), the instructions' blocks, the window slots taken and the parameter and
/// `.const` bytes read without a check.
type SegmentState<'s> = (
    &'s mut [Option<Option<Plan>>],
    &'s mut Vec<Option<Block>>,
    &'s mut usize,
    &'s mut [u64; 2],
);

impl Segments<'_> {
    /// The segment `index..end` as one loop over the 32 lanes entered with the warp's steps
    /// `k0`, each lane running the work-item translator's code for one thread with its
    /// registers loaded at the top of the body. With `mask` (`p`, negated) only the lanes
    /// whose guard `@{!}p` is false run it (a divergent branch's fall-through), each adding
    /// the segment's length to its own step count. Leaves the builder in the block after the
    /// loop; a lane handed back at an access the code did not make leaves through
    /// `ptxsim_jit_warp_stop`.
    fn segment(
        &self,
        builder: &mut FunctionBuilder<'_>,
        program: &Program,
        (index, end, k0, mask): (usize, usize, Value, Option<(usize, bool)>),
        (plans, blocks, slots, needs): SegmentState<'_>,
        tables: translate::Tables<'_>,
    ) {
        let i64t = types::I64;
        let flags = MemFlagsData::trusted();
        let [
            context,
            shared,
            shared_len,
            windows,
            row,
            first,
            zero,
            steps_of,
        ] = self.values;
        let [steps, exit_pc, exit_steps, base, lane, lane_index] = self.variables_of;
        let stride = self.stride;
        let head = builder.create_block();
        let next = builder.create_block();
        let stop = builder.create_block();
        builder.set_cold_block(stop);
        builder.def_var(lane_index, zero);
        builder.ins().jump(head, &[]);
        builder.switch_to_block(head);
        let l = builder.use_var(lane_index);
        let lane_bytes = builder.ins().ishl_imm_s(l, 3);
        let lane_base = builder.ins().iadd(row, lane_bytes);
        // The lanes that run the body go on to `latch`, which counts their steps with a mask.
        let latch = match mask {
            None => next,
            Some((p, negated)) => {
                let (at, offset) = translate::register_address(builder, lane_base, stride, p);
                let value = builder.ins().load(i64t, flags, at, offset);
                let bit = builder.ins().band_imm_s(value, 1);
                let run = builder.create_block();
                // The guard holds (the lane takes the branch) where the bit is set, or clear
                // for `@!p`.
                if negated {
                    builder.ins().brif(bit, run, &[], next, &[]);
                } else {
                    builder.ins().brif(bit, next, &[], run, &[]);
                }
                builder.switch_to_block(run);
                builder.create_block()
            }
        };
        let this = builder.ins().iadd(first, l);
        builder.def_var(lane, this);
        builder
            .ins()
            .store(flags, this, context, offset_i32(Context::LANE));
        builder.def_var(base, lane_base);
        // The registers the segment reads before an unguarded write of them.
        let mut reads = vec![false; self.variables.len()];
        let mut written = vec![false; self.variables.len()];
        for instruction in &program.instructions[index..end] {
            let mut writes = Vec::new();
            registers::registers_of(instruction, |r, how| match how {
                Use::Read | Use::ReadOtherLanes => {
                    if r < reads.len() && !written[r] {
                        reads[r] = true;
                    }
                }
                Use::Write => writes.push(r),
            });
            if instruction.guard.is_none() {
                for r in writes {
                    if let Some(slot) = written.get_mut(r) {
                        *slot = true;
                    }
                }
            } else {
                // A write the guard may skip: the variable must hold the register's value
                // before it, for the store at the end.
                for r in writes {
                    if let Some(slot) = reads.get_mut(r)
                        && !written[r]
                    {
                        *slot = true;
                    }
                }
            }
        }
        for (r, variable) in self.variables.iter().enumerate() {
            if let (Some(variable), true) = (*variable, reads[r]) {
                let (at, offset) = translate::register_address(builder, lane_base, stride, r);
                let value = builder.ins().load(i64t, flags, at, offset);
                builder.def_var(variable, value);
            }
        }
        builder.def_var(steps, k0);
        let bodies: Vec<Block> = (index..end).map(|_| builder.create_block()).collect();
        builder.ins().jump(bodies[0], &[]);
        for (offset, &body) in bodies.iter().enumerate() {
            blocks[index + offset] = Some(body);
        }
        // The lane's turn ends in `tail`, which stores what the segment wrote and something
        // reads after it (its writes are in variables: `writeback::Analysis::writes`).
        let tail = builder.create_block();
        blocks[end] = Some(tail);
        let mut t = Translator::for_lanes(
            builder,
            LaneFrame {
                variables: self.variables,
                context,
                shared,
                shared_len,
                limits: self.limits,
                helpers: self.helpers,
                steps,
                exit_pc,
                exit_steps,
                stop,
                blocks: blocks.as_slice(),
                base,
                lane,
                stride,
                block: self.block,
                windows,
                slots: *slots,
                analysis: self.analysis,
            },
            tables,
        );
        for (offset, &body) in bodies.iter().enumerate() {
            let at = index + offset;
            let plan = plans[at].take().flatten();
            t.counted(body, at, &program.instructions[at], plan);
        }
        let (taken, needed) = t.finish();
        *slots = taken;
        *needs = [needs[0].max(needed[0]), needs[1].max(needed[1])];
        blocks[index..=end].fill(None);
        builder.switch_to_block(tail);
        let keep = writeback::keep_at(
            self.analysis.live.as_deref(),
            &self.analysis.other_lanes,
            end,
        );
        let lane_base = builder.use_var(base);
        for (r, variable) in self.variables.iter().enumerate() {
            let Some(variable) = *variable else {
                continue;
            };
            let written = (index..end).any(|i| writeback::contains(&self.analysis.writes[i], r));
            if written
                && keep
                    .as_ref()
                    .is_none_or(|keep| writeback::contains(keep, r))
            {
                let value = builder.use_var(variable);
                let (at, offset) = translate::register_address(builder, lane_base, stride, r);
                builder.ins().store(flags, value, at, offset);
            }
        }
        builder.ins().jump(latch, &[]);
        let length = (end - index) as i64;
        if mask.is_some() {
            // The lane's own steps: the segment's instructions.
            builder.switch_to_block(latch);
            let l = builder.use_var(lane_index);
            let this = builder.ins().iadd(first, l);
            let at = builder.ins().ishl_imm_s(this, 3);
            let at = builder.ins().iadd(steps_of, at);
            let held = builder.ins().load(i64t, flags, at, 0);
            let more = builder.ins().iadd_imm_s(held, length);
            builder.ins().store(flags, more, at, 0);
            builder.ins().jump(next, &[]);
        }
        // The next lane, or the warp on after the segment.
        builder.switch_to_block(next);
        let l = builder.use_var(lane_index);
        let following = builder.ins().iadd_imm_s(l, 1);
        builder.def_var(lane_index, following);
        let more = builder
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, following, WARP as i64);
        let done = builder.create_block();
        builder.ins().brif(more, head, &[], done, &[]);
        // A lane left the loop (an access the code did not make): the lanes before it are past
        // the segment, those after it at its start (or, with a mask, at its end where they
        // take the branch).
        builder.switch_to_block(stop);
        let l = builder.use_var(lane_index);
        let at = builder.use_var(exit_pc);
        let counted = builder.use_var(exit_steps);
        let masked = mask.map_or(0, |(p, negated)| {
            (p as i64) << 2 | i64::from(negated) << 1 | 1
        });
        let [start, end, masked] =
            [index as i64, end as i64, masked].map(|v| builder.ins().iconst(i64t, v));
        builder.ins().call(
            self.stop,
            &[context, l, at, counted, start, end, k0, masked],
        );
        builder.ins().return_(&[]);
        builder.switch_to_block(done);
    }
}

/// Builds the warp function into `builder` (signature `fn(*mut Context)`), for CTAs of shape
/// `block`, its memory instructions' window slots numbered from `slots`, every register write
/// stored with `through` (the work-item function's choice); the lane functions, conversions
/// and texture calls it makes go into `tables` as [`translate::build`]'s do.
pub(crate) fn build(
    builder: &mut FunctionBuilder<'_>,
    program: &Program,
    plans: Vec<Option<Plan>>,
    tables: translate::Tables<'_>,
    (helpers, warp_helpers): (Helpers, WarpHelpers),
    (block, slots, through): ([u32; 3], usize, bool),
) -> WarpBuilt {
    let (functions, conversions, texture_calls) = tables;
    let count = program.instructions.len();
    let (nodes, ops) = nodes(program, &plans);
    // What is known of the shuffles' `b`, `c` and membermask registers where they run.
    let tracked = shuffle::tracked(&ops);
    let known = if tracked.is_empty() {
        None
    } else {
        shuffle::known_values(program, &tracked)
    };
    let mut segmented = vec![false; count];
    for (start, node) in nodes.iter().enumerate() {
        if let Some(Node::Segment(end)) = *node {
            segmented[start..end].fill(true);
        }
    }
    // A segment's writes stay in variables through the lane's turn and are stored at its end
    // where something reads them after it ([`Segments::segment`]); with `through` (the code
    // of a kernel whose work-item function stores every write at once, which then also runs
    // the CTAs whose registers are shown) every write is stored at once.
    let analysis = writeback::analyse(program, &segmented, through);
    let i64t = types::I64;
    let flags = MemFlagsData::trusted();
    let mut used = vec![false; program.registers.len()];
    for (index, instruction) in program.instructions.iter().enumerate() {
        if segmented[index] {
            registers::registers_of(instruction, |r, _| {
                if let Some(slot) = used.get_mut(r) {
                    *slot = true;
                }
            });
        }
    }
    let variables: Vec<Option<Variable>> = used
        .iter()
        .map(|&u| u.then(|| builder.declare_var(i64t)))
        .collect();
    let steps = builder.declare_var(i64t);
    let exit_pc = builder.declare_var(i64t);
    let exit_steps = builder.declare_var(i64t);
    let base = builder.declare_var(i64t);
    let lane = builder.declare_var(i64t);
    // The warp's steps since the entry, and the lane a segment's loop runs (0..32).
    let warp_steps = builder.declare_var(i64t);
    let lane_index = builder.declare_var(i64t);

    let entry = builder.create_block();
    builder.append_block_params_for_function_params(entry);
    builder.switch_to_block(entry);
    let context = builder.block_params(entry)[0];
    let field = |builder: &mut FunctionBuilder<'_>, offset: usize| {
        builder.ins().load(i64t, flags, context, offset_i32(offset))
    };
    let registers = field(builder, Context::REGISTERS);
    let stride = translate::register_stride_bytes(block);
    let pcs = field(builder, Context::PCS);
    let first = field(builder, Context::WARP_FIRST);
    let budget = builder.declare_var(i64t);
    let loaded = field(builder, Context::WARP_BUDGET);
    builder.def_var(budget, loaded);
    let steps_of = field(builder, Context::STEPS);
    let shared = field(builder, Context::SHARED);
    let shared_bytes = translate::static_shared_bytes(program);
    let shared_len = translate::shared_length(builder, shared_bytes, field);
    let windows = field(builder, Context::WINDOWS);
    let first_bytes = builder.ins().ishl_imm_s(first, 3);
    // The warp's lane 0 of register 0.
    let row = builder.ins().iadd(registers, first_bytes);
    let pc_at = builder.ins().iadd(pcs, first_bytes);
    let pc = builder.ins().load(i64t, flags, pc_at, 0);
    let zero = builder.ins().iconst(i64t, 0);
    builder.def_var(warp_steps, zero);

    let node_blocks: Vec<Option<Block>> = nodes
        .iter()
        .map(|node| node.map(|_| builder.create_block()))
        .collect();
    let none = builder.create_block();
    let table: Vec<_> = node_blocks
        .iter()
        .map(|&target| builder.func.dfg.block_call(target.unwrap_or(none), &[]))
        .collect();
    let default = builder.func.dfg.block_call(none, &[]);
    let table = builder.create_jump_table(JumpTableData::new(default, &table));
    let huge = builder
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThan, pc, i64::from(u32::MAX));
    let dispatch = builder.create_block();
    builder.ins().brif(huge, none, &[], dispatch, &[]);
    builder.switch_to_block(dispatch);
    let pc32 = builder.ins().ireduce(types::I32, pc);
    builder.ins().br_table(pc32, table);
    builder.switch_to_block(none);
    builder.ins().return_(&[]);

    // Every lane at `pc` with `k` more steps, and out.
    let leave = |builder: &mut FunctionBuilder<'_>, pc: u64, k: Value| {
        let pc = builder.ins().iconst(i64t, pc as i64);
        builder.ins().call(warp_helpers.leave, &[context, pc, k]);
        builder.ins().return_(&[]);
    };
    // On at node `pc` (with the warp's steps as they are), or out there.
    let goto =
        |builder: &mut FunctionBuilder<'_>, pc: usize| match node_blocks.get(pc).copied().flatten()
        {
            Some(block) => {
                builder.ins().jump(block, &[]);
            }
            None => {
                let k = builder.use_var(warp_steps);
                leave(builder, pc as u64, k);
            }
        };

    let frame = Segments {
        variables: &variables,
        analysis: &analysis,
        values: [
            context, shared, shared_len, windows, row, first, zero, steps_of,
        ],
        variables_of: [steps, exit_pc, exit_steps, base, lane, lane_index],
        helpers,
        stop: warp_helpers.stop,
        stride,
        block,
        limits: [program.param_bytes, program.constants.len() as u64],
    };
    // A second copy of each segment that runs for the lanes a divergent branch lets through
    // (`Segments::segment`'s mask) translates its instructions again.
    let mut masked_plans: Vec<Option<Option<Plan>>> =
        translate::plan(program).into_iter().map(Some).collect();
    let mut plans: Vec<Option<Option<Plan>>> = plans.into_iter().map(Some).collect();
    // Whether `length` more steps after `k` would pass the budget.
    let past_budget = |builder: &mut FunctionBuilder<'_>, k: Value, length: i64| {
        let end = builder.ins().iadd_imm_s(k, length);
        let left = builder.use_var(budget);
        builder.ins().icmp(IntCC::UnsignedGreaterThan, end, left)
    };
    let mut slots = slots;
    let mut needs = [0u64; 2];
    let mut blocks: Vec<Option<Block>> = vec![None; count + 1];
    let mut inline = 0;
    for (index, node) in nodes.iter().enumerate() {
        let (Some(node), Some(node_block)) = (*node, node_blocks[index]) else {
            continue;
        };
        builder.switch_to_block(node_block);
        let k0 = builder.use_var(warp_steps);
        let length = match node {
            Node::Segment(end) => end - index,
            _ => 1,
        };
        // No lane at or past its step limit: the interpreter stops each at exactly it.
        let spent = past_budget(builder, k0, length as i64);
        let run = builder.create_block();
        let out = builder.create_block();
        builder.set_cold_block(out);
        builder.ins().brif(spent, out, &[], run, &[]);
        builder.switch_to_block(out);
        leave(builder, index as u64, k0);
        builder.switch_to_block(run);
        let instruction = &program.instructions[index];
        match node {
            Node::Segment(end) => {
                frame.segment(
                    builder,
                    program,
                    (index, end, k0, None),
                    (&mut plans, &mut blocks, &mut slots, &mut needs),
                    (&mut *functions, &mut *conversions, &mut *texture_calls),
                );
                let k = builder.ins().iadd_imm_s(k0, length as i64);
                builder.def_var(warp_steps, k);
                goto(builder, end);
            }
            Node::Branch => {
                let K::Bra { target } = instruction.kind else {
                    unreachable!("a branch node is a `bra`");
                };
                let k = builder.ins().iadd_imm_s(k0, 1);
                builder.def_var(warp_steps, k);
                match instruction.guard {
                    None => goto(builder, target),
                    Some(guard) => {
                        // The guard's predicate in every lane: all, none, or some.
                        let p = guard.predicate.index();
                        let offset = stride.saturating_mul(p as u64);
                        let offset = builder.ins().iconst(i64t, offset as i64);
                        let at = builder.ins().iadd(row, offset);
                        // Two lanes a step (the host's 128-bit vectors; the row is 8-byte
                        // aligned), then the two halves.
                        let pairs = MemFlagsData::new().with_notrap();
                        let mut all = builder.ins().load(types::I64X2, pairs, at, 0);
                        let mut any = all;
                        for l in (2..WARP).step_by(2) {
                            let value = builder.ins().load(types::I64X2, pairs, at, (8 * l) as i32);
                            all = builder.ins().band(all, value);
                            any = builder.ins().bor(any, value);
                        }
                        let [all, any] = [(all, true), (any, false)].map(|(both, and)| {
                            let low = builder.ins().extractlane(both, 0);
                            let high = builder.ins().extractlane(both, 1);
                            let one = if and {
                                builder.ins().band(low, high)
                            } else {
                                builder.ins().bor(low, high)
                            };
                            builder.ins().band_imm_s(one, 1)
                        });
                        // `@!p`: taken where p is false.
                        let (taken_by_all, taken_by_none) = if guard.negated {
                            (builder.ins().icmp_imm_s(IntCC::Equal, any, 0), all)
                        } else {
                            (all, builder.ins().icmp_imm_s(IntCC::Equal, any, 0))
                        };
                        let taken = builder.create_block();
                        let not_all = builder.create_block();
                        let fall = builder.create_block();
                        let diverge = builder.create_block();
                        builder.ins().brif(taken_by_all, taken, &[], not_all, &[]);
                        builder.switch_to_block(taken);
                        goto(builder, target);
                        builder.switch_to_block(not_all);
                        builder.ins().brif(taken_by_none, fall, &[], diverge, &[]);
                        builder.switch_to_block(fall);
                        goto(builder, index + 1);
                        builder.switch_to_block(diverge);
                        if let Some(end) = masked_region(program, &nodes, index, target, guard) {
                            // The lanes where the guard is false run the segment up to the
                            // target, the others wait there: the warp goes on at the target.
                            let length = (end - index - 1) as i64;
                            let spent = past_budget(builder, k, length);
                            let masked = builder.create_block();
                            let apart = builder.create_block();
                            builder.set_cold_block(apart);
                            builder.ins().brif(spent, apart, &[], masked, &[]);
                            builder.switch_to_block(masked);
                            frame.segment(
                                builder,
                                program,
                                (
                                    index + 1,
                                    end,
                                    k,
                                    Some((guard.predicate.index(), guard.negated)),
                                ),
                                (&mut masked_plans, &mut blocks, &mut slots, &mut needs),
                                (&mut *functions, &mut *conversions, &mut *texture_calls),
                            );
                            // The lanes that ran it counted its steps themselves; every lane
                            // stays below its limit as long as the rest also fits in the
                            // budget less them.
                            let left = builder.use_var(budget);
                            let less = builder.ins().iadd_imm_s(left, -length);
                            builder.def_var(budget, less);
                            goto(builder, end);
                            builder.switch_to_block(apart);
                        } else {
                            builder.set_cold_block(diverge);
                        }
                        let values = [
                            p as i64,
                            i64::from(guard.negated),
                            target as i64,
                            index as i64 + 1,
                        ]
                        .map(|v| builder.ins().iconst(i64t, v));
                        let [p, negated, target, next] = values;
                        builder.ins().call(
                            warp_helpers.diverge,
                            &[context, p, negated, target, next, k],
                        );
                        builder.ins().return_(&[]);
                    }
                }
            }
            Node::End => {
                // PTX ISA 9.0, ret: "A return instruction executed in a top-level entry
                // routine will terminate thread execution"; after some thread's call a `ret`
                // may return from a function instead, and the interpreter runs it.
                if matches!(instruction.kind, K::Ret) {
                    let calls = field(builder, Context::CALLS);
                    let back = builder.create_block();
                    let out = builder.create_block();
                    builder.set_cold_block(back);
                    builder.ins().brif(calls, back, &[], out, &[]);
                    builder.switch_to_block(back);
                    leave(builder, index as u64, k0);
                    builder.switch_to_block(out);
                }
                let k = builder.ins().iadd_imm_s(k0, 1);
                leave(
                    builder,
                    index as u64 | ptxsim_exec::compiled::EXITED as u64,
                    k,
                );
            }
            Node::Op(number) => {
                let lanes = known.as_ref().and_then(|known| {
                    shuffle::constant_lanes(&ops[number], &tracked, &known[index])
                });
                if let Some(lanes) = lanes {
                    // The same constant lanes in every lane: generated inline.
                    // (With `through`, every result is written: the shown CTA's registers.)
                    let keep = writeback::keep_at(
                        analysis.live.as_deref().filter(|_| !through),
                        &analysis.other_lanes,
                        index + 1,
                    );
                    shuffle::generate(builder, &ops[number], &lanes, (row, stride), keep.as_ref());
                    inline += 1;
                    let k = builder.ins().iadd_imm_s(k0, 1);
                    builder.def_var(warp_steps, k);
                    goto(builder, index + 1);
                    continue;
                }
                let number = builder.ins().iconst(i64t, number as i64);
                let call = builder.ins().call(warp_helpers.op, &[context, number]);
                let made = builder.inst_results(call)[0];
                let on = builder.create_block();
                let back = builder.create_block();
                builder.set_cold_block(back);
                builder.ins().brif(made, on, &[], back, &[]);
                builder.switch_to_block(back);
                leave(builder, index as u64, k0);
                builder.switch_to_block(on);
                let k = builder.ins().iadd_imm_s(k0, 1);
                builder.def_var(warp_steps, k);
                goto(builder, index + 1);
            }
        }
    }
    builder.seal_all_blocks();
    WarpBuilt {
        entries: nodes.iter().map(Option::is_some).collect(),
        ops,
        slots,
        needs,
        inline,
    }
}

/// Per instruction: 1 for an unguarded `ret`, 2 for an unguarded `exit`, else 0
/// (`native::WarpCode::ends`).
pub(crate) fn ends(program: &Program) -> Vec<u8> {
    program
        .instructions
        .iter()
        .map(|instruction| match instruction.kind {
            _ if instruction.guard.is_some() => 0,
            K::Ret => 1,
            K::Exit => 2,
            _ => 0,
        })
        .collect()
}

/// Declares, builds and defines the warp function of `program` in `module` (for CTAs of shape
/// `block`, window slots from `slots`, `through` as for [`build`]), with `contexts`
/// (Cranelift's, reused); its id and what
/// [`build`] made. `dump`: its IR and machine code on standard error (`PTXSIM_JIT_DUMP`).
pub(crate) fn define(
    module: &mut cranelift_jit::JITModule,
    (context, builder_context): (
        &mut cranelift_codegen::Context,
        &mut cranelift_frontend::FunctionBuilderContext,
    ),
    program: &Program,
    (block, slots, through): ([u32; 3], usize, bool),
    tables: translate::Tables<'_>,
    dump: bool,
) -> Result<(cranelift_module::FuncId, WarpBuilt), crate::JitError> {
    use cranelift_module::{Linkage, Module};
    let error = |e: cranelift_module::ModuleError| crate::JitError(e.to_string());
    let call_conv = module.isa().default_call_conv();
    let mut ids = Vec::new();
    for (name, signature) in translate::helper_signatures(call_conv)
        .into_iter()
        .chain(helper_signatures(call_conv))
    {
        ids.push(
            module
                .declare_function(name, Linkage::Import, &signature)
                .map_err(error)?,
        );
    }
    let mut signature = Signature::new(call_conv);
    signature.params.push(AbiParam::new(types::I64));
    let id = module
        .declare_function("ptxsim_warp", Linkage::Export, &signature)
        .map_err(error)?;
    context.func.signature = signature;
    let built = {
        let mut builder = FunctionBuilder::new(&mut context.func, builder_context);
        let refs: Vec<FuncRef> = ids
            .iter()
            .map(|&id| module.declare_func_in_func(id, builder.func))
            .collect();
        let helpers = Helpers {
            load: refs[0],
            store: refs[1],
            lane: refs[2],
            convert: refs[3],
            atom: refs[4],
            texture: refs[5],
        };
        let warp_helpers = WarpHelpers {
            op: refs[6],
            leave: refs[7],
            stop: refs[8],
            diverge: refs[9],
        };
        let built = build(
            &mut builder,
            program,
            translate::plan(program),
            tables,
            (helpers, warp_helpers),
            (block, slots, through),
        );
        builder.finalize(module.target_config());
        built
    };
    if dump {
        eprintln!("{}", context.func.display());
    }
    context.set_disasm(dump);
    module.define_function(id, context).map_err(error)?;
    if let Some(code) = context.compiled_code()
        && let Some(disasm) = &code.vcode
    {
        eprintln!("{disasm}");
    }
    module.clear_context(context);
    Ok((id, built))
}
