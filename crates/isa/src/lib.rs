//! The one instruction table of ptxsim (style rule 1): PTX types, opcodes, modifiers, operand
//! shapes, and the target / PTX ISA version requirements of each instruction form.
//!
//! The parser gives, per instruction, an opcode string and its modifiers (without dots, `::`
//! kept inside one modifier). [`decode`] turns them into a [`Form`] or a [`DecodeError`] that
//! names the offending modifier by index; [`validate`] checks a form against its operands and
//! returns every [`Violation`] with a [`Location`] (modifier, operand or vector element index);
//! [`requirements`] and [`satisfied`] check the form against the module's `.target` and
//! `.version`. Nothing here panics on any input.
//!
//! A checker maps results to spans like this: [`DecodeError::modifier`] and
//! [`Location::Modifier`] index the modifier list it passed to [`decode`] (0 = first modifier
//! after the opcode); [`Location::Operand`] and [`Location::Element`] index its operand list and
//! the elements of a brace vector; [`Location::Instruction`] means the whole instruction (e.g. a
//! missing mandatory modifier). Every error carries the rule in words and, where one exists, a
//! fix.
//!
//! ```
//! use ptxsim_isa::{decode, requirements, satisfied, validate, Location, Operand, PtxVersion, Target, Type};
//!
//! // cvt.rn.satfinite.e2m1x2.f32 d, a, b;  with d in a .b16 register (it must be .b8)
//! let form = decode("cvt", &["rn", "satfinite", "e2m1x2", "f32"]).unwrap();
//! let operands = [Operand::Register(Type::B16), Operand::Register(Type::F32), Operand::Register(Type::F32)];
//! let violations = validate(&form, &operands);
//! assert_eq!(violations[0].location, Location::Operand(0));
//!
//! let unmet = satisfied(&requirements(&form), Target::parse("sm_90").unwrap(), PtxVersion::new(9, 1));
//! assert_eq!(
//!     unmet.unwrap_err().to_string(),
//!     "cvt.rn.satfinite.e2m1x2.f32 needs sm_100a, sm_110a, sm_120a or an sm_100f/sm_110f/sm_120f \
//!      family target; this module targets sm_90"
//! );
//! ```
//!
//! Sources: PTX ISA 9.1 sections 9.7.9.21 (cvt), 9.7.9.22 (cvt.pack), 9.7.9.4 (mov) and 9.4.1
//! (Tables 27 and 28); where the text is ambiguous or silent, ptxas 13.5 decides
//! (`tests/conformance/`, `docs/divergences.md`).
#![forbid(unsafe_code)]

pub mod coverage;
pub mod cvt;
pub mod form;
pub mod gating;
pub mod layout;
pub mod matrix;
pub mod mma;
pub mod mov;
pub mod op_gating;
pub mod op_layout;
pub mod opcode;
pub mod operand_size;
pub mod ops;
pub mod syntax;
pub mod target;
pub mod texture;
pub mod types;
pub mod wgmma;
pub mod wmma;

pub use cvt::{CVT_SYNTAX, CvtForm, CvtPackForm, CvtSyntax};
pub use form::{
    DecodeError, DecodeErrorKind, Element, Form, Indexed, Literal, Location, OpInstruction,
    Operand, RuleCode, SpecialWidth, SymbolKind, Violation, decode, validate,
};
pub use gating::{
    AppliedGate, GATES, Gate, ModuleUnsupported, Requirement, Unmet, UnmetGate, UnmetReason,
    b128_declaration, check_module, requirements, satisfied,
};
pub use layout::{OperandSlot, RegisterRule, SlotShape};
pub use mov::MovForm;
pub use opcode::{Opcode, Rounding};
pub use operand_size::{DestinationRule, SourceRule, destination_rule, source_rule};
pub use target::{PtxVersion, Target, TargetVariant};
pub use types::{Type, TypeKind};
