//! The machine: one thread's register file, its program counter, the step counter and fuel.
//!
//! [`Machine::step`] runs one instruction and returns an [`Outcome`]; faults of the simulated
//! program are outcomes, limits of the simulator are [`ExecError`]s (style rule 4).

use ptxsim_isa::Type;

use crate::cvt;
use crate::error::ExecError;
use crate::ir::{
    Destination, Instruction, InstructionKind, Location, Program, RegisterId, Source,
    SpecialRegister,
};
use crate::lower::bit_type;
use crate::semantics::{chop, extend, guard_passes, pack, unpack};

/// The default step limit of the CLI.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// What one step (or a whole run) came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The instruction ran; the thread goes on.
    Running,
    /// The thread finished: `ret` or `exit` in the kernel, or the end of its body.
    Exited,
    /// The program aborted (`trap`). `message` says why; `location` is the instruction.
    Trapped {
        /// Why.
        message: String,
        /// Where.
        location: Location,
    },
    /// The step limit given at construction was reached before the thread finished.
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

/// What one executed step did, for traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRecord {
    /// The step number, from 0.
    pub step: u64,
    /// The thread (always 0: one thread per launch for now).
    pub thread: u32,
    /// The instruction's index in [`Program::instructions`].
    pub pc: usize,
    /// Whether the guard let the instruction run (`true` when it has none).
    pub executed: bool,
    /// The registers written, in order.
    pub writes: Vec<Write>,
}

/// One thread running a [`Program`]. Registers start at zero (PTX leaves them undefined;
/// ptxsim picks zero so that runs are deterministic).
#[derive(Debug)]
pub struct Machine<'p> {
    program: &'p Program,
    registers: Vec<u128>,
    pc: usize,
    steps: u64,
    max_steps: u64,
    finished: Option<Outcome>,
    last: Option<StepRecord>,
}

impl<'p> Machine<'p> {
    /// A thread at the program's first instruction, with every register zero and a limit of
    /// `max_steps` instructions (fuel).
    pub fn new(program: &'p Program, max_steps: u64) -> Self {
        Self {
            program,
            registers: vec![0; program.registers.len()],
            pc: 0,
            steps: 0,
            max_steps,
            finished: None,
            last: None,
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Every register's value, in declaration order.
    pub fn registers(&self) -> &[u128] {
        &self.registers
    }

    /// Sets a register (masked to its width); used to preload operands.
    pub fn set_register(&mut self, register: RegisterId, value: u128) {
        let bits = self
            .program
            .registers
            .get(register.index())
            .map_or(0, |r| r.bits());
        if let Some(slot) = self.registers.get_mut(register.index()) {
            *slot = chop(value, bits);
        }
    }

    /// The number of instructions issued so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The index of the next instruction.
    pub fn pc(&self) -> usize {
        self.pc
    }

    /// What the last step did (`None` before the first or after a step that ended the run
    /// without issuing an instruction).
    pub fn last_record(&self) -> Option<&StepRecord> {
        self.last.as_ref()
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
        self.last = None;
        if let Some(done) = &self.finished {
            return Ok(done.clone());
        }
        let program = self.program;
        let Some(instruction) = program.instructions.get(self.pc) else {
            return Ok(self.finish(Outcome::Exited));
        };
        if self.steps >= self.max_steps {
            return Ok(self.finish(Outcome::OutOfFuel));
        }
        let mut record = StepRecord {
            step: self.steps,
            thread: 0,
            pc: self.pc,
            executed: true,
            writes: Vec::new(),
        };
        if let Some(guard) = instruction.guard {
            record.executed = guard_passes(self.read_register(guard.predicate)?, guard.negated);
        }
        let mut next = self.pc + 1;
        let mut outcome = Outcome::Running;
        if record.executed {
            match self.execute(instruction, &mut record.writes)? {
                Flow::Next => {}
                Flow::Jump(target) => next = target,
                Flow::Stop(done) => outcome = done,
            }
        }
        self.steps += 1;
        self.pc = next;
        self.last = Some(record);
        if outcome != Outcome::Running {
            self.finished = Some(outcome.clone());
        }
        Ok(outcome)
    }

    fn finish(&mut self, outcome: Outcome) -> Outcome {
        self.finished = Some(outcome.clone());
        outcome
    }

    /// The one exhaustive match over instruction kinds (style rule 3).
    fn execute(
        &mut self,
        instruction: &Instruction,
        writes: &mut Vec<Write>,
    ) -> Result<Flow, ExecError> {
        match &instruction.kind {
            InstructionKind::Mov {
                ty,
                destination,
                source,
            } => {
                let value = chop(self.read(*source)?, ty.bits());
                self.write(*destination, value, *ty, writes)?;
            }
            InstructionKind::MovPack {
                ty,
                destination,
                elements,
            } => {
                let element_bits = ty.bits() / (elements.len().max(1) as u32);
                let mut values = Vec::with_capacity(elements.len());
                for element in elements {
                    values.push(self.read(*element)?);
                }
                self.write(*destination, pack(&values, element_bits), *ty, writes)?;
            }
            InstructionKind::MovUnpack {
                ty,
                elements,
                source,
            } => {
                let element_bits = ty.bits() / (elements.len().max(1) as u32);
                let value = chop(self.read(*source)?, ty.bits());
                let parts = unpack(value, element_bits, elements.len());
                for (element, part) in elements.iter().zip(parts) {
                    if let Some(destination) = element {
                        self.write(*destination, part, bit_type(element_bits), writes)?;
                    }
                }
            }
            InstructionKind::Cvt {
                op,
                destination,
                sources,
            } => {
                let widths = cvt::source_widths(op, sources.len());
                let mut values = Vec::with_capacity(sources.len());
                for (source, width) in sources.iter().zip(widths) {
                    values.push(chop(self.read(*source)?, width) as u64);
                }
                let result = cvt::apply(op, &values);
                self.write(*destination, u128::from(result), op.destination, writes)?;
            }
            InstructionKind::CvtPack {
                ty,
                destination,
                a,
                b,
                c,
            } => {
                let a = chop(self.read(*a)?, 32) as u64;
                let b = chop(self.read(*b)?, 32) as u64;
                let c = match c {
                    Some(c) => chop(self.read(*c)?, 32) as u64,
                    None => 0,
                };
                let result = cvt::apply_pack(*ty, a, b, c);
                self.write(*destination, u128::from(result), Type::U32, writes)?;
            }
            InstructionKind::Bra { target } => {
                if *target > self.program.instructions.len() {
                    return Err(ExecError::Internal(format!(
                        "branch target {target} outside the program"
                    )));
                }
                return Ok(Flow::Jump(*target));
            }
            InstructionKind::Ret | InstructionKind::Exit => return Ok(Flow::Stop(Outcome::Exited)),
            InstructionKind::Trap => {
                return Ok(Flow::Stop(Outcome::Trapped {
                    message: "trap instruction executed".to_string(),
                    location: instruction.location,
                }));
            }
            InstructionKind::Unsupported { mnemonic, reason } => {
                return Err(ExecError::Unsupported {
                    mnemonic: mnemonic.clone(),
                    reason: reason.clone(),
                    line: instruction.location.line,
                    column: instruction.location.column,
                });
            }
        }
        Ok(Flow::Next)
    }

    fn read_register(&self, register: RegisterId) -> Result<u128, ExecError> {
        self.registers
            .get(register.index())
            .copied()
            .ok_or_else(|| ExecError::Internal(format!("register {} does not exist", register.0)))
    }

    fn read(&self, source: Source) -> Result<u128, ExecError> {
        match source {
            Source::Register(register) => self.read_register(register),
            Source::Immediate(bits) => Ok(bits),
            Source::Special(special) => Ok(self.special(special)),
        }
    }

    /// The values of the special registers for a launch of one thread in one CTA (see
    /// `docs/executor.md`); `%clock`/`%clock64` count issued instructions.
    fn special(&self, special: SpecialRegister) -> u128 {
        let value: u64 = match special {
            SpecialRegister::Tid(_) | SpecialRegister::Ctaid(_) => 0,
            SpecialRegister::Ntid(_) | SpecialRegister::Nctaid(_) => 1,
            SpecialRegister::Laneid
            | SpecialRegister::Warpid
            | SpecialRegister::Smid
            | SpecialRegister::Gridid => 0,
            SpecialRegister::Nwarpid | SpecialRegister::Nsmid => 1,
            SpecialRegister::Clock => self.steps & 0xffff_ffff,
            SpecialRegister::ClockHi => self.steps >> 32,
            SpecialRegister::Clock64 => self.steps,
        };
        u128::from(value)
    }

    /// Writes `value` of instruction type `ty` to a register, extended per Table 28.
    fn write(
        &mut self,
        destination: Destination,
        value: u128,
        ty: Type,
        writes: &mut Vec<Write>,
    ) -> Result<(), ExecError> {
        let index = destination.register.index();
        let register_ty = self
            .program
            .registers
            .get(index)
            .map(|r| r.ty)
            .ok_or_else(|| ExecError::Internal(format!("register {index} does not exist")))?;
        let new = extend(value, ty, register_ty);
        let slot = self
            .registers
            .get_mut(index)
            .ok_or_else(|| ExecError::Internal(format!("register {index} does not exist")))?;
        writes.push(Write {
            register: destination.register,
            old: *slot,
            new,
        });
        *slot = new;
        Ok(())
    }
}

enum Flow {
    Next,
    Jump(usize),
    Stop(Outcome),
}
