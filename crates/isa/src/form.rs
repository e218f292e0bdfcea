//! Decoded instruction forms, the operand model, and the error types shared by decoding and
//! validation.

use std::fmt;

use crate::cvt::{CvtForm, CvtPackForm};
use crate::mov::MovForm;
use crate::opcode::Opcode;
use crate::ops::OpForm;
use crate::types::Type;

/// One decoded instruction form: the opcode with its modifiers understood.
///
/// Produced by [`decode`]; checked against operands by [`validate`]; gated by
/// [`crate::requirements`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// `cvt` (PTX ISA 9.7.9.21).
    Cvt(CvtForm),
    /// `cvt.pack` (PTX ISA 9.7.9.22): opcode `cvt` whose first modifier is `pack`.
    CvtPack(CvtPackForm),
    /// `mov` (PTX ISA 9.7.9.4).
    Mov(MovForm),
    /// Every other instruction the table decodes ([`crate::ops::decode_op`]).
    Op(OpInstruction),
}

/// A decoded instruction other than `cvt`, `cvt.pack` and `mov`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpInstruction {
    /// The opcode.
    pub opcode: Opcode,
    /// What the modifiers mean.
    pub form: OpForm,
    /// The mnemonic as written (`add.rn.f32`), for messages.
    pub text: String,
}

impl Form {
    /// The opcode.
    pub const fn opcode(&self) -> Opcode {
        match self {
            Form::Cvt(_) | Form::CvtPack(_) => Opcode::Cvt,
            Form::Mov(_) => Opcode::Mov,
            Form::Op(op) => op.opcode,
        }
    }

    /// The instruction in canonical spelling without operands, e.g.
    /// `cvt.rn.satfinite.e2m1x2.f32`; used in messages.
    pub fn text(&self) -> String {
        match self {
            Form::Cvt(form) => form.text(),
            Form::CvtPack(form) => form.text(),
            Form::Mov(form) => form.text(),
            Form::Op(op) => op.text.clone(),
        }
    }
}

/// A value together with the index of the modifier it was decoded from (0 = the first modifier
/// after the opcode), so that diagnostics can point at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Indexed<T> {
    /// The decoded value.
    pub value: T,
    /// Index into the modifier list given to [`decode`].
    pub index: usize,
}

/// What went wrong while decoding modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeErrorKind {
    /// Not a PTX opcode this crate knows.
    UnknownOpcode,
    /// A known opcode whose forms this crate does not describe yet.
    UnsupportedInstruction(Opcode),
    /// A modifier that does not exist for this opcode.
    UnknownModifier,
    /// The same modifier twice.
    DuplicateModifier,
    /// Two modifiers of one group (two roundings).
    ConflictingModifier,
    /// Fewer type modifiers than the instruction needs.
    MissingType,
    /// More type modifiers than the instruction takes.
    ExtraType,
    /// Types that form no instruction in the spec's syntax block.
    UnsupportedTypes,
}

impl DecodeErrorKind {
    /// A stable kebab-case name for diagnostic codes, e.g. `"unknown-modifier"`.
    pub const fn name(self) -> &'static str {
        match self {
            DecodeErrorKind::UnknownOpcode => "unknown-opcode",
            DecodeErrorKind::UnsupportedInstruction(_) => "unsupported-instruction",
            DecodeErrorKind::UnknownModifier => "unknown-modifier",
            DecodeErrorKind::DuplicateModifier => "duplicate-modifier",
            DecodeErrorKind::ConflictingModifier => "conflicting-modifier",
            DecodeErrorKind::MissingType => "missing-type",
            DecodeErrorKind::ExtraType => "extra-type",
            DecodeErrorKind::UnsupportedTypes => "unsupported-types",
        }
    }
}

/// A decoding failure. `modifier` is the index of the offending modifier when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The failure class, stable for diagnostics codes.
    pub kind: DecodeErrorKind,
    /// Index of the offending modifier in the list given to [`decode`].
    pub modifier: Option<usize>,
    /// The rule, in words.
    pub rule: String,
    /// A suggested fix, where one exists.
    pub fix: Option<String>,
}

impl DecodeError {
    pub(crate) fn new(
        kind: DecodeErrorKind,
        modifier: Option<usize>,
        rule: impl Into<String>,
    ) -> Self {
        DecodeError {
            kind,
            modifier,
            rule: rule.into(),
            fix: None,
        }
    }

    pub(crate) fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rule)?;
        if let Some(fix) = &self.fix {
            write!(f, " ({fix})")?;
        }
        Ok(())
    }
}

impl std::error::Error for DecodeError {}

/// An operand as the parser saw it, reduced to what the rules need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// A register of the declared type.
    Register(Type),
    /// A brace vector `{a, b, ...}`.
    Vector(Vec<Element>),
    /// The sink symbol `_` on its own.
    Sink,
    /// An immediate constant, written as this kind of literal.
    Immediate(Literal),
    /// A special register (`%tid.x`, `%clock64`) of this width.
    Special(SpecialWidth),
    /// The name of a variable, parameter or function: its address.
    Symbol(SymbolKind),
    /// A memory operand `[...]`, which no cvt, cvt.pack or mov takes ("must be register").
    Address,
    /// `d|p`: a destination with a predicate output (`setp`, `shfl`, `match.all`, `elect`,
    /// `lop3.BoolOp`), each part as a vector element is (a register, the sink `_`, ...).
    PredicatePair(Element, Element),
    /// Anything else (address, label, ...).
    Other,
}

/// What a name operand that is not a register stands for. ptxas takes one as the source of an
/// integer or bit-type `mov` (the address) and never as a `cvt` or `cvt.pack` operand ("must be
/// register"); for a function's address in a type other than `.u32`/`.b32`/`.u64`/`.b64` it only
/// warns, and ptxsim says nothing (`tests/check/symbol_operands.ptx`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A variable (any state space) or a parameter.
    Variable,
    /// A function or kernel.
    Function,
}

impl SymbolKind {
    /// Whether `mov` of type `ty` may take the symbol's address.
    pub fn moves_to(self, ty: Type) -> bool {
        ty.is_integer() || matches!(ty, Type::B16 | Type::B32 | Type::B64)
    }
}

/// How wide a special register reads (PTX ISA chapter 10), for the operand rules: ptxas takes
/// one as the source of an integer `mov` of exactly its width and of an integer-to-integer
/// `cvt` whose source type is no wider (Table 27), and nowhere else
/// (`tests/conformance/sources.tsv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecialWidth {
    /// 32 bits.
    Bits32,
    /// 64 bits (`%clock64`, `%globaltimer`, `%pm0_64`...).
    Bits64,
    /// `%tid`, `%ntid`, `%ctaid`, `%nctaid` components: 32 bits, and 16 for `mov` (their width
    /// before PTX ISA 2.0).
    Tid,
    /// `%gridid`: any integer width (32 bits before PTX ISA 3.0, 64 since).
    Any,
}

impl SpecialWidth {
    /// The width of the special register `name` (with its `%`, without a `.x` component), if
    /// the rules know it.
    pub fn of(name: &str) -> Option<SpecialWidth> {
        Some(match name {
            "%tid" | "%ntid" | "%ctaid" | "%nctaid" => SpecialWidth::Tid,
            "%gridid" => SpecialWidth::Any,
            "%clock64" | "%globaltimer" => SpecialWidth::Bits64,
            _ if name.starts_with("%pm") && name.ends_with("_64") => SpecialWidth::Bits64,
            "%laneid" | "%warpid" | "%nwarpid" | "%smid" | "%nsmid" | "%clock" | "%clock_hi"
            | "%globaltimer_lo" | "%globaltimer_hi" | "%lanemask_eq" | "%lanemask_le"
            | "%lanemask_lt" | "%lanemask_ge" | "%lanemask_gt" | "%dynamic_smem_size"
            | "%total_smem_size" | "%aggr_smem_size" | "%cluster_ctarank" | "%cluster_nctarank"
            // The cluster coordinates (PTX ISA 10.13-10.16: `.v4.u32` like %tid; ptxas 13.5
            // rejects them where it rejects %tid: "Special register argument not allowed for
            // instruction 'cvt'" for a float conversion, any other instruction but mov).
            | "%clusterid" | "%nclusterid" | "%cluster_ctaid" | "%cluster_nctaid" => {
                SpecialWidth::Bits32
            }
            _ if name.starts_with("%envreg") || name.starts_with("%pm") => SpecialWidth::Bits32,
            _ if name.starts_with("%reserved_smem_offset") => SpecialWidth::Bits32,
            _ => return None,
        })
    }

    /// The width in words, e.g. "a 32-bit special register".
    pub fn describe(self) -> &'static str {
        match self {
            SpecialWidth::Bits32 => "a 32-bit special register",
            SpecialWidth::Bits64 => "a 64-bit special register",
            SpecialWidth::Tid => "a 32-bit special register (16-bit for mov)",
            SpecialWidth::Any => "a special register of any integer width",
        }
    }

    /// Whether an integer operand of `bits` may read it directly (`mov`): its own width.
    pub fn moves_to(self, bits: u32) -> bool {
        match self {
            SpecialWidth::Bits32 => bits == 32,
            SpecialWidth::Bits64 => bits == 64,
            SpecialWidth::Tid => bits == 32 || bits == 16,
            SpecialWidth::Any => matches!(bits, 16 | 32 | 64),
        }
    }

    /// Whether it may be the source of a conversion from an integer type of `bits` (Table 27:
    /// a register as wide or wider).
    pub fn converts_from(self, bits: u32) -> bool {
        match self {
            SpecialWidth::Bits32 | SpecialWidth::Tid => bits <= 32,
            SpecialWidth::Bits64 | SpecialWidth::Any => bits <= 64,
        }
    }
}

/// How an immediate constant was written; which kinds an operand takes depends on its type
/// (see [`Literal::fits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Literal {
    /// An integer: decimal, hex, octal or binary, signed or with `U`.
    Integer,
    /// A decimal floating-point literal (`1.5`, `2e-3`).
    Decimal,
    /// `0f` and the 8 hex digits of an f32.
    F32Bits,
    /// `0d` and the 16 hex digits of an f64.
    F64Bits,
}

impl Literal {
    /// Whether an operand of instruction type `ty` may be written as this kind of literal, as
    /// ptxas decides (measured on every kind for every type, `tests/conformance/literals.tsv`):
    /// `.f32`/`.f64` operands take floating-point literals only; `.f16`/`.bf16` (and the packed
    /// half and narrow types) none at all; integer and predicate operands integers only; the
    /// bit types integers plus the float literal of their own width (`0f` for `.b32`; `0d`
    /// and decimal for `.b64`).
    pub fn fits(self, ty: Type) -> bool {
        use Literal::{Decimal, F32Bits, F64Bits, Integer};
        match ty {
            Type::F32 | Type::F64 => self != Integer,
            Type::B32 => matches!(self, Integer | F32Bits),
            Type::B64 => matches!(self, Integer | Decimal | F64Bits),
            Type::B8 | Type::B16 | Type::B128 | Type::Pred => self == Integer,
            _ if ty.is_integer() => self == Integer,
            _ => false,
        }
    }

    /// The kind in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Literal::Integer => "an integer literal",
            Literal::Decimal => "a decimal floating-point literal",
            Literal::F32Bits => "a `0f` literal",
            Literal::F64Bits => "a `0d` literal",
        }
    }
}

/// One element of a brace vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    /// A register of the declared type.
    Register(Type),
    /// The sink symbol `_`.
    Sink,
    /// An immediate constant, written as this kind of literal.
    Immediate(Literal),
    /// Anything else.
    Other,
}

/// Where a violation is, for the checker to map to a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// The instruction as a whole (e.g. a missing modifier).
    Instruction,
    /// The modifier at this index of the list given to [`decode`].
    Modifier(usize),
    /// The operand at this index (0 = destination).
    Operand(usize),
    /// An element of a brace-vector operand.
    Element {
        /// The operand index.
        operand: usize,
        /// The element index inside the braces.
        element: usize,
    },
}

/// Which rule a violation breaks; stable for diagnostic codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleCode {
    /// A rounding modifier is mandatory here.
    RoundingRequired,
    /// This rounding modifier is not allowed here.
    RoundingIllegal,
    /// `.ftz` is not allowed here.
    FtzIllegal,
    /// `.sat` is not allowed here.
    SatIllegal,
    /// `.sat` is mandatory here.
    SatRequired,
    /// `.relu` is not allowed here.
    ReluIllegal,
    /// `.satfinite` is not allowed here.
    SatfiniteIllegal,
    /// `.satfinite` is mandatory here.
    SatfiniteRequired,
    /// `.scaled::n2::ue8m0` is not allowed here.
    ScaledIllegal,
    /// A type modifier is missing or not allowed.
    TypeModifier,
    /// The number of operands is wrong.
    OperandCount,
    /// A scalar was given where a vector is expected, or the reverse.
    OperandShape,
    /// A brace vector has the wrong number of elements.
    VectorLength,
    /// A register of the wrong type or size.
    RegisterType,
    /// The sink `_` is not allowed here.
    SinkIllegal,
    /// An immediate written as a kind of literal the operand's type does not take.
    LiteralKind,
    /// A special register where it may not stand, or of the wrong width.
    SpecialRegister,
    /// A constant whose value the instruction does not take (`cp.async`'s cp-size).
    ConstantValue,
    /// A function's address moved into a type other than `.u32`/`.b32`/`.u64`/`.b64`: a
    /// warning (ptxas 13.5: "Unexpected instruction types specified for 'mov instruction with
    /// function address operand'"), the instruction is accepted.
    FunctionAddressType,
}

impl RuleCode {
    /// A stable kebab-case name for diagnostic codes, e.g. `"rounding-required"`.
    /// Whether a broken rule of this kind is a warning (the instruction is still accepted)
    /// rather than an error.
    pub const fn is_warning(self) -> bool {
        matches!(self, RuleCode::FunctionAddressType)
    }

    pub const fn name(self) -> &'static str {
        match self {
            RuleCode::RoundingRequired => "rounding-required",
            RuleCode::RoundingIllegal => "rounding-illegal",
            RuleCode::FtzIllegal => "ftz-illegal",
            RuleCode::SatIllegal => "sat-illegal",
            RuleCode::SatRequired => "sat-required",
            RuleCode::ReluIllegal => "relu-illegal",
            RuleCode::SatfiniteIllegal => "satfinite-illegal",
            RuleCode::SatfiniteRequired => "satfinite-required",
            RuleCode::ScaledIllegal => "scaled-illegal",
            RuleCode::TypeModifier => "type-modifier",
            RuleCode::OperandCount => "operand-count",
            RuleCode::OperandShape => "operand-shape",
            RuleCode::VectorLength => "vector-length",
            RuleCode::RegisterType => "register-type",
            RuleCode::SinkIllegal => "sink-illegal",
            RuleCode::LiteralKind => "literal-kind",
            RuleCode::SpecialRegister => "special-register",
            RuleCode::FunctionAddressType => "function-address-type",
            RuleCode::ConstantValue => "constant-value",
        }
    }
}

/// A broken rule found by [`validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Which rule.
    pub code: RuleCode,
    /// Where.
    pub location: Location,
    /// The rule, in words, citing the spec where it helps.
    pub rule: String,
    /// A suggested fix, where one exists.
    pub fix: Option<String>,
}

impl Violation {
    pub(crate) fn new(code: RuleCode, location: Location, rule: impl Into<String>) -> Self {
        Violation {
            code,
            location,
            rule: rule.into(),
            fix: None,
        }
    }

    pub(crate) fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rule)?;
        if let Some(fix) = &self.fix {
            write!(f, " ({fix})")?;
        }
        Ok(())
    }
}

/// Decodes an opcode and its modifiers (without leading dots; `::` kept inside one modifier,
/// e.g. `scaled::n2::ue8m0`) into a [`Form`].
///
/// `cvt` whose first modifier is `pack` decodes as [`Form::CvtPack`]. Known opcodes other than
/// `cvt` and `mov` give [`DecodeErrorKind::UnsupportedInstruction`], unknown ones
/// [`DecodeErrorKind::UnknownOpcode`]. Never panics.
pub fn decode(opcode: &str, modifiers: &[&str]) -> Result<Form, DecodeError> {
    match fold_repeats(modifiers) {
        None => decode_folded(opcode, modifiers),
        Some((folded, written_at)) => match decode_folded(opcode, &folded) {
            // The gates find modifiers in the text: keep it as written.
            Ok(Form::Op(op)) => Ok(Form::Op(OpInstruction {
                text: op_text(opcode, modifiers),
                ..op
            })),
            Ok(form) => Ok(form),
            Err(mut error) => {
                error.modifier = error.modifier.map(|i| written_at[i]);
                Err(error)
            }
        },
    }
}

/// The flag modifiers ptxas 13.5 accepts written more than once, as if written once:
/// `add.sat.sat.s32`, `ex2.approx.approx.f32`, `bar.sync.sync 0`, `bra.uni.uni L0`,
/// `cvt.pack.sat.sat`, `cvt.rn.relu.relu.f16x2.f32`, `mma.sync.sync.aligned...satfinite.satfinite`,
/// `bfind.shiftamt.shiftamt`, `min.NaN.NaN.f16` (every opcode that has them, decoded and
/// name-only: `vadd.sat.sat`, `wmma.load.a.sync.sync`, `tcgen05.alloc...sync.sync`). The Syntax
/// blocks write each once; every other repeat is an error to ptxas too ("Duplicate .ftz
/// modifier", "Multiple .aligned modifiers specified", "Multiple scope modifiers specified", ...).
/// The lines that show it are in `scripts/conformance/syntax-examples.txt`.
pub const REPEATABLE_FLAGS: &[&str] = &[
    "sat",
    "cc",
    "approx",
    "NaN",
    "relu",
    "satfinite",
    "sync",
    "uni",
    "shiftamt",
];

/// `modifiers` without the later copies of a [`REPEATABLE_FLAGS`] modifier, with the index each
/// kept modifier was written at; `None` (nothing to fold) for almost every instruction.
pub fn fold_repeats<'a>(modifiers: &[&'a str]) -> Option<(Vec<&'a str>, Vec<usize>)> {
    let repeated = |i: usize, m: &str| REPEATABLE_FLAGS.contains(&m) && modifiers[..i].contains(&m);
    if !modifiers.iter().enumerate().any(|(i, m)| repeated(i, m)) {
        return None;
    }
    let (written_at, folded) = modifiers
        .iter()
        .enumerate()
        .filter(|&(i, m)| !repeated(i, m))
        .map(|(i, m)| (i, *m))
        .unzip();
    Some((folded, written_at))
}

/// `opcode.m1.m2...`.
fn op_text(opcode: &str, modifiers: &[&str]) -> String {
    let mut text = String::from(opcode);
    for modifier in modifiers {
        text.push('.');
        text.push_str(modifier);
    }
    text
}

fn decode_folded(opcode: &str, modifiers: &[&str]) -> Result<Form, DecodeError> {
    let Some(op) = Opcode::from_name(opcode) else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownOpcode,
            None,
            format!("`{opcode}` is not a PTX instruction known to ptxsim"),
        ));
    };
    match op {
        Opcode::Cvt => {
            if modifiers.first() == Some(&"pack") {
                crate::cvt::decode_cvt_pack(modifiers).map(Form::CvtPack)
            } else {
                crate::cvt::decode_cvt(modifiers).map(Form::Cvt)
            }
        }
        Opcode::Mov => crate::mov::decode_mov(modifiers).map(Form::Mov),
        _ => {
            let form = crate::ops::decode_op(op, modifiers)?;
            Ok(Form::Op(OpInstruction {
                opcode: op,
                form,
                text: op_text(opcode, modifiers),
            }))
        }
    }
}

/// Checks a decoded form against its operands: every modifier rule of the form's spec section
/// and the operand count, shapes and register types. Returns every violation, in order.
pub fn validate(form: &Form, operands: &[Operand]) -> Vec<Violation> {
    match form {
        Form::Cvt(form) => crate::cvt::validate_cvt(form, operands),
        Form::CvtPack(form) => crate::cvt::validate_cvt_pack(form, operands),
        Form::Mov(form) => crate::mov::validate_mov(form, operands),
        Form::Op(op) => crate::op_layout::validate_op(&op.form, operands),
    }
}
