//! Where the generated code keeps a thread's registers: in Cranelift variables (host registers
//! or stack slots) from the thread's entry into the code until it leaves, with the register file
//! written only where the thread leaves. This module holds the analyses that say what to load
//! at an entry and what to store at an exit:
//! * [`Analysis::dirty_in`]: per compiled instruction, the registers the code may have written
//!   since the thread entered (a forward "maybe written" analysis over the compiled
//!   instructions; an entry starts with none). Where a thread leaves, these are the registers
//!   whose values are in variables only.
//! * [`Analysis::live`]: per instruction, the registers some path from it reads before writing
//!   them, over the whole program (the interpreter's instructions too): the registers a thread
//!   leaving for the interpreter there must store. `None` when an instruction's register use is
//!   not listed (a call, a matrix instruction: [`registers::registers_of`]).
//! * [`Analysis::other_lanes`]: the registers some instruction reads in other threads (`shfl`'s
//!   source, ...), which may be threads that have left the code or exited: always stored.
//! * [`Analysis::load`]: per compiled instruction, what an entry there must load: the registers
//!   compiled instructions read, and those an exit may store, before the code writes them (a
//!   backward liveness over the compiled instructions in which every exit reads what it
//!   stores), so that a variable an exit stores always holds the register's value.
//!
//! Registers a thread wrote that nothing reads after it leaves are not stored, so the register
//! file does not hold them: the code for a CTA whose registers are shown after its run (the
//! inspected thread's) is built a second time with every write stored at once (`through`).

use ptxsim_exec::ir::Program;

use crate::registers::{self, Use, successors};

/// A set of registers, one bit each.
pub(crate) type Set = Vec<u64>;

/// Whether `r` is in `set`.
pub(crate) fn contains(set: &[u64], r: usize) -> bool {
    set.get(r / 64)
        .is_some_and(|word| word >> (r % 64) & 1 == 1)
}

/// Adds `r` to `set`.
pub(crate) fn insert(set: &mut [u64], r: usize) {
    if let Some(word) = set.get_mut(r / 64) {
        *word |= 1 << (r % 64);
    }
}

/// Adds `other` to `set`; whether it grew.
fn union_into(set: &mut [u64], other: &[u64]) -> bool {
    let mut grew = false;
    for (s, o) in set.iter_mut().zip(other) {
        grew |= *o & !*s != 0;
        *s |= o;
    }
    grew
}

/// What [`analyse`] found (see the module's description).
#[derive(Debug)]
pub(crate) struct Analysis {
    pub(crate) dirty_in: Vec<Set>,
    /// Per compiled instruction: the registers it may write (guarded or not), which the code
    /// keeps in variables; a write of another register is stored at once.
    pub(crate) writes: Vec<Set>,
    pub(crate) load: Vec<Set>,
    pub(crate) live: Option<Vec<Set>>,
    pub(crate) other_lanes: Set,
    /// Whether every write is stored at once (asked for, or chosen because the ways out would
    /// store too much: [`STORES_PER_INSTRUCTION`]).
    pub(crate) through: bool,
    /// How many register stores the ways out make in all (the code's size grows with it).
    pub(crate) stores: usize,
}

/// The most register stores at the ways out per compiled instruction: past it the code keeps
/// registers in variables no longer than an instruction (every write stored at once). Each
/// stored register is a value kept live to a cold exit, and Cranelift's register allocation
/// took 2-3x longer on kernels well below this bound (docs/compiled-tier.md); a large kernel
/// with many live registers at each of many memory accesses would take far longer.
pub(crate) const STORES_PER_INSTRUCTION: usize = 8;

/// The number of registers in `set`.
fn size(set: &[u64]) -> usize {
    set.iter().map(|w| w.count_ones() as usize).sum()
}

/// Registers `keep` lists where a thread goes on at instruction `pc` in the interpreter: those
/// live there and those other threads read (every register where the liveness is unknown).
pub(crate) fn keep_at(live: Option<&[Set]>, other_lanes: &[u64], pc: usize) -> Option<Set> {
    let live = live?;
    Some(match live.get(pc) {
        Some(live) => live.iter().zip(other_lanes).map(|(l, o)| l | o).collect(),
        None => other_lanes.to_vec(),
    })
}

/// `set` with only the registers of `keep` (all of them for `None`).
fn within(set: &[u64], keep: Option<&Set>) -> Set {
    match keep {
        Some(keep) => set.iter().zip(keep).map(|(s, k)| s & k).collect(),
        None => set.to_vec(),
    }
}

/// The analyses for `program` whose instructions `compiled` says run compiled. With `through`
/// (the code for a CTA whose registers are shown after its run) every write is stored at once
/// and a way out stores nothing more: [`Analysis::writes`] and [`Analysis::dirty_in`] are
/// empty. Otherwise a way out to instruction `p` stores the dirty registers [`keep_at`] `p`
/// lists, and one out of the kernel (`ret`, `exit`) those other threads read.
pub(crate) fn analyse(program: &Program, compiled: &[bool], through: bool) -> Analysis {
    let count = program.instructions.len();
    let words = program.registers.len().div_ceil(64);
    let empty = vec![0u64; words];
    let is_compiled = |i: usize| compiled.get(i).copied().unwrap_or(false);
    // Per instruction: what it reads, may write, always writes; whether its use is listed.
    let mut reads = vec![empty.clone(); count];
    let mut writes = vec![empty.clone(); count];
    let mut kills = vec![empty.clone(); count];
    let mut other_lanes = empty.clone();
    let mut listed = true;
    for (index, instruction) in program.instructions.iter().enumerate() {
        let guarded = instruction.guard.is_some();
        listed &= registers::registers_of(instruction, |r, how| match how {
            Use::Read => insert(&mut reads[index], r),
            Use::ReadOtherLanes => {
                insert(&mut reads[index], r);
                insert(&mut other_lanes, r);
            }
            Use::Write => {
                insert(&mut writes[index], r);
                if !guarded {
                    insert(&mut kills[index], r);
                }
            }
        });
    }

    for (index, set) in writes.iter_mut().enumerate() {
        if through || !is_compiled(index) {
            set.fill(0);
        }
    }

    // Forward: maybe written since the entry, over the compiled instructions.
    let mut dirty_in = vec![empty.clone(); count];
    let mut changed = true;
    while changed {
        changed = false;
        for index in (0..count).filter(|&i| is_compiled(i)) {
            let mut out = dirty_in[index].clone();
            union_into(&mut out, &writes[index]);
            for next in successors(program, index).filter(|&n| is_compiled(n)) {
                changed |= union_into(&mut dirty_in[next], &out);
            }
        }
    }

    // Backward, the whole program: live registers.
    let live = listed.then(|| {
        let mut live = vec![empty.clone(); count];
        let mut changed = true;
        while changed {
            changed = false;
            for index in (0..count).rev() {
                let mut out = empty.clone();
                for next in successors(program, index) {
                    if let Some(next) = live.get(next) {
                        union_into(&mut out, next);
                    }
                }
                let mut new: Set = out.iter().zip(&kills[index]).map(|(o, k)| o & !k).collect();
                union_into(&mut new, &reads[index]);
                if new != live[index] {
                    live[index] = new;
                    changed = true;
                }
            }
        }
        live
    });

    // Backward, the compiled instructions: what an entry must load. Every compiled
    // instruction may leave before it runs (a fault, the step limit, `ret`/`exit`) storing
    // what is dirty there and kept; one with a successor the interpreter runs leaves after it
    // storing what is dirty then and kept there.
    let keep = |pc: usize| keep_at(live.as_deref(), &other_lanes, pc);
    // The stores of the ways out: before each compiled instruction (a fault, the step limit),
    // and after one whose successor the interpreter runs.
    let mut stores = 0;
    for index in (0..count).filter(|&i| is_compiled(i)) {
        stores += size(&within(&dirty_in[index], keep(index).as_ref()));
        let mut dirty = dirty_in[index].clone();
        union_into(&mut dirty, &writes[index]);
        for next in successors(program, index).filter(|&n| !is_compiled(n)) {
            stores += size(&within(&dirty, keep(next).as_ref()));
        }
    }
    let compiled_count = (0..count).filter(|&i| is_compiled(i)).count();
    if !through && stores > STORES_PER_INSTRUCTION.saturating_mul(compiled_count) {
        let mut analysis = analyse(program, compiled, true);
        analysis.stores = stores;
        return analysis;
    }
    let mut load = vec![empty.clone(); count];
    let mut changed = true;
    while changed {
        changed = false;
        for index in (0..count).rev().filter(|&i| is_compiled(i)) {
            let mut out = empty.clone();
            for next in successors(program, index) {
                if is_compiled(next) {
                    union_into(&mut out, &load[next]);
                } else {
                    let mut dirty = dirty_in[index].clone();
                    union_into(&mut dirty, &writes[index]);
                    union_into(&mut out, &within(&dirty, keep(next).as_ref()));
                }
            }
            let mut new: Set = out.iter().zip(&kills[index]).map(|(o, k)| o & !k).collect();
            union_into(&mut new, &reads[index]);
            union_into(&mut new, &within(&dirty_in[index], keep(index).as_ref()));
            if new != load[index] {
                load[index] = new;
                changed = true;
            }
        }
    }

    Analysis {
        dirty_in,
        writes,
        load,
        live,
        other_lanes,
        through,
        stores,
    }
}
