//! Operand layouts: how many operands a form takes and which registers each accepts.

use crate::form::{Element, Literal, Location, Operand, RuleCode, Violation};
use crate::operand_size::{SourceRule, destination_rule, source_rule};
use crate::types::{Type, TypeKind};

/// Which registers an operand slot accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterRule {
    /// A source of this instruction type under Table 27 (relaxed type checking, PTX ISA 9.4.1).
    RelaxedSource(Type),
    /// A destination of this instruction type under Table 28.
    RelaxedDestination(Type),
    /// A register of exactly the instruction type's size: a "–" cell of Tables 27/28 (cvt
    /// conversions with a `.bf16` operand allow no wider registers on either side).
    SameSize(Type),
    /// Exactly one of these register types (the cvt "Notes": `.bf16`, `.bf16x2` and `.tf32`
    /// operands may not be wider; the packed formats name their register type outright).
    OneOf(&'static [Type]),
    /// An integer constant, no register (`cp.async`'s cp-size, `cp.async.wait_group`'s N).
    Constant,
}

/// The registers of an `ldmatrix`/`stmatrix` fragment: ptxas 13.5 takes any 32-bit register
/// (`.b32`, `.u32`, `.s32`, `.f32`, `.f16x2`) and rejects `.b16` and `.b64` ones ("Arguments
/// mismatch for instruction 'ldmatrix'"); in `stmatrix`'s source vector it takes integer and
/// floating-point constants too (`tests/conformance/ops-forms.tsv`).
pub const FRAGMENT: &[Type] = &[Type::B32, Type::U32, Type::S32, Type::F32, Type::F16x2];

/// A 32-bit register of any type, and no constant: `wgmma.mma_async.sp`'s `sp-meta` ("a
/// 32-bit integer", 9.7.15.6.3; ptxas 13.5 takes `.b32`, `.s32`, `.u32`, `.f32` registers and
/// rejects `5`, a `.b16` and a `.b64` register: "Arguments mismatch for instruction
/// 'wgmma.mma_async'"). [`FRAGMENT`]'s types in another order, so that the rules can tell them
/// apart.
pub const METADATA_REGISTER: &[Type] = &[Type::B32, Type::S32, Type::U32, Type::F32, Type::F16x2];

/// The registers of `movmatrix`'s `d` and `a`: ptxas 13.5 takes the 32-bit registers of
/// [`FRAGMENT`] and `.pred` ones too, and of the constants only `0f` bits ("Arguments
/// mismatch for instruction 'movmatrix'" for `7`, `1.5`, `0d...`;
/// `tests/conformance/ops-operands.tsv`).
pub const FRAGMENT_OR_PREDICATE: &[Type] = &[
    Type::B32,
    Type::U32,
    Type::S32,
    Type::F32,
    Type::F16x2,
    Type::Pred,
];

/// The 64-bit cache-policy operand of `.L2::cache_hint` (`ld`, `st`, `atom`, `red`,
/// `cp.async`): ptxas 13.5 takes a `.b64`, `.u64` or `.s64` register or an integer constant
/// ("Arguments mismatch" for a `.u32` or `.f64` register and for `1.5` or `0f3F800000`).
pub const CACHE_POLICY: &[Type] = &[Type::U64, Type::B64, Type::S64];

impl RegisterRule {
    /// Whether a register of type `register` fits.
    ///
    /// Tables 27/28 have no `.f16x2` or `.pred` column. ptxas 13.5 treats an `.f16x2` register
    /// like a 32-bit integer register under the relaxed rules (accepted for bit-size and integer
    /// instruction types, rejected for floating-point ones) and never accepts `.pred`; this
    /// crate does the same (see docs/divergences.md).
    pub fn accepts(self, register: Type) -> bool {
        let column = if register == Type::F16x2 {
            Type::U32
        } else {
            register
        };
        match self {
            RegisterRule::RelaxedSource(instruction) => {
                source_rule(instruction, column).is_some_and(|rule| rule.is_allowed())
            }
            RegisterRule::RelaxedDestination(instruction) => {
                destination_rule(instruction, column).is_some_and(|rule| rule.is_allowed())
            }
            RegisterRule::SameSize(instruction) => {
                source_rule(instruction, column) == Some(SourceRule::NoConversion)
            }
            RegisterRule::OneOf(types) => types.contains(&register),
            RegisterRule::Constant => false,
        }
    }

    /// The instruction type the rule is about (`.f32` for a list that holds it, else its first
    /// type).
    pub fn instruction_type(self) -> Type {
        match self {
            RegisterRule::RelaxedSource(t)
            | RegisterRule::RelaxedDestination(t)
            | RegisterRule::SameSize(t) => t,
            RegisterRule::OneOf(types) if types.contains(&Type::F32) => Type::F32,
            RegisterRule::OneOf(types) => types.first().copied().unwrap_or(Type::B32),
            RegisterRule::Constant => Type::U32,
        }
    }

    /// Whether an immediate written as `literal` may stand in a source slot with this rule:
    /// ptxas 13.5 takes constants for integer and floating-point sources of the literal kinds
    /// [`Literal::fits`] lists (`cvt.rn.f16x2.f32 d, 1.0, b`), but none for operands that hold
    /// packed bits (`rbits`, `scale-factor`, a packed `.b16` source) or `.f16`/`.bf16` values.
    pub fn takes_literal(self, literal: Literal) -> bool {
        match self {
            RegisterRule::OneOf(types) if types == METADATA_REGISTER => false,
            RegisterRule::OneOf(types) if types == FRAGMENT => true,
            RegisterRule::OneOf(types) if types == CACHE_POLICY => literal == Literal::Integer,
            RegisterRule::OneOf(types) if types == FRAGMENT_OR_PREDICATE => {
                literal == Literal::F32Bits
            }
            // A predicate source (`selp`'s `c`, the logic operations), a fixed `.u32` operand
            // (shift amounts, bit positions) and a `.b128` value take integer constants.
            RegisterRule::OneOf([Type::Pred, ..] | [Type::U32, ..] | [Type::B128])
            | RegisterRule::Constant => literal == Literal::Integer,
            RegisterRule::OneOf(types) if !types.contains(&Type::F32) => false,
            rule => literal.fits(rule.instruction_type()),
        }
    }

    /// Whether some kind of immediate may stand in a source slot with this rule.
    pub fn takes_immediates(self) -> bool {
        [
            Literal::Integer,
            Literal::Decimal,
            Literal::F32Bits,
            Literal::F64Bits,
        ]
        .into_iter()
        .any(|literal| self.takes_literal(literal))
    }

    /// The rule in words, e.g. "a `.b16` register".
    pub fn describe(self) -> String {
        match self {
            RegisterRule::RelaxedSource(t) => {
                format!("a register that Table 27 allows for a {t} source")
            }
            RegisterRule::RelaxedDestination(t) => {
                format!("a register that Table 28 allows for a {t} destination")
            }
            RegisterRule::SameSize(t) => format!("a register of exactly the size of {t}"),
            RegisterRule::OneOf(types) => {
                let names: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
                format!("a {} register", names.join(" or "))
            }
            RegisterRule::Constant => "an integer constant".to_string(),
        }
    }
}

/// The shape of one operand slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotShape {
    /// A single register (or an immediate, for sources).
    Scalar(RegisterRule),
    /// A brace vector of exactly `length` registers.
    Vector {
        /// Number of elements.
        length: usize,
        /// The rule for each element.
        element: RegisterRule,
    },
    /// A memory operand `[...]` (or, where ptxas takes one, a variable's name).
    Address,
    /// A label (`bra`).
    Label,
    /// A single register, or a brace vector of one (`ld.global.b32 { %r1 }, [a]`, as Triton
    /// writes its loads and stores; ptxas 13.5 takes both).
    ScalarOrSingle(RegisterRule),
    /// A register, or the name of a variable whose address is the value (`cvta.global.u64
    /// %rd1, gvar`).
    ScalarOrSymbol(RegisterRule),
    /// A destination register or the sink `_` (`mbarrier.arrive _, [addr]`).
    ScalarOrSink(RegisterRule),
}

/// One operand position of a form's syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandSlot {
    /// The name the spec's syntax uses (`d`, `a`, `b`, `{a, b, e, f}`, `rbits`, `scale-factor`).
    pub name: &'static str,
    /// Whether the slot is written.
    pub is_destination: bool,
    /// What it accepts.
    pub shape: SlotShape,
}

/// Checks operands against slots: count, shape, register types. Immediates are accepted in
/// scalar source slots.
pub(crate) fn check_slots(slots: &[OperandSlot], operands: &[Operand]) -> Vec<Violation> {
    let mut out = Vec::new();
    if slots.len() != operands.len() {
        let names: Vec<&str> = slots.iter().map(|s| s.name).collect();
        let location = if operands.len() > slots.len() {
            Location::Operand(slots.len())
        } else {
            Location::Instruction
        };
        out.push(Violation::new(
            RuleCode::OperandCount,
            location,
            format!(
                "this form takes {} operands ({}), not {}",
                slots.len(),
                names.join(", "),
                operands.len()
            ),
        ));
    }
    for (index, (slot, operand)) in slots.iter().zip(operands).enumerate() {
        out.extend(check_slot(index, slot, operand));
    }
    out
}

fn check_slot(index: usize, slot: &OperandSlot, operand: &Operand) -> Option<Violation> {
    let here = Location::Operand(index);
    match (slot.shape, operand) {
        (SlotShape::ScalarOrSymbol(_), Operand::Symbol(_)) => None,
        (SlotShape::ScalarOrSink(_), Operand::Sink) => None,
        (SlotShape::ScalarOrSingle(rule), Operand::Vector(elements)) if elements.len() == 1 => {
            let element = match elements[0] {
                Element::Register(ty) => Operand::Register(ty),
                Element::Sink => Operand::Sink,
                Element::Immediate(literal) => Operand::Immediate(literal),
                Element::Other => Operand::Other,
            };
            let scalar = OperandSlot {
                shape: SlotShape::Scalar(rule),
                ..*slot
            };
            check_slot(index, &scalar, &element)
        }
        (
            SlotShape::ScalarOrSingle(rule)
            | SlotShape::ScalarOrSymbol(rule)
            | SlotShape::ScalarOrSink(rule),
            _,
        ) => {
            let scalar = OperandSlot {
                shape: SlotShape::Scalar(rule),
                ..*slot
            };
            check_slot(index, &scalar, operand)
        }
        // A vector register variable (`.reg .v4 .f32 %vf`) for a brace vector.
        (SlotShape::Vector { .. }, Operand::Other | Operand::PredicatePair(..)) => None,
        (SlotShape::Address, Operand::Address | Operand::Other | Operand::PredicatePair(..)) => {
            None
        }
        (SlotShape::Label, Operand::Other | Operand::PredicatePair(..)) => None,
        (SlotShape::Label, _) => Some(Violation::new(
            RuleCode::OperandShape,
            here,
            format!("operand `{}` must be a label", slot.name),
        )),
        (SlotShape::Address, _) => Some(Violation::new(
            RuleCode::OperandShape,
            here,
            format!("operand `{}` must be a memory operand `[...]`", slot.name),
        )),
        (SlotShape::Scalar(rule), Operand::Register(t)) => (!rule.accepts(*t)).then(|| {
            Violation::new(
                RuleCode::RegisterType,
                here,
                format!(
                    "operand `{}` must be {}, not a `{t}` register",
                    slot.name,
                    rule.describe()
                ),
            )
        }),
        (SlotShape::Scalar(rule), Operand::Immediate(literal))
            if !slot.is_destination && rule.takes_literal(*literal) =>
        {
            None
        }
        (SlotShape::Scalar(rule), Operand::Immediate(literal))
            if !slot.is_destination && rule.takes_immediates() =>
        {
            Some(literal_violation(
                here,
                slot.name,
                rule.instruction_type(),
                *literal,
            ))
        }
        (SlotShape::Scalar(rule), Operand::Special(width)) if !slot.is_destination => {
            let ty = rule.instruction_type();
            let integer = ty.is_integer() || ty.kind() == TypeKind::Bit;
            if !integer {
                Some(Violation::new(
                    RuleCode::SpecialRegister,
                    here,
                    format!(
                        "a special register cannot be the {ty} operand `{}`",
                        slot.name
                    ),
                ))
            } else if !width.converts_from(ty.bits()) {
                Some(Violation::new(
                    RuleCode::SpecialRegister,
                    here,
                    format!(
                        "operand `{}` is {ty}, wider than {}",
                        slot.name,
                        width.describe()
                    ),
                ))
            } else {
                None
            }
        }
        // A function's name is taken in any source slot (ptxas 13.5: `add.u64 d, f, 1`,
        // `setp.eq.u64 p, f, r`, `st.global.u64 [a], f`, even `add.f32 d, f, 1.0`), a
        // variable's is not ("must be register"); `mov` and `cvt` have their own rules.
        (SlotShape::Scalar(_), Operand::Symbol(crate::form::SymbolKind::Function))
            if !slot.is_destination =>
        {
            None
        }
        (SlotShape::Scalar(_), Operand::Symbol(_)) => Some(Violation::new(
            RuleCode::OperandShape,
            here,
            format!(
                "operand `{}` must be a register, not the address of a variable or function",
                slot.name
            ),
        )),
        (SlotShape::Scalar(_), Operand::Address) => Some(Violation::new(
            RuleCode::OperandShape,
            here,
            format!(
                "operand `{}` must be a register, not a memory operand `[...]`",
                slot.name
            ),
        )),
        (SlotShape::Scalar(_), Operand::Other | Operand::PredicatePair(..)) => None,
        (SlotShape::Scalar(_), Operand::Sink) => Some(Violation::new(
            RuleCode::SinkIllegal,
            here,
            "the sink `_` may only be an element of a destination vector",
        )),
        (
            SlotShape::Scalar(_),
            Operand::Immediate(_) | Operand::Vector(_) | Operand::Special(_),
        ) => Some(Violation::new(
            RuleCode::OperandShape,
            here,
            format!("operand `{}` must be a register", slot.name),
        )),
        // ptxas 13.5 gives a brace vector of sinks only no type ("Unable to infer type of
        // vector elements (assuming .b8)", for `ld.v2.u32 {_, _}, [a]` as for `atom`'s `d`).
        (SlotShape::Vector { .. }, Operand::Vector(elements))
            if !elements.is_empty() && elements.iter().all(|e| matches!(e, Element::Sink)) =>
        {
            Some(Violation::new(
                RuleCode::SinkIllegal,
                here,
                format!(
                    "operand `{}` needs at least one register besides sinks `_`",
                    slot.name
                ),
            ))
        }
        (SlotShape::Vector { length, element }, Operand::Vector(elements)) => {
            if elements.len() != length {
                return Some(Violation::new(
                    RuleCode::VectorLength,
                    here,
                    format!(
                        "operand `{}` is a vector of {length} registers, not {}",
                        slot.name,
                        elements.len()
                    ),
                ));
            }
            // A `.f32`/`.f64` vector of `ld`/`st` also takes integer registers of that width,
            // which the scalar forms refuse (ptxas 13.5 takes `ld.global.v2.f32 {%r1, %r2}`
            // and `st.global.v2.f64 [a], {%rd1, %rd2}`, and refuses `st.global.f32 [a], %r1`
            // and `st.global.v2.f32 [a], {%rd1, %rd2}`: "Arguments mismatch"; with an
            // immediate beside them, `{%r1, 1.0}`: "Vector with elements of different types").
            let relaxed_float = matches!(
                element,
                RegisterRule::RelaxedSource(Type::F32 | Type::F64)
                    | RegisterRule::RelaxedDestination(Type::F32 | Type::F64)
            ) && elements.iter().all(|e| matches!(e, Element::Register(_)));
            let accepts = |t: Type| {
                element.accepts(t)
                    || (relaxed_float
                        && matches!(t.kind(), TypeKind::Unsigned | TypeKind::Signed)
                        && t.bits() == element.instruction_type().bits())
            };
            let joined = match element {
                RegisterRule::RelaxedSource(_) | RegisterRule::RelaxedDestination(_) => {
                    match memory_vector_type(elements) {
                        Ok(joined) => joined,
                        Err(problem) => {
                            return Some(Violation::new(
                                RuleCode::RegisterType,
                                here,
                                format!("the elements of `{}` {problem}", slot.name),
                            ));
                        }
                    }
                }
                // A fragment of `mma`/`wmma` (and the other fixed register lists): a register
                // outside the list is taken when the vector joins, as ptxas joins `ld`'s, into
                // a type of the list (ptxas 13.5 takes `wmma.load.c...f16 {%u1, %r2, %u3,
                // %u4}` and `{%f1, %r2, %u3, %u4}` as `.b32` vectors, and refuses `{%r1, %f2,
                // %u3, %u4}`: "Vector with elements of different types are not allowed in
                // wmma.load.c instruction"; `tests/conformance/llvm-lines.tsv.xz`). A `.pred`
                // register joins a `.b32` neighbour as one more 32-bit element in the `a` and
                // `b` fragments of `mma`/`wmma.mma` (ptxas 13.5 takes `{%r1, %r2, %r3, %p1}`
                // and `{%p1, %r2, %r3, %r4}` there, refuses `{%f1, %p1, %r1, %r2}`: "Vector
                // with elements of different types", and an all-`.pred` fragment: "Arguments
                // mismatch"; tests/conformance/operand-vectors.tsv), and nowhere else:
                // ptxas refuses `{%p1, %r1, %r2, %r3}` as a `wmma.load`/`wmma.store` fragment
                // ("Arguments mismatch for instruction 'mov'") and as an `.s32` `mma`'s `c`
                // ("Type of argument does not match formal parameter 'c0'"); it takes an
                // `.f16` `c` or `d` `{%r1, %p1}`, which ptxsim refuses (D49).
                RegisterRule::OneOf(_)
                    if elements
                        .iter()
                        .any(|e| matches!(e, Element::Register(t) if !element.accepts(*t)))
                        && (matches!(slot.name, "a" | "b")
                            || !elements
                                .iter()
                                .any(|e| matches!(e, Element::Register(Type::Pred)))) =>
                {
                    match memory_vector_type(elements) {
                        Ok(Some(joined)) if element.accepts(joined) => Some(joined),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(joined) = joined
                && !accepts(joined)
            {
                return Some(Violation::new(
                    RuleCode::RegisterType,
                    here,
                    format!(
                        "the elements of `{}` make a `{joined}` vector; it must be {}",
                        slot.name,
                        element.describe()
                    ),
                ));
            }
            elements.iter().enumerate().find_map(|(position, e)| {
                let at = Location::Element {
                    operand: index,
                    element: position,
                };
                match e {
                    Element::Register(_) if joined.is_some() => None,
                    Element::Register(t) if accepts(*t) => None,
                    Element::Register(t) => Some(Violation::new(
                        RuleCode::RegisterType,
                        at,
                        format!(
                            "each element of `{}` must be {}, not a `{t}` register",
                            slot.name,
                            element.describe()
                        ),
                    )),
                    // `ld.v2.u32 {%r1, _}, [a]`: a destination element may be discarded.
                    Element::Sink if slot.is_destination => None,
                    Element::Sink => Some(Violation::new(
                        RuleCode::SinkIllegal,
                        at,
                        "the sink `_` may only be an element of a destination vector",
                    )),
                    Element::Immediate(_) if slot.is_destination => Some(Violation::new(
                        RuleCode::OperandShape,
                        at,
                        format!("each element of `{}` must be a register", slot.name),
                    )),
                    Element::Immediate(literal) if element.takes_literal(*literal) => None,
                    Element::Immediate(literal) if element.takes_immediates() => Some(
                        literal_violation(at, slot.name, element.instruction_type(), *literal),
                    ),
                    Element::Immediate(_) => Some(Violation::new(
                        RuleCode::OperandShape,
                        at,
                        format!("each element of `{}` must be a register", slot.name),
                    )),
                    Element::Other => None,
                }
            })
        }
        (SlotShape::Vector { length, .. }, _) => Some(Violation::new(
            RuleCode::OperandShape,
            here,
            format!(
                "operand `{}` must be a brace vector of {length} registers",
                slot.name
            ),
        )),
    }
}

/// An immediate of a kind the operand's type does not take (ptxas: "Arguments mismatch").
pub(crate) fn literal_violation(
    location: Location,
    name: &str,
    ty: Type,
    literal: Literal,
) -> Violation {
    let takes: Vec<&str> = [
        (Literal::Integer, "an integer"),
        (Literal::Decimal, "a decimal float"),
        (Literal::F32Bits, "`0f` bits"),
        (Literal::F64Bits, "`0d` bits"),
    ]
    .into_iter()
    .filter(|(kind, _)| kind.fits(ty))
    .map(|(_, words)| words)
    .collect();
    let violation = Violation::new(
        RuleCode::LiteralKind,
        location,
        format!(
            "operand `{name}` ({ty}) takes {}, not {}",
            takes.join(" or "),
            literal.describe()
        ),
    );
    if literal == Literal::Integer && Literal::Decimal.fits(ty) {
        violation.with_fix("write the value as a float, e.g. `7.0` instead of `7`")
    } else {
        violation
    }
}

/// The type ptxas 13.5 gives a brace vector of `ld`/`st`/`ldu`/`suld.b`/`sust.b` registers of
/// different types, which it then checks against the instruction type as one register of that
/// type (Table 28 for `ld`): `None` when the registers are all of one type (each is checked
/// alone), else the bit-size type of their width, or why the vector has none. The PTX ISA says
/// nothing of mixed vectors; ptxas 13.5 says, for elements of different widths (a `.pred`
/// register counting as 32 bits), "Incompatible elements of vector expression" (`{%r1, %rd1}`,
/// `{%rd1, %p1}`); for elements of one width but different kinds, none of them a bit-size
/// register (`.f32` with `.u32`, `.u32` with `.pred`; signed and unsigned integers are one
/// kind, and ptxas compares each element with the next), "Vector with elements of different
/// types are not allowed in ld instruction"; and it
/// takes `ld.shared.v2.u32 {%f1, %r1}` (`.f32` with `.b32`: a `.b32` vector) and `{%r1, %p1}`,
/// while `{%f1, %f2}` and `{%p1, %p1}` are "Arguments mismatch for instruction 'ld'".
fn memory_vector_type(elements: &[Element]) -> Result<Option<Type>, &'static str> {
    let registers: Vec<Type> = elements
        .iter()
        .filter_map(|e| match e {
            Element::Register(t) => Some(*t),
            _ => None,
        })
        .collect();
    let Some(&first) = registers.first() else {
        return Ok(None);
    };
    if registers.iter().all(|&t| t == first) {
        return Ok(None);
    }
    let width = |t: Type| if t == Type::Pred { 32 } else { t.bits() };
    if registers.iter().any(|&t| width(t) != width(first)) {
        return Err(
            "are registers of different widths (ptxas: Incompatible elements of vector \
                    expression)",
        );
    }
    let kind = |t: Type| match t.kind() {
        TypeKind::Unsigned | TypeKind::Signed => TypeKind::Unsigned,
        other => other,
    };
    // Neighbour by neighbour: `{%f1, %r1, %u1, %u1}` is taken, `{%r1, %f1, %u1, %u1}` refused.
    let fits = |a: Type, b: Type| {
        a.kind() == TypeKind::Bit || b.kind() == TypeKind::Bit || kind(a) == kind(b)
    };
    if registers.windows(2).any(|pair| !fits(pair[0], pair[1])) {
        return Err(
            "are registers of different types (ptxas: Vector with elements of \
                    different types are not allowed)",
        );
    }
    Ok(Some(
        registers
            .iter()
            .copied()
            .find(|t| t.kind() == TypeKind::Bit)
            .unwrap_or(first),
    ))
}
