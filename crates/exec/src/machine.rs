//! The machine: a launch's [`Device`] (global memory, kernel parameters, grid shape), the
//! [`Cta`]s that run on it (shared memory and threads), and the one exhaustive `match` over
//! instruction kinds that runs a thread's next instruction.
//!
//! [`Machine`] is the one-thread launch that `ptxsim eval`, the tests and the single-thread
//! form of `ptxsim run` use; grids are run by [`crate::grid`].
//!
//! Faults of the simulated program are [`Outcome`]s; limits of the simulator are
//! [`ExecError`]s (style rule 4).

use ptxsim_isa::Type;
use ptxsim_isa::ops::{Compare, IntOp, IntTernaryOp, MulMode, Space};

use crate::alu;
use crate::cvt;
use crate::error::ExecError;
use crate::ir::{
    Axis, Destination, Instruction, InstructionKind, Location, MemoryOperand, Program, RegisterId,
    Source, SpecialRegister, THREAD_PARAM_BASE,
};
use crate::lower::bit_type;
use crate::memory::{
    Fault, FaultKind, GlobalMemory, from_generic, from_generic_to, load_bytes, store_bytes,
    to_generic,
};
use crate::semantics::{Extension, chop, guard_passes, pack, unpack};

/// Builds the lane function `$f` from `$lane` (`{|args| parameters => body}`: the operation's
/// parameters are bound by the pattern `parameters` in `body`) and runs `$apply` with it. When `$value` is one of the listed tuples (the
/// common forms in nvcc and Triton code) the parameters are constants in the lane function, so
/// that the semantics function inlined into the lane loop is specialised for them; otherwise
/// they are the values themselves. Every tuple is both a pattern and an expression.
macro_rules! specialise {
    (
        $value:expr => $kind:ty,
        [$($tuple:tt),* $(,)?],
        $lane:tt,
        |$f:ident| $apply:expr
    ) => {
        match $value {
            $($tuple => {
                const K: $kind = $tuple;
                specialise!(@lane K, $lane, $f, $apply)
            })*
            value => specialise!(@lane value, $lane, $f, $apply),
        }
    };
    (@lane $k:expr, {|$($arg:ident),*| $name:pat_param => $body:expr}, $f:ident, $apply:expr) => {{
        let $f = |$($arg: u64),*| {
            let $name = $k;
            $body
        };
        $apply
    }};
}

/// The default step limit (per thread) of the CLI.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// Three dimensions of a grid or CTA, or an index into one (`x`, `y`, `z`).
pub type Dim3 = [u32; 3];

/// What one step (or a whole run) came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The instruction ran; the thread goes on.
    Running,
    /// The thread finished: `ret` or `exit` in the kernel, or the end of its body.
    Exited,
    /// The program aborted (`trap`, or a memory fault). `message` says why; `location` is the
    /// instruction.
    Trapped {
        /// Why.
        message: String,
        /// Where.
        location: Location,
    },
    /// The thread reached its step limit before it finished.
    OutOfFuel,
}

impl Outcome {
    /// The status word of the JSON output: `running`, `exited`, `trapped` or `out_of_fuel`.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Running => "running",
            Outcome::Exited => "exited",
            Outcome::Trapped { .. } => "trapped",
            Outcome::OutOfFuel => "out_of_fuel",
        }
    }
}

/// One register write of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    /// The register.
    pub register: RegisterId,
    /// Its value before.
    pub old: u128,
    /// Its value after.
    pub new: u128,
}

/// One memory write of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryWrite {
    /// The space written (generic addresses resolved to their space).
    pub space: Space,
    /// The address in that space.
    pub address: u64,
    /// The number of bytes.
    pub bytes: u32,
    /// The bytes written, little-endian.
    pub value: u128,
}

/// What one executed step did, for traces and the debugger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepRecord {
    /// The thread's step number, from 0.
    pub step: u64,
    /// The thread's index in the grid: `(ctaid linear) * threads-per-CTA + tid linear`.
    pub thread: u64,
    /// The instruction's index in [`Program::instructions`].
    pub pc: usize,
    /// Whether the guard let the instruction run (`true` when it has none).
    pub executed: bool,
    /// The registers written, in order.
    pub writes: Vec<Write>,
    /// The memory written, in order.
    pub memory: Vec<MemoryWrite>,
}

/// What a launch shares between all its threads: the program, global memory, the kernel's
/// parameter space, the grid's shape and the step limit.
#[derive(Debug)]
pub struct Device<'p> {
    program: &'p Program,
    /// Global memory: argument buffers, then the module's `.global` variables.
    pub global: GlobalMemory,
    params: Vec<u8>,
    grid: Dim3,
    block: Dim3,
    max_steps: u64,
}

impl<'p> Device<'p> {
    /// A device for `program` with grid and CTA shapes and a step limit per thread. Global
    /// memory holds the module's `.global` variables (at the addresses lowering gave them);
    /// kernel parameters read as zero until [`Device::set_params`].
    pub fn new(program: &'p Program, grid: Dim3, block: Dim3, max_steps: u64) -> Self {
        let mut global = GlobalMemory::new();
        for variable in &program.globals {
            global.add(variable.name.clone(), &variable.bytes);
        }
        Self {
            program,
            global,
            params: vec![0; usize::try_from(program.param_bytes).unwrap_or(0)],
            grid,
            block,
            max_steps,
        }
    }

    /// A one-thread launch without arguments (parameters read as zero).
    pub fn single(program: &'p Program, max_steps: u64) -> Self {
        Self::new(program, [1, 1, 1], [1, 1, 1], max_steps)
    }

    /// Sets the kernel parameter space (padded with zeros to its declared size).
    pub fn set_params(&mut self, mut params: Vec<u8>) {
        let size = usize::try_from(self.program.param_bytes).unwrap_or(0);
        if params.len() < size {
            params.resize(size, 0);
        }
        self.params = params;
    }

    /// The kernel parameter space.
    pub fn params(&self) -> &[u8] {
        &self.params
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The grid's shape in CTAs.
    pub fn grid(&self) -> Dim3 {
        self.grid
    }

    /// The CTA's shape in threads.
    pub fn block(&self) -> Dim3 {
        self.block
    }

    /// The step limit of each thread.
    pub fn max_steps(&self) -> u64 {
        self.max_steps
    }

    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// CTAs in the grid.
    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }
}

/// The index `i` as a [`Dim3`] of a shape (x fastest).
pub fn unflatten(index: u64, shape: Dim3) -> Dim3 {
    let x = u64::from(shape[0].max(1));
    let y = u64::from(shape[1].max(1));
    [
        (index % x) as u32,
        ((index / x) % y) as u32,
        (index / (x * y)) as u32,
    ]
}

/// The linear index of `index` in `shape` (x fastest).
pub fn flatten(index: Dim3, shape: Dim3) -> u64 {
    u64::from(index[0])
        + u64::from(shape[0]) * (u64::from(index[1]) + u64::from(shape[1]) * u64::from(index[2]))
}

/// A call frame: where to go back to and what to copy back.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Frame {
    return_pc: usize,
    callee: usize,
    returns: Vec<(u64, u64, u64)>,
}

/// Where a thread is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadStatus {
    /// It can run.
    Ready,
    /// It waits at `bar.sync` for the rest of its CTA.
    AtBarrier,
    /// It finished (exited, trapped or ran out of fuel).
    Done(Outcome),
}

/// What a thread has that instructions seldom touch: its index, `.local` and per-thread
/// `.param` memory and call stack. Registers, program counters, step counts and statuses live
/// in [`Lanes`].
#[derive(Clone, Debug)]
struct Thread {
    tid: Dim3,
    local: Vec<u8>,
    params: Vec<u8>,
    frames: Vec<Frame>,
}

impl Thread {
    fn new(program: &Program, tid: Dim3) -> Self {
        Self {
            tid,
            local: vec![0; usize::try_from(program.local_bytes).unwrap_or(0)],
            params: vec![0; usize::try_from(program.thread_param_bytes).unwrap_or(0)],
            frames: Vec::new(),
        }
    }
}

/// The per-thread state that every instruction touches, stored as a structure of arrays:
/// register `r` of thread `t` is `registers[r * count + t]`, so an instruction that runs for
/// the threads of a CTA in lockstep reads and writes each operand's values contiguously.
/// Registers start at zero (PTX leaves them undefined; ptxsim picks zero so that runs are
/// deterministic).
#[derive(Clone, Debug)]
struct Lanes {
    count: usize,
    /// The low 64 bits of every register (all of a register of 64 bits or fewer).
    low: Vec<u64>,
    /// The high 64 bits of the `.b128` registers, in rows numbered by `high_row`.
    high: Vec<u64>,
    /// For each register, its row in `high` when it is wider than 64 bits.
    high_row: Vec<Option<usize>>,
    pc: Vec<usize>,
    steps: Vec<u64>,
    status: Vec<ThreadStatus>,
    /// Whether a thread has called a function since the CTA started (else no thread has a
    /// call frame, and `ret` ends every thread that runs it).
    calls: bool,
    /// Instructions that the group running in lockstep issued without its threads' program
    /// counters and step counts being updated (see [`Lanes::settle`]).
    pending: u64,
}

impl Lanes {
    fn new(program: &Program, count: usize) -> Self {
        let mut wide = 0;
        let high_row: Vec<Option<usize>> = program
            .registers
            .iter()
            .map(|register| {
                (register.bits() > 64).then(|| {
                    wide += 1;
                    wide - 1
                })
            })
            .collect();
        Self {
            count,
            low: vec![0; program.registers.len() * count],
            high: vec![0; wide * count],
            high_row,
            pc: vec![0; count],
            steps: vec![0; count],
            status: vec![ThreadStatus::Ready; count],
            calls: false,
            pending: 0,
        }
    }

    /// Register `register` of thread `lane`; an invalid index (a simulator bug: lowering only
    /// produces valid ones) reads as zero rather than panicking.
    #[inline(always)]
    fn get(&self, lane: usize, register: RegisterId) -> u128 {
        let low = self.low.get(register.index() * self.count + lane).copied();
        let high = match self.high_row.get(register.index()) {
            Some(Some(row)) => self.high.get(row * self.count + lane).copied(),
            _ => None,
        };
        u128::from(low.unwrap_or(0)) | u128::from(high.unwrap_or(0)) << 64
    }

    /// Sets register `register` of thread `lane` (an invalid index is ignored).
    #[inline(always)]
    fn set(&mut self, lane: usize, register: RegisterId, value: u128) {
        if let Some(slot) = self.low.get_mut(register.index() * self.count + lane) {
            *slot = value as u64;
        }
        if let Some(Some(row)) = self.high_row.get(register.index()) {
            if let Some(slot) = self.high.get_mut(row * self.count + lane) {
                *slot = (value >> 64) as u64;
            }
        }
    }

    /// Brings the threads of `group`, which issued [`Lanes::pending`] instructions in lockstep
    /// without their counters being updated, to the instruction `pc`.
    #[inline]
    fn settle(&mut self, group: &[usize], pc: usize) {
        if self.pending == 0 {
            return;
        }
        for &lane in group {
            self.steps[lane] += self.pending;
            self.pc[lane] = pc;
        }
        self.pending = 0;
    }

    /// The low 64 bits of `register` for the consecutive lanes `first..first + count`.
    #[inline(always)]
    fn row(&self, register: RegisterId, first: usize, count: usize) -> Option<&[u64]> {
        let base = register.index() * self.count + first;
        self.low.get(base..base + count)
    }
}

/// The operand values of one instruction for the lanes it runs on (one entry per lane, in the
/// order of the lanes), reused from instruction to instruction: operands are fetched for all
/// lanes at once, computed in one loop and written back in one loop, so each loop decodes
/// nothing and runs over contiguous memory.
#[derive(Clone, Debug, Default)]
struct Columns {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
    out: Vec<u64>,
}

/// The first lane of `lanes` when they are consecutive (lanes are sorted and distinct, so this
/// is when the last is `len - 1` after the first).
#[inline(always)]
fn run_start(lanes: &[usize]) -> Option<usize> {
    let (&first, &last) = (lanes.first()?, lanes.last()?);
    (last - first + 1 == lanes.len()).then_some(first)
}

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

/// What one call of [`Cta::step_thread`] came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The thread can go on.
    Continue,
    /// The thread reached `bar.sync` and waits for its CTA.
    Barrier,
    /// The thread finished.
    Done(Outcome),
}

/// A CTA: its shared memory and its threads.
#[derive(Clone, Debug)]
pub struct Cta {
    ctaid: Dim3,
    linear: u64,
    shared: Vec<u8>,
    threads: Vec<Thread>,
    lanes: Lanes,
    columns: Columns,
}

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
            shared: vec![0; usize::try_from(program.shared_bytes).unwrap_or(0)],
            lanes: Lanes::new(program, threads.len()),
            columns: Columns::default(),
            threads,
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

    /// The CTA's shared memory.
    pub fn shared(&self) -> &[u8] {
        &self.shared
    }

    /// The grid-wide index of thread `index` of this CTA.
    pub fn global_thread(&self, device: &Device<'_>, index: usize) -> u64 {
        self.linear * device.threads_per_cta() + index as u64
    }

    /// When every thread that has not finished waits at the barrier, releases them all and
    /// returns `true`.
    pub fn release_barrier(&mut self) -> bool {
        let status = &mut self.lanes.status;
        let waiting = status.contains(&ThreadStatus::AtBarrier);
        if waiting
            && status
                .iter()
                .all(|s| matches!(s, ThreadStatus::AtBarrier | ThreadStatus::Done(_)))
        {
            for s in status.iter_mut() {
                if *s == ThreadStatus::AtBarrier {
                    *s = ThreadStatus::Ready;
                }
            }
            true
        } else {
            false
        }
    }

    /// Runs every thread to its end, in lockstep: each step issues the instruction at the
    /// lowest program counter among the threads that can run, for every such thread in linear
    /// order (threads that took a branch wait until the others reach them, so they
    /// reconverge). Threads that reach `bar.sync` wait until every unfinished thread has; then
    /// they are released. Stops at the first thread that does not exit normally and returns its
    /// index and outcome (or its index and the simulator's error).
    ///
    /// `trace` receives every issued step's record, grouped by thread: each thread's steps
    /// between two barrier releases are passed together, threads in linear order.
    pub fn run(
        &mut self,
        device: &Device<'_>,
        mut trace: Option<&mut dyn FnMut(&StepRecord)>,
    ) -> Result<Option<(usize, Outcome)>, (usize, ExecError)> {
        let tracing = trace.is_some();
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
        let mut record = StepRecord::default();
        let mut group: Vec<usize> = Vec::with_capacity(self.threads.len());
        let mut active: Vec<usize> = Vec::with_capacity(self.threads.len());
        let mut pc = 0;
        let mut converged = false;
        // At least the step count of every thread of the group: each issue adds one to each.
        let mut bound = 0;
        let result = 'run: loop {
            if !converged {
                match self.gather(&mut group) {
                    Some((lowest, all, most)) => (pc, converged, bound) = (lowest, all, most),
                    None if self.release_barrier() => {
                        flush(&mut buffered);
                        continue;
                    }
                    None => break Ok(None),
                }
            }
            if tracing {
                for &index in &group {
                    let issued = self.step_thread(device, index, Some(&mut record));
                    if record.pc != usize::MAX {
                        buffered[index].push(record.clone());
                    }
                    if let Err(error) = issued {
                        break 'run Err((index, error));
                    }
                }
            } else {
                let fuelled = bound < device.max_steps;
                let lockstep = Lockstep {
                    fuelled,
                    defer: converged,
                };
                let issued = self.issue(device, pc, &group, &mut active, None, lockstep);
                bound = bound.saturating_add(1);
                match issued {
                    Err(failure) => break Err(failure),
                    Ok(Some(next)) if converged => {
                        pc = next;
                        continue;
                    }
                    Ok(_) => {}
                }
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
                    ThreadStatus::AtBarrier | ThreadStatus::Done(Outcome::Exited) => {}
                    ThreadStatus::Done(outcome) => break 'run Ok(Some((index, outcome.clone()))),
                }
            }
            group.truncate(kept);
            pc = next.unwrap_or(pc);
            converged &= kept > 0;
        };
        flush(&mut buffered);
        result
    }

    /// Collects into `group` the threads that can run and share the lowest program counter,
    /// in one pass; `None` when no thread can run, else that counter, whether every thread
    /// that can run is in `group`, and the largest step count in `group`.
    fn gather(&self, group: &mut Vec<usize>) -> Option<(usize, bool, u64)> {
        let lanes = &self.lanes;
        group.clear();
        let (mut pc, mut ready, mut bound) = (usize::MAX, 0, 0);
        for (index, (status, &at)) in lanes.status.iter().zip(&lanes.pc).enumerate() {
            if !matches!(status, ThreadStatus::Ready) {
                continue;
            }
            ready += 1;
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

    /// Puts every thread back at the first instruction with zeroed registers and memory, as
    /// CTA `ctaid` (reusing the allocations of a finished CTA).
    pub fn reset(&mut self, device: &Device<'_>, ctaid: Dim3) {
        self.ctaid = ctaid;
        self.linear = flatten(ctaid, device.grid);
        self.shared.fill(0);
        self.lanes.low.fill(0);
        self.lanes.high.fill(0);
        self.lanes.pc.fill(0);
        self.lanes.steps.fill(0);
        self.lanes.status.fill(ThreadStatus::Ready);
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
            }
        }
        self.lanes.calls = false;
        self.lanes.pending = 0;
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
        }
        if lanes.is_empty()
            && together
            && !matches!(instruction.kind, InstructionKind::Unsupported { .. })
        {
            // The guard failed on every lane: they all moved on together.
            return Ok(Some(pc + 1));
        }
        let mut executor = Executor {
            device,
            ctaid: self.ctaid,
            shared: &mut self.shared,
            threads,
            lanes: lanes_state,
            columns: &mut self.columns,
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
    device: Device<'p>,
    cta: Cta,
    record: StepRecord,
    has_record: bool,
}

impl<'p> Machine<'p> {
    /// A thread at the program's first instruction, with every register zero and a limit of
    /// `max_steps` instructions (fuel).
    pub fn new(program: &'p Program, max_steps: u64) -> Self {
        let device = Device::single(program, max_steps);
        let cta = Cta::new(&device, [0, 0, 0]);
        Self {
            device,
            cta,
            record: StepRecord::default(),
            has_record: false,
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.device.program
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
        let event = self
            .cta
            .step_thread(&self.device, 0, Some(&mut self.record))?;
        self.has_record = self.record.pc != usize::MAX;
        Ok(match event {
            Event::Continue => Outcome::Running,
            Event::Barrier => {
                // A lone thread is the whole CTA: the barrier releases at once.
                self.cta.release_barrier();
                Outcome::Running
            }
            Event::Done(outcome) => outcome,
        })
    }
}

/// Whether the instruction moved the threads' program counters itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Control {
    /// Every thread that ran it and can go on continues with the next instruction.
    Next,
    /// The instruction set each thread's program counter or status.
    Done,
}

/// Where and how a result lands: the destination register and Table 28's rule, decided once
/// per instruction.
#[derive(Clone, Copy, Debug)]
struct Put {
    register: RegisterId,
    extension: Extension,
}

impl Put {
    fn new(destination: Destination, ty: Type) -> Self {
        Self {
            register: destination.register,
            extension: Extension::new(ty, destination.ty),
        }
    }
}

/// The state one instruction works on: the CTA's threads, of which the instruction runs on
/// the lanes it is given (one lane when stepping a single thread, all the threads at the same
/// instruction when a CTA runs in lockstep).
struct Executor<'a, 'p> {
    device: &'a Device<'p>,
    ctaid: Dim3,
    shared: &'a mut Vec<u8>,
    threads: &'a mut [Thread],
    lanes: &'a mut Lanes,
    columns: &'a mut Columns,
    writes: Option<&'a mut Vec<Write>>,
    memory: Option<&'a mut Vec<MemoryWrite>>,
    /// Whether a lane stopped or left the group (it must be formed again).
    stopped: bool,
    /// The group the lanes belong to and the instruction's index (to settle deferred
    /// counters before a thread stops).
    group: &'a [usize],
    pc: usize,
}

impl Executor<'_, '_> {
    /// Stops thread `lane` with `outcome`; its program counter stays at the instruction.
    fn stop(&mut self, lane: usize, outcome: Outcome) {
        self.lanes.settle(self.group, self.pc);
        self.stopped = true;
        self.lanes.status[lane] = ThreadStatus::Done(outcome);
    }

    fn trap(&mut self, lane: usize, instruction: &Instruction, message: String) {
        self.stop(
            lane,
            Outcome::Trapped {
                message,
                location: instruction.location,
            },
        );
    }

    fn fault(&mut self, lane: usize, instruction: &Instruction, fault: Fault) {
        let [x, y, z] = self.threads[lane].tid;
        let [bx, by, bz] = self.ctaid;
        let message = format!(
            "{fault} in `{}` (thread ({x},{y},{z}) of block ({bx},{by},{bz}))",
            instruction.text
        );
        self.trap(lane, instruction, message);
    }

    /// Runs `instruction` on every lane of `lanes` (threads whose guard passed), in order:
    /// the one exhaustive match over instruction kinds (style rule 3), with the loop over
    /// lanes inside each arm so that a CTA running in lockstep decodes each instruction once.
    /// A thread that faults or traps stops (`Done`) with its program counter at the
    /// instruction; the other lanes still run it.
    fn execute(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
    ) -> Result<Control, (usize, Box<ExecError>)> {
        match &instruction.kind {
            InstructionKind::Mov {
                ty,
                destination,
                source,
            } => {
                let put = Put::new(*destination, *ty);
                if ty.bits() <= 64 {
                    self.map1(lanes, (*source, ty.bits()), &put, |a| a);
                } else {
                    for &lane in lanes {
                        let value = chop(self.read(lane, *source), ty.bits());
                        self.put(lane, &put, value);
                    }
                }
            }
            InstructionKind::MovPack {
                ty,
                destination,
                elements,
            } => {
                let element_bits = ty.bits() / (elements.len().max(1) as u32);
                let mut values = Vec::with_capacity(elements.len());
                let put = Put::new(*destination, *ty);
                for &lane in lanes {
                    values.clear();
                    for element in elements {
                        values.push(self.read(lane, *element));
                    }
                    self.put(lane, &put, pack(&values, element_bits));
                }
            }
            InstructionKind::MovVector {
                ty,
                destinations,
                sources,
            } => {
                let puts: Vec<Option<Put>> = destinations
                    .iter()
                    .map(|d| d.map(|d| Put::new(d, *ty)))
                    .collect();
                let mut values = Vec::with_capacity(sources.len());
                for &lane in lanes {
                    values.clear();
                    for source in sources {
                        values.push(chop(self.read(lane, *source), ty.bits()));
                    }
                    for (put, &value) in puts.iter().zip(&values) {
                        if let Some(put) = put {
                            self.put(lane, put, value);
                        }
                    }
                }
            }
            InstructionKind::MovUnpack {
                ty,
                elements,
                source,
            } => {
                let element_bits = ty.bits() / (elements.len().max(1) as u32);
                for &lane in lanes {
                    let value = chop(self.read(lane, *source), ty.bits());
                    let parts = unpack(value, element_bits, elements.len());
                    for (element, part) in elements.iter().zip(parts) {
                        if let Some(destination) = element {
                            self.write(lane, *destination, part, bit_type(element_bits));
                        }
                    }
                }
            }
            InstructionKind::Cvt {
                op,
                destination,
                sources,
            } => {
                let count = sources.len().min(6);
                let mut widths = [0u32; 6];
                for (index, width) in widths.iter_mut().enumerate().take(count) {
                    *width = cvt::source_width(op, index, sources.len());
                }
                let put = Put::new(*destination, op.destination);
                if let (Some(&a), true) = (sources.first(), count <= 2) {
                    let mut columns = std::mem::take(self.columns);
                    self.gather(lanes, a, widths[0], &mut columns.a);
                    columns.b.clear();
                    if let Some(&b) = sources.get(1) {
                        self.gather(lanes, b, widths[1], &mut columns.b);
                    }
                    let done = cvt::apply_each(op, &mut columns.a, &mut columns.b);
                    if done {
                        self.scatter(lanes, &put, &columns.a);
                    }
                    *self.columns = columns;
                    if done {
                        return Ok(Control::Next);
                    }
                }
                for &lane in lanes {
                    let mut values = [0u64; 6];
                    for index in 0..count {
                        values[index] = chop(self.read(lane, sources[index]), widths[index]) as u64;
                    }
                    let result = cvt::apply(op, &values[..count]);
                    self.put(lane, &put, u128::from(result));
                }
            }
            InstructionKind::CvtPack {
                ty,
                destination,
                a,
                b,
                c,
            } => {
                let put = Put::new(*destination, Type::U32);
                for &lane in lanes {
                    let a = self.read_bits(lane, *a, 32);
                    let b = self.read_bits(lane, *b, 32);
                    let c = match c {
                        Some(c) => self.read_bits(lane, *c, 32),
                        None => 0,
                    };
                    let result = cvt::apply_pack(*ty, a, b, c);
                    self.put(lane, &put, u128::from(result));
                }
            }
            InstructionKind::IntBinary {
                op,
                ty,
                sat,
                relu,
                destination,
                a,
                b,
            } => {
                // Shift amounts are `.u32` whatever the instruction type (PTX ISA 9.7.8.8).
                let b_bits = match op {
                    IntOp::Shl | IntOp::Shr => 32,
                    _ => ty.bits(),
                };
                let result_ty = match op {
                    IntOp::Mul(MulMode::Wide) => wide_type(*ty),
                    _ => *ty,
                };
                let put = Put::new(*destination, result_ty);
                let (a, b) = ((*a, ty.bits()), (*b, b_bits));
                specialise!(
                    (*op, *ty, *sat, *relu) => (IntOp, Type, bool, bool),
                    [
                        (IntOp::Add, Type::S32, false, false),
                        (IntOp::Add, Type::U32, false, false),
                        (IntOp::Add, Type::S64, false, false),
                        (IntOp::Add, Type::U64, false, false),
                        (IntOp::Sub, Type::S32, false, false),
                        (IntOp::Sub, Type::U32, false, false),
                        (IntOp::Sub, Type::S64, false, false),
                        (IntOp::Sub, Type::U64, false, false),
                        (IntOp::Mul(MulMode::Lo), Type::S32, false, false),
                        (IntOp::Mul(MulMode::Lo), Type::U32, false, false),
                        (IntOp::Mul(MulMode::Lo), Type::S64, false, false),
                        (IntOp::Mul(MulMode::Lo), Type::U64, false, false),
                        (IntOp::Mul(MulMode::Wide), Type::S32, false, false),
                        (IntOp::Mul(MulMode::Wide), Type::U32, false, false),
                        (IntOp::Shl, Type::B32, false, false),
                        (IntOp::Shl, Type::B64, false, false),
                        (IntOp::Shr, Type::U32, false, false),
                        (IntOp::Shr, Type::S32, false, false),
                        (IntOp::Shr, Type::B32, false, false),
                        (IntOp::Shr, Type::U64, false, false),
                        (IntOp::Shr, Type::S64, false, false),
                        (IntOp::Shr, Type::B64, false, false),
                        (IntOp::And, Type::B32, false, false),
                        (IntOp::And, Type::B64, false, false),
                        (IntOp::And, Type::Pred, false, false),
                        (IntOp::Or, Type::B32, false, false),
                        (IntOp::Or, Type::B64, false, false),
                        (IntOp::Or, Type::Pred, false, false),
                        (IntOp::Xor, Type::B32, false, false),
                        (IntOp::Xor, Type::Pred, false, false),
                        (IntOp::Min, Type::S32, false, false),
                        (IntOp::Min, Type::U32, false, false),
                        (IntOp::Max, Type::S32, false, false),
                        (IntOp::Max, Type::U32, false, false),
                    ],
                    {|x, y| (op, ty, sat, relu) => alu::int_binary(op, ty, sat, relu, x, y)},
                    |f| self.map2(lanes, a, b, &put, f)
                );
            }
            InstructionKind::IntUnary {
                op,
                ty,
                destination,
                a,
            } => {
                let result_ty = match op {
                    ptxsim_isa::ops::IntUnaryOp::Popc | ptxsim_isa::ops::IntUnaryOp::Clz => {
                        Type::U32
                    }
                    _ => *ty,
                };
                let put = Put::new(*destination, result_ty);
                let (op, ty) = (*op, *ty);
                self.map1(lanes, (*a, ty.bits()), &put, |a| alu::int_unary(op, ty, a));
            }
            InstructionKind::Mad {
                mode,
                ty,
                sat,
                destination,
                sources: [a, b, c],
            } => {
                let result_ty = match mode {
                    MulMode::Wide => wide_type(*ty),
                    _ => *ty,
                };
                let put = Put::new(*destination, result_ty);
                let operands = [(*a, ty.bits()), (*b, ty.bits()), (*c, result_ty.bits())];
                specialise!(
                    (*mode, *ty, *sat) => (MulMode, Type, bool),
                    [
                        (MulMode::Lo, Type::S32, false),
                        (MulMode::Lo, Type::U32, false),
                        (MulMode::Lo, Type::S64, false),
                        (MulMode::Lo, Type::U64, false),
                        (MulMode::Wide, Type::S32, false),
                        (MulMode::Wide, Type::U32, false),
                    ],
                    {|x, y, z| (mode, ty, sat) => alu::int_mad(mode, ty, sat, x, y, z)},
                    |f| self.map3(lanes, operands, &put, f)
                );
            }
            InstructionKind::FloatBinary {
                op,
                ty,
                modifiers,
                destination,
                a,
                b,
            } => {
                let put = Put::new(*destination, *ty);
                let (op, ty, modifiers) = (*op, *ty, *modifiers);
                self.map2(lanes, (*a, ty.bits()), (*b, ty.bits()), &put, |a, b| {
                    alu::float_binary(op, ty, modifiers, a, b)
                });
            }
            InstructionKind::Fma {
                ty,
                modifiers,
                destination,
                sources: [a, b, c],
            } => {
                let put = Put::new(*destination, *ty);
                let (ty, modifiers) = (*ty, *modifiers);
                let operands = [(*a, ty.bits()), (*b, ty.bits()), (*c, ty.bits())];
                self.map3(lanes, operands, &put, |a, b, c| {
                    alu::float_fma(ty, modifiers, a, b, c)
                });
            }
            InstructionKind::FloatUnary {
                op,
                ty,
                modifiers,
                destination,
                a,
            } => {
                let put = Put::new(*destination, *ty);
                let (op, ty, modifiers) = (*op, *ty, *modifiers);
                self.map1(lanes, (*a, ty.bits()), &put, |a| {
                    alu::float_unary(op, ty, modifiers, a)
                });
            }
            InstructionKind::Setp {
                compare,
                ty,
                ftz,
                combine,
                p,
                q,
                a,
                b,
            } => {
                let put_p = Put::new(*p, Type::Pred);
                let put_q = q.map(|q| Put::new(q, Type::Pred));
                let mut columns = std::mem::take(self.columns);
                self.gather(lanes, *a, ty.bits(), &mut columns.a);
                self.gather(lanes, *b, ty.bits(), &mut columns.b);
                // The comparison's result per lane, then `p` (in `out`) and `q` (in `a`).
                columns.out.clear();
                specialise!(
                    (*compare, *ty, *ftz) => (Compare, Type, bool),
                    [
                        (Compare::Eq, Type::S32, false),
                        (Compare::Ne, Type::S32, false),
                        (Compare::Lt, Type::S32, false),
                        (Compare::Le, Type::S32, false),
                        (Compare::Gt, Type::S32, false),
                        (Compare::Ge, Type::S32, false),
                        (Compare::Eq, Type::U32, false),
                        (Compare::Ne, Type::U32, false),
                        (Compare::Lt, Type::U32, false),
                        (Compare::Le, Type::U32, false),
                        (Compare::Gt, Type::U32, false),
                        (Compare::Ge, Type::U32, false),
                        (Compare::Lt, Type::S64, false),
                        (Compare::Ge, Type::S64, false),
                        (Compare::Lt, Type::U64, false),
                        (Compare::Ge, Type::U64, false),
                    ],
                    {|x, y| (compare, ty, ftz) => u64::from(alu::compare(compare, ty, ftz, x, y))},
                    |f| columns
                        .out
                        .extend(columns.a.iter().zip(&columns.b).map(|(&x, &y)| f(x, y)))
                );
                match combine {
                    Some((op, c)) => {
                        self.gather(lanes, c.source, 1, &mut columns.c);
                        let (op, negated) = (*op, c.negated);
                        for (p, &c) in columns.out.iter_mut().zip(&columns.c) {
                            let (r, c) = (*p == 1, (c == 1) != negated);
                            *p = u64::from(alu::combine(op, r, c))
                                | u64::from(alu::combine(op, !r, c)) << 1;
                        }
                    }
                    None => {
                        for p in &mut columns.out {
                            *p |= (*p ^ 1) << 1;
                        }
                    }
                }
                for (q, p) in columns.a.iter_mut().zip(&mut columns.out) {
                    *q = *p >> 1;
                    *p &= 1;
                }
                self.scatter(lanes, &put_p, &columns.out);
                if let Some(put_q) = put_q {
                    self.scatter(lanes, &put_q, &columns.a);
                }
                *self.columns = columns;
            }
            InstructionKind::Selp {
                ty,
                destination,
                a,
                b,
                c,
            } => {
                let put = Put::new(*destination, *ty);
                let operands = [(*a, ty.bits()), (*b, ty.bits()), (*c, 1)];
                self.map3(lanes, operands, &put, |a, b, c| if c == 1 { a } else { b });
            }
            InstructionKind::Prmt {
                mode,
                destination,
                sources: [a, b, c],
            } => {
                let put = Put::new(*destination, Type::B32);
                let mode = *mode;
                self.map3(lanes, [(*a, 32), (*b, 32), (*c, 32)], &put, |a, b, c| {
                    u64::from(alu::prmt(mode, a as u32, b as u32, c as u32))
                });
            }
            InstructionKind::Lop3 {
                destination,
                sources: [a, b, c],
                lut,
            } => {
                let put = Put::new(*destination, Type::B32);
                let lut = *lut;
                self.map3(lanes, [(*a, 32), (*b, 32), (*c, 32)], &put, |a, b, c| {
                    u64::from(alu::lop3(a as u32, b as u32, c as u32, lut))
                });
            }
            InstructionKind::IntTernary {
                op,
                ty,
                destination,
                sources: [a, b, c],
            } => {
                let put = Put::new(*destination, *ty);
                let (op, ty) = (*op, *ty);
                let c_bits = match op {
                    IntTernaryOp::Shf { .. } => 32,
                    IntTernaryOp::Mad24 { .. } | IntTernaryOp::Sad => ty.bits(),
                };
                let operands = [(*a, ty.bits()), (*b, ty.bits()), (*c, c_bits)];
                self.map3(lanes, operands, &put, |a, b, c| {
                    alu::int_ternary(op, ty, a, b, c)
                });
            }
            InstructionKind::Slct {
                ty,
                float_selector,
                ftz,
                destination,
                sources: [a, b, c],
            } => {
                let put = Put::new(*destination, *ty);
                let (float_selector, ftz) = (*float_selector, *ftz);
                let operands = [(*a, ty.bits()), (*b, ty.bits()), (*c, 32)];
                self.map3(lanes, operands, &put, |a, b, c| {
                    alu::slct(float_selector, ftz, a, b, c)
                });
            }
            InstructionKind::Bfe {
                ty,
                destination,
                sources: [a, b, c],
            } => {
                let put = Put::new(*destination, *ty);
                let ty = *ty;
                let operands = [(*a, ty.bits()), (*b, 32), (*c, 32)];
                self.map3(lanes, operands, &put, |a, position, length| {
                    alu::bfe(ty, a, position as u32, length as u32)
                });
            }
            InstructionKind::Bfi {
                ty,
                destination,
                sources: [a, b, c, d],
            } => {
                let put = Put::new(*destination, *ty);
                for &lane in lanes {
                    let a = self.read_bits(lane, *a, ty.bits());
                    let b = self.read_bits(lane, *b, ty.bits());
                    let position = self.read_bits(lane, *c, 32) as u32;
                    let length = self.read_bits(lane, *d, 32) as u32;
                    let result = alu::bfi(*ty, a, b, position, length);
                    self.put(lane, &put, u128::from(result));
                }
            }
            InstructionKind::Ld {
                space,
                ty,
                destinations,
                address,
            } => {
                let puts: Vec<Option<Put>> = destinations
                    .iter()
                    .map(|d| d.map(|d| Put::new(d, *ty)))
                    .collect();
                if self.load_uniform(lanes, *space, *ty, *address, &puts)
                    || self.load_global(lanes, *space, *ty, *address, &puts)
                {
                    return Ok(Control::Next);
                }
                'lanes: for &lane in lanes {
                    let (base, bytes) = match self.vector_access(
                        lane,
                        *address,
                        *space,
                        *ty,
                        destinations.len(),
                        false,
                    ) {
                        Ok(access) => access,
                        Err(fault) => {
                            self.fault(lane, instruction, fault);
                            continue;
                        }
                    };
                    for (index, put) in puts.iter().enumerate() {
                        let at = base.wrapping_add(u64::from(bytes) * index as u64);
                        let value = match self.load(lane, *space, at, bytes) {
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
            InstructionKind::St {
                space,
                ty,
                address,
                sources,
            } => {
                if let ([source], Space::Global, true, None) =
                    (sources.as_slice(), space, ty.bits() <= 64, &self.memory)
                {
                    self.store_global(lanes, instruction, *ty, *address, *source);
                    return Ok(Control::Next);
                }
                'lanes: for &lane in lanes {
                    let (base, bytes) = match self.vector_access(
                        lane,
                        *address,
                        *space,
                        *ty,
                        sources.len(),
                        true,
                    ) {
                        Ok(access) => access,
                        Err(fault) => {
                            self.fault(lane, instruction, fault);
                            continue;
                        }
                    };
                    for (index, source) in sources.iter().enumerate() {
                        let at = base.wrapping_add(u64::from(bytes) * index as u64);
                        let value = chop(self.read(lane, *source), ty.bits());
                        if let Err(fault) = self.store(lane, *space, at, bytes, value) {
                            self.fault(lane, instruction, fault);
                            continue 'lanes;
                        }
                    }
                }
            }
            InstructionKind::Cvta {
                to,
                space,
                ty,
                destination,
                source,
            } => {
                let put = Put::new(*destination, *ty);
                let (to, space) = (*to, *space);
                self.map1(lanes, (*source, ty.bits()), &put, |value| {
                    if to {
                        from_generic_to(space, value)
                    } else {
                        to_generic(space, value)
                    }
                });
            }
            InstructionKind::Atom {
                space,
                op,
                ty,
                destination,
                address,
                b,
                c,
            } => {
                let bytes = ty.bits().div_ceil(8);
                let put = destination.map(|d| Put::new(d, *ty));
                for &lane in lanes {
                    let at = self.address(lane, *address);
                    let b = self.read_bits(lane, *b, ty.bits());
                    let c = match c {
                        Some(c) => self.read_bits(lane, *c, ty.bits()),
                        None => 0,
                    };
                    let update = |old| alu::atom(*op, *ty, old, b, c);
                    match self.atomic(lane, *space, at, bytes, update) {
                        Ok(old) => {
                            if let Some(put) = &put {
                                self.put(lane, put, u128::from(old));
                            }
                        }
                        Err(fault) => self.fault(lane, instruction, fault),
                    }
                }
            }
            InstructionKind::BarSync => {
                self.stopped = true;
                for &lane in lanes {
                    self.lanes.pc[lane] += 1;
                    self.lanes.status[lane] = ThreadStatus::AtBarrier;
                }
                return Ok(Control::Done);
            }
            InstructionKind::Fence => {}
            InstructionKind::Call {
                target,
                callee,
                arguments,
                returns,
            } => {
                for &lane in lanes {
                    if self.threads[lane]
                        .frames
                        .iter()
                        .any(|f| f.callee == *target)
                    {
                        let message =
                            format!("recursive call of `{callee}` (recursion is not simulated)");
                        self.trap(lane, instruction, message);
                        continue;
                    }
                    for (from, to, bytes) in arguments {
                        if !self.copy_param(lane, *from, *to, *bytes) {
                            return Err((
                                lane,
                                Box::new(ExecError::Internal(format!(
                                    "call argument outside the parameter space of `{callee}`"
                                ))),
                            ));
                        }
                    }
                    self.lanes.calls = true;
                    self.threads[lane].frames.push(Frame {
                        return_pc: self.lanes.pc[lane] + 1,
                        callee: *target,
                        returns: returns.clone(),
                    });
                    self.lanes.pc[lane] = *target;
                }
                return Ok(Control::Done);
            }
            InstructionKind::Bra { target } => {
                if *target > self.device.program.instructions.len() {
                    let lane = lanes.first().copied().unwrap_or(0);
                    return Err((
                        lane,
                        Box::new(ExecError::Internal(format!(
                            "branch target {target} outside the program"
                        ))),
                    ));
                }
                for &lane in lanes {
                    self.lanes.pc[lane] = *target;
                }
                return Ok(Control::Done);
            }
            InstructionKind::Ret if !self.lanes.calls => {
                // No thread has a call frame: `ret` leaves the kernel.
                self.stopped = true;
                for &lane in lanes {
                    self.lanes.status[lane] = ThreadStatus::Done(Outcome::Exited);
                }
                return Ok(Control::Done);
            }
            InstructionKind::Ret => {
                for &lane in lanes {
                    let Some(frame) = self.threads[lane].frames.pop() else {
                        self.stop(lane, Outcome::Exited);
                        continue;
                    };
                    for (from, to, bytes) in &frame.returns {
                        if !self.copy_param(lane, *from, *to, *bytes) {
                            return Err((
                                lane,
                                Box::new(ExecError::Internal(
                                    "return value outside the parameter space".to_string(),
                                )),
                            ));
                        }
                    }
                    self.lanes.pc[lane] = frame.return_pc;
                }
                return Ok(Control::Done);
            }
            InstructionKind::Exit => {
                for &lane in lanes {
                    self.stop(lane, Outcome::Exited);
                }
                return Ok(Control::Done);
            }
            InstructionKind::Trap => {
                for &lane in lanes {
                    self.trap(lane, instruction, "trap instruction executed".to_string());
                }
            }
            InstructionKind::Unsupported { mnemonic, reason } => {
                let lane = lanes.first().copied().unwrap_or(0);
                return Err((
                    lane,
                    Box::new(ExecError::Unsupported {
                        mnemonic: mnemonic.clone(),
                        reason: reason.clone(),
                        line: instruction.location.line,
                        column: instruction.location.column,
                    }),
                ));
            }
        }
        Ok(Control::Next)
    }

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
        let at = (base as u64).wrapping_add(address.offset as u64);
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

    /// A scalar `ld.global` for every lane, with addresses and results in columns. Returns
    /// `false` (nothing done) for other loads and when a lane's access faults, so that the
    /// per-lane path reports each lane's fault (loads have no side effects to repeat).
    fn load_global(
        &mut self,
        lanes: &[usize],
        space: Space,
        ty: Type,
        address: MemoryOperand,
        puts: &[Option<Put>],
    ) -> bool {
        let ([Some(put)], Space::Global, true) = (puts, space, ty.bits() <= 64) else {
            return false;
        };
        let bytes = ty.bits().div_ceil(8).max(1);
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, address.base, 64, &mut columns.a);
        columns.out.clear();
        let offset = address.offset as u64;
        let addresses = columns.a.iter().map(|&base| base.wrapping_add(offset));
        let faulted = self
            .device
            .global
            .load_each(addresses, bytes, &mut columns.out)
            .is_err();
        if !faulted {
            self.scatter(lanes, put, &columns.out);
        }
        *self.columns = columns;
        !faulted
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
        let offset = address.offset as u64;
        let stores = columns
            .a
            .iter()
            .map(|&base| base.wrapping_add(offset))
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
    fn copy_param(&mut self, lane: usize, from: u64, to: u64, bytes: u64) -> bool {
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

    fn address(&self, lane: usize, operand: MemoryOperand) -> u64 {
        let base = self.read(lane, operand.base) as u64;
        base.wrapping_add(operand.offset as u64)
    }

    /// Resolves a space and address to the memory that holds it.
    fn load(&mut self, lane: usize, space: Space, address: u64, bytes: u32) -> Result<u128, Fault> {
        if bytes == 16 {
            let low = self.load(lane, space, address, 8)?;
            let high = self.load(lane, space, address.wrapping_add(8), 8)?;
            return Ok(low | (high << 64));
        }
        let (resolved, at) = self.resolve(space, address);
        let thread = &self.threads[lane];
        let result = match resolved {
            Space::Global | Space::Generic => self.device.global.load(at, bytes),
            Space::Shared => load_bytes(self.shared, 0, at, bytes),
            Space::Local => load_bytes(&thread.local, 0, at, bytes),
            Space::Const => load_bytes(&self.device.program.constants, 0, at, bytes),
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

    fn store(
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
            Space::Shared => store_bytes(self.shared, 0, at, bytes, low),
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

    fn atomic(
        &mut self,
        _lane: usize,
        space: Space,
        address: u64,
        bytes: u32,
        f: impl Fn(u64) -> u64,
    ) -> Result<u64, Fault> {
        let (resolved, at) = self.resolve(space, address);
        let to_fault = |kind| fault(kind, space, address, u64::from(bytes), true);
        let old = match resolved {
            Space::Global | Space::Generic => {
                self.device.global.update(at, bytes, &f).map_err(to_fault)?
            }
            Space::Shared => {
                let old = load_bytes(self.shared, 0, at, bytes).map_err(to_fault)?;
                store_bytes(self.shared, 0, at, bytes, f(old)).map_err(to_fault)?;
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
                value: u128::from(f(old)),
            });
        }
        Ok(old)
    }

    /// The space an access goes to: generic addresses are looked up in the windows.
    fn resolve(&self, space: Space, address: u64) -> (Space, u64) {
        match space {
            Space::Generic => from_generic(address),
            other => (other, address),
        }
    }

    /// The values of `source` for every lane of `lanes`, chopped to `bits` (at most 64), into
    /// `out`.
    #[inline(always)]
    fn gather(&self, lanes: &[usize], source: Source, bits: u32, out: &mut Vec<u64>) {
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
            Source::Special(
                special @ (SpecialRegister::Ntid(_)
                | SpecialRegister::Ctaid(_)
                | SpecialRegister::Nctaid(_)
                | SpecialRegister::Nwarpid
                | SpecialRegister::Smid
                | SpecialRegister::Gridid
                | SpecialRegister::Nsmid),
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
    fn scatter(&mut self, lanes: &[usize], put: &Put, values: &[u64]) {
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
        let base = put.register.index() * self.lanes.count;
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
    fn map1(&mut self, lanes: &[usize], a: (Source, u32), put: &Put, f: impl Fn(u64) -> u64) {
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, a.0, a.1, &mut columns.a);
        let values = columns.a.iter().map(|&a| f(a));
        self.emit(lanes, put, values);
        *self.columns = columns;
    }

    /// `put = f(a, b)` for every lane.
    #[inline(always)]
    fn map2(
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
    fn map3(
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
    fn read(&self, lane: usize, source: Source) -> u128 {
        match source {
            Source::Register(register) => self.read_register(lane, register),
            Source::Immediate(bits) => bits,
            Source::Special(special) => self.special(lane, special),
        }
    }

    /// A source chopped to `bits` (Table 27), as `u64`.
    #[inline(always)]
    fn read_bits(&self, lane: usize, source: Source, bits: u32) -> u64 {
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
            SpecialRegister::Clock64 => steps,
        };
        u128::from(value)
    }

    /// Writes `value` of instruction type `ty` to a register, extended per Table 28.
    #[inline(always)]
    fn write(&mut self, lane: usize, destination: Destination, value: u128, ty: Type) {
        self.put(lane, &Put::new(destination, ty), value);
    }

    /// Writes `value` to a register by a rule decided once per instruction.
    #[inline(always)]
    fn put(&mut self, lane: usize, rule: &Put, value: u128) {
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

fn fault(kind: FaultKind, space: Space, address: u64, bytes: u64, store: bool) -> Fault {
    Fault {
        kind,
        space,
        address,
        bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
        store,
    }
}

/// The double-width type of `.wide` results.
fn wide_type(ty: Type) -> Type {
    match ty {
        Type::S16 => Type::S32,
        Type::U16 => Type::U32,
        Type::S32 => Type::S64,
        Type::U32 => Type::U64,
        Type::B16 => Type::B32,
        Type::B32 => Type::B64,
        other => other,
    }
}
