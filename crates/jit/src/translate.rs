//! A kernel's program translated to Cranelift IR: one function that runs the threads of a
//! CTA that its context lists ([`crate::native::Context`]), one after another (a work-item
//! loop, as in MCUDA and POCL), each from its program counter through the instructions the
//! function covers, with the thread's registers in Cranelift variables, up to the first
//! instruction the interpreter must run ([`ptxsim_exec::compiled`]).
//!
//! Shape of the function:
//! * the entry block loads the context; the loop's head takes the next listed thread, loads
//!   its counters and dispatches on its program counter (a jump table over all
//!   instructions) to a block that loads the registers live there;
//! * each covered instruction `i` has a block that counts the step, tests the guard and runs
//!   the instruction; the first instruction of a run first leaves with `pc = i` when the run
//!   would pass the thread's step limit (the interpreter then stops it at exactly the limit,
//!   as it would);
//! * a thread leaves through the exit block, which stores its counters and goes on with the
//!   next thread;
//! * an instruction whose memory access the generated code cannot make (an access outside the
//!   CTA's own shared memory that the helper refuses, a misaligned vector) stores the
//!   thread's counters with `pc = i` and the step not counted, and returns: the interpreter
//!   makes it, or reports its fault, and runs the rest of the CTA;
//! * registers live in Cranelift variables from the thread's entry until it leaves: an entry
//!   loads what the code may read (or store) before writing it, and each way out stores the
//!   registers written since the entry that the program may still read there
//!   ([`crate::writeback`]), then goes to the exit block, which stores the counters. The
//!   function for a CTA whose registers are shown after its run (`through`) stores every
//!   write at once instead.
//!
//! Semantics come from `ptxsim-exec`: the common integer, `f32` and memory forms are generated
//! here exactly as the interpreter computes them (chop to the type's width, Table 28's
//! extension, the canonical NaN of `f32` results); every other one-register operation calls
//! the interpreter's own lane function ([`ptxsim_exec::compiled::lane_op`]).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, FuncRef, InstBuilder, JumpTableData, MemFlagsData, Signature, Value,
    types,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use ptxsim_exec::compiled::{LaneFn, LaneOp, SPECIALS, lane_op, special_index};
use ptxsim_exec::cvt::ElementConversion;
use ptxsim_exec::ir::{
    Destination, Instruction, InstructionKind as K, MemoryOperand, Program, RegisterId, Source,
    SpecialRegister,
};
use ptxsim_exec::semantics::Extension;
use ptxsim_isa::Type;
use ptxsim_isa::ops::{
    BoolOp, Compare, FloatModifiers, FloatOp, FloatUnaryOp, IntOp, MulMode, Space,
};

use crate::native::{self, Context};
use crate::registers::{self, Use, successors};
use crate::writeback::{self, Analysis};

mod convert;

/// The helpers the generated code calls.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Helpers {
    pub(crate) load: FuncRef,
    pub(crate) store: FuncRef,
    pub(crate) lane: FuncRef,
    pub(crate) convert: FuncRef,
    pub(crate) atom: FuncRef,
    pub(crate) texture: FuncRef,
}

/// The signature of a helper the generated code calls: `params` in, `returns` out.
pub(crate) fn helper_signature(
    call_conv: cranelift_codegen::isa::CallConv,
    params: &[types::Type],
    returns: &[types::Type],
) -> Signature {
    let mut signature = Signature::new(call_conv);
    signature
        .params
        .extend(params.iter().map(|&t| AbiParam::new(t)));
    signature
        .returns
        .extend(returns.iter().map(|&t| AbiParam::new(t)));
    signature
}

/// The signatures of the helpers ([`native`]'s `extern "C"` functions), for `call_conv`.
pub(crate) fn helper_signatures(
    call_conv: cranelift_codegen::isa::CallConv,
) -> [(&'static str, Signature); 6] {
    let i64 = types::I64;
    let i32 = types::I32;
    let signature = |params: &[types::Type], returns: &[types::Type]| {
        helper_signature(call_conv, params, returns)
    };
    [
        (
            "ptxsim_jit_load",
            signature(&[i64, i32, i64, i32, i32], &[i32]),
        ),
        (
            "ptxsim_jit_store",
            signature(&[i64, i32, i64, i32, i32, i64], &[i32]),
        ),
        (
            "ptxsim_jit_lane",
            signature(&[i64, i64, i64, i64, i64], &[i64]),
        ),
        ("ptxsim_jit_convert", signature(&[i64, i64], &[i64])),
        (
            "ptxsim_jit_atom",
            signature(&[i64, i32, i64, i32, i64, i64, i64], &[i32]),
        ),
        (
            "ptxsim_jit_texture",
            signature(&[i64, i64, i64, i64, i64, i64, i64], &[i32]),
        ),
    ]
}

/// How the translation covers an instruction.
#[derive(Debug)]
pub(crate) enum Plan {
    /// Generated here.
    Inline,
    /// Through the interpreter's lane function.
    Lane(LaneOp),
}

/// The program's registers of at most 64 bits (wider ones are not compiled).
fn narrow(program: &Program, register: RegisterId) -> bool {
    program
        .registers
        .get(register.index())
        .is_some_and(|r| r.bits() <= 64)
}

fn source_ok(program: &Program, source: Source) -> bool {
    match source {
        Source::Register(r) | Source::RegisterPlus(r, _) => narrow(program, r),
        Source::Immediate(_) | Source::SharedAddress(_) => true,
        Source::Special(special) => special_index(special).is_some() || clock(special).is_some(),
    }
}

/// The special registers that count time, as the interpreter reads them (`%clock`,
/// `%clock_hi`, `%clock64`, `%globaltimer` and its halves: the thread's instructions issued
/// before this one, docs/executor.md): the right shift and the mask of the step count.
fn clock(special: SpecialRegister) -> Option<(i64, u64)> {
    match special {
        SpecialRegister::Clock | SpecialRegister::GlobalTimer(Some(false)) => {
            Some((0, 0xffff_ffff))
        }
        SpecialRegister::ClockHi | SpecialRegister::GlobalTimer(Some(true)) => Some((32, u64::MAX)),
        SpecialRegister::Clock64 | SpecialRegister::GlobalTimer(None) => Some((0, u64::MAX)),
        _ => None,
    }
}

fn destination_ok(program: &Program, destination: Destination) -> bool {
    narrow(program, destination.register) && destination.ty.bits() <= 64
}

/// The spaces whose loads and stores are compiled (`.shared::cluster` and the others go to the
/// interpreter).
fn space_ok(space: Space) -> bool {
    matches!(
        space,
        Space::Global | Space::Shared | Space::Local | Space::Param | Space::Const | Space::Generic
    )
}

fn address_ok(program: &Program, address: &MemoryOperand) -> bool {
    source_ok(program, address.base)
}

/// Whether an `atom`/`red` is compiled: a scalar update of 32 or 64 bits in global, shared or
/// generic memory (the helper makes it as the interpreter does; `.shared::cluster` and the
/// other forms stay with the interpreter).
fn atom_ok(
    program: &Program,
    space: Space,
    ty: Type,
    destination: Option<Destination>,
    address: &MemoryOperand,
    b: Source,
    c: Option<Source>,
) -> bool {
    matches!(space, Space::Global | Space::Shared | Space::Generic)
        && matches!(ty.bits(), 32 | 64)
        && address_ok(program, address)
        && source_ok(program, b)
        && c.is_none_or(|c| source_ok(program, c))
        && destination.is_none_or(|d| destination_ok(program, d))
}

/// Whether a texture or surface instruction is compiled: the reads (`tex`, `tld4`, `txq`,
/// `suld`, `suq`) with at most four coordinates, through the interpreter's function for one
/// lane; `sust` and `sured` (writes) stay with the interpreter.
fn texture_ok(program: &Program, texture: &ptxsim_exec::ir::TextureInstruction) -> bool {
    use ptxsim_exec::ir::TextureOp;
    matches!(
        texture.op,
        TextureOp::Tex(_) | TextureOp::Txq { .. } | TextureOp::Suld(_) | TextureOp::Suq(_)
    ) && texture.coordinates.len() <= 4
        && source_ok(program, texture.handle)
        && texture.coordinates.iter().all(|&c| source_ok(program, c))
        && texture
            .destinations
            .iter()
            .flatten()
            .all(|&d| destination_ok(program, d))
        && ptxsim_exec::compiled::texture_result_type(&texture.op).bits() <= 64
}

/// Decides which instructions are compiled, and how.
pub(crate) fn plan(program: &Program) -> Vec<Option<Plan>> {
    program
        .instructions
        .iter()
        .map(|instruction| plan_one(program, instruction))
        .collect()
}

fn plan_one(program: &Program, instruction: &Instruction) -> Option<Plan> {
    if let Some(guard) = instruction.guard
        && !narrow(program, guard.predicate)
    {
        return None;
    }
    let inline = match &instruction.kind {
        &K::Mov {
            ty,
            destination,
            source,
        } => ty.bits() <= 64 && source_ok(program, source) && destination_ok(program, destination),
        K::Setp {
            ty,
            combine,
            p,
            q,
            a,
            b,
            ..
        } => {
            ty.bits() <= 64
                && source_ok(program, *a)
                && source_ok(program, *b)
                && combine.is_none_or(|(_, c)| source_ok(program, c.source))
                && destination_ok(program, *p)
                && q.is_none_or(|q| destination_ok(program, q))
        }
        K::Ld {
            space,
            ty,
            destinations,
            address,
        } => {
            space_ok(*space)
                && ty.bits() <= 64
                && destinations.len() <= 8
                && address_ok(program, address)
                && destinations
                    .iter()
                    .flatten()
                    .all(|&d| destination_ok(program, d))
        }
        K::St {
            space,
            ty,
            address,
            sources,
        } => {
            space_ok(*space)
                && *space != Space::Const
                && ty.bits() <= 64
                && sources.len() <= 8
                && address_ok(program, address)
                && sources.iter().all(|&s| source_ok(program, s))
        }
        K::Bra { .. } | K::Ret | K::Exit => true,
        K::Atom {
            space,
            ty,
            destination,
            address,
            b,
            c,
            ..
        } => atom_ok(program, *space, *ty, *destination, address, *b, *c),
        K::Texture(texture) => texture_ok(program, texture),
        _ => false,
    };
    if inline {
        return Some(Plan::Inline);
    }
    let op = lane_op(&instruction.kind)?;
    let ok =
        op.sources.iter().all(|&(s, _)| source_ok(program, s)) && narrow(program, op.destination);
    ok.then_some(Plan::Lane(op))
}

/// Builds the function body into `builder` (whose signature is `fn(*mut Context)`).
/// Where compiled runs start, and how long they are. A run starts at a covered instruction
/// that a thread can reach other than by falling through from a covered instruction: the first
/// instruction, a branch target, the instruction after a branch or after one the interpreter
/// runs. It ends at the next start, at a branch (included) or at an instruction the interpreter
/// runs. The generated code is entered at run starts only (the jump table's other entries
/// return at once, and [`crate::Kernel`] covers only run starts), so that an instruction in a
/// run has one predecessor and its values flow without merges; and it checks the step limit
/// once per run: `steps + length > max_steps` hands the run's first instruction to the
/// interpreter, which then issues instruction by instruction up to the exact limit.
pub(crate) fn runs(program: &Program, covered: &[bool]) -> Vec<Option<u64>> {
    let count = program.instructions.len();
    let mut leader = vec![false; count + 1];
    leader[0] = true;
    for (index, instruction) in program.instructions.iter().enumerate() {
        if !covered[index] {
            leader[index + 1] = true;
        }
        match instruction.kind {
            K::Bra { target } => {
                leader[index + 1] = true;
                if let Some(slot) = leader.get_mut(target) {
                    *slot = true;
                }
            }
            K::Ret | K::Exit => leader[index + 1] = true,
            _ => {}
        }
    }
    (0..count)
        .map(|start| {
            (leader[start] && covered[start]).then(|| {
                let mut length = 0;
                let mut at = start;
                while at < count && covered[at] && (at == start || !leader[at]) {
                    length += 1;
                    if matches!(
                        program.instructions[at].kind,
                        K::Bra { .. } | K::Ret | K::Exit
                    ) {
                        break;
                    }
                    at += 1;
                }
                length
            })
        })
        .collect()
}

/// Where the step limit is checked, and for how many steps (December 2026): a thread that
/// enters the code at a run start `i` may run on through the runs its last instruction leads
/// to without a check of its own, as long as the check where it entered covered them.
/// `reach[i]` is the length of run `i` plus the longest `reach` of the runs it leads to
/// (its branch's target and, where it falls through or the branch is guarded, the next run),
/// leaving out those that check for themselves: the `headers`, the targets of the back
/// edges of a depth-first walk over the runs (loops). A thread entering at `i` from the
/// interpreter is checked once for `reach[i]` steps; a header checks again each time a thread
/// reaches it, for its own `reach`. Every cycle of runs holds a back edge, so a path without
/// a header issues at most the `reach` checked where it began: no instruction at or past
/// the limit runs compiled (the interpreter issues the rest, up to the exact limit, as
/// before). Before, every run start checked its own length (three checks a thread on the
/// FP8 conversion kernel, one).
pub(crate) fn reaches(program: &Program, starts: &[Option<u64>]) -> (Vec<u64>, Vec<bool>) {
    let count = starts.len();
    // The runs each run leads to within the code.
    let successors: Vec<Vec<usize>> = (0..count)
        .map(|start| {
            let Some(length) = starts[start] else {
                return Vec::new();
            };
            let last = start + length as usize - 1;
            let Some(instruction) = program.instructions.get(last) else {
                return Vec::new();
            };
            let mut next = Vec::new();
            match instruction.kind {
                K::Bra { target } => {
                    next.push(target);
                    if instruction.guard.is_some() {
                        next.push(last + 1);
                    }
                }
                K::Ret | K::Exit => {
                    if instruction.guard.is_some() {
                        next.push(last + 1);
                    }
                }
                _ => next.push(last + 1),
            }
            next.retain(|&at| starts.get(at).copied().flatten().is_some());
            next.dedup();
            next
        })
        .collect();
    // Depth-first over the runs from each start in turn: an edge to a run on the walk's
    // stack is a back edge, its target a header. 0: not seen, 1: on the stack, 2: done.
    let mut state = vec![0u8; count];
    let mut headers = vec![false; count];
    for root in 0..count {
        if starts[root].is_none() || state[root] != 0 {
            continue;
        }
        state[root] = 1;
        let mut stack = vec![(root, 0usize)];
        while let Some((node, edge)) = stack.last_mut() {
            let node = *node;
            if let Some(&next) = successors[node].get(*edge) {
                *edge += 1;
                match state[next] {
                    0 => {
                        state[next] = 1;
                        stack.push((next, 0));
                    }
                    1 => headers[next] = true,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    // Without the edges into headers the runs form no cycle: `reach` by a walk that
    // finishes each run's successors first.
    let mut reach: Vec<Option<u64>> = vec![None; count];
    for root in 0..count {
        if starts[root].is_none() || reach[root].is_some() {
            continue;
        }
        let mut stack = vec![root];
        while let Some(&node) = stack.last() {
            let pending: Vec<usize> = successors[node]
                .iter()
                .copied()
                .filter(|&next| !headers[next] && reach[next].is_none())
                .collect();
            if pending.is_empty() {
                let longest = successors[node]
                    .iter()
                    .filter(|&&next| !headers[next])
                    .filter_map(|&next| reach[next])
                    .max()
                    .unwrap_or(0);
                reach[node] = Some(starts[node].unwrap_or(0).saturating_add(longest));
                stack.pop();
            } else {
                stack.extend(pending);
            }
        }
    }
    (reach.into_iter().map(|r| r.unwrap_or(0)).collect(), headers)
}

/// The run starts worth entering: those from which a thread runs at least `min` compiled
/// instructions, or a loop, before it reaches one the interpreter runs. Shorter stretches
/// (between two warp shuffles, say) cost more to enter and leave than to run, and the
/// interpreter runs them in lockstep for the whole group instead.
pub(crate) fn entries(program: &Program, covered: &[bool], min: usize) -> Vec<bool> {
    let starts = runs(program, covered);
    let count = program.instructions.len();
    let mut seen = vec![usize::MAX; count];
    (0..count)
        .map(|start| {
            if starts[start].is_none() {
                return false;
            }
            // A walk over the compiled instructions reachable from `start`, up to `min` of
            // them; meeting one twice is a loop.
            let mut stack = vec![start];
            let mut visited = 0;
            while let Some(at) = stack.pop() {
                if at >= count || !covered[at] {
                    continue;
                }
                if seen[at] == start {
                    return true;
                }
                seen[at] = start;
                visited += 1;
                if visited >= min {
                    return true;
                }
                let instruction = &program.instructions[at];
                match instruction.kind {
                    K::Bra { target } => {
                        stack.push(target);
                        if instruction.guard.is_some() {
                            stack.push(at + 1);
                        }
                    }
                    // The thread ends here (or, guarded, may go on).
                    K::Ret | K::Exit => {
                        if instruction.guard.is_some() {
                            stack.push(at + 1);
                        }
                    }
                    _ => stack.push(at + 1),
                }
            }
            false
        })
        .collect()
}

/// What [`build`] made besides the code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Built {
    /// The number of window slots the code uses.
    pub(crate) slots: usize,
    /// The bytes of the kernel's parameters and of the `.const` space that its loads from
    /// constant addresses read without a bounds check: the code may only run where there are
    /// at least that many ([`crate::native::Code::run`] checks it).
    pub(crate) needs: [u64; 2],
    /// The length of the CTA's shared memory the code's bounds checks assume, when it is a
    /// constant (no dynamic shared memory): the code may only run where the CTA has at least
    /// that many bytes (an access past them is handed to the interpreter).
    pub(crate) shared: Option<u64>,
    /// Whether the code stores every write at once ([`writeback::Analysis::through`]): then it
    /// serves CTAs whose registers are shown too.
    pub(crate) through: bool,
    /// The register stores at its ways out ([`writeback::Analysis::stores`]).
    pub(crate) stores: usize,
}

/// The lane functions the code calls go into `functions`, numbered by their place, and the
/// conversions it calls `ptxsim_jit_convert` with into `conversions`, which the code names by
/// address. The code is for CTAs of shape `block`; with `through` every register write is
/// stored at once (the code for a CTA whose registers are shown, [`crate::writeback`]).
// The tables the code names (lane functions, conversions, texture calls) are separate
// arguments, as `native::Code::new` takes them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    builder: &mut FunctionBuilder<'_>,
    program: &Program,
    plans: Vec<Option<Plan>>,
    functions: &mut Vec<LaneFn>,
    conversions: &mut Vec<std::pin::Pin<Box<ElementConversion>>>,
    texture_calls: &mut Vec<native::TextureCall>,
    helpers: Helpers,
    (block, through): ([u32; 3], bool),
) -> Built {
    let count = program.instructions.len();
    let covered: Vec<bool> = plans.iter().map(Option::is_some).collect();
    // The registers the compiled instructions read or write.
    let mut used = vec![false; program.registers.len()];
    for (index, instruction) in program.instructions.iter().enumerate() {
        if covered[index] {
            let mut registers = Vec::new();
            let mut also = Vec::new();
            registers_of(instruction, |r| registers.push(r), |r| also.push(r));
            for r in registers.into_iter().chain(also) {
                if let Some(slot) = used.get_mut(r) {
                    *slot = true;
                }
            }
        }
    }

    let entry = builder.create_block();
    builder.append_block_params_for_function_params(entry);
    let blocks: Vec<Option<Block>> = covered
        .iter()
        .map(|&c| c.then(|| builder.create_block()))
        .collect();
    let exit = builder.create_block();

    let i64t = types::I64;
    let variables: Vec<Option<Variable>> = used
        .iter()
        .map(|&u| u.then(|| builder.declare_var(i64t)))
        .collect();
    let steps = builder.declare_var(i64t);
    let exit_pc = builder.declare_var(i64t);
    let exit_steps = builder.declare_var(i64t);
    // The loop over the listed threads: the place in the list, the thread, and its register
    // 0 in the register file.
    let index = builder.declare_var(i64t);
    let lane = builder.declare_var(i64t);
    let base = builder.declare_var(i64t);

    // Entry: the context.
    builder.switch_to_block(entry);
    let context = builder.block_params(entry)[0];
    let flags = MemFlagsData::trusted();
    let field = |builder: &mut FunctionBuilder<'_>, offset: usize| {
        builder.ins().load(i64t, flags, context, offset_i32(offset))
    };
    let registers = field(builder, Context::REGISTERS);
    let stride = register_stride_bytes(block);
    let lanes = field(builder, Context::LANES);
    let lanes_len = field(builder, Context::LANES_LEN);
    let pcs = field(builder, Context::PCS);
    let steps_of = field(builder, Context::STEPS);
    let max_steps = field(builder, Context::MAX_STEPS);
    let shared = field(builder, Context::SHARED);
    let shared_bytes = static_shared_bytes(program);
    let shared_len = shared_length(builder, shared_bytes, field);
    let windows = field(builder, Context::WINDOWS);
    let zero = builder.ins().iconst(i64t, 0);
    builder.def_var(index, zero);
    let head = builder.create_block();
    let finished = builder.create_block();
    let stop = builder.create_block();
    builder.ins().jump(head, &[]);

    // Head: the next thread of the list, its counters and registers, the dispatch.
    builder.switch_to_block(head);
    let at = builder.use_var(index);
    let more = builder.ins().icmp(IntCC::UnsignedLessThan, at, lanes_len);
    let next = builder.create_block();
    builder.ins().brif(more, next, &[], finished, &[]);
    builder.switch_to_block(next);
    let offset = builder.ins().ishl_imm_s(at, 2);
    let slot = builder.ins().iadd(lanes, offset);
    let this = builder.ins().uload32(flags, slot, 0);
    builder.def_var(lane, this);
    builder
        .ins()
        .store(flags, this, context, offset_i32(Context::LANE));
    let lane_bytes = builder.ins().ishl_imm_s(this, 3);
    let lane_base = builder.ins().iadd(registers, lane_bytes);
    builder.def_var(base, lane_base);
    let pc_at = builder.ins().iadd(pcs, lane_bytes);
    let pc = builder.ins().load(i64t, flags, pc_at, 0);
    let steps_at = builder.ins().iadd(steps_of, lane_bytes);
    let steps0 = builder.ins().load(i64t, flags, steps_at, 0);
    builder.def_var(steps, steps0);
    builder.def_var(exit_pc, pc);
    builder.def_var(exit_steps, steps0);
    let bail = builder.create_block();
    let runs = runs(program, &covered);
    // Each run start is entered through a block that loads the registers live there.
    let analysis = writeback::analyse(program, &covered, through);
    let mut entries = vec![bail; count];
    let mut loads = Vec::new();
    for index in 0..count {
        if let (Some(_), Some(block)) = (runs[index], blocks[index]) {
            let load = builder.create_block();
            entries[index] = load;
            loads.push((index, load, block));
        }
    }
    let table: Vec<_> = entries
        .iter()
        .map(|&target| builder.func.dfg.block_call(target, &[]))
        .collect();
    let default = builder.func.dfg.block_call(bail, &[]);
    let table = builder.create_jump_table(JumpTableData::new(default, &table));
    // A thread at the first instruction (every thread of a CTA that has not run yet) goes
    // straight to its entry, without the table's bounds checks and indirect jump.
    if entries.first().is_some_and(|&first| first != bail) {
        let other = builder.create_block();
        builder.ins().brif(pc, other, &[], entries[0], &[]);
        builder.switch_to_block(other);
    }
    let pc32 = builder.ins().ireduce(types::I32, pc);
    // A program counter past the table (2^32 instructions and more) takes the default.
    let huge = builder
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThan, pc, i64::from(u32::MAX));
    let dispatch = builder.create_block();
    builder.ins().brif(huge, bail, &[], dispatch, &[]);
    builder.switch_to_block(dispatch);
    builder.ins().br_table(pc32, table);
    builder.switch_to_block(bail);
    builder.ins().jump(exit, &[]);
    let (reach, headers) = reaches(program, &runs);
    for (index, load, block) in loads {
        builder.switch_to_block(load);
        if !headers[index] {
            // Entered from the interpreter: the runs it may go through without a header's
            // check must fit below the step limit, else the interpreter takes the thread
            // (at its program counter, with its counters and registers unchanged).
            let now = builder.use_var(steps);
            let end = builder.ins().iadd_imm_s(now, reach[index] as i64);
            let spent = builder
                .ins()
                .icmp(IntCC::UnsignedGreaterThan, end, max_steps);
            let fits = builder.create_block();
            builder.ins().brif(spent, bail, &[], fits, &[]);
            builder.switch_to_block(fits);
        }
        let thread_base = builder.use_var(base);
        for (register, variable) in variables.iter().enumerate() {
            let is_live = writeback::contains(&analysis.load[index], register);
            if let (Some(variable), true) = (*variable, is_live) {
                let (at, offset) = register_address(builder, thread_base, stride, register);
                let value = builder.ins().load(i64t, flags, at, offset);
                builder.def_var(variable, value);
            }
        }
        builder.ins().jump(block, &[]);
    }

    let mut t = Translator {
        builder,
        variables: &variables,
        context,
        shared,
        shared_len,
        limits: [program.param_bytes, program.constants.len() as u64],
        needs: [0; 2],
        helpers,
        steps,
        exit_pc,
        exit_steps,
        exit,
        blocks: &blocks,
        functions,
        conversions,
        texture_calls,
        constants: vec![None; program.registers.len()],
        base,
        lane,
        stride,
        block,
        stop,
        windows,
        slots: 0,
        slot: 0,
        analysis: &analysis,
        dirty: Vec::new(),
        pc: 0,
        calls: program
            .instructions
            .iter()
            .any(|i| matches!(i.kind, K::Call { .. } | K::CallIndirect { .. })),
    };
    for ((index, instruction), plan) in program.instructions.iter().enumerate().zip(plans) {
        let Some(block) = blocks[index] else {
            continue;
        };
        t.builder.switch_to_block(block);
        t.pc = index;
        t.dirty.clone_from(&analysis.dirty_in[index]);
        let before = t.builder.use_var(steps);
        if runs[index].is_some() {
            // A run start: reached from elsewhere, with registers of any value.
            t.constants.fill(None);
        }
        if runs[index].is_some() && headers[index] {
            // No instruction at or past the step limit: a header whose `reach` would pass it
            // goes to the interpreter, which stops the thread at exactly the limit (other
            // run starts are covered by the check where the thread entered, [`reaches`]).
            let end = t.builder.ins().iadd_imm_s(before, reach[index] as i64);
            let spent = t
                .builder
                .ins()
                .icmp(IntCC::UnsignedGreaterThan, end, max_steps);
            let run = t.builder.create_block();
            let out = t.builder.create_block();
            t.builder.set_cold_block(out);
            t.builder.ins().brif(spent, out, &[], run, &[]);
            t.builder.switch_to_block(out);
            t.leave(index, before, Store::LiveAt(index));
            t.builder.switch_to_block(run);
        }
        let after = t.builder.ins().iadd_imm_s(before, 1);
        t.builder.def_var(steps, after);
        t.instruction(index, instruction, plan, before);
    }

    // Exit of a thread: its counters back, then the next thread.
    t.builder.switch_to_block(exit);
    t.store_counters(pcs, steps_of);
    let at = t.builder.use_var(index);
    let after = t.builder.ins().iadd_imm_s(at, 1);
    t.builder.def_var(index, after);
    t.builder.ins().jump(head, &[]);
    // A thread handed back at an access the code did not make: its counters back, and no
    // thread after it.
    t.builder.switch_to_block(stop);
    t.store_counters(pcs, steps_of);
    t.builder.ins().return_(&[]);
    t.builder.switch_to_block(finished);
    t.builder.ins().return_(&[]);
    t.builder.seal_all_blocks();
    Built {
        slots: t.slots,
        needs: t.needs,
        shared: shared_bytes,
        through: analysis.through,
        stores: analysis.stores,
    }
}

/// Where register `register` of the thread whose register 0 is at `base` lies, as an address
/// and an offset from it.
pub(crate) fn register_address(
    builder: &mut FunctionBuilder<'_>,
    base: Value,
    stride: u64,
    register: usize,
) -> (Value, i32) {
    let offset = stride.saturating_mul(register as u64);
    match i32::try_from(offset) {
        Ok(offset) => (base, offset),
        Err(_) => {
            let offset = builder.ins().iconst(types::I64, offset as i64);
            (builder.ins().iadd(base, offset), 0)
        }
    }
}

/// The distance between a thread's registers in bytes: the register file's row stride for
/// the CTA's thread count (the code is built for one CTA shape, `Code::run` checks it).
pub(crate) fn register_stride_bytes(block: [u32; 3]) -> u64 {
    let threads: usize = block.iter().map(|&d| d as usize).product();
    (ptxsim_exec::compiled::register_stride(threads) as u64).saturating_mul(8)
}

/// The CTA's shared-memory length where it is a constant of the code: without dynamic shared
/// memory a CTA's shared memory is the program's static declarations
/// (`Device::shared_size`), which `Code::run` checks.
pub(crate) fn static_shared_bytes(program: &Program) -> Option<u64> {
    program
        .dynamic_shared
        .is_none()
        .then_some(program.shared_bytes)
        .filter(|&bytes| i64::try_from(bytes).is_ok())
}

/// The CTA's shared-memory length for the bounds checks: the constant `shared_bytes`
/// ([`static_shared_bytes`]), so that the checks take immediates rather than a register, else
/// what `field` loads from the context.
pub(crate) fn shared_length(
    builder: &mut FunctionBuilder<'_>,
    shared_bytes: Option<u64>,
    field: impl FnOnce(&mut FunctionBuilder<'_>, usize) -> Value,
) -> Value {
    match shared_bytes {
        Some(bytes) => builder.ins().iconst(types::I64, bytes as i64),
        None => field(builder, Context::SHARED_LEN),
    }
}

pub(crate) fn offset_i32(offset: usize) -> i32 {
    i32::try_from(offset).unwrap_or(i32::MAX)
}

/// Calls `read` for each register the compiled `instruction` reads and `write` for each it
/// writes ([`registers::registers_of`], which lists every write of the instructions compiled).
fn registers_of(
    instruction: &Instruction,
    mut read: impl FnMut(usize),
    mut write: impl FnMut(usize),
) {
    registers::registers_of(instruction, |r, how| match how {
        Use::Write => write(r),
        Use::Read | Use::ReadOtherLanes => read(r),
    });
}

/// Whether a shared-memory load may read a shared-memory store of another thread with only
/// compiled instructions between them: code that hands values between the threads of a warp
/// through shared memory without `__syncwarp` or a barrier (written for the lockstep warps of
/// GPUs before Volta; HeCBench's romberg). The interpreter runs such code in lockstep, as those
/// GPUs did; compiled code runs a CTA's threads one after another up to the next instruction
/// the interpreter issues (a barrier, a warp-synchronous instruction, anything not compiled),
/// so the reader may run before the writer. `auto` leaves such kernels to the interpreter.
/// A forward walk over the control flow: "a shared store since the last instruction the
/// interpreter issues" reaches a shared load.
pub(crate) fn shared_exchange_without_barrier(program: &Program, compiled: &[bool]) -> bool {
    !shared_loads_after_stores(program, compiled).is_empty()
}

/// The compiled shared-memory loads that a compiled shared store (or atomic) reaches through
/// compiled instructions only ([`shared_exchange_without_barrier`]'s walk, collecting every
/// such load instead of stopping at the first). [`crate::compile`] leaves them to the
/// interpreter: every thread then runs up to the load before any thread makes it, as in
/// lockstep, so a thread reads what the threads before it in the CTA stored since the last
/// instruction the interpreter issued (romberg's thread 0 finds what threads 1-16 stored). Only
/// instructions go from compiled to interpreted, which cuts paths: no compiled shared load is
/// reached so afterwards.
pub(crate) fn shared_loads_after_stores(program: &Program, compiled: &[bool]) -> Vec<usize> {
    let mut loads = Vec::new();
    let shared = |space: ptxsim_isa::ops::Space| {
        matches!(
            space,
            ptxsim_isa::ops::Space::Shared | ptxsim_isa::ops::Space::SharedCluster
        )
    };
    let count = program.instructions.len();
    let mut stored = vec![false; count];
    let mut work: Vec<usize> = Vec::new();
    let reach = |next: usize, stored: &mut Vec<bool>, work: &mut Vec<usize>| {
        if next < count && !stored[next] {
            stored[next] = true;
            work.push(next);
        }
    };
    // Seeds: the instructions after each compiled shared store, or atomic (whose old value
    // `auto` lets nothing read, `crate::keeps_interpreter`: it stores, and what it loads
    // shows nowhere, so it is no load here).
    for (index, instruction) in program.instructions.iter().enumerate() {
        if compiled.get(index) == Some(&true)
            && matches!(instruction.kind,
                K::St { space, .. } | K::Atom { space, .. } if shared(space))
        {
            for next in successors(program, index) {
                reach(next, &mut stored, &mut work);
            }
        }
    }
    while let Some(index) = work.pop() {
        if compiled.get(index) != Some(&true) {
            continue;
        }
        if matches!(program.instructions[index].kind, K::Ld { space, .. } if shared(space)) {
            loads.push(index);
            continue;
        }
        for next in successors(program, index) {
            reach(next, &mut stored, &mut work);
        }
    }
    loads
}

pub(crate) struct Translator<'a, 'b> {
    builder: &'a mut FunctionBuilder<'b>,
    variables: &'a [Option<Variable>],
    context: Value,
    shared: Value,
    shared_len: Value,
    /// The sizes the program declares for the kernel's parameters and the `.const` space, and
    /// how many bytes of each the loads from constant addresses read ([`Built::needs`]).
    limits: [u64; 2],
    needs: [u64; 2],
    helpers: Helpers,
    steps: Variable,
    exit_pc: Variable,
    exit_steps: Variable,
    exit: Block,
    blocks: &'a [Option<Block>],
    functions: &'a mut Vec<LaneFn>,
    conversions: &'a mut Vec<std::pin::Pin<Box<ElementConversion>>>,
    /// The texture and surface instructions the code makes through `ptxsim_jit_texture`.
    texture_calls: &'a mut Vec<native::TextureCall>,
    /// Per register, its value when every thread reaching the instruction being translated
    /// has the same one (set by a `mov` of an immediate earlier in the same run).
    constants: Vec<Option<u64>>,
    /// The thread's register 0 in the register file, its index in the CTA, and the distance
    /// between registers.
    base: Variable,
    lane: Variable,
    stride: u64,
    /// The CTA's shape (`%ntid`).
    block: [u32; 3],
    /// Where a thread handed back at an access the code did not make leaves (the last one).
    stop: Block,
    /// The global buffers the memory instructions accessed last (`native::Window`s, one
    /// slot per instruction that may access global memory), how many slots there are, and
    /// the slot of the instruction being translated.
    windows: Value,
    slots: usize,
    slot: usize,
    /// Where the registers are ([`crate::writeback`]), the registers the code may have written
    /// since the thread entered, at the point being translated, and the instruction translated.
    analysis: &'a Analysis,
    dirty: writeback::Set,
    pc: usize,
    /// Whether the program has a `call`: only then may a thread have made one, so that a
    /// `ret` looks at [`Context::CALLS`]; otherwise every `ret` is in the entry routine (PTX
    /// ISA, ret: "A return instruction executed in a top-level entry routine will terminate
    /// thread execution").
    calls: bool,
}

/// What a thread leaving the code stores of the registers written since it entered (the
/// others are in the register file already; [`crate::writeback`]).
#[derive(Clone, Copy, Debug)]
enum Store {
    /// Those the program may read after it goes on at this instruction in the interpreter
    /// (which runs it next, or reports its fault), and those other threads read.
    LiveAt(usize),
    /// Those other threads read (the thread has exited).
    Exited,
}

impl Translator<'_, '_> {
    /// Instruction `index` for the thread (its step counted already; `before` is the count
    /// before it): its guard, then the instruction, generated or through its lane function,
    /// going on at the next one (or the branch's target).
    pub(crate) fn instruction(
        &mut self,
        index: usize,
        instruction: &Instruction,
        plan: Option<Plan>,
        before: Value,
    ) {
        self.pc = index;
        if let Some(guard) = instruction.guard {
            let body = self.builder.create_block();
            let p = self.register(guard.predicate);
            let bit = self.builder.ins().band_imm_s(p, 1);
            let skip = self.builder.create_block();
            if guard.negated {
                self.builder.ins().brif(bit, skip, &[], body, &[]);
            } else {
                self.builder.ins().brif(bit, body, &[], skip, &[]);
            }
            self.builder.switch_to_block(skip);
            self.goto(index + 1);
            self.builder.switch_to_block(body);
        }
        match plan {
            Some(Plan::Lane(op)) => {
                self.lane_op(&instruction.kind, op);
                self.goto(index + 1);
            }
            _ => self.inline(index, instruction, before),
        }
        self.track_constants(instruction);
    }

    /// Returns with the thread at instruction `pc` having issued `steps`, the registers
    /// stored as `store` says.
    fn leave(&mut self, pc: usize, steps: Value, store: Store) {
        self.store_registers(store);
        let pc = self.builder.ins().iconst(types::I64, pc as i64);
        self.builder.def_var(self.exit_pc, pc);
        self.builder.def_var(self.exit_steps, steps);
        self.builder.ins().jump(self.exit, &[]);
    }

    /// [`Translator::leave`] for an access the code does not make: marked in the context so
    /// that the interpreter takes over the CTA ([`ptxsim_exec::compiled::CompiledCta`]), and
    /// no thread runs after this one.
    fn decline(&mut self, pc: usize, steps: Value) {
        // The interpreter runs the instruction next, with the registers as they are here.
        self.store_registers(Store::LiveAt(pc));
        let one = self.builder.ins().iconst(types::I64, 1);
        self.builder.ins().store(
            MemFlagsData::trusted(),
            one,
            self.context,
            offset_i32(Context::DECLINED),
        );
        let pc = self.builder.ins().iconst(types::I64, pc as i64);
        self.builder.def_var(self.exit_pc, pc);
        self.builder.def_var(self.exit_steps, steps);
        self.builder.ins().jump(self.stop, &[]);
    }

    /// Stores the thread's program counter and step count at the exit (`pcs[lane]`,
    /// `steps[lane]`).
    fn store_counters(&mut self, pcs: Value, steps: Value) {
        let flags = MemFlagsData::trusted();
        let lane = self.builder.use_var(self.lane);
        let lane_bytes = self.builder.ins().ishl_imm_s(lane, 3);
        let pc_out = self.builder.use_var(self.exit_pc);
        let steps_out = self.builder.use_var(self.exit_steps);
        let pc_at = self.builder.ins().iadd(pcs, lane_bytes);
        self.builder.ins().store(flags, pc_out, pc_at, 0);
        let steps_at = self.builder.ins().iadd(steps, lane_bytes);
        self.builder.ins().store(flags, steps_out, steps_at, 0);
    }

    /// Goes on at instruction `pc`: its block, or back to the interpreter.
    fn goto(&mut self, pc: usize) {
        match self.blocks.get(pc).copied().flatten() {
            Some(block) => {
                self.builder.ins().jump(block, &[]);
            }
            None => {
                let steps = self.builder.use_var(self.steps);
                self.leave(pc, steps, Store::LiveAt(pc));
            }
        }
    }

    fn register(&mut self, register: RegisterId) -> Value {
        match self.variables.get(register.index()).copied().flatten() {
            Some(variable) => self.builder.use_var(variable),
            None => self.builder.ins().iconst(types::I64, 0),
        }
    }

    /// A source's value chopped to `bits` (Table 27).
    fn read(&mut self, source: Source, bits: u32) -> Value {
        let value = match source {
            Source::Register(r) => self.register(r),
            Source::Immediate(v) => {
                return self
                    .builder
                    .ins()
                    .iconst(types::I64, (v as u64 & mask(bits)) as i64);
            }
            // Compiled code runs CTAs of clusters of one only (rank 0), where a shared
            // variable's address is the immediate.
            Source::SharedAddress(v) => return self.read(Source::Immediate(v.into()), bits),
            Source::RegisterPlus(r, offset) => {
                let value = self.register(r);
                self.builder.ins().iadd_imm_s(value, offset)
            }
            Source::Special(special) => self.special(special),
        };
        self.chop(value, bits)
    }

    /// A special register's value ([`ptxsim_exec::compiled::CompiledCta::specials`]): the
    /// CTA's from the context, the thread's own derived from its index `t` (`%tid` from
    /// `t = tid.x + ntid.x * (tid.y + ntid.y * tid.z)`, `%laneid` `t % 32`, `%warpid` `t / 32`).
    fn special(&mut self, special: SpecialRegister) -> Value {
        if let Some((shift, mask)) = clock(special) {
            // The step count already counts this instruction.
            let steps = self.builder.use_var(self.steps);
            let before = self.builder.ins().iadd_imm_s(steps, -1);
            let shifted = self.builder.ins().ushr_imm_s(before, shift);
            return self.builder.ins().band_imm_s(shifted, mask as i64);
        }
        let index = special_index(special).unwrap_or(0).min(SPECIALS - 1);
        let common = |t: &mut Self, index: usize| {
            t.builder.ins().load(
                types::I64,
                MemFlagsData::trusted(),
                t.context,
                offset_i32(Context::SPECIALS + 8 * index),
            )
        };
        let lane = self.builder.use_var(self.lane);
        let [x, y, _] = self.block.map(|d| i64::from(d.max(1)));
        match index {
            0 => self.builder.ins().urem_imm_s(lane, x),
            1 => {
                let rest = self.builder.ins().udiv_imm_s(lane, x);
                self.builder.ins().urem_imm_s(rest, y)
            }
            2 => self.builder.ins().udiv_imm_s(lane, x * y),
            3..=5 => self
                .builder
                .ins()
                .iconst(types::I64, i64::from(self.block[index - 3])),
            12 => self.builder.ins().band_imm_s(lane, 31),
            13 => self.builder.ins().ushr_imm_s(lane, 5),
            _ => common(self, index),
        }
    }

    fn chop(&mut self, value: Value, bits: u32) -> Value {
        if bits >= 64 {
            value
        } else {
            self.builder.ins().band_imm_s(value, mask(bits) as i64)
        }
    }

    /// Writes `value` to `register` by `extension` ([`Extension::apply64`]).
    fn put(&mut self, register: RegisterId, extension: Extension, value: Value) {
        let (source_mask, shift, register_mask) = extension.parts64();
        let mut value = self.builder.ins().band_imm_s(value, source_mask as i64);
        if shift > 0 {
            let up = self.builder.ins().ishl_imm_s(value, i64::from(shift));
            value = self.builder.ins().sshr_imm_s(up, i64::from(shift));
        }
        if register_mask != u64::MAX {
            value = self.builder.ins().band_imm_s(value, register_mask as i64);
        }
        let r = register.index();
        if let Some(variable) = self.variables.get(r).copied().flatten() {
            self.builder.def_var(variable, value);
        }
        if writeback::contains(&self.analysis.writes[self.pc], r) {
            // Kept in its variable, stored where the thread leaves.
            writeback::insert(&mut self.dirty, r);
        } else {
            // A write `registers::registers_of` does not list: stored at once.
            self.store_register(r, value);
        }
    }

    /// Stores `value` to register `r` of the thread in the register file.
    fn store_register(&mut self, r: usize, value: Value) {
        let base = self.builder.use_var(self.base);
        let (at, offset) = register_address(self.builder, base, self.stride, r);
        self.builder
            .ins()
            .store(MemFlagsData::trusted(), value, at, offset);
    }

    /// Stores the registers written since the thread entered, as `store` says, on the way out.
    fn store_registers(&mut self, store: Store) {
        let keep = match store {
            Store::LiveAt(pc) => writeback::keep_at(
                self.analysis.live.as_deref(),
                &self.analysis.other_lanes,
                pc,
            ),
            Store::Exited => Some(self.analysis.other_lanes.clone()),
        };
        let stored: Vec<(usize, Variable)> = self
            .variables
            .iter()
            .enumerate()
            .filter_map(|(r, v)| Some((r, (*v)?)))
            .filter(|&(r, _)| {
                writeback::contains(&self.dirty, r)
                    && keep
                        .as_ref()
                        .is_none_or(|keep| writeback::contains(keep, r))
            })
            .collect();
        for (r, variable) in stored {
            let value = self.builder.use_var(variable);
            self.store_register(r, value);
        }
    }

    fn write(&mut self, destination: Destination, ty: Type, value: Value) {
        self.put(
            destination.register,
            Extension::new(ty, destination.ty),
            value,
        );
    }

    /// Calls `function` (numbered in the table) with up to three values.
    fn call_lane(&mut self, function: LaneFn, [a, b, c]: [Option<Value>; 3]) -> Value {
        self.functions.push(function);
        let number = self.functions.len() - 1;
        let zero = self.builder.ins().iconst(types::I64, 0);
        let [a, b, c] = [a, b, c].map(|v| v.unwrap_or(zero));
        let number = self.builder.ins().iconst(types::I64, number as i64);
        let call = self
            .builder
            .ins()
            .call(self.helpers.lane, &[self.context, number, a, b, c]);
        self.builder.inst_results(call)[0]
    }

    /// An instruction with a [`LaneOp`]: its operands read as the interpreter reads them, the
    /// operation generated here when [`Translator::arithmetic`] or
    /// [`Translator::conversion`] knows it, else the lane function called, and the result
    /// written by the operation's extension rule.
    fn lane_op(&mut self, kind: &K, op: LaneOp) {
        let mut values = [None; 3];
        let mut known = [None; 3];
        for (index, &(source, bits)) in op.sources.iter().enumerate().take(3) {
            values[index] = Some(self.read(source, bits));
            known[index] = self.known(source, bits);
        }
        let result = match self.arithmetic(kind, values) {
            Some(result) => result,
            None => match self.conversion(kind, values, known) {
                Some(result) => result,
                None => self.call_lane(op.function, values),
            },
        };
        self.put(op.destination, op.extension, result);
    }

    /// A source's value chopped to `bits` as [`Translator::read`] reads it, when it is known
    /// while translating: an immediate, or a register [`Translator::constants`] knows.
    fn known(&self, source: Source, bits: u32) -> Option<u64> {
        match source {
            Source::Immediate(v) => Some(v as u64 & mask(bits)),
            Source::SharedAddress(v) => Some(v & mask(bits)),
            Source::Register(r) => self
                .constants
                .get(r.index())
                .copied()
                .flatten()
                .map(|v| v & mask(bits)),
            Source::RegisterPlus(..) | Source::Special(_) => None,
        }
    }

    /// Updates [`Translator::constants`] past `instruction` (translated): what it writes is
    /// no longer known, unless it is an unguarded `mov` of an immediate, whose value is the
    /// one [`Translator::put`] stores (chopped to the type, extended by Table 28).
    fn track_constants(&mut self, instruction: &Instruction) {
        let constants = &mut self.constants;
        registers_of(
            instruction,
            |_| {},
            |r| {
                if let Some(slot) = constants.get_mut(r) {
                    *slot = None;
                }
            },
        );
        if let (
            None,
            &K::Mov {
                ty,
                destination,
                source: Source::Immediate(v),
            },
        ) = (instruction.guard, &instruction.kind)
            && let Some(slot) = self.constants.get_mut(destination.register.index())
        {
            let value = v as u64 & mask(ty.bits());
            *slot = Some(Extension::new(ty, destination.ty).apply64(value));
        }
    }

    /// A `cvt` that [`ptxsim_exec::cvt::elementwise`] describes: each element converted
    /// inline where [`convert::inline_form`] knows the form, else by a direct call of its
    /// conversion, chosen here once (or, for a source known while translating, converted
    /// here), and the elements packed as it says. `None` for the
    /// other instructions and forms.
    fn conversion(
        &mut self,
        kind: &K,
        [a, b, _]: [Option<Value>; 3],
        [known_a, known_b, _]: [Option<u64>; 3],
    ) -> Option<Value> {
        use ptxsim_exec::cvt::{ElementConversion, Elementwise};
        let K::Cvt { op, .. } = kind else {
            return None;
        };
        // The types of each element, for the forms generated inline.
        let (from, to) = match op.shape {
            ptxsim_exec::cvt::CvtShape::Scalar { from, to } => (from, to),
            ptxsim_exec::cvt::CvtShape::F32x2ToHalf2 { to }
            | ptxsim_exec::cvt::CvtShape::F32x2ToX2 { to } => (ptxsim_softfloat::Type::F32, to),
            _ => return None,
        };
        let inline = convert::inline_form(from, to, op.rounding, op.flags);
        let element =
            |t: &mut Self, conversion: ElementConversion, value, known| match (known, inline) {
                (Some(known), _) => t
                    .builder
                    .ins()
                    .iconst(types::I64, conversion.convert(known) as i64),
                (None, Some(form)) => t.inline_conversion(form, value),
                (None, None) => {
                    t.conversions.push(Box::pin(conversion));
                    // Pinned: the code holds the address for as long as it lives.
                    let address = t.conversions.last().map_or(std::ptr::null(), |c| {
                        std::ptr::from_ref::<ElementConversion>(c.as_ref().get_ref())
                    });
                    let address = t.builder.ins().iconst(types::I64, address as i64);
                    let call = t.builder.ins().call(t.helpers.convert, &[address, value]);
                    t.builder.inst_results(call)[0]
                }
            };
        match ptxsim_exec::cvt::elementwise(op)? {
            Elementwise::Scalar(conversion) => Some(element(self, conversion, a?, known_a)),
            Elementwise::Pair {
                element: conversion,
                lane,
                low,
                mask: packed,
            } => {
                let hi = element(self, conversion, a?, known_a);
                let lo = element(self, conversion, b?, known_b);
                let hi = self.builder.ins().band_imm_s(hi, 0xffff_ffff);
                let hi = self.builder.ins().ishl_imm_s(hi, i64::from(lane));
                let lo = self.builder.ins().band_imm_s(lo, low as i64);
                let d = self.builder.ins().bor(hi, lo);
                Some(self.builder.ins().band_imm_s(d, packed as i64))
            }
        }
    }

    /// The common integer and `f32` operations generated as [`ptxsim_exec::alu`] computes
    /// them, on operands already chopped to their widths; the result is chopped and extended
    /// by the caller. `None` for the others.
    fn arithmetic(&mut self, kind: &K, values: [Option<Value>; 3]) -> Option<Value> {
        use ptxsim_isa::TypeKind;
        let integer = |ty: Type| {
            matches!(
                ty.kind(),
                TypeKind::Signed | TypeKind::Unsigned | TypeKind::Bit
            ) && matches!(ty.bits(), 16 | 32 | 64)
        };
        let [a, b, c] = values;
        match *kind {
            K::IntBinary {
                op,
                ty,
                sat: false,
                relu: false,
                ..
            } if integer(ty)
                || (ty == Type::Pred && matches!(op, IntOp::And | IntOp::Or | IntOp::Xor)) =>
            {
                let (a, b) = (a?, b?);
                let w = ty.bits();
                let signed = ty.kind() == TypeKind::Signed;
                Some(match op {
                    IntOp::Add => self.builder.ins().iadd(a, b),
                    IntOp::Sub => self.builder.ins().isub(a, b),
                    IntOp::Mul(MulMode::Lo) => self.builder.ins().imul(a, b),
                    IntOp::Mul(MulMode::Wide) if w <= 32 => {
                        let (a, b) = if signed {
                            (self.sign_extend(a, w), self.sign_extend(b, w))
                        } else {
                            (a, b)
                        };
                        self.builder.ins().imul(a, b)
                    }
                    IntOp::And => self.builder.ins().band(a, b),
                    IntOp::Or => self.builder.ins().bor(a, b),
                    IntOp::Xor => self.builder.ins().bxor(a, b),
                    IntOp::Shl => {
                        let shifted = self.builder.ins().ishl(a, b);
                        self.zero_past_width(shifted, b, w)
                    }
                    IntOp::Shr if signed => {
                        let extended = self.sign_extend(a, w);
                        let limit = self.builder.ins().iconst(types::I64, i64::from(w - 1));
                        let amount = self.builder.ins().umin(b, limit);
                        self.builder.ins().sshr(extended, amount)
                    }
                    IntOp::Shr => {
                        let shifted = self.builder.ins().ushr(a, b);
                        self.zero_past_width(shifted, b, w)
                    }
                    IntOp::Min | IntOp::Max => {
                        let (x, y) = if signed {
                            (self.sign_extend(a, w), self.sign_extend(b, w))
                        } else {
                            (a, b)
                        };
                        let cc = match (op == IntOp::Min, signed) {
                            (true, true) => IntCC::SignedLessThan,
                            (true, false) => IntCC::UnsignedLessThan,
                            (false, true) => IntCC::SignedGreaterThan,
                            (false, false) => IntCC::UnsignedGreaterThan,
                        };
                        // `a` when it is the smaller (larger), else `b`, as alu::int_binary.
                        let pick_a = self.builder.ins().icmp(cc, x, y);
                        self.builder.ins().select(pick_a, a, b)
                    }
                    _ => return None,
                })
            }
            K::Mad {
                mode,
                ty,
                sat: false,
                ..
            } if integer(ty) => {
                let (a, b, c) = (a?, b?, c?);
                let w = ty.bits();
                let product = match mode {
                    MulMode::Lo => self.builder.ins().imul(a, b),
                    MulMode::Wide if w <= 32 => {
                        let (a, b) = if ty.kind() == TypeKind::Signed {
                            (self.sign_extend(a, w), self.sign_extend(b, w))
                        } else {
                            (a, b)
                        };
                        self.builder.ins().imul(a, b)
                    }
                    _ => return None,
                };
                Some(self.builder.ins().iadd(product, c))
            }
            K::FloatBinary {
                op,
                ty: Type::F32,
                modifiers: FloatModifiers::RN,
                ..
            } => {
                let (x, y) = (self.f32_of(a?), self.f32_of(b?));
                let r = match op {
                    FloatOp::Add => self.builder.ins().fadd(x, y),
                    FloatOp::Sub => self.builder.ins().fsub(x, y),
                    FloatOp::Mul => self.builder.ins().fmul(x, y),
                    _ => return None,
                };
                Some(self.f32_result(r))
            }
            K::Fma {
                ty: Type::F32,
                modifiers: FloatModifiers::RN,
                ..
            } => {
                let (x, y, z) = (self.f32_of(a?), self.f32_of(b?), self.f32_of(c?));
                let r = self.builder.ins().fma(x, y, z);
                Some(self.f32_result(r))
            }
            // `.f64` with `.rn` (the default): the host's IEEE double operations round the same,
            // and the NaN rules are generated as `alu::float`'s binary and fma lanes apply them.
            K::FloatBinary {
                op,
                ty: Type::F64,
                modifiers: FloatModifiers::RN,
                ..
            } => {
                let (a, b) = (a?, b?);
                let (x, y) = (self.f64_of(a), self.f64_of(b));
                let r = match op {
                    FloatOp::Add => self.builder.ins().fadd(x, y),
                    FloatOp::Sub => self.builder.ins().fsub(x, y),
                    FloatOp::Mul => self.builder.ins().fmul(x, y),
                    FloatOp::Div => self.builder.ins().fdiv(x, y),
                    _ => return None,
                };
                Some(self.f64_result(r, &[a, b]))
            }
            // `abs.f64`/`neg.f64`: the sign bit, a NaN quieted with its sign kept
            // (`alu::float`'s unary lane, measured on an sm_90 GPU).
            K::FloatUnary {
                op: op @ (FloatUnaryOp::Abs | FloatUnaryOp::Neg),
                ty: Type::F64,
                modifiers,
                ..
            } if !modifiers.ftz => {
                let a = a?;
                let x = self.f64_of(a);
                let sign = 1u64 << 63;
                let r = if op == FloatUnaryOp::Abs {
                    self.builder.ins().band_imm_s(a, !sign as i64)
                } else {
                    self.builder.ins().bxor_imm_s(a, sign as i64)
                };
                let is_nan = self.builder.ins().fcmp(FloatCC::Unordered, x, x);
                let quiet = self.builder.ins().bor_imm_s(a, 1 << 51);
                Some(self.builder.ins().select(is_nan, quiet, r))
            }
            // ptxas's DFMA takes a NaN from `b`, then `c`, then `a` (`alu::float::fma_lane`).
            K::Fma {
                ty: Type::F64,
                modifiers: FloatModifiers::RN,
                ..
            } => {
                let (a, b, c) = (a?, b?, c?);
                let (x, y, z) = (self.f64_of(a), self.f64_of(b), self.f64_of(c));
                let r = self.builder.ins().fma(x, y, z);
                Some(self.f64_result(r, &[b, c, a]))
            }
            K::Selp { .. } => {
                let (a, b, c) = (a?, b?, c?);
                Some(self.builder.ins().select(c, a, b))
            }
            // `cvta`: the address plus or minus the space's window base, wrapping ("cvta.to
            // ... converts a generic address to a state-space address" and back, PTX ISA
            // 9.7.9.22), exactly as `ptxsim_exec::memory::{to_generic, from_generic_to}`
            // compute it: each adds a constant, their value at 0 (a global or generic address
            // is unchanged). The caller chops a `.u32` result to its width.
            K::Cvta { to, space, .. } => {
                let offset = if to {
                    ptxsim_exec::memory::from_generic_to(space, 0)
                } else {
                    ptxsim_exec::memory::to_generic(space, 0)
                };
                let a = a?;
                Some(if offset == 0 {
                    a
                } else {
                    self.builder.ins().iadd_imm_s(a, offset as i64)
                })
            }
            // An integer-to-integer `cvt` without `.sat` (which alone "limits the result to
            // MININT..MAXINT", PTX ISA 9.7.9.21): the source, chopped to its width, sign- or
            // zero-extended by its type, then chopped to the destination's width by the
            // caller, as `ptxsim_softfloat`'s integer conversion computes it.
            K::Cvt { op, .. } => match op.shape {
                ptxsim_exec::cvt::CvtShape::Scalar { from, to }
                    if !op.flags.sat && to.integer().is_some() =>
                {
                    let (width, signed) = from.integer()?;
                    let a = a?;
                    Some(if signed && width < 64 {
                        self.sign_extend(a, width)
                    } else {
                        a
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `shifted`, or 0 when the shift amount is the type's width `w` or more (`shl`, unsigned
    /// `shr`: "shift amounts greater than the register width N are clamped to N", PTX ISA
    /// 9.7.8.8; the host's shift would take the amount modulo 64).
    fn zero_past_width(&mut self, shifted: Value, amount: Value, w: u32) -> Value {
        let zero = self.builder.ins().iconst(types::I64, 0);
        let over =
            self.builder
                .ins()
                .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, amount, i64::from(w));
        self.builder.ins().select(over, zero, shifted)
    }

    /// An `f32` result's bits, a NaN replaced by the canonical NaN as the interpreter does
    /// ([`ptxsim_exec::alu::F32_CANONICAL_NAN`]).
    fn f32_result(&mut self, r: Value) -> Value {
        let bits = self
            .builder
            .ins()
            .bitcast(types::I32, MemFlagsData::new(), r);
        let bits = self.builder.ins().uextend(types::I64, bits);
        let nan = self.builder.ins().fcmp(FloatCC::Unordered, r, r);
        let canonical = self
            .builder
            .ins()
            .iconst(types::I64, i64::from(ptxsim_exec::alu::F32_CANONICAL_NAN));
        self.builder.ins().select(nan, canonical, bits)
    }

    /// An `.f64` operand's bits as a host double.
    fn f64_of(&mut self, value: Value) -> Value {
        self.builder
            .ins()
            .bitcast(types::F64, MemFlagsData::new(), value)
    }

    /// The bits of an `.f64` operation's result `r` as `alu::float` gives them: the first NaN
    /// of `operands` (in the order the GPU picks one) quieted, sign and payload kept; else a
    /// NaN made from numbers is [`ptxsim_exec::alu::F64_DEFAULT_NAN`]; else `r`.
    fn f64_result(&mut self, r: Value, operands: &[Value]) -> Value {
        let bits = self
            .builder
            .ins()
            .bitcast(types::I64, MemFlagsData::new(), r);
        let nan = self.builder.ins().fcmp(FloatCC::Unordered, r, r);
        let default = self
            .builder
            .ins()
            .iconst(types::I64, ptxsim_exec::alu::F64_DEFAULT_NAN as i64);
        let mut result = self.builder.ins().select(nan, default, bits);
        for &operand in operands.iter().rev() {
            let x = self.f64_of(operand);
            let is_nan = self.builder.ins().fcmp(FloatCC::Unordered, x, x);
            let quiet = self.builder.ins().bor_imm_s(operand, 1 << 51);
            result = self.builder.ins().select(is_nan, quiet, result);
        }
        result
    }

    /// The generated instructions; `before` is the step count before this one.
    fn inline(&mut self, pc: usize, instruction: &Instruction, before: Value) {
        match &instruction.kind {
            &K::Mov {
                ty,
                destination,
                source,
            } => {
                let value = self.read(source, ty.bits());
                self.write(destination, ty, value);
                self.goto(pc + 1);
            }
            K::Setp {
                compare,
                ty,
                ftz,
                combine,
                p,
                q,
                a,
                b,
            } => {
                let x = self.read(*a, ty.bits());
                let y = self.read(*b, ty.bits());
                let r = self.compare(*compare, *ty, *ftz, x, y);
                let (p_value, q_value) = match combine {
                    Some((op, c)) => {
                        let c_value = self.read(c.source, 1);
                        let c_value = if c.negated {
                            self.builder.ins().bxor_imm_s(c_value, 1)
                        } else {
                            c_value
                        };
                        let not_r = self.builder.ins().bxor_imm_s(r, 1);
                        (
                            self.combine(*op, r, c_value),
                            self.combine(*op, not_r, c_value),
                        )
                    }
                    None => (r, self.builder.ins().bxor_imm_s(r, 1)),
                };
                self.write(*p, Type::Pred, p_value);
                if let Some(q) = q {
                    self.write(*q, Type::Pred, q_value);
                }
                self.goto(pc + 1);
            }
            K::Ld {
                space,
                ty,
                destinations,
                address,
            } => {
                let bytes = ty.bits().div_ceil(8).max(1);
                self.take_slot(*space);
                let at = self.address(address);
                self.check_vector(pc, before, at, bytes, destinations.len());
                // The address of a variable (a kernel parameter, a `.const` variable).
                let fixed = match address.base {
                    Source::Immediate(v) => Some(address.at(v as u64)),
                    _ => None,
                };
                let mut values = Vec::with_capacity(destinations.len());
                for index in 0..destinations.len() {
                    let step = u64::from(bytes) * index as u64;
                    let element = self.builder.ins().iadd_imm_s(at, step as i64);
                    let fixed = fixed.map(|a| a.wrapping_add(step));
                    values.push(self.load(pc, before, *space, (element, fixed), bytes));
                }
                for (destination, value) in destinations.iter().zip(values) {
                    if let Some(destination) = destination {
                        self.write(*destination, *ty, value);
                    }
                }
                self.goto(pc + 1);
            }
            K::St {
                space,
                ty,
                address,
                sources,
            } => {
                let bytes = ty.bits().div_ceil(8).max(1);
                self.take_slot(*space);
                let at = self.address(address);
                self.check_vector(pc, before, at, bytes, sources.len());
                for (index, &source) in sources.iter().enumerate() {
                    let value = self.read(source, ty.bits());
                    let element = self
                        .builder
                        .ins()
                        .iadd_imm_s(at, i64::from(bytes) * index as i64);
                    self.store(pc, before, *space, element, bytes, value);
                }
                self.goto(pc + 1);
            }
            K::Atom {
                space,
                op,
                ty,
                destination,
                address,
                b,
                c,
            } => {
                self.atom(
                    pc,
                    before,
                    (*space, *op, *ty),
                    *destination,
                    address,
                    (*b, *c),
                );
                self.goto(pc + 1);
            }
            K::Texture(texture) => {
                self.texture(pc, before, texture);
                self.goto(pc + 1);
            }
            &K::Bra { target } => self.goto(target),
            // Out of the kernel: the step counted, the program counter left on the
            // instruction with the mark of an exited thread. A `ret` after some thread made a
            // call may return from a function instead: the interpreter runs it then.
            K::Ret | K::Exit => {
                // Without a `call` in the program no thread can have made one.
                if matches!(instruction.kind, K::Ret) && self.calls {
                    let calls = self.builder.ins().load(
                        types::I64,
                        MemFlagsData::trusted(),
                        self.context,
                        offset_i32(Context::CALLS),
                    );
                    let back = self.builder.create_block();
                    let out = self.builder.create_block();
                    self.builder.set_cold_block(back);
                    self.builder.ins().brif(calls, back, &[], out, &[]);
                    self.builder.switch_to_block(back);
                    self.leave(pc, before, Store::LiveAt(pc));
                    self.builder.switch_to_block(out);
                }
                let steps = self.builder.use_var(self.steps);
                self.leave(pc | ptxsim_exec::compiled::EXITED, steps, Store::Exited);
            }
            _ => {
                // `plan` covers nothing else inline; hand it back.
                self.leave(pc, before, Store::LiveAt(pc));
            }
        }
    }

    /// `atom`/`red` ([`ptxsim_exec::alu::atom`]) through `ptxsim_jit_atom`, which makes the
    /// update as the interpreter's lane does (its two lane functions: the location in global
    /// memory, then in shared memory); where the helper does not make it, the instruction is
    /// declined (the interpreter runs it, and reports its fault). The old value is written to
    /// `d` by Table 28, as `Put` does: "Atomically loads the original value at location a
    /// into destination register d, performs a reduction operation with operand b and the
    /// value in location a, and stores the result of the specified operation at location a"
    /// (PTX ISA 9.7.13.5).
    fn atom(
        &mut self,
        pc: usize,
        before: Value,
        (space, op, ty): (Space, ptxsim_isa::ops::AtomOp, Type),
        destination: Option<Destination>,
        address: &MemoryOperand,
        (b, c): (Source, Option<Source>),
    ) {
        let bits = ty.bits();
        let at = self.address(address);
        let b = self.read(b, bits);
        let c = match c {
            Some(c) => self.read(c, bits),
            None => self.builder.ins().iconst(types::I64, 0),
        };
        for global in [true, false] {
            self.functions.push(Box::new(move |old, b, c| {
                ptxsim_exec::alu::atom(op, ty, global, old, b, c)
            }));
        }
        let number = self.functions.len() - 2;
        let space_number = self
            .builder
            .ins()
            .iconst(types::I32, i64::from(native::space_number(space)));
        let width = self.builder.ins().iconst(types::I32, i64::from(bits / 8));
        let number = self.builder.ins().iconst(types::I64, number as i64);
        let call = self.builder.ins().call(
            self.helpers.atom,
            &[self.context, space_number, at, width, number, b, c],
        );
        let ok = self.builder.inst_results(call)[0];
        self.made_or_declined(ok, pc, before);
        if let Some(destination) = destination {
            let old = self.builder.ins().load(
                types::I64,
                MemFlagsData::trusted(),
                self.context,
                offset_i32(Context::SCRATCH),
            );
            self.write(destination, ty, old);
        }
    }

    /// A texture or surface read (`tex`, `tld4`, `txq`, `suld`, `suq`) through
    /// `ptxsim_jit_texture`, the interpreter's function for one lane on the handle and
    /// coordinates read as it reads them (the handle's 64 bits, each coordinate's low 32);
    /// where its lane would trap, the instruction is declined (the interpreter runs it and
    /// traps). The results go to the destinations by Table 28, as many as the instruction
    /// writes ([`registers::texture_results`]).
    fn texture(&mut self, pc: usize, before: Value, texture: &ptxsim_exec::ir::TextureInstruction) {
        let handle = self.read(texture.handle, 64);
        let mut coordinates = Vec::with_capacity(4);
        for index in 0..4 {
            coordinates.push(match texture.coordinates.get(index) {
                Some(&source) => self.read(source, 32),
                None => self.builder.ins().iconst(types::I64, 0),
            });
        }
        self.texture_calls.push(native::TextureCall {
            op: texture.op,
            coordinates: texture.coordinates.len(),
        });
        let number = self
            .builder
            .ins()
            .iconst(types::I64, (self.texture_calls.len() - 1) as i64);
        let mut arguments = vec![self.context, number, handle];
        arguments.extend(coordinates);
        let call = self.builder.ins().call(self.helpers.texture, &arguments);
        let ok = self.builder.inst_results(call)[0];
        self.made_or_declined(ok, pc, before);
        let ty = ptxsim_exec::compiled::texture_result_type(&texture.op);
        let count = registers::texture_results(&texture.op);
        for (index, destination) in texture.destinations.iter().enumerate().take(count) {
            if let Some(destination) = destination {
                let value = self.builder.ins().load(
                    types::I64,
                    MemFlagsData::trusted(),
                    self.context,
                    offset_i32(Context::RESULTS + 8 * index),
                );
                self.write(*destination, ty, value);
            }
        }
    }

    /// Goes on in a new block where a helper's `ok` is non-zero, else declines instruction
    /// `pc` with the step count `before`.
    fn made_or_declined(&mut self, ok: Value, pc: usize, before: Value) {
        let made = self.builder.create_block();
        let out = self.builder.create_block();
        self.builder.set_cold_block(out);
        self.builder.ins().brif(ok, made, &[], out, &[]);
        self.builder.switch_to_block(out);
        self.decline(pc, before);
        self.builder.switch_to_block(made);
    }

    /// `setp`'s comparison as 0 or 1: integer comparisons generated, the others through the
    /// interpreter's [`ptxsim_exec::alu::compare`], except those of `f32` without `.ftz`.
    fn compare(&mut self, compare: Compare, ty: Type, ftz: bool, x: Value, y: Value) -> Value {
        use ptxsim_isa::TypeKind;
        let bits = ty.bits();
        let kind = ty.kind();
        let int = matches!(
            kind,
            TypeKind::Signed | TypeKind::Unsigned | TypeKind::Bit | TypeKind::Predicate
        );
        if int {
            let signed = kind == TypeKind::Signed;
            let (x, y) = if signed && bits < 64 {
                (self.sign_extend(x, bits), self.sign_extend(y, bits))
            } else {
                (x, y)
            };
            let cc = match (compare, signed) {
                (Compare::Eq, _) => Some(IntCC::Equal),
                (Compare::Ne, _) => Some(IntCC::NotEqual),
                (Compare::Lt, true) => Some(IntCC::SignedLessThan),
                (Compare::Le, true) => Some(IntCC::SignedLessThanOrEqual),
                (Compare::Gt, true) => Some(IntCC::SignedGreaterThan),
                (Compare::Ge, true) => Some(IntCC::SignedGreaterThanOrEqual),
                // `.lo .ls .hi .hs` are unsigned whatever the type.
                (Compare::Lt, false) | (Compare::Lo, _) => Some(IntCC::UnsignedLessThan),
                (Compare::Le, false) | (Compare::Ls, _) => Some(IntCC::UnsignedLessThanOrEqual),
                (Compare::Gt, false) | (Compare::Hi, _) => Some(IntCC::UnsignedGreaterThan),
                (Compare::Ge, false) | (Compare::Hs, _) => Some(IntCC::UnsignedGreaterThanOrEqual),
                _ => None,
            };
            if let Some(cc) = cc {
                let r = self.builder.ins().icmp(cc, x, y);
                return self.builder.ins().uextend(types::I64, r);
            }
        }
        if ty == Type::F32 && !ftz {
            let cc = match compare {
                Compare::Eq => Some(FloatCC::Equal),
                Compare::Ne => Some(FloatCC::OrderedNotEqual),
                Compare::Lt => Some(FloatCC::LessThan),
                Compare::Le => Some(FloatCC::LessThanOrEqual),
                Compare::Gt => Some(FloatCC::GreaterThan),
                Compare::Ge => Some(FloatCC::GreaterThanOrEqual),
                Compare::Equ => Some(FloatCC::UnorderedOrEqual),
                Compare::Neu => Some(FloatCC::NotEqual),
                Compare::Ltu => Some(FloatCC::UnorderedOrLessThan),
                Compare::Leu => Some(FloatCC::UnorderedOrLessThanOrEqual),
                Compare::Gtu => Some(FloatCC::UnorderedOrGreaterThan),
                Compare::Geu => Some(FloatCC::UnorderedOrGreaterThanOrEqual),
                Compare::Num => Some(FloatCC::Ordered),
                Compare::Nan => Some(FloatCC::Unordered),
                _ => None,
            };
            if let Some(cc) = cc {
                let (fx, fy) = (self.f32_of(x), self.f32_of(y));
                let r = self.builder.ins().fcmp(cc, fx, fy);
                return self.builder.ins().uextend(types::I64, r);
            }
        }
        // Anything else: the interpreter's comparison, through a lane function.
        let function: LaneFn =
            Box::new(move |x, y, _| u64::from(ptxsim_exec::alu::compare(compare, ty, ftz, x, y)));
        self.call_lane(function, [Some(x), Some(y), None])
    }

    fn combine(&mut self, op: BoolOp, a: Value, b: Value) -> Value {
        match op {
            BoolOp::And => self.builder.ins().band(a, b),
            BoolOp::Or => self.builder.ins().bor(a, b),
            BoolOp::Xor => self.builder.ins().bxor(a, b),
        }
    }

    fn sign_extend(&mut self, value: Value, bits: u32) -> Value {
        let shift = i64::from(64 - bits);
        let up = self.builder.ins().ishl_imm_s(value, shift);
        self.builder.ins().sshr_imm_s(up, shift)
    }

    fn f32_of(&mut self, value: Value) -> Value {
        let low = self.builder.ins().ireduce(types::I32, value);
        self.builder
            .ins()
            .bitcast(types::F32, MemFlagsData::new(), low)
    }

    /// The address of a memory operand ([`MemoryOperand::at`]).
    fn address(&mut self, operand: &MemoryOperand) -> Value {
        let base = self.read(operand.base, 64);
        let at = self.builder.ins().iadd_imm_s(base, operand.offset);
        if operand.wraps_at_32 {
            self.chop(at, 32)
        } else {
            at
        }
    }

    /// A vector access must be aligned to its whole size (PTX ISA 5.1); else the interpreter
    /// runs it (and faults).
    fn check_vector(&mut self, pc: usize, before: Value, at: Value, bytes: u32, count: usize) {
        let total = u64::from(bytes) * count as u64;
        if count <= 1 || !total.is_power_of_two() {
            return;
        }
        let low = self.builder.ins().band_imm_s(at, (total - 1) as i64);
        let fine = self.builder.create_block();
        let out = self.builder.create_block();
        self.builder.set_cold_block(out);
        self.builder.ins().brif(low, out, &[], fine, &[]);
        self.builder.switch_to_block(out);
        self.decline(pc, before);
        self.builder.switch_to_block(fine);
    }

    /// Whether an access of `bytes` at `at` lies aligned in the CTA's own shared memory.
    fn in_shared(&mut self, at: Value, bytes: u32) -> Value {
        self.in_region(at, bytes, self.shared_len)
    }

    /// Whether an access of `bytes` at `at` lies aligned in a region of `len` bytes.
    fn in_region(&mut self, at: Value, bytes: u32, len: Value) -> Value {
        self.fits(at, bytes, len)
    }

    /// Whether an access of `bytes` (1, 2, 4 or 8: `2^k`) at `offset` from a region's start
    /// lies aligned in the region's `len` bytes, with one comparison: `offset` rotated right by
    /// `k` is below `len >> k`. An aligned `offset = m * 2^k` rotates to `m`, and
    /// `m < len >> k` exactly when `offset + bytes <= len`; a misaligned one rotates its low
    /// bits to the top, at least `2^(64 - k)`, past every such bound. The PTX addresses of
    /// the region's start must be aligned to 8 bytes (shared memory, parameters and `.const`
    /// start at 0, global buffers at `BUFFER_ALIGN`), so that `offset` is aligned exactly when
    /// the address is (PTX ISA 5.1: accesses are naturally aligned).
    fn fits(&mut self, offset: Value, bytes: u32, len: Value) -> Value {
        if !bytes.is_power_of_two() || bytes > 8 {
            let low = self.builder.ins().band_imm_s(offset, i64::from(bytes - 1));
            let aligned = self.builder.ins().icmp_imm_s(IntCC::Equal, low, 0);
            let end = self.builder.ins().iadd_imm_s(offset, i64::from(bytes));
            let below = self
                .builder
                .ins()
                .icmp(IntCC::UnsignedLessThan, offset, len);
            let fits = self
                .builder
                .ins()
                .icmp(IntCC::UnsignedLessThanOrEqual, end, len);
            let inside = self.builder.ins().band(below, fits);
            return self.builder.ins().band(aligned, inside);
        }
        let k = i64::from(bytes.trailing_zeros());
        let (rotated, bound) = if k == 0 {
            (offset, len)
        } else {
            (
                self.builder.ins().rotr_imm_s(offset, k),
                self.builder.ins().ushr_imm_s(len, k),
            )
        };
        self.builder
            .ins()
            .icmp(IntCC::UnsignedLessThan, rotated, bound)
    }

    /// Gives the instruction being translated its own window slot when it may access global
    /// memory (an inline cache: an instruction mostly accesses the same buffer each time).
    fn take_slot(&mut self, space: Space) {
        if matches!(space, Space::Global | Space::Generic) {
            self.slot = self.slots;
            self.slots += 1;
        }
    }

    /// A field of the instruction's window (`native::Window`).
    fn window_field(&mut self, field: usize) -> Value {
        let offset = self.slot * native::Window::SIZE + field;
        self.builder.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            self.windows,
            offset_i32(offset),
        )
    }

    /// Whether an access of `bytes` at `at` lies aligned in the global buffer of the
    /// instruction's window (the one its last access through a helper found), and its offset
    /// there.
    fn in_window(&mut self, at: Value, bytes: u32) -> (Value, Value) {
        let window_base = self.window_field(native::Window::BASE);
        let window_len = self.window_field(native::Window::LEN);
        let offset = self.builder.ins().isub(at, window_base);
        (self.fits(offset, bytes, window_len), offset)
    }

    /// The host address of an access of `bytes` at `at` in the CTA's shared memory; outside
    /// it, or misaligned, the instruction `pc` is declined with the step count `before` (the
    /// interpreter reports the fault; the helper would refuse the access too).
    fn shared_pointer(&mut self, pc: usize, before: Value, at: Value, bytes: u32) -> Value {
        let inside = self.in_shared(at, bytes);
        let fast = self.builder.create_block();
        let out = self.builder.create_block();
        self.builder.set_cold_block(out);
        self.builder.ins().brif(inside, fast, &[], out, &[]);
        self.builder.switch_to_block(out);
        self.decline(pc, before);
        self.builder.switch_to_block(fast);
        self.builder.ins().iadd(self.shared, at)
    }

    /// A plain store of the low `bytes` (1, 2, 4 or 8) of `value` at `pointer`.
    fn store_plain(&mut self, pointer: Value, bytes: u32, value: Value) {
        let flags = MemFlagsData::trusted();
        match bytes {
            1 => self.builder.ins().istore8(flags, value, pointer, 0),
            2 => self.builder.ins().istore16(flags, value, pointer, 0),
            4 => self.builder.ins().istore32(flags, value, pointer, 0),
            _ => self.builder.ins().store(flags, value, pointer, 0),
        };
    }

    /// A plain load of `bytes` (1, 2, 4 or 8) at `pointer`, zero-extended to 64 bits.
    fn load_plain(&mut self, pointer: Value, bytes: u32) -> Value {
        let flags = MemFlagsData::trusted();
        match bytes {
            1 => self.builder.ins().uload8(types::I64, flags, pointer, 0),
            2 => self.builder.ins().uload16(types::I64, flags, pointer, 0),
            4 => self.builder.ins().uload32(flags, pointer, 0),
            _ => self.builder.ins().load(types::I64, flags, pointer, 0),
        }
    }

    /// A load of `bytes` at `at` in `space`, zero-extended to 64 bits; a failed one hands
    /// the instruction back.
    fn load(
        &mut self,
        pc: usize,
        before: Value,
        space: Space,
        (at, fixed): (Value, Option<u64>),
        bytes: u32,
    ) -> Value {
        if space == Space::Shared {
            let pointer = self.shared_pointer(pc, before, at, bytes);
            return self.load_plain(pointer, bytes);
        }
        // A kernel parameter or `.const` variable at an aligned constant address inside the
        // space the program declares (not a thread's own `.param` variable): read directly,
        // the code running only where the region holds it ([`Built::needs`]).
        let region = match space {
            Space::Param => Some(0),
            Space::Const => Some(1),
            _ => None,
        };
        if let (Some(region), Some(fixed)) = (region, fixed)
            && fixed % u64::from(bytes) == 0
            && let Some(end) = fixed.checked_add(u64::from(bytes))
            && end <= self.limits[region]
        {
            self.needs[region] = self.needs[region].max(end);
            // The region's first byte, loaded here rather than once per call: a value live
            // through the whole function costs the loops around it a register.
            let base = self.builder.ins().load(
                types::I64,
                MemFlagsData::trusted(),
                self.context,
                offset_i32([Context::PARAMS, Context::CONSTANTS][region]),
            );
            let pointer = self.builder.ins().iadd_imm_s(base, fixed as i64);
            return self.load_plain(pointer, bytes);
        }
        let done = self.builder.create_block();
        self.builder.append_block_param(done, types::I64);
        let slow = self.builder.create_block();
        self.builder.set_cold_block(slow);
        if matches!(space, Space::Param | Space::Const) {
            // The kernel's parameters (`.param` addresses below the thread's own) and the
            // `.const` space: read-only for the launch. Other addresses go to the helper.
            let (base, len) = if space == Space::Param {
                (Context::PARAMS, Context::PARAMS_LEN)
            } else {
                (Context::CONSTANTS, Context::CONSTANTS_LEN)
            };
            let flags = MemFlagsData::trusted();
            let region = self
                .builder
                .ins()
                .load(types::I64, flags, self.context, offset_i32(base));
            let len = self
                .builder
                .ins()
                .load(types::I64, flags, self.context, offset_i32(len));
            let inside = self.in_region(at, bytes, len);
            let fast = self.builder.create_block();
            self.builder.ins().brif(inside, fast, &[], slow, &[]);
            self.builder.switch_to_block(fast);
            let pointer = self.builder.ins().iadd(region, at);
            let value = self.load_plain(pointer, bytes);
            self.builder.ins().jump(done, &[BlockArg::Value(value)]);
        } else if matches!(space, Space::Global | Space::Generic) {
            // The buffer of the instruction's window: its word, atomically, as
            // GlobalMemory::load.
            let (inside, offset) = self.in_window(at, bytes);
            let fast = self.builder.create_block();
            self.builder.ins().brif(inside, fast, &[], slow, &[]);
            self.builder.switch_to_block(fast);
            let words = self.window_field(native::Window::WORDS);
            let value = match bytes {
                // The access's own bytes, atomically (aligned inside one word, which
                // `in_window` checked; the words are little-endian, as the hosts Cranelift
                // supports here are): what the word's atomic load shifted and masked gives,
                // in one host load instead of six instructions (December 2026).
                1 | 2 | 4 | 8 => {
                    let pointer = self.builder.ins().iadd(words, offset);
                    let ty = match bytes {
                        1 => types::I8,
                        2 => types::I16,
                        4 => types::I32,
                        _ => types::I64,
                    };
                    let value =
                        self.builder
                            .ins()
                            .atomic_load(ty, MemFlagsData::trusted(), pointer);
                    if bytes == 8 {
                        value
                    } else {
                        self.builder.ins().uextend(types::I64, value)
                    }
                }
                _ => {
                    let word_offset = self.builder.ins().band_imm_s(offset, !7);
                    let pointer = self.builder.ins().iadd(words, word_offset);
                    let word = self.builder.ins().atomic_load(
                        types::I64,
                        MemFlagsData::trusted(),
                        pointer,
                    );
                    let byte = self.builder.ins().band_imm_s(offset, 7);
                    let shift = self.builder.ins().ishl_imm_s(byte, 3);
                    let shifted = self.builder.ins().ushr(word, shift);
                    self.chop(shifted, bytes * 8)
                }
            };
            self.builder.ins().jump(done, &[BlockArg::Value(value)]);
        } else {
            self.builder.ins().jump(slow, &[]);
        }
        self.builder.switch_to_block(slow);
        self.call_memory_helper(self.helpers.load, space, at, bytes, None, (pc, before));
        let value = self.builder.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            self.context,
            offset_i32(Context::SCRATCH),
        );
        self.builder.ins().jump(done, &[BlockArg::Value(value)]);
        self.builder.switch_to_block(done);
        self.builder.block_params(done)[0]
    }

    /// A store of the low `bytes` of `value` at `at` in `space`; a failed one hands the
    /// instruction back.
    fn store(
        &mut self,
        pc: usize,
        before: Value,
        space: Space,
        at: Value,
        bytes: u32,
        value: Value,
    ) {
        if space == Space::Shared {
            let pointer = self.shared_pointer(pc, before, at, bytes);
            self.store_plain(pointer, bytes, value);
            return;
        }
        let done = self.builder.create_block();
        let slow = self.builder.create_block();
        self.builder.set_cold_block(slow);
        if matches!(space, Space::Global | Space::Generic) {
            // The buffer of the instruction's window: the bytes stored (single-copy
            // atomically), as `GlobalMemory::store` replaces them in their word (an aligned
            // access of `bytes` lies inside one word; a store of those bytes alone leaves the
            // others as its compare-and-swap does).
            let (inside, offset) = self.in_window(at, bytes);
            let fast = self.builder.create_block();
            self.builder.ins().brif(inside, fast, &[], slow, &[]);
            self.builder.switch_to_block(fast);
            let words = self.window_field(native::Window::WORDS);
            let pointer = self.builder.ins().iadd(words, offset);
            // A plain aligned store, which the host makes single-copy atomic (x86-64, AArch64):
            // what the interpreter's relaxed update does, without the full fence Cranelift's
            // `atomic_store` adds.
            self.store_plain(pointer, bytes, value);
            self.builder.ins().jump(done, &[]);
        } else {
            self.builder.ins().jump(slow, &[]);
        }
        self.builder.switch_to_block(slow);
        self.call_memory_helper(
            self.helpers.store,
            space,
            at,
            bytes,
            Some(value),
            (pc, before),
        );
        self.builder.ins().jump(done, &[]);
        self.builder.switch_to_block(done);
    }

    /// Calls the load or store helper (`value`: a store's) for an access of `bytes` at `at`
    /// in `space`; where it refuses, the instruction `pc` is declined with the step count
    /// `before`, else the code goes on in a new block.
    fn call_memory_helper(
        &mut self,
        helper: FuncRef,
        space: Space,
        at: Value,
        bytes: u32,
        value: Option<Value>,
        (pc, before): (usize, Value),
    ) {
        let space_number = self
            .builder
            .ins()
            .iconst(types::I32, i64::from(native::space_number(space)));
        let width = self.builder.ins().iconst(types::I32, i64::from(bytes));
        let slot = self.builder.ins().iconst(types::I32, self.slot as i64);
        let mut arguments = vec![self.context, space_number, at, width, slot];
        arguments.extend(value);
        let call = self.builder.ins().call(helper, &arguments);
        let ok = self.builder.inst_results(call)[0];
        self.made_or_declined(ok, pc, before);
    }
}

/// The mask of the low `bits` bits (all 64 from 64 on).
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// What [`Translator::for_lanes`] takes: the frame of the warp function's lane loops
/// ([`crate::warp`]), whose registers live in the register file (every write stored at once:
/// `analysis` is [`writeback::analyse`]'s with `through`).
pub(crate) struct LaneFrame<'a> {
    pub(crate) variables: &'a [Option<Variable>],
    pub(crate) context: Value,
    pub(crate) shared: Value,
    pub(crate) shared_len: Value,
    pub(crate) limits: [u64; 2],
    pub(crate) helpers: Helpers,
    /// The step count (relative: the warp's), the counters of a way out.
    pub(crate) steps: Variable,
    pub(crate) exit_pc: Variable,
    pub(crate) exit_steps: Variable,
    /// Where every way out goes (an access not made, or a way the frame does not expect).
    pub(crate) stop: Block,
    /// Per instruction, its block (the instructions of the loop's body, and after them the
    /// loop's latch).
    pub(crate) blocks: &'a [Option<Block>],
    pub(crate) base: Variable,
    pub(crate) lane: Variable,
    pub(crate) stride: u64,
    pub(crate) block: [u32; 3],
    pub(crate) windows: Value,
    /// The first window slot the frame's memory instructions take.
    pub(crate) slots: usize,
    pub(crate) analysis: &'a Analysis,
}

/// The tables a translation adds to (see [`build`]).
pub(crate) type Tables<'a> = (
    &'a mut Vec<LaneFn>,
    &'a mut Vec<std::pin::Pin<Box<ElementConversion>>>,
    &'a mut Vec<native::TextureCall>,
);

impl<'a, 'b> Translator<'a, 'b> {
    /// A translator of one thread's instructions inside the warp function's loop over lanes
    /// ([`crate::warp`]): the same generation as [`build`]'s, so that each operation has one
    /// definition.
    pub(crate) fn for_lanes(
        builder: &'a mut FunctionBuilder<'b>,
        frame: LaneFrame<'a>,
        (functions, conversions, texture_calls): Tables<'a>,
    ) -> Self {
        let registers = frame.variables.len();
        Translator {
            builder,
            variables: frame.variables,
            context: frame.context,
            shared: frame.shared,
            shared_len: frame.shared_len,
            limits: frame.limits,
            needs: [0; 2],
            helpers: frame.helpers,
            steps: frame.steps,
            exit_pc: frame.exit_pc,
            exit_steps: frame.exit_steps,
            exit: frame.stop,
            blocks: frame.blocks,
            functions,
            conversions,
            texture_calls,
            constants: vec![None; registers],
            base: frame.base,
            lane: frame.lane,
            stride: frame.stride,
            block: frame.block,
            stop: frame.stop,
            windows: frame.windows,
            slots: frame.slots,
            slot: 0,
            analysis: frame.analysis,
            dirty: vec![0; registers.div_ceil(64)],
            pc: 0,
            // The warp function's segments hold no `ret`; as the work-item code did before.
            calls: true,
        }
    }

    /// Instruction `index` in `block`: its step counted, then [`Translator::instruction`].
    pub(crate) fn counted(
        &mut self,
        block: Block,
        index: usize,
        instruction: &Instruction,
        plan: Option<Plan>,
    ) {
        self.builder.switch_to_block(block);
        let before = self.builder.use_var(self.steps);
        let after = self.builder.ins().iadd_imm_s(before, 1);
        self.builder.def_var(self.steps, after);
        self.instruction(index, instruction, plan, before);
    }

    /// The window slots taken so far and the parameter and `.const` bytes read without a
    /// check ([`Built::slots`], [`Built::needs`]).
    pub(crate) fn finish(self) -> (usize, [u64; 2]) {
        (self.slots, self.needs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `if`/`else` joining before a loop, then a store and `ret`, every instruction
    /// compiled. Worked out by hand from the PTX: the runs start at 0 (7 instructions, to the
    /// guarded `bra`), 7 (2: the `else` side and its `bra`), 9 (2: the `if` side, falling
    /// through), 11 (4: the loop, to its guarded `bra` back) and 15 (4, to `ret`). The loop's
    /// branch back to 11 is the only back edge; 11 checks for itself, 8 steps (its 4 and the
    /// 4 after the loop); 0 checks 7 + 2, the longer of 7 and 9 (which stop at the header).
    #[test]
    fn reaches_stop_at_loop_headers() {
        let source = format!(
            "{}{}",
            ".version 8.0\n.target sm_90\n.address_size 64\n",
            ".visible .entry k(.param .u64 out) {
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra EVEN;
    add.u32 %r2, %r2, 100;
    bra LOOP;
EVEN:
    add.u32 %r2, %r2, 200;
    xor.b32 %r2, %r2, 5;
LOOP:
    add.u32 %r2, %r2, %r1;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, 4;
    @%p2 bra LOOP;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"
        );
        let program = ptxsim_exec::load(&source, None).expect("the kernel loads");
        assert_eq!(program.instructions.len(), 19);
        let covered = vec![true; 19];
        let starts = runs(&program, &covered);
        let lengths: Vec<(usize, u64)> = starts
            .iter()
            .enumerate()
            .filter_map(|(at, length)| length.map(|length| (at, length)))
            .collect();
        assert_eq!(lengths, [(0, 7), (7, 2), (9, 2), (11, 4), (15, 4)]);
        let (reach, headers) = reaches(&program, &starts);
        let headers: Vec<usize> = (0..19).filter(|&at| headers[at]).collect();
        assert_eq!(headers, [11]);
        assert_eq!(
            [0, 7, 9, 11, 15].map(|at| reach[at]),
            [9, 2, 2, 8, 4],
            "the steps each run start checks"
        );
        // A start the interpreter leads to (an instruction it runs before 11): 11 is then
        // the only run start, still a header.
        let mut covered = vec![true; 19];
        covered[10] = false;
        let starts = runs(&program, &covered);
        let (reach, headers) = reaches(&program, &starts);
        assert_eq!(
            (reach[9], reach[0]),
            (1, 9),
            "9 stops at the interpreted 10"
        );
        assert!(headers[11]);
    }
}
