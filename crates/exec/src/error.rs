//! The errors of the executor (style rule 8): [`ExecError`] when the simulator cannot go on
//! (why a module has no program is `ptxsim_check::BuildError`). Faults of the simulated
//! program are not errors but [`crate::Outcome`]s.

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
