//! The ptxsim executor: runs the typed [`Program`] that `ptxsim-check` builds from a checked
//! module on a [`Machine`], bit for bit.
//!
//! Data flows one way: text → `ptxsim_check::compile` (parse, check, and the [`Checked`]
//! module) → [`Checked::program`] (names resolved by the checker, every instruction decoded
//! once through `ptxsim-isa`'s table) → [`Program`] → [`Machine::step`] → state ([`report`])
//! and trace ([`trace`], in `ptxsim-trace`'s format). The executor resolves no name and
//! validates no instruction: [`load`] does both steps for a caller with PTX text.
//!
//! ```
//! let source = "
//! .version 9.1
//! .target sm_100a
//! .address_size 64
//! .visible .entry k() {
//!     .reg .b32 %r;
//!     .reg .b16 %h;
//!     mov.b32 %r, 0f3fc00000;
//!     cvt.rn.satfinite.e4m3x2.f32 %h, %r, %r;
//!     ret;
//! }";
//! let program = ptxsim_exec::load(source, None).unwrap();
//! let mut machine = ptxsim_exec::Machine::new(&program, 100);
//! assert_eq!(machine.run().unwrap(), ptxsim_exec::Outcome::Exited);
//! // 1.5 is 0x3c in e4m3 (exponent 7 - bias 7 = 0, mantissa .100), once per byte.
//! assert_eq!(machine.registers()[1], 0x3c3c);
//! ```
//!
//! Semantics live in small pure functions ([`semantics`], [`cvt`]); the machine fetches
//! operands, calls them and writes back. Faults of the simulated program are [`Outcome`]s;
//! limits of the simulator are [`ExecError`]s.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod alu;
pub mod api;
pub mod budget;
pub mod compiled;
pub mod cvt;
pub mod device;
pub mod dim;
pub mod error;
mod exec;
pub mod grid;
pub mod ir;
pub mod lanes;
pub mod launches;
pub mod machine;
pub mod memory;
mod nested;
pub mod occupancy;
pub mod report;
pub mod runtime;
pub mod semantics;
pub mod step;
pub mod streamed;
pub mod tensor_map;
pub mod tensor_memory;
pub mod texture;
pub mod trace;

pub use budget::{DEFAULT_MEMORY_LIMIT, Footprint};
pub use device::{DEFAULT_MAX_STEPS, Device};
pub use dim::Dim3;
pub use error::ExecError;
pub use grid::{
    Argument, ArgumentSpec, GridOptions, GridRun, LaunchError, prepare, prepare_within, run_grid,
};
pub use ir::Program;
pub use lanes::ThreadStatus;
pub use machine::{Cta, Event, Machine, ThreadRef};
pub use memory::Words;
pub use ptxsim_check::{BuildError, Checked};
pub use report::Stopped;
pub use step::{MemoryWrite, Outcome, StepRecord, Write};

use ptxsim_syntax::Diagnostic;

/// Why [`load`] produced no program.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Syntax or name errors (the diagnostics, errors and warnings).
    #[error("the module has errors")]
    Diagnostics(Vec<Diagnostic>),
    /// The module checked, but has no program for the kernel asked for.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Parses and checks `source` and builds the program of the kernel `entry` (or of the only
/// one).
pub fn load(source: &str, entry: Option<&str>) -> Result<Program, LoadError> {
    let (checked, diagnostics) = ptxsim_check::compile(source, &ptxsim_check::Options::default());
    let Some(checked) = checked else {
        return Err(LoadError::Diagnostics(diagnostics));
    };
    Ok(checked.program(entry)?)
}

/// The end of a run: the final registers, the step count, and the outcome (or what stopped it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// Every register, in declaration order.
    pub registers: Vec<u128>,
    /// Instructions issued.
    pub steps: u64,
    /// How the run ended.
    pub outcome: Result<Outcome, Stopped>,
}

/// Runs `machine` to its end, handing each trace line (header, steps, end) to `trace` if given.
pub fn run(machine: &mut Machine<'_>, mut trace: Option<&mut dyn FnMut(&str)>) -> RunResult {
    let program = machine.program();
    if let Some(sink) = trace.as_mut() {
        sink(&crate::trace::header_line(program, [1, 1, 1], [1, 1, 1]));
    }
    let outcome = loop {
        let step = machine.step();
        if let (Some(sink), Some(record)) = (trace.as_mut(), machine.last_record()) {
            sink(&crate::trace::step_line(program, record));
        }
        match step {
            Ok(Outcome::Running) => {}
            Ok(done) => break Ok(done),
            Err(error) => {
                let location = program
                    .instructions
                    .get(machine.pc())
                    .map(|i| i.location)
                    .unwrap_or_default();
                break Err(Stopped {
                    message: error.to_string(),
                    location,
                });
            }
        }
    };
    if let Some(sink) = trace.as_mut() {
        sink(&crate::trace::end_line(machine.steps(), outcome.as_ref()));
    }
    RunResult {
        registers: machine.registers().to_vec(),
        steps: machine.steps(),
        outcome,
    }
}
