//! What a step of a thread comes to: its [`Outcome`] and, for traces and the debugger, its
//! [`StepRecord`] (the registers and memory it wrote).

use ptxsim_isa::ops::Space;

use crate::ir::{Location, RegisterId};

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
    /// The thread called `__assertfail` (a failed `assert`, CUDA's `cudaErrorAssert`):
    /// `message` is what a GPU prints, `FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z]
    /// Assertion `EXPRESSION` failed.`; `location` is the call.
    AssertionFailed {
        /// The GPU's message.
        message: String,
        /// The `call` of `__assertfail`.
        location: Location,
    },
}

impl Outcome {
    /// The status word of the JSON output: `running`, `exited`, `trapped` or `out_of_fuel`.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Running => "running",
            Outcome::Exited => "exited",
            Outcome::Trapped { .. } | Outcome::AssertionFailed { .. } => "trapped",
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

/// The most step records a traced CTA holds to group them by thread (see [`Cta::run`]); about
/// 100 bytes each, plus the values they write. A trace of threads that run longer than this
/// between two barriers has its groups cut here (issue 23: the memory of a traced launch must
/// not grow with the trace).
pub const MAX_GROUPED_RECORDS: usize = 1 << 18;

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
