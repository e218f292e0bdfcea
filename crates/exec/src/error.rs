//! The errors of the executor's layers (style rule 8): [`LowerError`] when a module cannot be
//! turned into a program, [`ExecError`] when the simulator cannot go on. Faults of the simulated
//! program are not errors but [`crate::Outcome`]s.

use ptxsim_syntax::Diagnostic;
use thiserror::Error;

/// Why a module could not be lowered.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LowerError {
    /// The module has no `.entry` with a body.
    #[error("the module has no kernel (`.entry` with a body)")]
    NoEntry,
    /// Several kernels and no `--entry`.
    #[error("the module has several kernels; choose one with --entry: {}", .0.join(", "))]
    SeveralEntries(Vec<String>),
    /// `--entry NAME` names no kernel.
    #[error("no kernel named `{name}`; the module has: {}", if .available.is_empty() { "none".to_string() } else { .available.join(", ") })]
    EntryNotFound {
        /// The requested name.
        name: String,
        /// The kernels there are.
        available: Vec<String>,
    },
    /// More registers than the executor allows.
    #[error("line {line}: more than {limit} registers declared")]
    TooManyRegisters {
        /// [`crate::lower::MAX_REGISTERS`].
        limit: usize,
        /// Where the limit was passed.
        line: u32,
    },
    /// Instructions that break the rules of the instruction table.
    #[error("{} invalid instruction(s)", .0.len())]
    Invalid(Vec<Diagnostic>),
}

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
    /// The program breaks an invariant the lowering guarantees (a simulator bug).
    #[error("internal error: {0}")]
    Internal(String),
}
