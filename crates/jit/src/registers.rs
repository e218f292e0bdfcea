//! What every instruction kind does to a thread's registers (which it reads, which it always
//! writes), the control flow between instructions, and the analysis built on both that lets a
//! CTA start without zeroing its whole register file: the registers a thread may read before
//! writing them ([`read_before_written`]).
//!
//! PTX gives a register no value before it is written; ptxsim makes such reads deterministic by
//! starting every register of a CTA at zero (`ptxsim_exec`'s `Lanes`). A register that
//! every path from the kernel's first instruction writes before any read cannot show what it
//! held before, so a CTA that reuses the register file of the CTA before it need zero only the
//! others.

use ptxsim_exec::ir::{Instruction, InstructionKind as K, MemoryOperand, Program, Source};

/// How an instruction uses a register ([`registers_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// The thread reads its own register.
    Read,
    /// The instruction reads the register of other threads too (`shfl`'s `a` from the source
    /// lane, the predicates `vote` gathers, the values `redux` and `match` compare), which may
    /// be threads that never wrote it: PTX ISA 9.0, shfl.sync: "results are undefined in
    /// divergent control flow within a warp, if an active thread sources a register from an
    /// inactive thread", and the interpreter then reads that thread's register as it is.
    ReadOtherLanes,
    /// The instruction writes it whenever it runs (without a guard, or with one that holds).
    Write,
}

/// Calls `visit` for each register `instruction` reads (its guard's predicate too) and each it
/// always writes when it runs. A write the instruction makes only under some condition (an
/// undefined `shfl` result may leave the destination as it was, a barrier's reduction is
/// written at release) is not reported: the analyses here need writes that surely happen.
/// Returns false for the instructions whose register use is not listed (matrix instructions
/// that gather registers of every lane of a warp or warpgroup, calls, whose callees read and
/// write registers the call does not name): they may read any register of any thread.
pub(crate) fn registers_of(instruction: &Instruction, mut visit: impl FnMut(usize, Use)) -> bool {
    let mut reads = Vec::new();
    let mut other_lanes = Vec::new();
    let mut writes = Vec::new();
    let address = |operand: &MemoryOperand| operand.base;
    match &instruction.kind {
        K::Mov {
            destination,
            source,
            ..
        }
        | K::Cvta {
            destination,
            source,
            ..
        } => {
            reads.push(*source);
            writes.push(destination.register.index());
        }
        K::MovPack {
            destination,
            elements,
            ..
        } => {
            reads.extend(elements);
            writes.push(destination.register.index());
        }
        K::MovUnpack {
            elements, source, ..
        } => {
            reads.push(*source);
            writes.extend(elements.iter().flatten().map(|d| d.register.index()));
        }
        K::MovVector {
            destinations,
            sources,
            ..
        } => {
            reads.extend(sources);
            writes.extend(destinations.iter().flatten().map(|d| d.register.index()));
        }
        K::Cvt {
            destination,
            sources,
            ..
        }
        | K::FloatPair {
            destination,
            sources,
            ..
        }
        | K::FloatMixed {
            destination,
            sources,
            ..
        } => {
            reads.extend(sources);
            writes.push(destination.register.index());
        }
        K::CvtPack {
            destination,
            a,
            b,
            c,
            ..
        } => {
            reads.extend([*a, *b]);
            reads.extend(c);
            writes.push(destination.register.index());
        }
        K::IntBinary {
            destination, a, b, ..
        }
        | K::FloatBinary {
            destination, a, b, ..
        }
        | K::Mapa {
            destination,
            address: a,
            rank: b,
            ..
        } => {
            reads.extend([*a, *b]);
            writes.push(destination.register.index());
        }
        K::IntUnary { destination, a, .. }
        | K::FloatUnary { destination, a, .. }
        | K::Testp { destination, a, .. }
        | K::Getctarank {
            destination,
            address: a,
            ..
        }
        | K::Isspacep {
            destination,
            address: a,
            ..
        }
        | K::Alloca {
            destination,
            size: a,
            ..
        } => {
            reads.push(*a);
            writes.push(destination.register.index());
        }
        K::Mad {
            destination,
            sources,
            ..
        }
        | K::Fma {
            destination,
            sources,
            ..
        }
        | K::Prmt {
            destination,
            sources,
            ..
        }
        | K::Lop3 {
            destination,
            sources,
            ..
        }
        | K::IntTernary {
            destination,
            sources,
            ..
        }
        | K::IntExtra {
            destination,
            sources,
            ..
        }
        | K::Slct {
            destination,
            sources,
            ..
        }
        | K::Bfe {
            destination,
            sources,
            ..
        }
        | K::FloatMinMax3 {
            destination,
            sources,
            ..
        } => {
            reads.extend(sources);
            writes.push(destination.register.index());
        }
        K::Bfi {
            destination,
            sources,
            ..
        } => {
            reads.extend(sources);
            writes.push(destination.register.index());
        }
        K::Carry {
            destination,
            sources,
            carry_in,
            carry_out,
            ..
        } => {
            reads.extend(sources);
            reads.extend(carry_in.map(Source::Register));
            writes.push(destination.register.index());
            writes.extend(carry_out.map(|r| r.index()));
        }
        K::Setp {
            combine,
            p,
            q,
            a,
            b,
            ..
        } => {
            reads.extend([*a, *b]);
            reads.extend(combine.iter().map(|(_, c)| c.source));
            writes.push(p.register.index());
            writes.extend(q.iter().map(|d| d.register.index()));
        }
        K::Set {
            combine,
            destination,
            a,
            b,
            ..
        } => {
            reads.extend([*a, *b]);
            reads.extend(combine.iter().map(|(_, c)| c.source));
            writes.push(destination.register.index());
        }
        K::Selp {
            destination,
            a,
            b,
            c,
            ..
        } => {
            reads.extend([*a, *b, *c]);
            writes.push(destination.register.index());
        }
        K::Ld {
            destinations,
            address: at,
            ..
        } => {
            reads.push(address(at));
            writes.extend(destinations.iter().flatten().map(|d| d.register.index()));
        }
        K::St {
            address: at,
            sources,
            ..
        }
        | K::StAsync {
            address: at,
            sources,
            ..
        } => {
            reads.push(address(at));
            reads.extend(sources);
            if let K::StAsync {
                mbarrier: Some(m), ..
            } = &instruction.kind
            {
                reads.push(address(m));
            }
        }
        K::StMasked {
            address: at,
            sources,
            ..
        } => {
            reads.push(address(at));
            reads.extend(sources.iter().flatten());
        }
        // The old value an atomic returns is written (PTX ISA 9.7.13.5, atom: "Atomically
        // loads the original value at location a into destination register d"), unless the
        // access faults, which stops the CTA.
        K::Atom {
            address: at,
            b,
            c,
            destination,
            ..
        } => {
            reads.push(address(at));
            reads.push(*b);
            reads.extend(c);
            writes.extend(destination.map(|d| d.register.index()));
        }
        K::AtomVector {
            address: at,
            sources,
            ..
        } => {
            reads.push(address(at));
            reads.extend(sources);
        }
        K::RedAsync {
            address: at,
            source,
            mbarrier,
            ..
        } => {
            reads.extend([address(at), *source]);
            reads.extend(mbarrier.as_ref().map(address));
        }
        K::Barrier {
            id,
            count,
            predicate,
            ..
        } => {
            reads.push(*id);
            reads.extend(count);
            reads.extend(predicate.iter().map(|p| p.source));
        }
        K::Shfl {
            sources: [a, b, c],
            membermask,
            ..
        } => {
            other_lanes.push(*a);
            reads.extend([*b, *c]);
            reads.extend(membermask);
        }
        K::Vote { a, membermask, .. } => {
            other_lanes.push(a.source);
            reads.extend(membermask);
        }
        K::Redux { a, membermask, .. } | K::Match { a, membermask, .. } => {
            other_lanes.push(*a);
            reads.push(*membermask);
        }
        K::Activemask { destination } | K::StackSave { destination, .. } => {
            writes.push(destination.register.index());
        }
        K::Elect { membermask, .. } | K::BarWarpSync { membermask } => reads.push(*membermask),
        K::CpAsyncBulk {
            destination,
            source,
            size,
            mbarrier,
            cta_mask,
            ..
        } => {
            reads.extend([address(destination), address(source), *size]);
            reads.extend(mbarrier.as_ref().map(address));
            reads.extend(cta_mask);
        }
        K::CpReduceAsyncBulk {
            destination,
            source,
            size,
            mbarrier,
            ..
        } => {
            reads.extend([address(destination), address(source), *size]);
            reads.extend(mbarrier.as_ref().map(address));
        }
        K::TensormapReplace {
            address: at, value, ..
        } => reads.extend([address(at), *value]),
        K::BulkTensor(bulk) => {
            reads.push(address(&bulk.shared));
            reads.push(bulk.tensor_map);
            reads.extend(&bulk.coordinates);
            reads.extend(bulk.mbarrier.as_ref().map(address));
            reads.extend(&bulk.im2col_offsets);
            reads.extend(bulk.cta_mask);
        }
        // A texture or surface instruction writes as many destinations as it has results
        // (`tex`/`tld4` four, `txq`/`suq` one, `suld` its vector's elements; `sust`, `sured`
        // none): those are listed, the others left out.
        K::Texture(texture) => {
            reads.push(texture.handle);
            reads.extend(&texture.coordinates);
            reads.extend(&texture.sources);
            writes.extend(
                texture
                    .destinations
                    .iter()
                    .take(texture_results(&texture.op))
                    .flatten()
                    .map(|d| d.register.index()),
            );
        }
        K::CpAsync {
            destination,
            source,
            source_size,
            ignore_source,
            ..
        } => {
            reads.extend([address(destination), address(source)]);
            reads.extend(source_size);
            reads.extend(ignore_source.iter().map(|p| p.source));
        }
        K::Mbarrier {
            address: at,
            operand,
            ..
        } => {
            reads.extend(at.as_ref().map(address));
            reads.extend(operand);
        }
        K::BranchIndexed { index, .. } => reads.push(*index),
        K::StBulk {
            address: at, size, ..
        } => reads.extend([address(at), *size]),
        K::ClusterCancel {
            response, mbarrier, ..
        } => reads.extend([address(response), address(mbarrier)]),
        K::ClusterCancelQuery { handle, .. } => reads.push(*handle),
        K::StackRestore { source, .. } => reads.push(*source),
        K::BarrierCluster { .. }
        | K::Fence
        | K::Bra { .. }
        | K::Ret
        | K::Exit
        | K::Trap
        | K::Unsupported { .. } => {}
        K::Mma { .. }
        | K::Ldmatrix { .. }
        | K::Stmatrix { .. }
        | K::Movmatrix { .. }
        | K::WmmaLoad { .. }
        | K::WmmaStore { .. }
        | K::WmmaMma { .. }
        | K::Wgmma(_)
        | K::Tcgen05(_)
        | K::Call { .. }
        | K::CallIndirect { .. }
        | K::CallRuntime { .. } => return false,
    }
    let mut read = |source: &Source, how: Use| {
        if let Source::Register(r) | Source::RegisterPlus(r, _) = source {
            visit(r.index(), how);
        }
    };
    if let Some(guard) = instruction.guard {
        read(&Source::Register(guard.predicate), Use::Read);
    }
    for source in &reads {
        read(source, Use::Read);
    }
    for source in &other_lanes {
        read(source, Use::ReadOtherLanes);
    }
    for register in writes {
        visit(register, Use::Write);
    }
    true
}

/// The instructions that may run after `index` in the same thread: a branch's targets, the
/// next instruction unless an unguarded branch, `ret`, `exit` or `trap` ends the way there. A
/// call's callee and return are not followed (its register use is not listed either,
/// [`registers_of`]).
pub(crate) fn successors(program: &Program, index: usize) -> impl Iterator<Item = usize> + '_ {
    let instruction = &program.instructions[index];
    let guarded = instruction.guard.is_some();
    let next = index + 1;
    let (first, targets): (Option<usize>, &[usize]) = match &instruction.kind {
        K::Bra { target } => (guarded.then_some(next), std::slice::from_ref(target)),
        K::BranchIndexed { targets, .. } => (guarded.then_some(next), targets),
        K::Ret | K::Exit | K::Trap => (guarded.then_some(next), &[]),
        _ => (Some(next), &[]),
    };
    first.into_iter().chain(targets.iter().copied())
}

/// The registers a thread of `program` may read before it has written them (on some path from
/// the kernel's first instruction), or read in another thread that may not have written them
/// ([`Use::ReadOtherLanes`]): the only registers whose starting value a run can observe, other
/// than through the registers reported after the run. `None` when the program has an
/// instruction whose register use is not listed ([`registers_of`]): then every register may
/// be read. A forward "maybe unwritten" analysis: every register is unwritten at the first
/// instruction; an unguarded write makes it written after that instruction; ways join by
/// union.
pub(crate) fn read_before_written(program: &Program) -> Option<Vec<u32>> {
    let count = program.instructions.len();
    let registers = program.registers.len();
    let words = registers.div_ceil(64);
    let bit = |bits: &[u64], r: usize| bits.get(r / 64).is_some_and(|w| w >> (r % 64) & 1 == 1);
    let set = |bits: &mut [u64], r: usize| {
        if let Some(word) = bits.get_mut(r / 64) {
            *word |= 1 << (r % 64);
        }
    };
    let mut uses = Vec::with_capacity(count);
    for instruction in &program.instructions {
        let mut list = Vec::new();
        if !registers_of(instruction, |r, how| list.push((r, how))) {
            return None;
        }
        uses.push(list);
    }
    let mut observed = vec![0u64; words];
    // Per instruction: the registers some way to it leaves unwritten (`None`: not reached).
    let mut unwritten: Vec<Option<Vec<u64>>> = vec![None; count];
    if count > 0 {
        let mut all = vec![u64::MAX; words];
        if registers % 64 != 0
            && let Some(last) = all.last_mut()
        {
            *last = (1u64 << (registers % 64)) - 1;
        }
        unwritten[0] = Some(all);
    }
    let mut work = vec![0usize];
    while let Some(index) = work.pop() {
        let Some(state) = unwritten.get(index).cloned().flatten() else {
            continue;
        };
        let mut after = state.clone();
        let guarded = program.instructions[index].guard.is_some();
        for &(r, how) in &uses[index] {
            match how {
                Use::Read if bit(&state, r) => set(&mut observed, r),
                Use::Read => {}
                Use::ReadOtherLanes => set(&mut observed, r),
                Use::Write if !guarded => {
                    if let Some(word) = after.get_mut(r / 64) {
                        *word &= !(1 << (r % 64));
                    }
                }
                Use::Write => {}
            }
        }
        for next in successors(program, index) {
            let Some(slot) = unwritten.get_mut(next) else {
                continue;
            };
            match slot {
                None => {
                    *slot = Some(after.clone());
                    work.push(next);
                }
                Some(known) => {
                    let mut grew = false;
                    for (k, a) in known.iter_mut().zip(&after) {
                        grew |= *a & !*k != 0;
                        *k |= a;
                    }
                    if grew {
                        work.push(next);
                    }
                }
            }
        }
    }
    Some(
        (0..registers)
            .filter(|&r| bit(&observed, r))
            .map(|r| r as u32)
            .collect(),
    )
}

/// How many results a texture or surface instruction writes, whatever its inputs (the
/// interpreter's `texture_op` gives as many for a lane that does not trap).
pub(crate) fn texture_results(op: &ptxsim_exec::ir::TextureOp) -> usize {
    use ptxsim_exec::ir::TextureOp;
    match op {
        TextureOp::Tex(_) => 4,
        TextureOp::Txq { .. } | TextureOp::Suq(_) => 1,
        TextureOp::Suld(form) => usize::from(form.vector),
        TextureOp::Sust(_) | TextureOp::Sured(_) => 0,
    }
}

/// Whether `program` read-modify-writes a global address that threads of one CTA share,
/// with only compiled instructions between its load and its store: a thread stores through a
/// base register whose value does not depend on a thread-index axis along which the CTA
/// (`block`) has more than one thread, and a compiled load through the same register and
/// offset reaches the store, or the store the load, without an instruction the interpreter
/// issues between them.
/// PolyBench/ACC's `mvt` is the pattern: a 32x8 block whose 8 rows each run
/// `x1[i] += a[i][j] * y[j]` for the same `i` (from `%ctaid.x`, `%ntid.x` and `%tid.x` only).
/// Such threads race; the warps of a GPU most likely interleave their loads and stores so that
/// each store writes what every warp computed from the same old value, and the interpreter,
/// which issues a CTA's threads in lockstep, does the same. The compiled tier runs the threads
/// one after another between the instructions the interpreter issues, so each adds to what the
/// ones before it stored: `auto` leaves such kernels to the interpreter.
///
/// Dependence is followed through registers only (a register depends on an axis when an
/// instruction writing it reads `%tid` of that axis, or a register that depends on it; a
/// value from another lane, `%laneid` or `%warpid`, on every axis), over the whole kernel at
/// once. Control dependence is not followed: a store only the threads of row 0 make is
/// counted too (the kernel then runs in the interpreter, slower, not wrong). `false` where an
/// instruction's register use is not listed ([`registers_of`]).
pub(crate) fn global_update_shared_by_threads(
    program: &Program,
    compiled: &[bool],
    block: [u32; 3],
) -> bool {
    use ptxsim_exec::ir::{Axis, SpecialRegister as S};
    use ptxsim_isa::ops::Space;
    const ALL: u8 = 0b111;
    let axis_bit = |axis: Axis| match axis {
        Axis::X => 1u8,
        Axis::Y => 2,
        Axis::Z => 4,
    };
    // The axes along which threads of the CTA differ: a store whose address depends on none
    // of one of them is shared by those threads.
    let spread: u8 = (0..3).filter(|&a| block[a] > 1).map(|a| 1u8 << a).sum();
    if spread == 0 {
        return false;
    }
    let mut depends: std::collections::HashMap<usize, u8> = std::collections::HashMap::new();
    loop {
        let mut changed = false;
        for instruction in &program.instructions {
            let mut mask = match &instruction.kind {
                K::Mov {
                    source: Source::Special(special),
                    ..
                } => match special {
                    S::Tid(axis) => axis_bit(*axis),
                    S::Laneid | S::Warpid => ALL,
                    _ => 0,
                },
                _ => 0,
            };
            let mut writes = Vec::new();
            let listed = registers_of(instruction, |register, how| match how {
                Use::Read => mask |= depends.get(&register).copied().unwrap_or(0),
                Use::ReadOtherLanes => mask = ALL,
                Use::Write => writes.push(register),
            });
            if !listed {
                return false;
            }
            for register in writes {
                let entry = depends.entry(register).or_insert(0);
                if *entry | mask != *entry {
                    *entry |= mask;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let global = |space: Space| matches!(space, Space::Global | Space::Generic);
    let base = |operand: &MemoryOperand| match operand.base {
        Source::Register(r) => Some((r.index(), operand.offset)),
        _ => None,
    };
    // The compiled global stores through an address the threads along some axis share, and
    // the compiled global loads, by (base register, offset).
    let mut stores = Vec::new();
    let mut loads = Vec::new();
    for (index, instruction) in program.instructions.iter().enumerate() {
        if compiled.get(index) != Some(&true) {
            continue;
        }
        match &instruction.kind {
            K::St { space, address, .. } if global(*space) => {
                if let Some(key) = base(address)
                    && depends.get(&key.0).copied().unwrap_or(0) & spread != spread
                {
                    stores.push((index, key));
                }
            }
            K::Ld { space, address, .. } if global(*space) => {
                if let Some(key) = base(address) {
                    loads.push((index, key));
                }
            }
            _ => {}
        }
    }
    // A thread's load and store of such an address with only compiled code from one to the
    // other (either way: `mvt` loads `x1[i]` once, then stores it in every step).
    let count = program.instructions.len();
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; count];
        let mut work: Vec<usize> = successors(program, from).collect();
        while let Some(next) = work.pop() {
            if next >= count || seen[next] || compiled.get(next) != Some(&true) {
                continue;
            }
            if next == to {
                return true;
            }
            seen[next] = true;
            work.extend(successors(program, next));
        }
        false
    };
    stores.iter().any(|&(store, key)| {
        loads
            .iter()
            .any(|&(load, other)| other == key && (reaches(store, load) || reaches(load, store)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

    /// The names of the registers [`read_before_written`] lists for `body`, or `None`.
    fn listed(declarations: &str, body: &str) -> Option<Vec<String>> {
        let source =
            format!("{HEADER}.visible .entry k(.param .u64 out) {{\n{declarations}\n{body}\n}}\n");
        let program = ptxsim_exec::load(&source, None).expect("the kernel loads");
        read_before_written(&program).map(|registers| {
            registers
                .iter()
                .map(|&r| program.registers[r as usize].name.clone())
                .collect()
        })
    }

    /// Read after a join where one way wrote it: listed; written on every way first: not;
    /// written under a guard only, then read: listed; never read: not; `shfl`'s source,
    /// which other lanes read: listed even though written first.
    #[test]
    fn lists_the_registers_some_path_reads_unwritten() {
        let declarations = ".reg .pred %p<2>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<2>;";
        let body = "
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra SKIP;
    mov.u32 %r2, 5;
    mov.u32 %r3, 6;
SKIP:
    mov.u32 %r3, 7;
    add.u32 %r4, %r2, %r3;
    @%p1 mov.u32 %r5, 1;
    add.u32 %r6, %r5, 1;
    mov.u32 %r0, 9;
    mov.u32 %r7, %r1;
    shfl.sync.idx.b32 %r8, %r7, 0, 31, -1;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r4;
    ret;";
        assert_eq!(
            listed(declarations, body),
            Some(vec!["%r2".into(), "%r5".into(), "%r7".into()])
        );
    }

    /// A loop whose body reads a register the loop's first pass has not written yet.
    #[test]
    fn follows_loops_back() {
        let declarations = ".reg .pred %p<2>;\n.reg .b32 %r<4>;";
        let body = "
    mov.u32 %r1, 0;
LOOP:
    add.u32 %r2, %r3, 1;
    mov.u32 %r3, %r1;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 4;
    @%p1 bra LOOP;
    ret;";
        assert_eq!(listed(declarations, body), Some(vec!["%r3".into()]));
    }

    /// A call reads and writes registers it does not name: every register may be read.
    #[test]
    fn calls_leave_every_register_listed() {
        let source = format!(
            "{HEADER}.func f() {{ ret; }}\n.visible .entry k() {{\n.reg .b32 %r<2>;\n\
             mov.u32 %r1, 1;\ncall f;\nret;\n}}\n"
        );
        let program = ptxsim_exec::load(&source, Some("k")).expect("the kernel loads");
        assert_eq!(read_before_written(&program), None);
    }
}
