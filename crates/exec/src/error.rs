//! The errors of the executor (style rule 8): [`ExecError`] when the simulator cannot go on
//! (why a module has no program is `ptxsim_check::BuildError`). Faults of the simulated
//! program are not errors but [`crate::step::Outcome`]s.

use thiserror::Error;

/// Why the simulator stopped without an outcome of the program.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// An instruction the executor does not implement.
    #[error("unsupported instruction `{mnemonic}`: {reason}")]
    Unsupported {
        /// The opcode and modifiers as written.
        mnemonic: String,
        /// Why.
        reason: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
    },
    /// The program's memories do not fit in the memory limit (see [`crate::budget`]); nothing
    /// was allocated.
    #[error("{0}")]
    Memory(String),
    /// The program breaks an invariant the program builder guarantees (a simulator bug).
    #[error("internal error: {0}")]
    Internal(String),
}

/// Why a launch could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// Wrong number or kind of arguments.
    #[error("{message}\n{signature}")]
    Arguments {
        /// What is wrong.
        message: String,
        /// The kernel's parameters, one per line.
        signature: String,
    },
    /// A grid or CTA dimension is zero or the launch is too big.
    #[error("{0}")]
    Shape(String),
    /// The launch's simulated memory does not fit in the memory limit
    /// (`budget::Footprint::check`).
    #[error("{0}")]
    Memory(String),
    /// A cooperative launch has more CTAs than the GPU keeps resident at once
    /// (see the `occupancy` module; CUDA's `cudaErrorCooperativeLaunchTooLarge`,
    /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`).
    #[error(
        "a cooperative launch of {ctas} CTAs is too large: at most {most} CTAs of this kernel \
         and shape are resident at once ({per_sm} per multiprocessor, {sms} multiprocessors)"
    )]
    CooperativeTooLarge {
        /// The CTAs of the grid.
        ctas: u64,
        /// The most CTAs a cooperative launch of the kernel with this CTA shape may have.
        most: u64,
        /// CTAs per multiprocessor.
        per_sm: u64,
        /// Multiprocessors.
        sms: u64,
    },
}
