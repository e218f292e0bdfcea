//! The checked program the executor runs: `ptxsim-check`'s typed instructions, registers and
//! symbols (`ptxsim_check::program`), under the name the executor's modules use.

pub use ptxsim_check::program::*;
