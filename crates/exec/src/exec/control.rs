//! The control family: `bar.sync`, `call`, `bra`, `ret`, `exit`, `trap`, and instructions the
//! executor does not implement.

use ptxsim_isa::Type;
use ptxsim_isa::ops::BarrierOp;

use super::{CallSite, Control, Executor};
use crate::error::ExecError;
use crate::ir::{Destination, Instruction, InstructionKind, PredicateSource, Source};
use crate::lanes::{CLUSTER_BARRIER, Frame, SavedState, ThreadStatus};
use crate::step::Outcome;

/// The deepest call stack a thread may have: CUDA's default stack is 1 KiB a thread
/// (`cudaLimitStackSize`), which no real recursion this deep fits in; a deeper one is a runaway
/// recursion, and traps as a GPU's stack overflow faults.
pub(crate) const MAX_CALL_DEPTH: usize = 4096;

impl Executor<'_, '_> {
    /// `bar`/`barrier` (PTX ISA 9.7.13.1): each lane arrives at barrier `a` ("an immediate
    /// constant or register with value 0 through 15") of a phase of `b` threads ("a multiple
    /// of the warp size"); other values trap. `.arrive` goes on; `.sync` and `.red` wait at the
    /// instruction until the machine completes the phase (`Cta::release_barrier`).
    #[inline(always)]
    pub(super) fn barrier(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        op: BarrierOp,
        id: Source,
        count: Option<Source>,
        predicate: Option<PredicateSource>,
    ) -> Result<Control, (usize, Box<ExecError>)> {
        self.stopped = true;
        for &lane in lanes {
            let barrier = self.read_bits(lane, id, 32);
            let threads = count.map(|count| self.read_bits(lane, count, 32) as u32);
            if barrier > 15 {
                let message = format!("barrier number {barrier} is out of range (0 through 15)");
                self.trap(lane, instruction, message);
                continue;
            }
            if let Some(threads) = threads.filter(|&t| t == 0 || t % 32 != 0) {
                let message = format!(
                    "the thread count of a barrier must be a non-zero multiple of the warp size, \
                     not {threads}"
                );
                self.trap(lane, instruction, message);
                continue;
            }
            let c = predicate.map(|p| (self.read_bits(lane, p.source, 1) != 0) != p.negated);
            self.barriers.arrive(lane, barrier as usize, threads, c);
            if op == BarrierOp::Arrive {
                self.lanes.pc[lane] += 1;
            } else {
                self.barriers.waiting_at[lane] = barrier as u8;
                self.lanes.status[lane] = ThreadStatus::AtBarrier;
            }
        }
        Ok(Control::Done)
    }

    /// `barrier.cluster.arrive` / `barrier.cluster.wait` (PTX ISA 9.0, barrier.cluster):
    /// "barrier.cluster.arrive instruction marks warps' arrival at barrier"; "barrier.cluster.wait
    /// instruction causes the executing thread to wait for all non-exited threads of the
    /// cluster to perform barrier.cluster.arrive". A lane waits until the phase it arrived in
    /// completes (a lane that did not arrive goes on); a second arrive in one phase traps ("each
    /// thread ... must perform barrier.cluster.arrive and barrier.cluster.wait in that order",
    /// otherwise the behaviour is undefined).
    pub(super) fn barrier_cluster(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        arrive: bool,
    ) -> Result<Control, (usize, Box<ExecError>)> {
        self.stopped = true;
        for &lane in lanes {
            if arrive {
                if self.cluster.arrived(lane) {
                    let message = format!(
                        "`{}`: the thread arrives at the cluster barrier twice without \
                         barrier.cluster.wait in between",
                        instruction.text
                    );
                    self.trap(lane, instruction, message);
                    continue;
                }
                self.cluster.arrivals[lane] += 1;
                self.lanes.pc[lane] += 1;
            } else if self.cluster.arrived(lane) {
                self.barriers.waiting_at[lane] = CLUSTER_BARRIER;
                self.lanes.status[lane] = ThreadStatus::AtBarrier;
            } else {
                self.lanes.pc[lane] += 1;
            }
        }
        Ok(Control::Done)
    }

    /// `call`: the arguments copied into the callee's parameters, a frame pushed. A call of a
    /// function that the thread is already running (recursion, which PTX allows: "recursion is
    /// supported" for `.func`, PTX ISA 9.0, 7.1 "Function declarations and definitions", and
    /// nvcc emits it for recursive device functions) first saves the thread's registers and
    /// `.param` space and the callee's `.local` variables ([`Program::function_locals`]) in the
    /// frame, and `ret` puts them back, so each invocation has its own (a pointer to an outer
    /// invocation's `.local` variable, handed to an inner one, reaches the inner one's). A call
    /// stack deeper than [`MAX_CALL_DEPTH`] traps.
    ///
    /// [`Program::function_locals`]: crate::ir::Program::function_locals
    #[inline(always)]
    pub(super) fn call(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        call: &CallSite<'_>,
    ) -> Result<Control, (usize, Box<ExecError>)> {
        let CallSite {
            target,
            callee,
            arguments,
            returns,
            register_arguments,
            register_returns,
        } = *call;
        let mut values = Vec::with_capacity(register_arguments.len());
        for &lane in lanes {
            let frames = &self.threads[lane].frames;
            if frames.len() >= MAX_CALL_DEPTH {
                let message = format!(
                    "call of `{callee}` deeper than {MAX_CALL_DEPTH} calls (a runaway recursion?)"
                );
                self.trap(lane, instruction, message);
                continue;
            }
            let saved = frames.iter().any(|f| f.callee == target).then(|| {
                let local = &self.threads[lane].local;
                let range = self
                    .device
                    .program
                    .function_locals
                    .iter()
                    .find(|(start, _, _)| *start == target)
                    .and_then(|&(_, from, to)| {
                        Some(usize::try_from(from).ok()?..usize::try_from(to).ok()?)
                    })
                    .filter(|range| range.end <= local.len())
                    .unwrap_or(0..0);
                Box::new(SavedState {
                    registers: self.lanes.save(lane),
                    params: self.threads[lane].params.clone(),
                    local: (range.start, local[range].to_vec()),
                })
            });
            // `.reg` parameters: every argument is read before any parameter is written (an
            // argument may be a register of the callee when it calls itself, or the same
            // register twice).
            values.clear();
            values.extend(
                register_arguments
                    .iter()
                    .map(|(source, _)| self.read(lane, *source)),
            );
            for ((_, destination), value) in register_arguments.iter().zip(&values) {
                self.write(lane, *destination, *value, destination.ty);
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
            let stack = self.threads[lane].stack;
            self.threads[lane].frames.push(Frame {
                return_pc: self.lanes.pc[lane] + 1,
                stack,
                callee: target,
                returns: returns.to_vec(),
                register_returns: register_returns.to_vec(),
                saved,
            });
            self.lanes.pc[lane] = target;
        }
        Ok(Control::Done)
    }

    /// An indirect call: each lane calls the target at the address it holds (lanes of one
    /// address together, in the order of the targets); a lane whose address is no function of
    /// the module traps.
    pub(super) fn call_indirect(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        address: Source,
        targets: &[(u64, InstructionKind)],
    ) -> Result<Control, (usize, Box<ExecError>)> {
        let addresses: Vec<u64> = lanes
            .iter()
            .map(|&lane| self.read(lane, address) as u64)
            .collect();
        for (target_address, kind) in targets {
            let group: Vec<usize> = lanes
                .iter()
                .zip(&addresses)
                .filter(|&(_, a)| a == target_address)
                .map(|(&lane, _)| lane)
                .collect();
            if group.is_empty() {
                continue;
            }
            if let InstructionKind::Call {
                target,
                callee,
                arguments,
                returns,
                register_arguments,
                register_returns,
            } = kind
            {
                let call = CallSite {
                    target: *target,
                    callee,
                    arguments,
                    returns,
                    register_arguments,
                    register_returns,
                };
                self.call(instruction, &group, &call)?;
            }
        }
        for (&lane, &at) in lanes.iter().zip(&addresses) {
            if !targets.iter().any(|(target, _)| *target == at) {
                let message = format!(
                    "indirect call to {at:#x}, which is not the address of a function of the \
                     module that takes these arguments"
                );
                self.trap(lane, instruction, message);
            }
        }
        Ok(Control::Done)
    }

    /// `bra`: every lane goes to `target`.
    #[inline(always)]
    pub(super) fn bra(
        &mut self,
        lanes: &[usize],
        target: usize,
    ) -> Result<Control, (usize, Box<ExecError>)> {
        if target > self.device.program.instructions.len() {
            let lane = lanes.first().copied().unwrap_or(0);
            return Err((
                lane,
                Box::new(ExecError::Internal(format!(
                    "branch target {target} outside the program"
                ))),
            ));
        }
        for &lane in lanes {
            self.lanes.pc[lane] = target;
        }
        Ok(Control::Done)
    }

    /// `ret`: back to the caller, the return values copied back; without a call frame (no thread
    /// has one when no call happened), out of the kernel.
    #[inline(always)]
    pub(super) fn ret(&mut self, lanes: &[usize]) -> Result<Control, (usize, Box<ExecError>)> {
        if !self.lanes.calls {
            // No thread has a call frame: `ret` leaves the kernel.
            self.stopped = true;
            for &lane in lanes {
                self.lanes.status[lane] = ThreadStatus::Done(Outcome::Exited);
            }
            return Ok(Control::Done);
        }
        for &lane in lanes {
            let Some(frame) = self.threads[lane].frames.pop() else {
                self.stop(lane, Outcome::Exited);
                continue;
            };
            // The callee's `alloca`s end with it.
            self.threads[lane].stack = frame.stack;
            let Some(saved) = frame.saved else {
                for (from, to, bytes) in &frame.returns {
                    if !self.copy_param(lane, *from, *to, *bytes) {
                        return Err((lane, return_outside()));
                    }
                }
                for (from, to) in &frame.register_returns {
                    let value = self.read(lane, Source::Register(*from));
                    self.write(lane, *to, value, to.ty);
                }
                self.lanes.pc[lane] = frame.return_pc;
                continue;
            };
            // A recursive call's return: the return values are read from the invocation that
            // ends, the caller's registers and parameters put back, then the values written.
            let mut bytes_back = Vec::with_capacity(frame.returns.len());
            for &(from, to, bytes) in &frame.returns {
                let params = &self.threads[lane].params;
                let range = from
                    .checked_sub(crate::ir::THREAD_PARAM_BASE)
                    .and_then(|start| {
                        Some(usize::try_from(start).ok()?..usize::try_from(start + bytes).ok()?)
                    })
                    .filter(|range| range.end <= params.len());
                let Some(range) = range else {
                    return Err((lane, return_outside()));
                };
                bytes_back.push((to, params[range].to_vec()));
            }
            let registers_back: Vec<(Destination, u128)> = frame
                .register_returns
                .iter()
                .map(|(from, to)| (*to, self.read(lane, Source::Register(*from))))
                .collect();
            self.lanes.restore(lane, &saved.registers);
            self.threads[lane].params = saved.params;
            let (start, bytes) = saved.local;
            if let Some(slot) = self.threads[lane].local.get_mut(start..start + bytes.len()) {
                slot.copy_from_slice(&bytes);
            }
            for (to, bytes) in bytes_back {
                let params = &mut self.threads[lane].params;
                let range = to
                    .checked_sub(crate::ir::THREAD_PARAM_BASE)
                    .and_then(|start| usize::try_from(start).ok())
                    .map(|start| start..start + bytes.len())
                    .filter(|range| range.end <= params.len());
                let Some(range) = range else {
                    return Err((lane, return_outside()));
                };
                params[range].copy_from_slice(&bytes);
            }
            for (to, value) in registers_back {
                self.write(lane, to, value, to.ty);
            }
            self.lanes.pc[lane] = frame.return_pc;
        }
        Ok(Control::Done)
    }

    /// `brx.idx index, tlist` (PTX ISA 9.7.12.4): each lane goes to `tlist[index]`; an index
    /// past the list ("Behaviour is undefined") traps the lane.
    pub(super) fn branch_indexed(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        index: Source,
        targets: &[usize],
    ) -> Control {
        for &lane in lanes {
            let at = self.read_bits(lane, index, 32);
            match usize::try_from(at).ok().and_then(|at| targets.get(at)) {
                Some(&target) => self.lanes.pc[lane] = target,
                None => self.trap(
                    lane,
                    instruction,
                    format!(
                        "`brx.idx` index {at} outside its list of {} labels",
                        targets.len()
                    ),
                ),
            }
        }
        Control::Done
    }

    /// `alloca.type ptr, size{, immAlign}` (PTX ISA 9.7.17.3): "Allocate size bytes of stack
    /// memory with alignment a and update the stack pointer. Since the stack grows down, the
    /// updated stack pointer contains a lower address"; `ptr` is the new stack pointer. An
    /// allocation the stack cannot hold ("execution of alloca may result in stack overflow")
    /// traps, as does a stack pointer that `stackrestore` set outside the stack.
    pub(super) fn alloca(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (ty, destination, size, align): (Type, Destination, Source, u64),
    ) {
        let bottom = self.device.program.local_bytes - self.device.program.stack_bytes;
        for &lane in lanes {
            let size = self.read_bits(lane, size, ty.bits());
            let sp = self.threads[lane].stack;
            let new = sp
                .checked_sub(size)
                .map(|below| below & !(align - 1))
                .filter(|&new| new >= bottom && sp <= self.device.program.local_bytes);
            match new {
                Some(new) => {
                    self.threads[lane].stack = new;
                    self.write(lane, destination, u128::from(new), ty);
                }
                None => self.trap(
                    lane,
                    instruction,
                    format!(
                        "stack overflow: `alloca` of {size} bytes with {} bytes of the thread's \
                         {}-byte stack left",
                        sp.saturating_sub(bottom),
                        self.device.program.stack_bytes
                    ),
                ),
            }
        }
    }

    /// `stacksave.type d` (9.7.17.1: "d = stackptr") and `stackrestore.type a` (9.7.17.2:
    /// "stackptr = a").
    pub(super) fn stack_pointer(
        &mut self,
        lanes: &[usize],
        ty: Type,
        save: Option<Destination>,
        restore: Option<Source>,
    ) {
        for &lane in lanes {
            if let Some(destination) = save {
                let sp = self.threads[lane].stack;
                self.write(lane, destination, u128::from(sp), ty);
            }
            if let Some(source) = restore {
                self.threads[lane].stack = self.read_bits(lane, source, ty.bits());
            }
        }
    }

    /// `exit`: every lane exits.
    #[inline(always)]
    pub(super) fn exit(&mut self, lanes: &[usize]) -> Result<Control, (usize, Box<ExecError>)> {
        for &lane in lanes {
            self.stop(lane, Outcome::Exited);
        }
        Ok(Control::Done)
    }

    /// `trap`: every lane traps.
    #[inline(always)]
    pub(super) fn trap_instruction(&mut self, instruction: &Instruction, lanes: &[usize]) {
        for &lane in lanes {
            self.trap(lane, instruction, "trap instruction executed".to_string());
        }
    }

    /// An instruction the executor does not implement: a simulator error, nothing runs.
    #[inline(always)]
    pub(super) fn unsupported(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        mnemonic: &str,
        reason: &str,
    ) -> Result<Control, (usize, Box<ExecError>)> {
        let lane = lanes.first().copied().unwrap_or(0);
        Err((
            lane,
            Box::new(ExecError::Unsupported {
                mnemonic: mnemonic.to_string(),
                reason: reason.to_string(),
                line: instruction.location.line,
                column: instruction.location.column,
            }),
        ))
    }
}

/// A return value outside the thread's `.param` space (a simulator bug: lowering places them).
fn return_outside() -> Box<ExecError> {
    Box::new(ExecError::Internal(
        "return value outside the parameter space".to_string(),
    ))
}
