//! Per-instruction rules.
//!
//! This is where the checks driven by the instruction table of `ptxsim-isa` plug in: decoding the
//! opcode and modifier list into a typed instruction, operand counts and shapes, the operand-size
//! rules (ISA 9.4.1), and the target / PTX-version requirements of each instruction form. The
//! name resolver calls [`check_instruction`] once for every instruction, after its operands were
//! resolved, so a rule may assume that every name it sees is declared.

use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::ast::{Instruction, Module};

/// What a per-instruction rule may need to know about the module around the instruction.
#[derive(Debug, Clone, Copy)]
pub struct InstructionContext<'a> {
    /// The module being checked (its `.version`, `.target` and `.address_size`).
    pub module: &'a Module,
}

/// Checks one instruction against the instruction table. Not implemented yet: the table in
/// `ptxsim-isa` is being written; until then every instruction form is accepted.
pub fn check_instruction(
    context: &InstructionContext<'_>,
    instruction: &Instruction,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let _ = (context, instruction, diagnostics);
}
