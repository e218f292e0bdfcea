//! The machine: a launch's [`Device`] (global memory, kernel parameters, grid shape), the
//! [`Cta`]s that run on it (shared memory and threads, run in lockstep) and the fuel that
//! limits them; each instruction is run by the executor (`src/exec/`: the one exhaustive
//! `match` over instruction kinds, one module per instruction family).
//!
//! [`Machine`] is the one-thread launch that `ptxsim eval`, the tests and the single-thread
//! form of `ptxsim run` use; grids are run by the `grid` module.
//!
//! Faults of the simulated program are [`Outcome`]s; limits of the simulator are
//! [`ExecError`]s (style rule 4).

use ptxsim_isa::ops::BarrierOp;

use crate::budget::{DEFAULT_MEMORY_LIMIT, Footprint};
use crate::device::Device;
use crate::dim::{Dim3, flatten, unflatten};
use crate::error::ExecError;
use crate::exec::{Control, Executor};
use crate::ir::{InstructionKind, Program, RegisterId, Source, WarpSync};
use crate::lanes::ThreadStatus;
use crate::lanes::{Barriers, CLUSTER_BARRIER, ClusterLink, Columns, Lanes, Thread, run_start};
use crate::runtime::{PrintBuffer, Printed};
use crate::semantics::{chop, guard_passes};
use crate::step::{MAX_GROUPED_RECORDS, MemoryWrite, Outcome, StepRecord, Write};

/// One thread of a [`Cta`], to look at: its index, registers, program counter, step count,
/// status and `.local` memory.
#[derive(Clone, Copy, Debug)]
pub struct ThreadRef<'a> {
    cta: &'a Cta,
    index: usize,
}

impl<'a> ThreadRef<'a> {
    fn thread(&self) -> &'a Thread {
        &self.cta.threads[self.index]
    }

    /// The thread's index in its CTA.
    pub fn tid(&self) -> Dim3 {
        self.thread().tid
    }

    /// Every register's value, in declaration order.
    pub fn registers(&self) -> Vec<u128> {
        let lanes = &self.cta.lanes;
        (0..lanes.high_row.len())
            .map(|index| lanes.get(self.index, RegisterId(index as u32)))
            .collect()
    }

    /// One register's value (zero for an index that is not a register).
    pub fn register(&self, register: RegisterId) -> u128 {
        self.cta.lanes.get(self.index, register)
    }

    /// The index of the next instruction.
    pub fn pc(&self) -> usize {
        self.cta.lanes.pc[self.index]
    }

    /// Instructions issued so far.
    pub fn steps(&self) -> u64 {
        self.cta.lanes.steps[self.index]
    }

    /// Where the thread is.
    pub fn status(&self) -> &'a ThreadStatus {
        &self.cta.lanes.status[self.index]
    }

    /// The thread's `.local` memory.
    pub fn local(&self) -> &'a [u8] {
        &self.thread().local
    }
}

/// Takes back a thread that compiled code ran, its program counter `pc` as the code left it:
/// a thread it ran out of the kernel (`ret`, `exit`) has exited, as the interpreter's issue of
/// the instruction leaves it; any other stays at `pc` (`held`) until the interpreter has issued
/// that instruction. Returns 1 when the thread exited, else 0.
fn handed_back(
    pc: &mut usize,
    status: &mut ThreadStatus,
    held: &mut usize,
    profile: Option<&crate::compiled::Profile>,
) -> usize {
    let (exited, at) = crate::compiled::exited(*pc);
    if exited {
        // `held` is looked at only for a ready thread, and an exited one never is again.
        *pc = at;
        *status = ThreadStatus::Done(Outcome::Exited);
        return 1;
    }
    *held = at;
    if let Some(profile) = profile {
        crate::compiled::Profile::add(&profile.handed_back, at, 1);
    }
    0
}

/// What one call of compiled code for a CTA ran ([`Cta::run_compiled`]).
enum Ran {
    /// No thread, or it handed one back at an access it did not make.
    None,
    /// Some threads, not every one of them out of the kernel.
    Some,
    /// Every thread of the CTA, each out of the kernel (`ret`, `exit`).
    All,
}

/// How a time slice of a CTA ([`Cta::run_slice`]) ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The CTA finished: `None` when every thread exited, else the first thread that did not
    /// exit normally and its outcome (as [`Cta::run`] returns them).
    Finished(Option<(usize, Outcome)>),
    /// The budget was spent; the CTA has threads that can go on (or wait at a barrier).
    Paused,
    /// No thread can run until the cluster barrier completes (`barrier.cluster.wait` in a
    /// cluster of several CTAs, which the cluster's runner completes).
    Blocked,
}

/// What one call of [`Cta::step_thread`] came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The thread can go on.
    Continue,
    /// The thread reached `bar.sync` and waits for its CTA.
    Barrier,
    /// The thread waits at a warp-synchronous instruction for other lanes of its warp.
    WarpSync,
    /// The thread finished.
    Done(Outcome),
}

/// A CTA: its shared memory and its threads.
#[derive(Clone, Debug)]
pub struct Cta {
    ctaid: Dim3,
    linear: u64,
    pub(crate) shared: Vec<u8>,
    threads: Vec<Thread>,
    lanes: Lanes,
    columns: Columns,
    /// Step records of lanes that a warp-synchronous instruction released while another lane
    /// was being stepped (by lane), when steps are recorded.
    released: Vec<(usize, StepRecord)>,
    /// Whether [`Cta::run`] is recording a trace (then every released lane's step is recorded).
    tracing: bool,
    barriers: Barriers,
    /// Its tensor memory (`tcgen05`, sm_100a).
    pub(crate) tmem: crate::tensor_memory::TensorMemory,
    /// Its place in its thread-block cluster.
    pub(crate) cluster: ClusterLink,
    /// What the threads printed with `printf`.
    printed: PrintBuffer,
    /// Per thread: the instruction at which compiled code last handed it to the interpreter
    /// (`usize::MAX`: none), which the interpreter runs before compiled code takes it on again.
    held: Vec<usize>,
    /// The global buffers compiled code accessed last ([`crate::compiled::CompiledCta`]).
    windows: Vec<u64>,
    /// The threads [`Cta::run_compiled`] hands to compiled code (kept for its allocation).
    runnable: Vec<u32>,
    /// Every thread, in order (`0..count`): what a fresh CTA's first call of compiled code
    /// runs ([`Cta::fresh`]), made once.
    every: Vec<u32>,
    /// The lockstep group and the active lanes of [`Cta::run`] (kept for their allocations: a
    /// CTA of a few threads runs in about a microsecond, in which two allocations counted).
    group: Vec<usize>,
    active: Vec<usize>,
    /// Whether compiled code handed a thread back at an access it did not make (a fault,
    /// most likely): the rest of the CTA's run is the interpreter's.
    interpret_only: bool,
    /// Whether the CTA's registers are shown after its run ([`Cta::reset`]'s `shown`; true for
    /// a new CTA): compiled code then leaves every register it wrote in the register file
    /// ([`crate::compiled::CompiledCta::shown`]).
    pub(crate) shown: bool,
    /// How many groups in a row [`Cta::gather`] picked that left a thread that can run behind
    /// ([`SPIN_LIMIT`]).
    streak: u64,
    /// Whether no thread has run since the CTA was made or reset ([`Cta::reset`]): every
    /// thread is ready at the first instruction, nothing held back. The first call of compiled
    /// code then takes every thread without looking at each one's status.
    fresh: bool,
}

/// How many groups in a row the lowest program counter may pick while other threads that can
/// run wait behind it, before that group is set aside ([`Lanes::waiting`]) and the others run
/// first. Threads at the lowest counter issue first so that diverged lanes reconverge, but a
/// warp that spins on a lock another warp of the CTA holds (`while (atomicOr(lock, 1) & 1);`,
/// the holder's critical section at higher addresses) would then spin to the step limit,
/// where a GPU schedules its warps independently (and, since Volta, its threads: the CUDA C++
/// Programming Guide, SIMT Architecture, "Independent Thread Scheduling", keeps a program
/// counter per thread and lets one thread wait for data another produces). So the lockstep
/// order yields to the threads it left behind after this many issues; a program whose results
/// need lanes reconverged says so with a `.sync` instruction, which waits for them.
pub(crate) const SPIN_LIMIT: u64 = 4096;

/// How often a CTA running without compiled code, in a launch that may compile its kernel
/// while it runs ([`crate::compiled::Upgrade`]), reports the instructions it issued: every
/// this many issues (each one instruction of a group of threads).
pub(crate) const UPGRADE_ISSUES: u64 = 4096;

impl Cta {
    /// CTA `ctaid` of the device's grid, every thread at the first instruction.
    pub fn new(device: &Device<'_>, ctaid: Dim3) -> Self {
        let program = device.program;
        let count = device.threads_per_cta();
        let threads: Vec<Thread> = (0..count)
            .map(|index| Thread::new(program, unflatten(index, device.block)))
            .collect();
        Self {
            ctaid,
            linear: flatten(ctaid, device.grid),
            shared: vec![0; usize::try_from(device.shared_allocation()).unwrap_or(0)],
            lanes: Lanes::new(program, threads.len()),
            columns: Columns::default(),
            released: Vec::new(),
            tracing: false,
            barriers: Barriers::new(threads.len()),
            tmem: crate::tensor_memory::TensorMemory::default(),
            cluster: ClusterLink::new(
                device.cluster(),
                device.cluster_ctas() as u32,
                ctaid,
                threads.len(),
            ),
            threads,
            printed: PrintBuffer::default(),
            held: Vec::new(),
            windows: Vec::new(),
            runnable: Vec::new(),
            every: Vec::new(),
            group: Vec::new(),
            active: Vec::new(),
            interpret_only: false,
            shown: true,
            streak: 0,
            fresh: true,
        }
    }

    /// The CTA's index in the grid.
    pub fn ctaid(&self) -> Dim3 {
        self.ctaid
    }

    /// The number of threads.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// Thread `index` (in linear order).
    pub fn thread(&self, index: usize) -> Option<ThreadRef<'_>> {
        (index < self.threads.len()).then_some(ThreadRef { cta: self, index })
    }

    /// The threads, in linear order.
    pub fn threads(&self) -> impl ExactSizeIterator<Item = ThreadRef<'_>> {
        (0..self.threads.len()).map(|index| ThreadRef { cta: self, index })
    }

    /// Sets a register of thread `index` (masked to the register's width).
    pub fn set_register(
        &mut self,
        program: &Program,
        index: usize,
        register: RegisterId,
        value: u128,
    ) {
        let bits = program
            .registers
            .get(register.index())
            .map_or(0, |r| r.bits());
        if index < self.threads.len() {
            self.lanes.set(index, register, chop(value, bits));
        }
    }

    /// What the threads printed with `printf` since the CTA started or this was last called:
    /// by thread in linear order, each thread's calls in order; and how many calls were dropped
    /// past [`crate::runtime::PRINTF_LIMIT`].
    pub fn take_printed(&mut self) -> (Vec<Printed>, u64) {
        let (ctaid, threads) = (self.ctaid, &self.threads);
        self.printed
            .take(ctaid, |lane| threads.get(lane).map_or([0; 3], |t| t.tid))
    }

    /// The CTA's shared memory.
    pub fn shared(&self) -> &[u8] {
        &self.shared
    }

    /// The grid-wide index of thread `index` of this CTA.
    pub fn global_thread(&self, device: &Device<'_>, index: usize) -> u64 {
        self.linear * device.threads_per_cta() + index as u64
    }

    /// Releases every barrier whose phase is complete (PTX ISA 9.7.13.1): a warp has arrived
    /// when all its lanes that have not finished executed a barrier instruction on it; the
    /// phase is complete when `b` threads (warps × 32) arrived, or without `b` when every warp
    /// with a lane that has not finished did. The waiting lanes go on past the instruction
    /// (`.red` writes its result in each), and the barrier starts a new phase. Returns whether
    /// a barrier completed.
    pub fn release_barrier(&mut self, device: &Device<'_>) -> bool {
        let count = self.threads.len();
        let mut released = self.release_cluster_barrier();
        for id in 0..16 {
            if self.barriers.arrived[id].is_empty() {
                continue;
            }
            let mut arrived_warps = 0u32;
            let mut every_warp = true;
            for (warp, &mask) in self.barriers.arrived[id].iter().enumerate() {
                let first = warp * 32;
                let end = (first + 32).min(count);
                let live = (first..end)
                    .filter(|&lane| !matches!(self.lanes.status[lane], ThreadStatus::Done(_)))
                    .fold(0u32, |live, lane| live | 1 << (lane % 32));
                if mask != 0 && live & !mask == 0 {
                    arrived_warps += 1;
                } else if live != 0 {
                    every_warp = false;
                }
            }
            let complete = match self.barriers.count[id] {
                Some(threads) => arrived_warps * 32 >= threads,
                None => every_warp,
            };
            if !complete {
                continue;
            }
            let (popc, voters) = (self.barriers.popc[id], self.barriers.voters[id]);
            for lane in 0..count {
                if self.lanes.status[lane] != ThreadStatus::AtBarrier
                    || usize::from(self.barriers.waiting_at[lane]) != id
                {
                    continue;
                }
                let pc = self.lanes.pc[lane];
                if let Some(InstructionKind::Barrier {
                    op,
                    destination: Some(destination),
                    ..
                }) = device.program.instructions.get(pc).map(|i| &i.kind)
                {
                    // "Once the barrier count is reached, the final value is written to the
                    // destination register in all threads waiting at the barrier."
                    let value = match op {
                        BarrierOp::RedPopc => popc,
                        BarrierOp::RedAnd => u32::from(popc == voters),
                        _ => u32::from(popc > 0),
                    };
                    let bits = device
                        .program
                        .registers
                        .get(destination.register.index())
                        .map_or(32, |r| r.bits());
                    self.lanes
                        .set(lane, destination.register, chop(u128::from(value), bits));
                }
                self.lanes.status[lane] = ThreadStatus::Ready;
                self.lanes.pc[lane] = pc + 1;
            }
            self.barriers.reset(id);
            released = true;
        }
        released
    }

    /// Whether every thread of this CTA that has not finished arrived at the cluster barrier in
    /// its current phase, and one did (PTX ISA 9.0, barrier.cluster: "barrier.cluster.wait
    /// causes the executing thread to wait for all non-exited threads of the cluster to
    /// perform barrier.cluster.arrive").
    pub(crate) fn cluster_arrived(&self) -> (bool, bool) {
        let mut all = true;
        let mut some = false;
        for (lane, status) in self.lanes.status.iter().enumerate() {
            if self.cluster.arrived(lane) {
                some = true;
            } else if !matches!(status, ThreadStatus::Done(_)) {
                all = false;
            }
        }
        (all, some)
    }

    /// The CTA's lanes that arrived at the cluster barrier in its current phase.
    pub(crate) fn cluster_arrivals(&self) -> usize {
        (0..self.threads.len())
            .filter(|&lane| self.cluster.arrived(lane))
            .count()
    }

    /// Completes the cluster barrier's phase of a cluster of one CTA when every unfinished
    /// thread arrived (a cluster of several is completed by its runner in the `grid` module), then
    /// releases the lanes whose phase completed from `barrier.cluster.wait`. Returns whether
    /// a lane was released.
    fn release_cluster_barrier(&mut self) -> bool {
        if self.cluster.size <= 1 {
            let (all, some) = self.cluster_arrived();
            if all && some {
                self.cluster.phase += 1;
            }
        }
        let mut released = false;
        for lane in 0..self.threads.len() {
            if self.lanes.status[lane] == ThreadStatus::AtBarrier
                && self.barriers.waiting_at[lane] == CLUSTER_BARRIER
                && self.cluster.arrivals[lane] <= self.cluster.phase
            {
                self.lanes.status[lane] = ThreadStatus::Ready;
                self.lanes.pc[lane] += 1;
                released = true;
            }
        }
        released
    }

    /// Whether a lane waits at `barrier.cluster.wait`.
    pub(crate) fn waits_for_cluster(&self) -> bool {
        (0..self.threads.len()).any(|lane| {
            self.lanes.status[lane] == ThreadStatus::AtBarrier
                && self.barriers.waiting_at[lane] == CLUSTER_BARRIER
        })
    }

    /// Traps the first lane that waits at `barrier.cluster.wait` in a cluster that can never
    /// complete its barrier: `arrived` of `threads` threads of the cluster arrived.
    pub(crate) fn trap_cluster_wait(
        &mut self,
        device: &Device<'_>,
        arrived: usize,
        threads: usize,
    ) -> Option<(usize, Outcome)> {
        let lane = (0..self.threads.len()).find(|&lane| {
            self.lanes.status[lane] == ThreadStatus::AtBarrier
                && self.barriers.waiting_at[lane] == CLUSTER_BARRIER
        })?;
        let instruction = device.program.instructions.get(self.lanes.pc[lane]);
        let outcome = Outcome::Trapped {
            message: format!(
                "`{}` can never complete: {arrived} of the cluster's {threads} threads arrived \
                 at the cluster barrier and no other thread can run",
                instruction.map_or("", |i| i.text.as_str())
            ),
            location: instruction.map(|i| i.location).unwrap_or_default(),
        };
        self.lanes.status[lane] = ThreadStatus::Done(outcome.clone());
        Some((lane, outcome))
    }

    /// Runs every thread to its end, in lockstep: each step issues the instruction at the
    /// lowest program counter among the threads that can run, for every such thread in linear
    /// order (threads that took a branch wait until the others reach them, so they
    /// reconverge). Threads that reach `bar.sync` wait until every unfinished thread has; then
    /// they are released. Stops at the first thread that does not exit normally and returns its
    /// index and outcome (or its index and the simulator's error).
    ///
    /// `trace` receives every issued step's record, grouped by thread: each thread's steps
    /// between two barrier releases are passed together, threads in linear order. A CTA holds
    /// at most about [`MAX_GROUPED_RECORDS`] records for that: when it has more before the next
    /// barrier, those are passed on (threads in linear order) and grouping starts over there.
    pub fn run(
        &mut self,
        device: &Device<'_>,
        trace: Option<&mut dyn FnMut(&StepRecord)>,
    ) -> Result<Option<(usize, Outcome)>, (usize, ExecError)> {
        match self.run_for::<false>(device, trace, u64::MAX) {
            Ok(Slice::Finished(stopped)) => Ok(stopped),
            // Without a budget the run never pauses, and a cluster of several CTAs runs by
            // slices.
            Ok(Slice::Paused | Slice::Blocked) => Ok(None),
            Err(failure) => Err(failure),
        }
    }

    /// Runs the CTA as [`Cta::run`] does for at most `issues` issues (an issue runs one
    /// instruction for a group of threads in lockstep, or one thread's step while tracing),
    /// then pauses: [`Slice::Paused`] leaves every thread's state (program counter, step count,
    /// barrier) as a later call continues from, so that calls with budgets give the same
    /// results as one [`Cta::run`]. A cooperative launch runs its CTAs by such time slices, in
    /// turn, so that a CTA spinning on global memory (CUDA's grid barrier) lets the others
    /// reach it. Trace records are passed on at the end of each slice.
    pub fn run_slice(
        &mut self,
        device: &Device<'_>,
        trace: Option<&mut dyn FnMut(&StepRecord)>,
        issues: u64,
    ) -> Result<Slice, (usize, ExecError)> {
        self.run_for::<true>(device, trace, issues)
    }

    /// [`Cta::run`] and [`Cta::run_slice`]: with `SLICED` false the budget is never looked at,
    /// so the loop of a launch that is not cooperative is the same as without one.
    #[inline(always)]
    fn run_for<const SLICED: bool>(
        &mut self,
        device: &Device<'_>,
        mut trace: Option<&mut dyn FnMut(&StepRecord)>,
        mut budget: u64,
    ) -> Result<Slice, (usize, ExecError)> {
        let tracing = trace.is_some();
        self.tracing = tracing;
        // Only the first gathering of the first run can find the CTA fresh.
        let mut fresh = std::mem::take(&mut self.fresh);
        let mut buffered: Vec<Vec<StepRecord>> = if tracing {
            vec![Vec::new(); self.threads.len()]
        } else {
            Vec::new()
        };
        let mut flush = |buffered: &mut Vec<Vec<StepRecord>>| {
            if let Some(sink) = trace.as_mut() {
                for records in buffered.iter_mut() {
                    for record in records.drain(..) {
                        sink(&record);
                    }
                }
            }
        };
        // Records held for grouping since the last flush: past [`MAX_GROUPED_RECORDS`] they are
        // passed on (threads in linear order) and grouping starts over, so the memory a traced
        // CTA holds is bounded however long it runs between barriers.
        let held = |buffered: &[Vec<StepRecord>]| buffered.iter().map(Vec::len).sum::<usize>();
        let mut record = StepRecord::default();
        let mut group = std::mem::take(&mut self.group);
        let mut active = std::mem::take(&mut self.active);
        group.clear();
        active.clear();
        let mut pc = 0;
        let mut converged = false;
        // At least the step count of every thread of the group: each issue adds one to each.
        let mut bound = 0;
        // Compiled code runs the threads between the instructions the interpreter issues,
        // unless the run is traced or sliced, or the CTA is part of a larger cluster.
        let compilable = !SLICED && !tracing && self.cluster.size <= 1;
        // A launch that may compile its kernel while it runs ([`crate::compiled::Upgrade`])
        // reports the instructions its CTAs issue every [`UPGRADE_ISSUES`] issues, and at the
        // end of each run.
        let upgrade = device.upgrade.as_ref().filter(|_| compilable);
        let mut compiled = match upgrade {
            Some(upgrade) => upgrade.ready(),
            None => device.compiled.as_deref().filter(|_| compilable),
        };
        let (mut issues_since, mut issued): (u64, u64) = (0, 0);
        // Whether threads at `pc` go to the compiled code.
        let enters = |cta: &Self, compiled: Option<&dyn crate::compiled::CompiledKernel>, pc| {
            compiled.is_some_and(|code| !cta.interpret_only && code.covers(pc))
        };
        let result = 'run: loop {
            if SLICED {
                if budget == 0 {
                    // Counters a converged group deferred are settled, so that the next slice
                    // finds every thread where it is.
                    self.lanes.settle(&group, pc);
                    break Ok(Slice::Paused);
                }
                budget -= 1;
            }
            if let Some(upgrade) = upgrade.filter(|_| compiled.is_none()) {
                issues_since += 1;
                issued += group.len() as u64;
                if issues_since == UPGRADE_ISSUES {
                    compiled = upgrade.after(issued);
                    (issues_since, issued) = (0, 0);
                    if compiled.is_some() && converged {
                        // The group goes on through the gathering below, which hands its
                        // threads to the compiled code where it covers them.
                        self.lanes.settle(&group, pc);
                        converged = false;
                    }
                }
            }
            if !converged {
                if let Some(code) = compiled.filter(|_| !self.interpret_only)
                    && self.run_compiled(device, code, std::mem::take(&mut fresh))
                {
                    // Every thread exited in compiled code: the gathering below would find
                    // none that can run and nothing waiting, and end the run so.
                    break Ok(Slice::Finished(None));
                }
                fresh = false;
                match self.gather(&mut group) {
                    // With compiled code, a group runs in lockstep up to the next instruction
                    // where the compiled code takes the threads on.
                    // A group that has kept others waiting for [`SPIN_LIMIT`] issues in a
                    // row is set aside, and they run first.
                    Some((_, all, _)) if self.spins(all, &group) => continue,
                    Some((lowest, all, most)) => {
                        (pc, converged, bound) =
                            (lowest, all && !enters(self, compiled, lowest), most);
                    }
                    // Every thread exited (one that stopped otherwise ended the run at once):
                    // no barrier, warp or spinner is left to release, and nothing is stuck.
                    None if self
                        .lanes
                        .status
                        .iter()
                        .all(|s| matches!(s, ThreadStatus::Done(_))) =>
                    {
                        break Ok(Slice::Finished(None));
                    }
                    None if self.release_barrier(device) => {
                        flush(&mut buffered);
                        continue;
                    }
                    None => match self.release_warps(device) {
                        Err(failure) => break Err(failure),
                        Ok(true) => {
                            self.take_released(&mut buffered);
                            continue;
                        }
                        Ok(false) if self.wake_spinners() => continue,
                        Ok(false)
                            if SLICED && self.cluster.size > 1 && self.waits_for_cluster() =>
                        {
                            break Ok(Slice::Blocked);
                        }
                        Ok(false) => break Ok(Slice::Finished(self.stuck(device))),
                    },
                }
            }
            if tracing {
                for &index in &group {
                    let issued = self.step_thread(device, index, Some(&mut record));
                    if record.pc != usize::MAX {
                        buffered[index].push(record.clone());
                    }
                    self.take_released(&mut buffered);
                    if let Err(error) = issued {
                        break 'run Err((index, error));
                    }
                }
                let share = MAX_GROUPED_RECORDS / self.threads.len().max(1);
                if group
                    .first()
                    .is_some_and(|&first| buffered[first].len() >= share)
                    && held(&buffered) >= MAX_GROUPED_RECORDS
                {
                    flush(&mut buffered);
                }
            } else {
                let fuelled = bound < device.max_steps;
                let lockstep = Lockstep {
                    fuelled,
                    defer: converged,
                };
                let issued = self.issue(device, pc, &group, &mut active, None, lockstep);
                bound = bound.saturating_add(1);
                // Before a converged group goes on (past a `bar.arrive`, say).
                if issued.is_ok() && self.release_counted_barrier(device, pc) {
                    flush(&mut buffered);
                    converged = false;
                }
                match issued {
                    Err(failure) => break Err(failure),
                    Ok(Some(next)) if converged => {
                        pc = next;
                        if enters(self, compiled, next) {
                            self.lanes.settle(&group, next);
                            converged = false;
                        }
                        continue;
                    }
                    Ok(_) => {}
                }
            }
            if tracing && self.release_counted_barrier(device, pc) {
                flush(&mut buffered);
                converged = false;
            }
            // Keep the threads that go on; they stay one group while they agree on the next
            // instruction.
            let mut next = None;
            let mut kept = 0;
            for slot in 0..group.len() {
                let index = group[slot];
                match &self.lanes.status[index] {
                    ThreadStatus::Ready => {
                        let at = self.lanes.pc[index];
                        converged &= *next.get_or_insert(at) == at;
                        group[kept] = index;
                        kept += 1;
                    }
                    ThreadStatus::AtBarrier
                    | ThreadStatus::AtWarpSync
                    | ThreadStatus::Done(Outcome::Exited) => {}
                    ThreadStatus::Done(outcome) => {
                        break 'run Ok(Slice::Finished(Some((index, outcome.clone()))));
                    }
                }
            }
            group.truncate(kept);
            pc = next.unwrap_or(pc);
            converged &= kept > 0 && !enters(self, compiled, pc);
        };
        if let Some(upgrade) = upgrade.filter(|_| compiled.is_none() && issued > 0) {
            upgrade.after(issued);
        }
        flush(&mut buffered);
        self.group = group;
        self.active = active;
        result
    }

    /// Completes the phase of the barrier instruction `pc` just issued, if it has a thread
    /// count and its last thread arrived ([`Cta::release_barrier`]); returns whether it did.
    ///
    /// Such a barrier completes when its last thread arrives (PTX ISA 9.0, bar/barrier: the
    /// count "indicates the number of threads participating in the barrier"), not only when
    /// nothing else can run: a warp spinning on an mbarrier while the threads that complete
    /// it wait at a named barrier it takes no part in (Triton's warp-specialized sm_100a
    /// matmul: its producers behind `bar.sync 3, 64`, its MMA warp waiting for what they
    /// load) would otherwise spin for ever. The threads it releases are gathered again with
    /// the others. A barrier without a count waits for every thread, so none is left to spin
    /// (and it keeps the older timing, which trace snapshots of cooperative launches hold).
    fn release_counted_barrier(&mut self, device: &Device<'_>, pc: usize) -> bool {
        matches!(
            device.program.instructions.get(pc).map(|i| &i.kind),
            Some(InstructionKind::Barrier { count: Some(_), .. })
        ) && self.release_barrier(device)
    }

    /// Runs every thread that can run through `code` from its program counter to the next
    /// instruction the interpreter must run ([`crate::compiled`]), threads in linear order;
    /// a thread the compiled code handed back stays where it is until the interpreter has
    /// issued that instruction. `fresh`: no thread has run yet ([`Cta::fresh`]). Returns
    /// whether every thread of the CTA exited in compiled code.
    fn run_compiled(
        &mut self,
        device: &Device<'_>,
        code: &dyn crate::compiled::CompiledKernel,
        mut fresh: bool,
    ) -> bool {
        let count = self.threads.len();
        if self.held.len() != count {
            self.held = vec![usize::MAX; count];
            self.every = (0..count as u32).collect();
        }
        debug_assert_eq!(
            self.lanes.pending, 0,
            "a lockstep group deferred its counters"
        );
        loop {
            match self.run_compiled_once(device, code, std::mem::take(&mut fresh)) {
                Ran::All => return true,
                Ran::Some if self.pass_barrier(device) => {}
                Ran::Some | Ran::None => return false,
            }
        }
    }

    /// Whether every thread of the CTA waits, ready, at one `bar.sync a` (or `barrier.sync`)
    /// of a constant barrier no thread has arrived at, without a thread count, guard or
    /// reduction, below its step limit; then runs it for all of them at once, as the
    /// interpreter would (each thread arrives, which completes the barrier, and goes on: PTX
    /// ISA 9.0, bar/barrier: "If no thread count is specified, all threads in the CTA
    /// participate in the barrier"), and returns true. Compiled code stops every thread at such barriers:
    /// this saves the interpreter's issue, arrival and release for them.
    fn pass_barrier(&mut self, device: &Device<'_>) -> bool {
        let Some(&pc) = self.lanes.pc.first() else {
            return false;
        };
        let Some(instruction) = device.program.instructions.get(pc) else {
            return false;
        };
        let id = match instruction.kind {
            InstructionKind::Barrier {
                op: BarrierOp::Sync,
                id: Source::Immediate(id),
                count: None,
                destination: None,
                predicate: None,
            } if instruction.guard.is_none() && id < 16 => id as usize,
            _ => return false,
        };
        let max_steps = device.max_steps;
        let all_there = self.barriers.arrived[id].is_empty()
            && self
                .lanes
                .pc
                .iter()
                .zip(&self.lanes.steps)
                .zip(&self.lanes.status)
                .all(|((&at, &steps), status)| {
                    at == pc && steps < max_steps && *status == ThreadStatus::Ready
                });
        if !all_there {
            return false;
        }
        for (at, steps) in self.lanes.pc.iter_mut().zip(&mut self.lanes.steps) {
            *at += 1;
            *steps += 1;
        }
        true
    }

    /// [`Cta::run_compiled`]'s one call of the compiled code: [`Ran::None`] when it ran no
    /// thread or handed one back at an access it did not make, [`Ran::All`] when it ran every
    /// thread of the CTA out of the kernel. `fresh`: every thread is ready at the first
    /// instruction with nothing held, so all go (if the code covers it) without a scan.
    fn run_compiled_once(
        &mut self,
        device: &Device<'_>,
        code: &dyn crate::compiled::CompiledKernel,
        fresh: bool,
    ) -> Ran {
        let count = self.threads.len();
        let mut runnable = std::mem::take(&mut self.runnable);
        runnable.clear();
        let lanes = &self.lanes;
        if fresh {
            debug_assert!(
                (lanes.status.iter().zip(&lanes.pc).zip(&self.held)).all(
                    |((status, &pc), &held)| *status == ThreadStatus::Ready && pc == 0 && held != 0
                ),
                "a fresh CTA has a thread that ran"
            );
            if !code.covers(0) {
                self.runnable = runnable;
                return Ran::None;
            }
        } else {
            // Threads mostly share their program counter: ask the code once per run of them.
            let mut last = (usize::MAX, false);
            for (lane, ((status, &pc), &held)) in (lanes.status.iter().zip(&lanes.pc))
                .zip(&self.held)
                .enumerate()
            {
                if !matches!(status, ThreadStatus::Ready) || held == pc {
                    continue;
                }
                if last.0 != pc {
                    last = (pc, code.covers(pc));
                }
                if last.1 {
                    runnable.push(lane as u32);
                }
            }
        }
        if !fresh && runnable.is_empty() {
            self.runnable = runnable;
            return Ran::None;
        }
        let mut cta = crate::compiled::CompiledCta {
            registers: &mut self.lanes.low,
            count,
            stride: self.lanes.stride,
            lanes: if fresh { &self.every } else { &runnable },
            pc: &mut self.lanes.pc,
            steps: &mut self.lanes.steps,
            max_steps: device.max_steps,
            specials: device.compiled_specials(self.ctaid),
            windows: &mut self.windows,
            declined: None,
            calls: self.lanes.calls,
            shown: self.shown,
            memory: crate::compiled::CtaSpaces::new(
                &device.global,
                &mut self.shared,
                &device.params,
                device.constants(),
                device.textures.as_deref(),
                &mut self.threads,
            ),
        };
        code.run(&mut cta);
        let declined = cta.declined;
        let profile = device.profile.as_deref();
        let mut exits = 0;
        let (pcs, statuses, held) = (&mut self.lanes.pc, &mut self.lanes.status, &mut self.held);
        if fresh {
            // The lanes in order, up to the one that declined: without indexing by lane.
            let end = declined.map_or(count, |lane| (lane + 1).min(count));
            for ((pc, status), held) in pcs[..end]
                .iter_mut()
                .zip(&mut statuses[..end])
                .zip(&mut held[..end])
            {
                exits += handed_back(pc, status, held, profile);
            }
        } else {
            for &lane in &runnable {
                let lane = lane as usize;
                exits += handed_back(
                    &mut pcs[lane],
                    &mut statuses[lane],
                    &mut held[lane],
                    profile,
                );
                if declined == Some(lane) {
                    break;
                }
            }
        }
        self.runnable = runnable;
        if declined.is_some() {
            // Handed back at an access the compiled code did not make: most likely a fault,
            // which stops the CTA. The interpreter runs the CTA from here on, in lockstep, so
            // that the threads after this one stop where it stops them.
            self.interpret_only = true;
            return Ran::None;
        }
        // `runnable` holds each thread at most once: as many exits as threads is all of them.
        if exits == count { Ran::All } else { Ran::Some }
    }

    /// Moves the step records of lanes a warp-synchronous instruction released into their
    /// threads' buffers (there are some only while tracing).
    fn take_released(&mut self, buffered: &mut [Vec<StepRecord>]) {
        for (lane, record) in self.released.drain(..) {
            if let Some(records) = buffered.get_mut(lane) {
                records.push(record);
            }
        }
    }

    /// Lanes that arrived at a warp-synchronous instruction at `pc`: they wait there; every
    /// warp among them whose lanes have all arrived runs it ([`Cta::release_warp`]). With
    /// `record` (stepping one lane) the lane's step is recorded if it is released now.
    ///
    /// The common case goes straight through: when the arriving lanes of a warp are all its
    /// lanes (a converged warp), all with the same membermask, which holds each of them, the
    /// instruction runs for them at once. Returns whether every arriving lane ran it
    /// and goes on.
    fn arrive(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        arrived: &[usize],
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        let instruction = &device.program.instructions[pc];
        if instruction.kind.warp_sync() == Some(WarpSync::Warpgroup) {
            return self.arrive_warpgroup(device, pc, arrived, record);
        }
        let count = self.threads.len();
        let mut waiting = false;
        let mut start = 0;
        while start < arrived.len() {
            let warp = arrived[start] / 32;
            let end = start
                + arrived[start..]
                    .iter()
                    .take_while(|&&lane| lane / 32 == warp)
                    .count();
            let chunk = &arrived[start..end];
            start = end;
            let lanes_in_warp = (count - warp * 32).min(32);
            let whole = record.is_none()
                && chunk.len() == lanes_in_warp
                && chunk
                    .iter()
                    .enumerate()
                    .all(|(i, &lane)| lane == warp * 32 + i);
            let ready = whole
                && match instruction.kind.warp_sync() {
                    Some(WarpSync::Members(source)) => {
                        // Every lane of the warp is here: a lane outside its own
                        // membermask and lanes of different membermasks (groups, see
                        // `release_warp`) take the slow path.
                        let executor = self.executor(device, chunk, pc, None, None);
                        let first = executor.read_bits(chunk[0], source, 32) as u32;
                        chunk.iter().all(|&lane| {
                            let mask = executor.read_bits(lane, source, 32) as u32;
                            mask == first && mask & 1 << (lane % 32) != 0
                        })
                    }
                    Some(WarpSync::Converged) => true,
                    Some(WarpSync::Warpgroup) | None => false,
                };
            if ready {
                self.run_together(device, pc, chunk)?;
                continue;
            }
            waiting = true;
            self.wait_together(device, chunk, record.as_deref_mut())?;
        }
        Ok(!waiting)
    }

    /// Runs the collective instruction at `pc` for `chunk` (lanes of one warp or warpgroup, all
    /// arrived) at once, and moves them past it. A lane the instruction stopped (a collective
    /// instruction that faulted) keeps its program counter at the instruction.
    fn run_together(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        chunk: &[usize],
    ) -> Result<(), (usize, ExecError)> {
        let instruction = &device.program.instructions[pc];
        let mut executor = self.executor(device, chunk, pc, None, None);
        executor
            .execute(instruction, chunk)
            .map_err(|(lane, error)| (lane, *error))?;
        for &lane in chunk {
            self.lanes.steps[lane] += 1;
            if !matches!(self.lanes.status[lane], ThreadStatus::Done(_)) {
                self.lanes.pc[lane] = pc + 1;
            }
        }
        Ok(())
    }

    /// Parks `chunk` (lanes of one warp, or of one warpgroup starting at a warp) at their
    /// collective instruction and runs whatever of the first lane's warp is now ready. A traced
    /// step is not a step until the instruction runs (`record.pc` becomes `usize::MAX`).
    fn wait_together(
        &mut self,
        device: &Device<'_>,
        chunk: &[usize],
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        for &lane in chunk {
            self.lanes.status[lane] = ThreadStatus::AtWarpSync;
        }
        let owner = record.as_ref().and(chunk.first().copied());
        if let Some(record) = record.as_deref_mut() {
            record.pc = usize::MAX;
        }
        self.release_warp(device, chunk[0] / 32, owner, record)
    }

    /// Runs the warp-synchronous instructions that lanes of `warp` wait at, for each one whose
    /// lanes have all arrived: for the `.sync` forms every lane of the waiting lanes'
    /// membermasks that exists and has not finished ("wait until all non-exited threads
    /// corresponding to membermask have executed" it), for the others every lane of the warp
    /// at the same instruction. A lane whose membermask leaves it out ("undefined if the
    /// executing thread is not in the membermask") runs it with the lanes it meets there
    /// ([`join_outside_lanes`]). Returns whether any lane was released.
    fn release_warp(
        &mut self,
        device: &Device<'_>,
        warp: usize,
        owner: Option<usize>,
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        let first = warp * 32;
        let end = (first + 32).min(self.threads.len());
        let mut released = false;
        let mut pcs: Vec<usize> = (first..end)
            .filter(|&lane| self.lanes.status[lane] == ThreadStatus::AtWarpSync)
            .map(|lane| self.lanes.pc[lane])
            .collect();
        pcs.sort_unstable();
        pcs.dedup();
        for pc in pcs {
            let Some(instruction) = device.program.instructions.get(pc) else {
                continue;
            };
            let Some(sync) = instruction.kind.warp_sync() else {
                continue;
            };
            let groups: Vec<(Vec<usize>, bool)> = if sync == WarpSync::Warpgroup {
                vec![self.warpgroup_waiting(warp, pc)]
            } else {
                let waiting: Vec<usize> = (first..end)
                    .filter(|&lane| {
                        self.lanes.status[lane] == ThreadStatus::AtWarpSync
                            && self.lanes.pc[lane] == pc
                    })
                    .collect();
                // The lanes waiting here, by membermask: lanes of different membermasks at
                // the same instruction (the groups of `cg::labeled_partition`, each reducing
                // or shuffling among its own lanes) are different executions of it.
                let mut by_mask: Vec<(u32, Vec<usize>)> = Vec::new();
                let executor = self.executor(device, &waiting, pc, None, None);
                for &lane in &waiting {
                    let required = match sync {
                        WarpSync::Members(source) => executor.read_bits(lane, source, 32) as u32,
                        WarpSync::Converged | WarpSync::Warpgroup => 0,
                    };
                    match by_mask.iter_mut().find(|(mask, _)| *mask == required) {
                        Some((_, lanes)) => lanes.push(lane),
                        None => by_mask.push((required, vec![lane])),
                    }
                }
                if matches!(sync, WarpSync::Members(_)) {
                    by_mask = join_outside_lanes(by_mask);
                }
                by_mask
                    .into_iter()
                    .map(|(mut required, lanes)| {
                        if matches!(sync, WarpSync::Converged) {
                            // Every lane at this instruction, and those that have not arrived
                            // yet.
                            for &lane in &lanes {
                                required |= 1 << (lane % 32);
                            }
                            for lane in first..end {
                                if self.lanes.status[lane] == ThreadStatus::Ready
                                    && self.lanes.pc[lane] == pc
                                {
                                    required |= 1 << (lane % 32);
                                }
                            }
                        }
                        let complete = (0..32).filter(|bit| required & 1 << bit != 0).all(|bit| {
                            let lane = first + bit;
                            lane >= end
                                || matches!(self.lanes.status[lane], ThreadStatus::Done(_))
                                || (self.lanes.status[lane] == ThreadStatus::AtWarpSync
                                    && self.lanes.pc[lane] == pc)
                        });
                        let lanes: Vec<usize> = lanes
                            .into_iter()
                            .filter(|&lane| self.lanes.status[lane] == ThreadStatus::AtWarpSync)
                            .collect();
                        (lanes, complete)
                    })
                    .collect()
            };
            for (lanes, complete) in groups {
                if !complete || lanes.is_empty() {
                    continue;
                }
                let recording = self.tracing || record.is_some();
                let destinations = instruction.kind.warp_destinations();
                let before: Vec<Vec<u128>> = if recording {
                    lanes
                        .iter()
                        .map(|&lane| {
                            destinations
                                .iter()
                                .map(|&register| self.lanes.get(lane, register))
                                .collect()
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let mut executor = self.executor(device, &lanes, pc, None, None);
                executor
                    .execute(instruction, &lanes)
                    .map_err(|(lane, error)| (lane, *error))?;
                for &lane in &lanes {
                    if self.lanes.status[lane] == ThreadStatus::AtWarpSync {
                        self.lanes.status[lane] = ThreadStatus::Ready;
                        self.lanes.pc[lane] = pc + 1;
                    }
                    self.lanes.steps[lane] += 1;
                }
                released = true;
                if recording {
                    for (&lane, old) in lanes.iter().zip(before) {
                        let writes = destinations
                            .iter()
                            .zip(old)
                            .map(|(&register, old)| Write {
                                register,
                                old,
                                new: self.lanes.get(lane, register),
                            })
                            .collect();
                        let step = StepRecord {
                            step: self.lanes.steps[lane] - 1,
                            thread: self.linear * device.threads_per_cta() + lane as u64,
                            pc,
                            executed: true,
                            writes,
                            memory: Vec::new(),
                        };
                        match record.as_deref_mut() {
                            Some(record) if Some(lane) == owner => *record = step,
                            // Other lanes' steps matter to a trace only.
                            _ if self.tracing => self.released.push((lane, step)),
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(released)
    }

    /// [`Cta::arrive`] for a warpgroup-collective instruction (`wgmma.mma_async`): the arriving
    /// lanes are taken warpgroup by warpgroup (threads `128i .. 128i + 127`, "four contiguous
    /// warps", PTX ISA 9.7.15.1); a whole warpgroup runs it at once, the others wait until
    /// every thread of their warpgroup that has not finished has arrived
    /// ([`Cta::warpgroup_waiting`]).
    fn arrive_warpgroup(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        arrived: &[usize],
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        let size = ptxsim_isa::wgmma::WARPGROUP_THREADS;
        let mut waiting = false;
        let mut start = 0;
        while start < arrived.len() {
            let group = arrived[start] / size;
            let end = start
                + arrived[start..]
                    .iter()
                    .take_while(|&&lane| lane / size == group)
                    .count();
            let chunk = &arrived[start..end];
            start = end;
            let whole = record.is_none()
                && chunk.len() == size
                && chunk
                    .iter()
                    .enumerate()
                    .all(|(i, &lane)| lane == group * size + i);
            if whole {
                self.run_together(device, pc, chunk)?;
                continue;
            }
            waiting = true;
            self.wait_together(device, chunk, record.as_deref_mut())?;
        }
        Ok(!waiting)
    }

    /// The lanes of `warp`'s warpgroup that wait at the warpgroup-collective instruction at
    /// `pc`, and whether it can run: when every thread of the warpgroup that has not finished
    /// waits there. It then runs for those lanes, and traps them unless they are the whole
    /// warpgroup (a thread exited, or the CTA ends inside the warpgroup).
    fn warpgroup_waiting(&self, warp: usize, pc: usize) -> (Vec<usize>, bool) {
        let size = ptxsim_isa::wgmma::WARPGROUP_THREADS;
        let first = warp * 32 / size * size;
        let end = (first + size).min(self.threads.len());
        let at = |lane: usize| {
            self.lanes.status[lane] == ThreadStatus::AtWarpSync && self.lanes.pc[lane] == pc
        };
        let complete = (first..end)
            .all(|lane| at(lane) || matches!(self.lanes.status[lane], ThreadStatus::Done(_)));
        ((first..end).filter(|&lane| at(lane)).collect(), complete)
    }

    /// Tries every warp whose lanes wait at a warp-synchronous instruction (the lanes they
    /// wait for may have finished since); whether any lane was released.
    fn release_warps(&mut self, device: &Device<'_>) -> Result<bool, (usize, ExecError)> {
        let warps = self.threads.len().div_ceil(32);
        let mut released = false;
        for warp in 0..warps {
            let first = warp * 32;
            let end = (first + 32).min(self.threads.len());
            if self.lanes.status[first..end].contains(&ThreadStatus::AtWarpSync) {
                released |= self.release_warp(device, warp, None, None)?;
            }
        }
        Ok(released)
    }

    /// When nothing can run and no barrier or warp can be released: the first lane that waits
    /// (at a barrier, [`Cta::stuck_barrier`], or at a warp-synchronous instruction), trapped
    /// with what it waits for (a lane that waits elsewhere can never arrive).
    fn stuck(&mut self, device: &Device<'_>) -> Option<(usize, Outcome)> {
        // The first waiting lane says what it waits for.
        let first = self.lanes.status.iter().position(|status| {
            matches!(status, ThreadStatus::AtBarrier | ThreadStatus::AtWarpSync)
        })?;
        if self.lanes.status[first] == ThreadStatus::AtBarrier {
            return self.stuck_barrier(device);
        }
        let lane = self
            .lanes
            .status
            .iter()
            .position(|status| *status == ThreadStatus::AtWarpSync)?;
        let pc = self.lanes.pc[lane];
        let unit = match device
            .program
            .instructions
            .get(pc)
            .map(|i| i.kind.warp_sync())
        {
            Some(Some(WarpSync::Warpgroup)) => ptxsim_isa::wgmma::WARPGROUP_THREADS,
            _ => 32,
        };
        let first = lane / unit * unit;
        let end = (first + unit).min(self.threads.len());
        let other = (first..end).find(|&other| {
            matches!(
                self.lanes.status[other],
                ThreadStatus::AtBarrier | ThreadStatus::AtWarpSync
            ) && (self.lanes.pc[other] != pc || self.lanes.status[other] == ThreadStatus::AtBarrier)
        });
        let waits = match other {
            Some(other) if self.lanes.status[other] == ThreadStatus::AtBarrier => {
                format!(
                    "lane {} of the {} waits at a barrier",
                    other % unit,
                    unit_name(unit)
                )
            }
            Some(other) => format!(
                "lane {} of the {} waits at another warp-synchronous instruction \
                 (instruction {})",
                other % unit,
                unit_name(unit),
                self.lanes.pc[other]
            ),
            None => "a lane it waits for never arrives".to_string(),
        };
        let instruction = device.program.instructions.get(pc);
        let outcome = Outcome::Trapped {
            message: format!(
                "`{}` can never complete: {waits}",
                instruction.map_or("", |i| i.text.as_str())
            ),
            location: instruction.map(|i| i.location).unwrap_or_default(),
        };
        self.lanes.status[lane] = ThreadStatus::Done(outcome.clone());
        Some((lane, outcome))
    }

    /// When nothing can run and no barrier can be released: the first lane that waits at a
    /// barrier, trapped with how many threads arrived there.
    fn stuck_barrier(&mut self, device: &Device<'_>) -> Option<(usize, Outcome)> {
        let lane = self
            .lanes
            .status
            .iter()
            .position(|status| *status == ThreadStatus::AtBarrier)?;
        if self.barriers.waiting_at[lane] == CLUSTER_BARRIER {
            let arrived = self.cluster_arrivals();
            let threads = self.threads.len();
            return self.trap_cluster_wait(device, arrived, threads);
        }
        let id = usize::from(self.barriers.waiting_at[lane]);
        let arrived: u32 = self.barriers.arrived[id]
            .iter()
            .map(|mask| mask.count_ones())
            .sum();
        let wanted = match self.barriers.count[id] {
            Some(count) => format!("{count} threads"),
            None => "every thread of the CTA".to_string(),
        };
        let instruction = device.program.instructions.get(self.lanes.pc[lane]);
        let outcome = Outcome::Trapped {
            message: format!(
                "`{}` can never complete: barrier {id} waits for {wanted}, {arrived} arrived \
                 and no other thread can run",
                instruction.map_or("", |i| i.text.as_str())
            ),
            location: instruction.map(|i| i.location).unwrap_or_default(),
        };
        self.lanes.status[lane] = ThreadStatus::Done(outcome.clone());
        Some((lane, outcome))
    }

    /// An executor for `lanes` of this CTA at instruction `pc`.
    fn executor<'a, 'p>(
        &'a mut self,
        device: &'a Device<'p>,
        group: &'a [usize],
        pc: usize,
        writes: Option<&'a mut Vec<Write>>,
        memory: Option<&'a mut Vec<MemoryWrite>>,
    ) -> Executor<'a, 'p> {
        Executor {
            device,
            ctaid: self.ctaid,
            shared: &mut self.shared,
            threads: &mut self.threads,
            lanes: &mut self.lanes,
            columns: &mut self.columns,
            barriers: &mut self.barriers,
            tmem: &mut self.tmem,
            cluster: &mut self.cluster,
            printed: &mut self.printed,
            writes,
            memory,
            stopped: false,
            group,
            pc,
        }
    }

    /// Collects into `group` the threads that can run and share the lowest program counter,
    /// in one pass; `None` when no thread can run, else that counter, whether every thread
    /// that can run is in `group`, and the largest step count in `group`.
    ///
    /// Threads whose last mbarrier wait failed ([`Lanes::waiting`]) are left out: a
    /// warp-specialized kernel's consumers spin on mbarriers that its producers complete, and
    /// the spinners let every other thread run (and barriers release) first
    /// ([`Cta::wake_spinners`]).
    fn gather(&self, group: &mut Vec<usize>) -> Option<(usize, bool, u64)> {
        let lanes = &self.lanes;
        group.clear();
        let (mut pc, mut ready, mut bound) = (usize::MAX, 0, 0);
        for (index, (status, &at)) in lanes.status.iter().zip(&lanes.pc).enumerate() {
            if !matches!(status, ThreadStatus::Ready) {
                continue;
            }
            ready += 1;
            if lanes.waiting[index] {
                continue;
            }
            if at < pc {
                (pc, bound) = (at, 0);
                group.clear();
            }
            if at == pc {
                group.push(index);
                bound = bound.max(lanes.steps[index]);
            }
        }
        (!group.is_empty()).then_some((pc, group.len() == ready, bound))
    }

    /// Counts the groups [`Cta::gather`] picked (`all`: every thread that can run is in it)
    /// that left a thread that can run and is not set aside behind; at [`SPIN_LIMIT`] in a
    /// row, sets `group` aside ([`Lanes::waiting`]: the others run until none can, then
    /// [`Cta::wake_spinners`] lets it go on) and returns true.
    ///
    /// A group that runs alone while threads are set aside is counted too: at
    /// [`SPIN_LIMIT`] in a row the set-aside threads can run again. The group may itself spin,
    /// waiting for what one of them produces (a producer lane and a consumer lane of one warp
    /// handing values over through shared memory, each spinning while the other works: the
    /// CUDA C++ Programming Guide's "Independent Thread Scheduling" lets "threads ... wait for
    /// data produced by other threads"), and would otherwise spin to the step limit.
    fn spins(&mut self, all: bool, group: &[usize]) -> bool {
        let lanes = &self.lanes;
        if all {
            self.streak = 0;
            return false;
        }
        if group.len()
            == (lanes.status.iter().zip(&lanes.waiting))
                .filter(|&(status, &waiting)| !waiting && matches!(status, ThreadStatus::Ready))
                .count()
        {
            // Alone, with threads set aside behind it.
            self.streak += 1;
            if self.streak >= SPIN_LIMIT {
                self.streak = 0;
                self.lanes.waiting.fill(false);
            }
            return false;
        }
        self.streak += 1;
        if self.streak < SPIN_LIMIT {
            return false;
        }
        self.streak = 0;
        for &index in group {
            self.lanes.waiting[index] = true;
        }
        true
    }

    /// When the only threads that can run spin on mbarriers (no other thread can run and no
    /// barrier can release), lets them try again; returns whether there were any.
    fn wake_spinners(&mut self) -> bool {
        let lanes = &mut self.lanes;
        let spinning = lanes
            .status
            .iter()
            .zip(&lanes.waiting)
            .any(|(status, &waiting)| waiting && matches!(status, ThreadStatus::Ready));
        lanes.waiting.fill(false);
        spinning
    }

    /// Puts every thread back at the first instruction with zeroed registers and memory, as
    /// CTA `ctaid` (reusing the allocations of a finished CTA). With `shown` false (nobody
    /// looks at the CTA's registers after its run, nor traces it) and compiled code that
    /// lists the registers a thread may read before writing them
    /// ([`crate::compiled::CompiledKernel::observed_registers`]), only those are zeroed: the
    /// others are written before any read, so what they held cannot show. A small CTA's run is
    /// short, and zeroing a register file of tens of registers per thread was a fifth of it.
    pub fn reset(&mut self, device: &Device<'_>, ctaid: Dim3, shown: bool) {
        self.ctaid = ctaid;
        self.shown = shown;
        self.linear = flatten(ctaid, device.grid);
        self.shared.fill(0);
        let observed = device
            .compiled
            .as_ref()
            .filter(|_| !shown)
            .and_then(|code| code.observed_registers());
        match observed {
            Some(registers) => {
                let (stride, count) = (self.lanes.stride, self.threads.len());
                for &register in registers {
                    let start = register as usize * stride;
                    if let Some(row) = self.lanes.low.get_mut(start..start + count) {
                        row.fill(0);
                    }
                }
            }
            None => self.lanes.low.fill(0),
        }
        self.lanes.high.fill(0);
        self.lanes.pc.fill(0);
        self.lanes.steps.fill(0);
        for status in &mut self.lanes.status {
            if !matches!(status, ThreadStatus::Ready) {
                *status = ThreadStatus::Ready;
            }
        }
        self.lanes.waiting.fill(false);
        self.streak = 0;
        let program = device.program;
        if self.lanes.calls || program.local_bytes > 0 || program.thread_param_bytes > 0 {
            for thread in &mut self.threads {
                if !thread.local.is_empty() {
                    thread.local.fill(0);
                }
                if !thread.params.is_empty() {
                    thread.params.fill(0);
                }
                thread.frames.clear();
                thread.stack = program.local_bytes;
            }
        }
        self.lanes.calls = false;
        self.lanes.pending = 0;
        self.released.clear();
        self.barriers.clear(self.threads.len());
        self.cluster.relink(
            device.cluster(),
            device.cluster_ctas() as u32,
            ctaid,
            self.threads.len(),
        );
        self.printed.clear();
        self.held.fill(usize::MAX);
        // A new CTA has its own tensor memory: no allocations, and the permit to allocate
        // ("it is illegal for a CTA to perform tcgen05.alloc after any of its constituent
        // threads execute tcgen05.relinquish_alloc_permit", PTX ISA 9.7.16.7.1, is per CTA).
        self.tmem = crate::tensor_memory::TensorMemory::default();
        // `windows` stays: the global buffers the compiled code accessed last are the same
        // launch's (the code looks each up again before use).
        self.interpret_only = false;
        self.fresh = true;
    }

    /// Issues the next instruction of thread `index`. When `record` is given it is filled
    /// with what the step did (`pc == usize::MAX` when no instruction was issued).
    pub fn step_thread(
        &mut self,
        device: &Device<'_>,
        index: usize,
        mut record: Option<&mut StepRecord>,
    ) -> Result<Event, ExecError> {
        let global_thread = self.global_thread(device, index);
        if index >= self.threads.len() {
            return Err(ExecError::Internal(format!("no thread {index}")));
        }
        if let Some(record) = record.as_deref_mut() {
            record.pc = usize::MAX;
            record.writes.clear();
            record.memory.clear();
            record.thread = global_thread;
            record.step = self.lanes.steps[index];
        }
        let pc = self.lanes.pc[index];
        self.fresh = false;
        if matches!(self.lanes.status[index], ThreadStatus::Ready) {
            let mut scratch = Vec::new();
            self.issue(
                device,
                pc,
                &[index],
                &mut scratch,
                record,
                Lockstep::default(),
            )
            .map_err(|(_, error)| error)?;
        }
        Ok(match &self.lanes.status[index] {
            ThreadStatus::Ready => Event::Continue,
            ThreadStatus::AtBarrier => Event::Barrier,
            ThreadStatus::AtWarpSync => Event::WarpSync,
            ThreadStatus::Done(outcome) => Event::Done(outcome.clone()),
        })
    }

    /// Issues the instruction at `pc` for the threads of `group` (all ready, all at `pc`):
    /// threads without fuel stop, threads whose guard fails move on, the others run it
    /// together; `active` is scratch space. With `record` (a group of one thread) the step is
    /// recorded. With `fuelled` the caller knows every thread of the group to be below its
    /// step limit (else each is checked). With `defer` (the group is every thread that can
    /// run, and the caller keeps its program counter), an instruction that every thread of
    /// the group runs without consequence for control only counts in [`Lanes::pending`]; the
    /// threads' counters are settled before anything reads or changes them. Returns the
    /// group's next instruction when every thread of the group is still ready and goes there
    /// (the group stays together), `None` when the group must be formed again. On a simulator
    /// error nothing more is issued and the error names the thread.
    fn issue(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        group: &[usize],
        active: &mut Vec<usize>,
        record: Option<&mut StepRecord>,
        Lockstep { fuelled, defer }: Lockstep,
    ) -> Result<Option<usize>, (usize, ExecError)> {
        let Some(instruction) = device.program.instructions.get(pc) else {
            self.lanes.settle(group, pc);
            for &index in group {
                self.lanes.status[index] = ThreadStatus::Done(Outcome::Exited);
            }
            return Ok(None);
        };
        let threads = &mut self.threads;
        let lanes_state = &mut self.lanes;
        if !fuelled || instruction.guard.is_some() || !instruction.kind.keeps_counters() {
            lanes_state.settle(group, pc);
        }
        let max_steps = device.max_steps;
        let fuelled = fuelled
            || group
                .iter()
                .all(|&index| lanes_state.steps[index] < max_steps);
        let mut together = fuelled;
        let mut issued = group.len();
        let lanes: &[usize] = match (fuelled, instruction.guard) {
            (true, None) => group,
            (_, guard) => {
                active.clear();
                issued = 0;
                for &index in group {
                    if lanes_state.steps[index] >= device.max_steps {
                        lanes_state.status[index] = ThreadStatus::Done(Outcome::OutOfFuel);
                        continue;
                    }
                    issued += 1;
                    let runs = guard.is_none_or(|guard| {
                        guard_passes(lanes_state.get(index, guard.predicate), guard.negated)
                    });
                    if runs {
                        active.push(index);
                    } else {
                        lanes_state.pc[index] += 1;
                        lanes_state.steps[index] += 1;
                    }
                }
                // The group stays together when the guard let every lane run or none.
                together &= active.is_empty() || active.len() == group.len();
                active
            }
        };
        let recording = record.is_some();
        let mut scratch = StepRecord::default();
        let record = match record {
            Some(record) => record,
            None => &mut scratch,
        };
        if issued > 0 {
            record.pc = pc;
            record.executed = !lanes.is_empty();
            if let Some(profile) = &device.profile {
                crate::compiled::Profile::add(&profile.interpreted, pc, issued as u64);
            }
        }
        if lanes.is_empty()
            && together
            && !matches!(instruction.kind, InstructionKind::Unsupported { .. })
        {
            // The guard failed on every lane: they all moved on together.
            return Ok(Some(pc + 1));
        }
        if instruction.kind.warp_sync().is_some() {
            let arrived = lanes.to_vec();
            let all_ran = self.arrive(device, pc, &arrived, recording.then_some(record))?;
            // A converged group that ran it goes on together, unless it stopped a lane (then
            // the caller looks at the statuses and reports the trap).
            let stopped = arrived
                .iter()
                .any(|&lane| matches!(self.lanes.status[lane], ThreadStatus::Done(_)));
            let next =
                (all_ran && !stopped && together && arrived.len() == group.len()).then_some(pc + 1);
            return Ok(next);
        }
        let mut executor = Executor {
            device,
            ctaid: self.ctaid,
            shared: &mut self.shared,
            threads,
            lanes: lanes_state,
            columns: &mut self.columns,
            barriers: &mut self.barriers,
            tmem: &mut self.tmem,
            cluster: &mut self.cluster,
            printed: &mut self.printed,
            writes: recording.then_some(&mut record.writes),
            memory: recording.then_some(&mut record.memory),
            stopped: false,
            group,
            pc,
        };
        let control = match executor.execute(instruction, lanes) {
            Ok(control) => control,
            Err((index, error)) => {
                // The instruction did not run: no step, no trace line.
                record.pc = usize::MAX;
                return Err((index, *error));
            }
        };
        let stopped = executor.stopped;
        together &= !stopped;
        let state = &mut self.lanes;
        if defer && together && control == Control::Next && lanes.len() == group.len() {
            // Every thread of the group ran it and goes on to the next instruction.
            state.pending += 1;
            return Ok(Some(pc + 1));
        }
        state.settle(group, pc);
        let run = run_start(lanes).map(|first| first..first + lanes.len());
        if let (false, Control::Next, Some(run)) = (stopped, control, run) {
            // Every lane is still ready: no status to look at.
            for steps in &mut state.steps[run.clone()] {
                *steps += 1;
            }
            for pc in &mut state.pc[run] {
                *pc += 1;
            }
        } else {
            for &index in lanes {
                state.steps[index] += 1;
                if control == Control::Next && matches!(state.status[index], ThreadStatus::Ready) {
                    state.pc[index] += 1;
                }
            }
        }
        Ok(match (together, control, &instruction.kind) {
            (false, _, _) => None,
            (true, Control::Next, _) => Some(pc + 1),
            (true, Control::Done, InstructionKind::Bra { target }) => Some(*target),
            (true, Control::Done, _) => None,
        })
    }
}

/// "warp" or "warpgroup", for messages.
fn unit_name(unit: usize) -> &'static str {
    if unit == 32 { "warp" } else { "warpgroup" }
}

/// What the caller of [`Cta::issue`] knows about the group: `fuelled`, that every thread of
/// it is below its step limit; `defer`, that the counters of a group in lockstep may be
/// updated later (see [`Lanes::pending`]).
#[derive(Clone, Copy, Debug, Default)]
struct Lockstep {
    fuelled: bool,
    defer: bool,
}

/// One thread running a [`Program`] alone: a one-thread, one-CTA launch without arguments.
#[derive(Debug)]
pub struct Machine<'p> {
    program: &'p Program,
    device: Device<'p>,
    cta: Cta,
    record: StepRecord,
    has_record: bool,
    /// Why the program's memories were not allocated: they do not fit in
    /// [`DEFAULT_MEMORY_LIMIT`] (every step is then this error).
    refused: Option<String>,
}

/// The program a [`Machine`] holds in place of one whose memories do not fit: nothing to
/// allocate, nothing to run.
static NOTHING: Program = Program {
    entry: String::new(),
    registers: Vec::new(),
    instructions: Vec::new(),
    params: Vec::new(),
    param_bytes: 0,
    thread_param_bytes: 0,
    local_bytes: 0,
    stack_bytes: 0,
    function_locals: Vec::new(),
    shared_bytes: 0,
    dynamic_shared: None,
    globals: Vec::new(),
    constants: Vec::new(),
    const_variables: Vec::new(),
    has_atomics: false,
    atomics_commute: false,
    uses_heap: false,
    polls_global: false,
    reserved_shared: false,
    cluster: crate::ir::ClusterDirectives {
        required: None,
        explicit: false,
        max_rank: None,
    },
    max_threads: None,
    target: None,
    source_files: Vec::new(),
};

impl<'p> Machine<'p> {
    /// A thread at the program's first instruction, with every register zero and a limit of
    /// `max_steps` instructions (fuel). A program whose memories do not fit in
    /// [`DEFAULT_MEMORY_LIMIT`] (see [`crate::budget`]) gets none: its first step is
    /// [`ExecError::Memory`].
    pub fn new(program: &'p Program, max_steps: u64) -> Self {
        let refused = Footprint::new(program, [1, 1, 1], 0, 0)
            .check(DEFAULT_MEMORY_LIMIT)
            .err()
            .map(|error| error.to_string());
        let runs: &'p Program = if refused.is_some() { &NOTHING } else { program };
        let device = Device::single(runs, max_steps);
        let cta = Cta::new(&device, [0, 0, 0]);
        Self {
            program,
            device,
            cta,
            record: StepRecord::default(),
            has_record: false,
            refused,
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    fn thread(&self) -> Option<ThreadRef<'_>> {
        self.cta.thread(0)
    }

    /// Every register's value, in declaration order.
    pub fn registers(&self) -> Vec<u128> {
        self.thread().map_or_else(Vec::new, |t| t.registers())
    }

    /// Sets a register (masked to its width); used to preload operands.
    pub fn set_register(&mut self, register: RegisterId, value: u128) {
        let program = self.device.program;
        self.cta.set_register(program, 0, register, value);
    }

    /// The number of instructions issued so far.
    pub fn steps(&self) -> u64 {
        self.thread().map_or(0, |t| t.steps())
    }

    /// The index of the next instruction.
    pub fn pc(&self) -> usize {
        self.thread().map_or(0, |t| t.pc())
    }

    /// What the last step did (`None` before the first or after a step that ended the run
    /// without issuing an instruction).
    pub fn last_record(&self) -> Option<&StepRecord> {
        self.has_record.then_some(&self.record)
    }

    /// Runs until the thread exits, traps or runs out of fuel.
    pub fn run(&mut self) -> Result<Outcome, ExecError> {
        loop {
            match self.step()? {
                Outcome::Running => {}
                done => return Ok(done),
            }
        }
    }

    /// Issues one instruction.
    pub fn step(&mut self) -> Result<Outcome, ExecError> {
        self.has_record = false;
        if let Some(message) = &self.refused {
            return Err(ExecError::Memory(message.clone()));
        }
        let event = self
            .cta
            .step_thread(&self.device, 0, Some(&mut self.record))?;
        self.has_record = self.record.pc != usize::MAX;
        Ok(match event {
            Event::Continue => Outcome::Running,
            Event::Barrier => {
                // A lone thread is the whole CTA: a barrier without a count releases at once;
                // one waiting for more threads never does.
                if !self.cta.release_barrier(&self.device) {
                    if let Some((_, outcome)) = self.cta.stuck(&self.device) {
                        return Ok(outcome);
                    }
                }
                Outcome::Running
            }
            // A lone thread waits for no other lane, unless its membermask names lanes that
            // do not exist... which it then never gets: nothing else can run.
            Event::WarpSync => match self.cta.stuck(&self.device) {
                Some((_, outcome)) => outcome,
                None => Outcome::Running,
            },
            Event::Done(outcome) => outcome,
        })
    }
}

/// The groups of lanes waiting at one `.sync` warp instruction, keyed by membermask, with the
/// lanes that are not in their own membermask joined in. The ISA leaves such a lane undefined
/// ("The behavior of shfl.sync is undefined if the executing thread is not in the
/// membermask"; the same sentence for `vote`, `match`, `redux`, `elect`, `bar.warp.sync`).
/// Programs that pass a mask without the calling lane (HeCBench's `bscan` ballots with
/// `%lanemask_lt`, `btree` shuffles up with `0x0000ffff` in all 32 lanes) expect it to execute
/// with the lanes it is converged with, as ptxas's code for them does (`WARPSYNC` on the mask,
/// then one `VOTE`/`SHFL` for the active lanes). So such a lane takes part as if its bit were
/// set: a group with one is merged with every group whose lanes or membermask overlap it, and
/// the merged group waits for the union and runs as one execution; the values the ISA defines
/// over "threads in membermask" then use each lane's own membermask (`exec/warp.rs`). An
/// assumption (D56), not measured on a GPU.
fn join_outside_lanes(groups: Vec<(u32, Vec<usize>)>) -> Vec<(u32, Vec<usize>)> {
    let bits = |lanes: &[usize]| {
        lanes
            .iter()
            .fold(0u32, |bits, &lane| bits | 1 << (lane % 32))
    };
    if groups.iter().all(|(mask, lanes)| bits(lanes) & !mask == 0) {
        return groups;
    }
    // Each group as (the lanes it waits for: its membermask and its own lanes, which are the
    // membermask unless one is outside; its lanes; whether one is outside), merged until no
    // group with an outside lane overlaps another group.
    let mut merged: Vec<(u32, Vec<usize>, bool)> = Vec::new();
    for (mask, lanes) in groups {
        let span = mask | bits(&lanes);
        let mut group = (span, lanes, span != mask);
        while let Some(other) = merged
            .iter()
            .position(|(span, _, outside)| (group.2 || *outside) && span & group.0 != 0)
        {
            let (span, lanes, outside) = merged.remove(other);
            group.0 |= span;
            group.1.extend(lanes);
            group.2 |= outside;
        }
        group.1.sort_unstable();
        merged.push(group);
    }
    merged
        .into_iter()
        .map(|(span, lanes, _)| (span, lanes))
        .collect()
}
