//! The debugger's state and its stepping model.
//!
//! * One thread is *selected* (a CTA index and a thread index in it); `step`, `next` and
//!   `continue` run that thread, one instruction at a time, and breakpoints and watchpoints
//!   apply to it alone.
//! * Only the CTAs the session visits are simulated, each when first selected (the selected
//!   one at the start). The other threads of a CTA run only when the selected thread waits at
//!   `bar.sync`: they then run, in linear order, until each reaches the barrier or finishes, and
//!   the barrier is released. Their steps are not shown and do not stop at breakpoints.
//! * Once the selected thread has finished, `continue` finishes the launch: every thread of
//!   every CTA, in CTA order, runs to its end (CTAs already visited go on from where they are),
//!   so that memory holds what the whole launch writes.
//! * Global memory is shared by every CTA, as on the device; `restart` starts the launch again
//!   with fresh memory, keeping breakpoints, watchpoints and the selection.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ptxsim_exec::dim::{flatten, unflatten};
use ptxsim_exec::grid::{self, Argument};
use ptxsim_exec::ir::{InstructionKind, RegisterId, THREAD_PARAM_BASE};
use ptxsim_exec::memory::from_generic;
use ptxsim_exec::{
    Cta, Device, Dim3, Event, ExecError, LaunchError, Outcome, Program, StepRecord, ThreadStatus,
    report,
};
use ptxsim_isa::Type;
use ptxsim_isa::ops::Space;

use super::format::value_text;
use super::source::SourceMap;

/// A simulated CTA and, per thread, its call stack (the `call` instructions it is inside).
#[derive(Debug)]
pub(crate) struct CtaState {
    pub(crate) cta: Cta,
    pub(crate) stacks: Vec<Vec<usize>>,
}

impl CtaState {
    fn new(device: &Device<'_>, ctaid: Dim3) -> Self {
        let cta = Cta::new(device, ctaid);
        let stacks = vec![Vec::new(); cta.threads().len()];
        Self { cta, stacks }
    }
}

/// A breakpoint or watchpoint.
#[derive(Debug)]
pub(crate) struct Point {
    pub(crate) id: u32,
    pub(crate) kind: PointKind,
    pub(crate) hits: u64,
}

/// What a [`Point`] watches.
#[derive(Debug)]
pub(crate) enum PointKind {
    /// Stop before any of these instructions; `what` says where (`line 46`, `label L (line 9)`).
    Break { pcs: Vec<usize>, what: String },
    /// Stop after an instruction changes this register.
    Watch(RegisterId),
}

/// How far `step`, `next` and `continue` go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `step N`: N instructions.
    Step(u64),
    /// `next N`: N instructions, a `call` counting as one.
    Next(u64),
    /// `step line N` / `next line N`: until the thread reaches the Nth `.cu` line (of its
    /// `.loc` directives) after the one it is on; with `over_calls`, the instructions of a
    /// called function belong to the line of its `call`.
    Line { lines: u64, over_calls: bool },
    /// Until a breakpoint, a watchpoint or the end of the thread.
    Continue,
}

/// Why the selected thread could not issue an instruction.
enum Halt {
    /// It had already finished.
    Finished,
    /// The simulator cannot run its next instruction.
    Error(String),
}

/// The shape and limits of a launch: grid, block, steps per thread, dynamic shared bytes and
/// the most host memory the simulated memories may take.
#[derive(Clone, Copy, Debug)]
pub struct LaunchShape {
    /// CTAs.
    pub grid: Dim3,
    /// Threads per CTA.
    pub block: Dim3,
    /// The step limit of each thread.
    pub max_steps: u64,
    /// Dynamic shared memory in bytes.
    pub dynamic_shared: u64,
    /// The memory budget (see [`grid::prepare_within`]).
    pub memory_limit: u64,
}

/// How `restart` makes the launch's device again, for a session opened on a prepared device
/// ([`Session::on_device`]): fresh memory as it was when the launch started.
pub type Restart<'p> = Box<dyn FnMut() -> Result<Device<'p>, String> + 'p>;

/// The debugger's state.
pub struct Session<'p> {
    pub(crate) program: &'p Program,
    pub(crate) lines: Vec<&'p str>,
    pub(crate) map: SourceMap,
    arguments: Vec<Argument>,
    /// Makes the device again for `restart`, where the session did not prepare it from
    /// `arguments`.
    remake: Option<Restart<'p>>,
    pub(crate) device: Device<'p>,
    pub(crate) addresses: Vec<Option<u64>>,
    pub(crate) ctas: BTreeMap<u64, CtaState>,
    pub(crate) cta: Dim3,
    pub(crate) thread: Dim3,
    pub(crate) points: Vec<Point>,
    next_id: u32,
    /// Whether the note that the other threads of the block ran to a barrier (`[0]`) or to a
    /// warp-synchronous instruction (`[1]`) was shown: it is shown once per kind, since it
    /// would otherwise follow every `shfl.sync` of a loop.
    noted_sync: [bool; 2],
    /// The summary of the finished launch, once `continue` has run it to its end.
    finished: Option<String>,
    /// The lines of each `.file` (by index) that could be read from the host's disk, to show
    /// a stop's `.cu` line as well as its name.
    source_texts: BTreeMap<u32, Vec<String>>,
}

/// The `.cu` files a program's `.file` directives name, read where the host has them (and
/// they are text of at most 16 MiB): what the compiler saw, if nothing changed them since.
fn read_source_files(program: &Program) -> BTreeMap<u32, Vec<String>> {
    const LIMIT: u64 = 16 << 20;
    program
        .source_files
        .iter()
        .filter(|(_, name)| std::fs::metadata(name).is_ok_and(|m| m.is_file() && m.len() <= LIMIT))
        .filter_map(|(index, name)| {
            let text = std::fs::read_to_string(name).ok()?;
            Some((*index, text.lines().map(str::to_string).collect()))
        })
        .collect()
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("entry", &self.program.entry)
            .field("cta", &self.cta)
            .field("thread", &self.thread)
            .finish_non_exhaustive()
    }
}

/// `(x,y,z)`.
pub(crate) fn dims(d: Dim3) -> String {
    format!("({},{},{})", d[0], d[1], d[2])
}

/// One step of thread `index`, keeping its call stack.
fn step_one(
    device: &Device<'_>,
    state: &mut CtaState,
    index: usize,
    record: &mut StepRecord,
) -> Result<Event, ExecError> {
    let event = state.cta.step_thread(device, index, Some(record))?;
    if record.pc != usize::MAX && record.executed {
        let kind = device
            .program()
            .instructions
            .get(record.pc)
            .map(|i| &i.kind);
        let pc = state.cta.thread(index).map(|t| t.pc());
        if let Some(stack) = state.stacks.get_mut(index) {
            if let Some(InstructionKind::Call { target, .. }) = kind {
                if pc == Some(*target) {
                    stack.push(record.pc);
                }
            } else if matches!(kind, Some(InstructionKind::Ret)) {
                stack.pop();
            }
        }
    }
    Ok(event)
}

/// `1 step`, `2 steps`.
pub(crate) fn steps_text(steps: u64) -> String {
    if steps == 1 {
        "1 step".to_string()
    } else {
        format!("{steps} steps")
    }
}

/// How a finished thread ended, in words.
fn ending(outcome: &Outcome, steps: u64) -> String {
    match outcome {
        Outcome::Exited | Outcome::Running => format!("exited after {}", steps_text(steps)),
        Outcome::Trapped { message, location } => {
            format!("trapped at line {}: {message}", location.line)
        }
        Outcome::AssertionFailed { message, location } => {
            format!("failed an assertion at line {}: {message}", location.line)
        }
        Outcome::OutOfFuel => format!("ran out of fuel after {} (--max-steps)", steps_text(steps)),
    }
}

impl<'p> Session<'p> {
    /// Prepares the launch of `program` (the kernel of the module `source`) with `arguments`;
    /// the selection (a CTA, a thread in it) must lie inside it.
    pub fn new(
        program: &'p Program,
        source: &'p str,
        launch: LaunchShape,
        arguments: Vec<Argument>,
        selection: (Dim3, Dim3),
    ) -> Result<Self, LaunchError> {
        let (mut device, addresses) = grid::prepare_within(
            program,
            launch.grid,
            launch.block,
            launch.max_steps,
            arguments.clone(),
            launch.memory_limit,
        )?;
        device
            .set_dynamic_shared(launch.dynamic_shared)
            .map_err(LaunchError::Shape)?;
        Ok(Self::with_device(
            program,
            source,
            (device, addresses),
            arguments,
            selection,
            None,
        ))
    }

    /// A session on a launch that is already prepared: `device` (its memory, parameters and
    /// shape set) runs `program`, whose parameters hold `arguments` (shown at the start, as
    /// scalars or bytes); `restart` makes the device again. The selection is the first thread
    /// of the first CTA. The driver library opens one on a launch of a running program
    /// (`PTXSIM_DEBUG`).
    pub fn on_device(
        program: &'p Program,
        source: &'p str,
        device: Device<'p>,
        arguments: Vec<Argument>,
        restart: Restart<'p>,
    ) -> Self {
        let addresses = vec![None; arguments.len()];
        Self::with_device(
            program,
            source,
            (device, addresses),
            arguments,
            ([0; 3], [0; 3]),
            Some(restart),
        )
    }

    fn with_device(
        program: &'p Program,
        source: &'p str,
        (device, addresses): (Device<'p>, Vec<Option<u64>>),
        arguments: Vec<Argument>,
        selection: (Dim3, Dim3),
        remake: Option<Restart<'p>>,
    ) -> Self {
        Self {
            program,
            lines: source.lines().collect(),
            map: SourceMap::new(source),
            arguments,
            remake,
            device,
            addresses,
            ctas: BTreeMap::new(),
            cta: selection.0,
            thread: selection.1,
            points: Vec::new(),
            next_id: 1,
            noted_sync: [false; 2],
            finished: None,
            source_texts: read_source_files(program),
        }
    }

    /// What a session prints when it opens: the kernel and its launch, the selection, the
    /// arguments and the selected thread's next line.
    pub fn banner(&mut self) -> String {
        let [gx, gy, gz] = self.device.grid();
        let [bx, by, bz] = self.device.block();
        format!(
            "kernel {} (grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}); selected: {} (`help` lists \
             the commands)\n{}{}",
            self.program.entry,
            self.who(),
            self.arguments_text(),
            self.next_line()
        )
    }

    /// Starts the launch again: fresh memory and CTAs; breakpoints and selection stay.
    pub(crate) fn restart(&mut self) -> Result<(), String> {
        if let Some(remake) = &mut self.remake {
            self.device = remake()?;
            self.ctas.clear();
            self.finished = None;
            for point in &mut self.points {
                point.hits = 0;
            }
            return Ok(());
        }
        let (mut device, addresses) = grid::prepare_within(
            self.program,
            self.device.grid(),
            self.device.block(),
            self.device.max_steps(),
            self.arguments.clone(),
            self.device.memory_limit(),
        )
        .map_err(|e| e.to_string())?;
        device.set_dynamic_shared(self.device.dynamic_shared())?;
        self.device = device;
        self.addresses = addresses;
        self.ctas.clear();
        self.finished = None;
        for point in &mut self.points {
            point.hits = 0;
        }
        Ok(())
    }

    /// The selected thread's index in its CTA.
    pub(crate) fn thread_index(&self) -> usize {
        usize::try_from(flatten(self.thread, self.device.block())).unwrap_or(usize::MAX)
    }

    /// The selected CTA, created (every thread at its first instruction) when first visited.
    pub(crate) fn state(&mut self) -> &mut CtaState {
        let linear = flatten(self.cta, self.device.grid());
        let device = &self.device;
        let ctaid = self.cta;
        self.ctas
            .entry(linear)
            .or_insert_with(|| CtaState::new(device, ctaid))
    }

    /// The selected thread's next instruction, its status and steps.
    pub(crate) fn position(&mut self) -> (usize, ThreadStatus, u64) {
        let index = self.thread_index();
        let state = self.state();
        match state.cta.thread(index) {
            Some(thread) => (thread.pc(), thread.status().clone(), thread.steps()),
            None => (0, ThreadStatus::Done(Outcome::Exited), 0),
        }
    }

    /// The value of `register` in every thread of the selected thread's warp (the 32 threads of
    /// the block with consecutive linear indices that hold it), as (lane, thread index, value).
    pub(crate) fn warp_values(&mut self, register: RegisterId) -> Vec<WarpLane> {
        let index = self.thread_index();
        let block = self.device.block();
        let state = self.state();
        let first = index / 32 * 32;
        let end = (first + 32).min(state.cta.thread_count());
        (first..end)
            .filter_map(|lane| {
                let thread = state.cta.thread(lane)?;
                Some(WarpLane {
                    lane: lane - first,
                    thread: unflatten(lane as u64, block),
                    value: thread.register(register),
                    status: thread.status().clone(),
                    pc: thread.pc(),
                })
            })
            .collect()
    }

    /// The selected thread's registers.
    pub(crate) fn registers(&mut self) -> Vec<u128> {
        let index = self.thread_index();
        self.state()
            .cta
            .thread(index)
            .map(|t| t.registers())
            .unwrap_or_default()
    }

    /// `thread (x,y,z) of block (x,y,z)`.
    pub(crate) fn who(&self) -> String {
        format!("thread {} of block {}", dims(self.thread), dims(self.cta))
    }

    /// `=> LINE  TEXT` for instruction `pc`, or the thread's state when it cannot run.
    pub(crate) fn next_line(&mut self) -> String {
        let (pc, status, steps) = self.position();
        match status {
            ThreadStatus::Done(outcome) => {
                format!("{} {}\n", self.who(), ending(&outcome, steps))
            }
            ThreadStatus::AtBarrier => format!(
                "{} waits at bar.sync\n=> {}",
                self.who(),
                self.instruction_line(pc)
            ),
            ThreadStatus::AtWarpSync => format!(
                "{} waits for lanes of its warp\n=> {}",
                self.who(),
                self.instruction_line(pc)
            ),
            ThreadStatus::Ready => format!("=> {}", self.instruction_line(pc)),
        }
    }

    /// `LINE  TEXT` of instruction `pc`.
    pub(crate) fn instruction_line(&self, pc: usize) -> String {
        match self.program.instructions.get(pc) {
            Some(instruction) => format!(
                "{}  {}{}\n",
                instruction.location.line,
                instruction.text,
                self.source_note(instruction.source)
            ),
            None => "(end of the program)\n".to_string(),
        }
    }

    /// Adds a breakpoint or watchpoint and returns its number.
    pub(crate) fn add_point(&mut self, kind: PointKind) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.points.push(Point { id, kind, hits: 0 });
        id
    }

    /// The `.cu` line of instruction `pc` (its `.loc`), if the PTX has one there.
    pub(crate) fn source_at(&self, pc: usize) -> Option<ptxsim_exec::ir::SourceLine> {
        self.program.instructions.get(pc).and_then(|i| i.source)
    }

    /// The lines of `.file` number `file`, where the host has it.
    pub(crate) fn source_text(&self, file: u32) -> Option<&[String]> {
        self.source_texts.get(&file).map(Vec::as_slice)
    }

    /// Whether `step line` can work: the PTX has `.loc` lines.
    pub(crate) fn lines_known(&self) -> Result<(), String> {
        if !self.program.instructions.iter().any(|i| i.source.is_some()) {
            Err(
                "the PTX has no source lines (`.file`/`.loc`): build it with `nvcc -lineinfo` \
                 or `-G`; `step N` steps by instruction"
                    .to_string(),
            )
        } else {
            Ok(())
        }
    }

    /// The depth of the selected thread's call stack.
    fn depth(&mut self) -> usize {
        let index = self.thread_index();
        self.state().stacks.get(index).map_or(0, Vec::len)
    }

    /// Runs the other threads of the selected CTA to the barrier and releases it. Messages about
    /// other threads that trapped or cannot run go to `notes`; `true` when one of them did.
    fn synchronize(&mut self, notes: &mut String) -> bool {
        let waiting = self.position().1;
        let selected = self.thread_index();
        let block = self.device.block();
        let cta = self.cta;
        let linear = flatten(self.cta, self.device.grid());
        let device = &self.device;
        let Some(state) = self.ctas.get_mut(&linear) else {
            return false;
        };
        let count = state.cta.thread_count();
        let mut trouble = false;
        let mut record = StepRecord::default();
        let mut ran = 0;
        for other in (0..count).filter(|&i| i != selected) {
            while state.cta.thread(other).map(|t| t.status()) == Some(&ThreadStatus::Ready) {
                ran += 1;
                let who = format!(
                    "thread {} of block {}",
                    dims(unflatten(other as u64, block)),
                    dims(cta)
                );
                match step_one(device, state, other, &mut record) {
                    Err(error) => {
                        let line = device
                            .program()
                            .instructions
                            .get(state.cta.thread(other).map_or(usize::MAX, |t| t.pc()))
                            .map_or(0, |i| i.location.line);
                        let _ = writeln!(notes, "{who} cannot go on at line {line}: {error}");
                        trouble = true;
                        break;
                    }
                    Ok(Event::Done(outcome)) if outcome != Outcome::Exited => {
                        let steps = state.cta.thread(other).map_or(0, |t| t.steps());
                        let _ = writeln!(notes, "{who} {}", ending(&outcome, steps));
                        trouble = true;
                    }
                    Ok(_) => {}
                }
            }
        }
        let kind = usize::from(waiting == ThreadStatus::AtWarpSync);
        if ran > 0 && !self.noted_sync[kind] {
            self.noted_sync[kind] = true;
            let waited = match waiting {
                ThreadStatus::AtWarpSync => {
                    "the warp-synchronous instruction: ran the other \
                     threads of block {} until its warp's lanes arrived (said once; \
                     `threads` shows where each thread is)"
                }
                _ => {
                    "bar.sync: ran the other threads of block {} to the barrier (said once; \
                     `threads` shows where each thread is)"
                }
            };
            let _ = writeln!(notes, "{}", waited.replace("{}", &dims(cta)));
        }
        state.cta.release_barrier(device);
        trouble
    }

    /// Issues the selected thread's next instruction (first letting the other threads reach a
    /// barrier it waits at). `Ok(None)`: the thread finished without issuing one (fuel, end of
    /// the body).
    fn advance(
        &mut self,
        notes: &mut String,
        trouble: &mut bool,
    ) -> Result<Option<StepRecord>, Halt> {
        let index = self.thread_index();
        if matches!(
            self.position().1,
            ThreadStatus::AtBarrier | ThreadStatus::AtWarpSync
        ) {
            *trouble |= self.synchronize(notes);
            if matches!(
                self.position().1,
                ThreadStatus::AtBarrier | ThreadStatus::AtWarpSync
            ) {
                return Err(Halt::Error(
                    "the thread cannot go on: another thread of the block it waits for cannot \
                     go on"
                        .to_string(),
                ));
            }
        }
        if matches!(self.position().1, ThreadStatus::Done(_)) {
            return Err(Halt::Finished);
        }
        let mut record = StepRecord::default();
        let device = &self.device;
        let linear = flatten(self.cta, device.grid());
        let ctaid = self.cta;
        let state = self
            .ctas
            .entry(linear)
            .or_insert_with(|| CtaState::new(device, ctaid));
        let pc = state.cta.thread(index).map_or(0, |t| t.pc());
        let event = step_one(device, state, index, &mut record).map_err(|error| {
            let line = self
                .program
                .instructions
                .get(pc)
                .map_or(0, |i| i.location.line);
            Halt::Error(format!("cannot run line {line}: {error}"))
        })?;
        if matches!(event, Event::Barrier | Event::WarpSync) {
            *trouble |= self.synchronize(notes);
        }
        Ok((record.pc != usize::MAX).then_some(record))
    }

    /// The breakpoint at the selected thread's next instruction, if any (counting the hit).
    fn breakpoint_hit(&mut self) -> Option<String> {
        let (pc, status, _) = self.position();
        if status != ThreadStatus::Ready {
            return None;
        }
        let point = self.points.iter_mut().find(|p| match &p.kind {
            PointKind::Break { pcs, .. } => pcs.contains(&pc),
            PointKind::Watch(_) => false,
        })?;
        point.hits += 1;
        let PointKind::Break { what, .. } = &point.kind else {
            return None;
        };
        Some(format!("breakpoint {}, {what}\n", point.id))
    }

    /// The watchpoints the step's writes trigger.
    fn watch_hits(&mut self, record: &StepRecord) -> Option<String> {
        let mut text = String::new();
        for point in &mut self.points {
            let PointKind::Watch(register) = point.kind else {
                continue;
            };
            if let Some(write) = record
                .writes
                .iter()
                .rev()
                .find(|w| w.register == register && w.old != w.new)
            {
                point.hits += 1;
                let info = &self.program.registers[register.index()];
                let _ = writeln!(
                    text,
                    "watchpoint {}: {} changed: {} -> {}",
                    point.id,
                    info.name,
                    value_text(write.old, info.ty),
                    value_text(write.new, info.ty)
                );
            }
        }
        (!text.is_empty()).then_some(text)
    }

    /// `   // FILE:LINE` for an instruction whose PTX has a `.loc` (`nvcc -lineinfo`, `-G`),
    /// else nothing.
    pub(crate) fn source_note(&self, source: Option<ptxsim_exec::ir::SourceLine>) -> String {
        let Some((source, name)) =
            source.and_then(|source| Some((source, self.program.source_name(source)?)))
        else {
            return String::new();
        };
        let text = self
            .source_texts
            .get(&source.file)
            .and_then(|lines| lines.get((source.line as usize).checked_sub(1)?))
            .map(|line| line.trim())
            .filter(|line| !line.is_empty());
        match text {
            Some(text) => format!("   // {name}  {text}"),
            None => format!("   // {name}"),
        }
    }

    /// What one step did: the instruction and its register and memory writes.
    pub(crate) fn describe_step(&self, record: &StepRecord) -> String {
        let mut text = String::new();
        let Some(instruction) = self.program.instructions.get(record.pc) else {
            return text;
        };
        let _ = write!(
            text,
            "   {}  {}",
            instruction.location.line, instruction.text
        );
        if !record.executed {
            text.push_str("   (guard false: not executed)");
        }
        text.push('\n');
        // A conversion's result decoded by its destination type too, when that is not the
        // register's (an `.e4m3x2` in a `.b16` register).
        let result_type = match &instruction.kind {
            InstructionKind::Cvt { op, .. } => Some(op.destination),
            _ => None,
        };
        let width = record
            .writes
            .iter()
            .filter_map(|w| self.program.registers.get(w.register.index()))
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(0);
        for write in &record.writes {
            let Some(info) = self.program.registers.get(write.register.index()) else {
                continue;
            };
            let _ = write!(
                text,
                "      {:<width$}  {} -> {}  ({} -> {})",
                info.name,
                report::hex(write.old, info.ty),
                report::hex(write.new, info.ty),
                report::decode(write.old, info.ty),
                report::decode(write.new, info.ty)
            );
            if write.old == write.new {
                text.push_str("  unchanged");
            }
            if let Some(ty) = result_type.filter(|t| *t != info.ty && t.is_float()) {
                let mask = |v: u128| ptxsim_exec::semantics::chop(v, ty.bits());
                let _ = write!(
                    text,
                    "  as {}: {} -> {}",
                    ty.name(),
                    report::decode(mask(write.old), ty),
                    report::decode(mask(write.new), ty)
                );
            }
            text.push('\n');
        }
        for memory in &record.memory {
            let digits = (memory.bytes as usize * 2).max(2);
            let _ = writeln!(
                text,
                "      [{} {:#018x}] <- 0x{:0digits$x} ({} byte{})",
                memory.space.name(),
                memory.address,
                memory.value,
                memory.bytes,
                if memory.bytes == 1 { "" } else { "s" }
            );
        }
        text
    }

    /// `step`, `next` and `continue`.
    pub(crate) fn go(&mut self, mode: Mode) -> String {
        if matches!(self.position().1, ThreadStatus::Done(_)) {
            return if mode == Mode::Continue {
                self.finish_launch()
            } else {
                format!(
                    "error: {} has finished; `continue` runs the rest of the launch, `thread` and \
                     `block` select another thread, `restart` starts again\n",
                    self.who()
                )
            };
        }
        let mut notes = String::new();
        let mut trouble = false;
        let mut last: Option<StepRecord> = None;
        let mut reason = String::new();
        let (mut remaining, over_calls) = match mode {
            Mode::Step(n) => (n, false),
            Mode::Next(n) => (n, true),
            Mode::Line { .. } | Mode::Continue => (u64::MAX, false),
        };
        // `step line`/`next line`: the lines still to reach, the source line the thread is on
        // and the call depth whose instructions count (deeper ones are a call's, for `next`).
        let mut by_line = match mode {
            Mode::Line { lines, over_calls } => Some((lines, over_calls)),
            _ => None,
        };
        let pc = self.position().0;
        let mut line_here = self.source_at(pc);
        let mut line_depth = self.depth();
        let mut inside_call: Option<usize> = None;
        // The call `next` stepped over last, and how many instructions it ran.
        let mut stepped_over: Option<(usize, u64)> = None;
        let mut call_start = 0u64;
        let mut issued = 0u64;
        loop {
            if inside_call.is_none() && remaining == 0 {
                break;
            }
            if issued > 0 {
                if let Some(hit) = self.breakpoint_hit() {
                    reason = hit;
                    break;
                }
            }
            let depth = self.depth();
            let pc = self.position().0;
            match self.advance(&mut notes, &mut trouble) {
                Ok(Some(record)) => {
                    issued += 1;
                    let watched = self.watch_hits(&record);
                    last = Some(record);
                    if let Some(hit) = watched {
                        reason = hit;
                        break;
                    }
                }
                Ok(None) => {}
                Err(Halt::Finished) => break,
                Err(Halt::Error(message)) => {
                    reason = format!("error: {message}\n");
                    break;
                }
            }
            if trouble || matches!(self.position().1, ThreadStatus::Done(_)) {
                break;
            }
            if let Some((lines, over)) = by_line.as_mut() {
                let depth = self.depth();
                if *over && depth > line_depth {
                    continue;
                }
                line_depth = depth;
                let pc = self.position().0;
                let here = self.source_at(pc);
                if here.is_some() && here != line_here {
                    line_here = here;
                    *lines -= 1;
                    if *lines == 0 {
                        break;
                    }
                }
                continue;
            }
            match inside_call {
                Some(outer) => {
                    if self.depth() <= outer {
                        inside_call = None;
                        if let Some((_, count)) = stepped_over.as_mut() {
                            *count = issued - call_start;
                        }
                        remaining = remaining.saturating_sub(1);
                    }
                }
                None => {
                    if over_calls && self.depth() > depth {
                        inside_call = Some(depth);
                        stepped_over = Some((pc, 0));
                        call_start = issued - 1;
                    } else {
                        stepped_over = None;
                        remaining = remaining.saturating_sub(1);
                    }
                }
            }
        }
        let mut text = String::new();
        match (stepped_over, &last) {
            (Some((call, count)), _) if inside_call.is_none() && reason.is_empty() => {
                if let Some(instruction) = self.program.instructions.get(call) {
                    let _ = writeln!(
                        text,
                        "   {}  {}   (stepped over: {} to the return)",
                        instruction.location.line,
                        instruction.text,
                        steps_text(count).replace("step", "instruction")
                    );
                }
            }
            (_, Some(record)) => text.push_str(&self.describe_step(record)),
            (_, None) => {}
        }
        text.push_str(&notes);
        text.push_str(&reason);
        text.push_str(&self.next_line());
        if matches!(self.position().1, ThreadStatus::Done(_)) {
            text.push_str("(`continue` runs the rest of the launch)\n");
        }
        text
    }

    /// Runs every thread of every CTA to its end (after the selected thread finished).
    fn finish_launch(&mut self) -> String {
        if let Some(summary) = &self.finished {
            return format!(
                "error: the launch has finished ({summary}); `restart` runs it again\n"
            );
        }
        let device = &self.device;
        let grid_shape = device.grid();
        let block = device.block();
        let mut failure: Option<String> = None;
        let mut record = StepRecord::default();
        'ctas: for linear in 0..device.ctas() {
            let ctaid = unflatten(linear, grid_shape);
            let state = self
                .ctas
                .entry(linear)
                .or_insert_with(|| CtaState::new(device, ctaid));
            // A thread that already trapped or ran out of fuel (the selected one, or one run to
            // a barrier) stops the launch, as a trap does on the device.
            if let Some((index, outcome, steps)) =
                state
                    .cta
                    .threads()
                    .enumerate()
                    .find_map(|(index, t)| match t.status() {
                        ThreadStatus::Done(outcome) if *outcome != Outcome::Exited => {
                            Some((index, outcome.clone(), t.steps()))
                        }
                        _ => None,
                    })
            {
                failure = Some(format!(
                    "thread {} of block {} {}",
                    dims(unflatten(index as u64, block)),
                    dims(ctaid),
                    ending(&outcome, steps)
                ));
                break 'ctas;
            }
            loop {
                for index in 0..state.cta.thread_count() {
                    while state.cta.thread(index).map(|t| t.status()) == Some(&ThreadStatus::Ready)
                    {
                        let who = format!(
                            "thread {} of block {}",
                            dims(unflatten(index as u64, block)),
                            dims(ctaid)
                        );
                        match step_one(device, state, index, &mut record) {
                            Err(error) => {
                                failure = Some(format!("{who}: {error}"));
                                break 'ctas;
                            }
                            Ok(Event::Done(outcome)) if outcome != Outcome::Exited => {
                                let steps = state.cta.thread(index).map_or(0, |t| t.steps());
                                failure = Some(format!("{who} {}", ending(&outcome, steps)));
                                break 'ctas;
                            }
                            Ok(_) => {}
                        }
                    }
                }
                if !state.cta.release_barrier(device) {
                    break;
                }
            }
        }
        let steps: u64 = self
            .ctas
            .values()
            .flat_map(|s| s.cta.threads())
            .map(|t| t.steps())
            .sum();
        let [gx, gy, gz] = grid_shape;
        let [bx, by, bz] = block;
        let summary = match &failure {
            None => format!(
                "grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}: every thread exited, {steps} instructions"
            ),
            Some(failure) => format!(
                "grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}: stopped after {steps} instructions: {failure}"
            ),
        };
        let text = format!("launch finished: {summary}\n");
        self.finished = Some(summary);
        text
    }

    /// The bytes at generic address `address` (`None` where nothing is mapped).
    pub(crate) fn read_byte(&mut self, address: u64) -> Option<u8> {
        let (space, at) = from_generic(address);
        let index = self.thread_index();
        match space {
            Space::Global | Space::Generic => self.device.global.load(at, 1).ok().map(|v| v as u8),
            Space::Const => self
                .program
                .constants
                .get(usize::try_from(at).ok()?)
                .copied(),
            Space::Param => {
                if at >= THREAD_PARAM_BASE {
                    None
                } else {
                    self.device.params().get(usize::try_from(at).ok()?).copied()
                }
            }
            // `from_generic` gives `.shared`; the debugger runs clusters of one CTA.
            Space::Shared | Space::SharedCluster => self
                .state()
                .cta
                .shared()
                .get(usize::try_from(at).ok()?)
                .copied(),
            Space::Local => self
                .state()
                .cta
                .thread(index)?
                .local()
                .get(usize::try_from(at).ok()?)
                .copied(),
        }
    }

    /// The kernel's arguments and the addresses of its buffers.
    pub(crate) fn arguments_text(&self) -> String {
        let mut text = String::new();
        for (index, (param, argument)) in
            self.program.params.iter().zip(&self.arguments).enumerate()
        {
            match (argument, self.addresses.get(index).copied().flatten()) {
                (Argument::Buffer(_) | Argument::Words(_), Some(address)) => {
                    let _ = writeln!(
                        text,
                        "  argument {index} {}: buffer of {} bytes at {address:#018x}",
                        param.name,
                        argument.buffer_len().unwrap_or(0)
                    );
                }
                (Argument::Scalar { ty, bits }, _) => {
                    let _ = writeln!(
                        text,
                        "  argument {index} {}: {}",
                        param.name,
                        value_text(u128::from(*bits), *ty)
                    );
                }
                (Argument::Bytes(bytes), _) => {
                    let _ = writeln!(
                        text,
                        "  argument {index} {}: {} bytes by value",
                        param.name,
                        bytes.len()
                    );
                }
                (Argument::Buffer(_) | Argument::Words(_), None) => {}
            }
        }
        if text.is_empty() {
            text.push_str("  (the kernel takes no arguments)\n");
        }
        text
    }

    /// The value of a special register for the selected thread (`%tid.x`, ...), if `name` is
    /// one the debugger can show.
    pub(crate) fn special(&self, name: &str) -> Option<(u128, Type)> {
        let (base, axis) = match name.split_once('.') {
            Some((base, axis)) => (base, Some(axis)),
            None => (name, None),
        };
        let pick = |d: Dim3| -> Option<u32> {
            match axis? {
                "x" => Some(d[0]),
                "y" => Some(d[1]),
                "z" => Some(d[2]),
                _ => None,
            }
        };
        let linear = flatten(self.thread, self.device.block());
        let value: u64 = match base {
            "%tid" => u64::from(pick(self.thread)?),
            "%ntid" => u64::from(pick(self.device.block())?),
            "%ctaid" => u64::from(pick(self.cta)?),
            "%nctaid" => u64::from(pick(self.device.grid())?),
            "%laneid" if axis.is_none() => linear % 32,
            "%warpid" if axis.is_none() => linear / 32,
            _ => return None,
        };
        Some((u128::from(value), Type::U32))
    }
}

/// One lane of the selected thread's warp, for `print REG warp`.
pub(crate) struct WarpLane {
    /// The lane (0..32).
    pub(crate) lane: usize,
    /// The thread's index in its block.
    pub(crate) thread: Dim3,
    /// The register's value in the lane.
    pub(crate) value: u128,
    /// Whether the lane can run, waits, or has finished.
    pub(crate) status: ThreadStatus,
    /// The lane's next instruction.
    pub(crate) pc: usize,
}
