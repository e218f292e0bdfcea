//! `mov` (PTX ISA 9.7.9.4): the scalar form and the pack/unpack form.

use crate::form::{
    DecodeError, DecodeErrorKind, Element, Indexed, Location, Operand, RuleCode, SymbolKind,
    Violation,
};
use crate::layout::literal_violation;
use crate::operand_size::{DestinationRule, SourceRule, destination_rule, source_rule};
use crate::types::{Type, TypeKind};

/// Instruction types of the scalar `mov d, a` form.
pub const MOV_TYPES: &[Type] = &[
    Type::Pred,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
];

/// Instruction types of the pack/unpack form: `.type = { .b16, .b32, .b64, .b128 }`.
pub const MOV_PACK_TYPES: &[Type] = &[Type::B16, Type::B32, Type::B64, Type::B128];

/// A decoded `mov`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovForm {
    /// The instruction type.
    pub ty: Indexed<Type>,
    /// `.v2` or `.v4`: an element-wise move of that many elements (ptxas takes
    /// `mov.v2.u32 {%r1, %r2}, {%r3, %r4}`, vectors of up to 128 bits, no `.pred`; `.v8` decodes
    /// but is reported).
    pub vector: Option<Indexed<u32>>,
}

impl MovForm {
    /// The canonical spelling, e.g. `mov.b64` or `mov.v2.u32`.
    pub fn text(&self) -> String {
        match self.vector {
            Some(v) => format!("mov.v{}{}", v.value, self.ty.value),
            None => format!("mov{}", self.ty.value),
        }
    }
}

pub(crate) fn decode_mov(modifiers: &[&str]) -> Result<MovForm, DecodeError> {
    let mut ty: Option<Indexed<Type>> = None;
    let mut vector: Option<Indexed<u32>> = None;
    for (index, &modifier) in modifiers.iter().enumerate() {
        let count = match modifier {
            "v2" => Some(2),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        };
        if let Some(count) = count {
            if vector.is_some() {
                return Err(DecodeError::new(
                    DecodeErrorKind::DuplicateModifier,
                    Some(index),
                    "mov takes one vector size",
                ));
            }
            vector = Some(Indexed {
                value: count,
                index,
            });
            continue;
        }
        let Some(t) = Type::from_name(modifier) else {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!("`.{modifier}` is not a mov modifier"),
            ));
        };
        if ty.is_some() {
            return Err(DecodeError::new(
                DecodeErrorKind::ExtraType,
                Some(index),
                "mov takes one type",
            )
            .with_fix(format!("remove `.{modifier}`")));
        }
        if !MOV_TYPES.contains(&t) {
            let fix = match t.bits() {
                16 => "use `.b16`",
                32 => "use `.b32`",
                8 => "mov has no 8-bit types; use `.b16` with a wider register",
                _ => "use a `.bX`, `.uX`, `.sX`, `.f32`, `.f64` or `.pred` type",
            };
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(index),
                format!("mov has no `{t}` form"),
            )
            .with_fix(fix));
        }
        ty = Some(Indexed { value: t, index });
    }
    match ty {
        Some(ty) => Ok(MovForm { ty, vector }),
        None => Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "mov needs a type, e.g. `mov.b32`",
        )),
    }
}

/// Whether a scalar register may be a `mov.T` operand: same size and a "–" cell of Tables 27/28
/// (no conversion; `mov` does not take the relaxed wider registers). `.pred` only with `.pred`;
/// an `.f16x2` register behaves as a 32-bit integer register (see layout.rs).
fn scalar_fits(ty: Type, register: Type, destination: bool) -> bool {
    if ty == Type::Pred || register == Type::Pred {
        return ty == register;
    }
    let column = if register == Type::F16x2 {
        Type::U32
    } else {
        register
    };
    if destination {
        destination_rule(ty, column) == Some(DestinationRule::NoConversion)
    } else {
        source_rule(ty, column) == Some(SourceRule::NoConversion)
    }
}

fn check_scalar(ty: Type, operand: &Operand, index: usize, out: &mut Vec<Violation>) {
    let destination = index == 0;
    match operand {
        Operand::Register(r) if scalar_fits(ty, *r, destination) => {}
        Operand::Register(r) => out.push(Violation::new(
            RuleCode::RegisterType,
            Location::Operand(index),
            format!(
                "mov{ty} needs a {}-bit register of a compatible type, not `{r}`",
                ty.bits()
            ),
        )),
        Operand::Immediate(literal) if !destination && literal.fits(ty) => {}
        Operand::Immediate(literal) if !destination => out.push(literal_violation(
            Location::Operand(index),
            "a",
            ty,
            *literal,
        )),
        Operand::Special(width) if !destination => {
            let integer = ty.is_integer() || ty.kind() == TypeKind::Bit;
            if !integer || ty == Type::B128 {
                out.push(Violation::new(
                    RuleCode::SpecialRegister,
                    Location::Operand(index),
                    format!("a special register cannot be read by mov{ty}, only by integer movs"),
                ));
            } else if !width.moves_to(ty.bits()) {
                out.push(Violation::new(
                    RuleCode::SpecialRegister,
                    Location::Operand(index),
                    format!(
                        "mov{ty} cannot read {}: a mov reads a special register at its width",
                        width.describe()
                    ),
                ));
            }
        }
        Operand::Symbol(kind) if !destination && !kind.moves_to(ty) => out.push(Violation::new(
            RuleCode::OperandShape,
            Location::Operand(index),
            format!("mov{ty} cannot take an address: use an integer or bit type"),
        )),
        Operand::Symbol(SymbolKind::Function)
            if !destination && !matches!(ty, Type::U32 | Type::B32 | Type::U64 | Type::B64) =>
        {
            out.push(
                Violation::new(
                    RuleCode::FunctionAddressType,
                    Location::Operand(index),
                    format!(
                        "a function's address is moved with mov.u32, mov.b32, mov.u64 or \
                         mov.b64, not mov{ty}"
                    ),
                )
                .with_fix("use mov.u64 (mov.u32 with .address_size 32)"),
            )
        }
        Operand::Symbol(_) if !destination => {}
        Operand::Address => out.push(Violation::new(
            RuleCode::OperandShape,
            Location::Operand(index),
            "mov takes registers, immediates and addresses of names, not a memory operand `[...]`",
        )),
        Operand::Other | Operand::PredicatePair(..) => {}
        Operand::Sink => out.push(Violation::new(
            RuleCode::SinkIllegal,
            Location::Operand(index),
            "the sink `_` may only be an element of a destination vector",
        )),
        Operand::Immediate(_) | Operand::Vector(_) | Operand::Special(_) | Operand::Symbol(_) => {
            out.push(Violation::new(
                RuleCode::OperandShape,
                Location::Operand(index),
                "the destination must be a register",
            ))
        }
    }
}

fn check_vector(ty: Type, elements: &[Element], index: usize, out: &mut Vec<Violation>) {
    let destination = index == 0;
    if !MOV_PACK_TYPES.contains(&ty) {
        out.push(
            Violation::new(
                RuleCode::TypeModifier,
                Location::Operand(index),
                format!("pack/unpack needs `.b16`, `.b32`, `.b64` or `.b128`, not `{ty}`"),
            )
            .with_fix(format!("use `.b{}`", ty.bits())),
        );
        return;
    }
    if !matches!(elements.len(), 2 | 4) {
        out.push(Violation::new(
            RuleCode::VectorLength,
            Location::Operand(index),
            "a mov vector has 2 or 4 elements",
        ));
        return;
    }
    let element_bits = ty.bits() / elements.len() as u32;
    if element_bits < 8 {
        out.push(Violation::new(
            RuleCode::VectorLength,
            Location::Operand(index),
            format!(
                "{} elements do not fit mov{ty} (no elements narrower than 8 bits)",
                elements.len()
            ),
        ));
        return;
    }
    // A `.pred` register is a 32-bit element beside a 32-bit bit-size register (ptxas 13.5
    // takes `mov.b64 {%r1, %p1}, %rd1` and `mov.b64 %rd1, {%p1, %r1}`, and refuses `{%p1,
    // %p1}`: "Arguments mismatch for instruction 'mov'"), as in `ld`/`st` vectors.
    let predicate_fits = element_bits == 32
        && elements
            .iter()
            .any(|e| matches!(e, Element::Register(t) if *t == Type::B32));
    let mut registers = 0;
    for (position, element) in elements.iter().enumerate() {
        let at = Location::Element {
            operand: index,
            element: position,
        };
        match element {
            Element::Register(r) if r.bits() == element_bits && *r != Type::Pred => registers += 1,
            Element::Register(Type::Pred) if predicate_fits => registers += 1,
            Element::Register(r) => out.push(Violation::new(
                RuleCode::RegisterType,
                at,
                format!(
                    "the vector's overall size must match mov{ty}: each of {} elements is {element_bits} bits, not a `{r}` register",
                    elements.len()
                ),
            )),
            Element::Sink if destination => {}
            Element::Sink => out.push(sink_in_source(at)),
            Element::Immediate(_) | Element::Other => registers += 1,
        }
    }
    // ptxas 13.5: "Vector with elements of different types are not allowed in mov instruction";
    // bit-size elements mix with anything, signed with unsigned, otherwise types must be equal.
    let typed: Vec<(usize, Type)> = elements
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Element::Register(t) => Some((i, *t)),
            Element::Sink | Element::Immediate(_) | Element::Other => None,
        })
        .collect();
    if let Some(&(position, t)) = typed
        .iter()
        .find(|(_, t)| typed.iter().any(|(_, u)| !elements_compatible(*t, *u)))
    {
        out.push(Violation::new(
            RuleCode::RegisterType,
            Location::Element { operand: index, element: position },
            format!("the elements of a mov vector must have one type (bit-size and integer types mix), but `{t}` does not fit the others"),
        ));
    }
    if destination && registers == 0 && out.is_empty() {
        out.push(only_sinks(index));
    }
}

/// A sink `_` among the elements of a source vector.
fn sink_in_source(at: Location) -> Violation {
    Violation::new(
        RuleCode::SinkIllegal,
        at,
        "the sink `_` may only be used in a destination vector",
    )
}

/// A destination vector of sinks only.
fn only_sinks(index: usize) -> Violation {
    Violation::new(
        RuleCode::SinkIllegal,
        Location::Operand(index),
        "a destination vector needs at least one register besides sinks `_`",
    )
}

fn elements_compatible(a: Type, b: Type) -> bool {
    a == b
        || a.kind() == TypeKind::Bit
        || b.kind() == TypeKind::Bit
        || (a.is_integer() && b.is_integer())
}

pub(crate) fn validate_mov(form: &MovForm, operands: &[Operand]) -> Vec<Violation> {
    let ty = form.ty.value;
    let mut out = Vec::new();
    if let Some(vector) = form.vector {
        validate_vector_mov(ty, vector, operands, &mut out);
        return out;
    }
    if operands.len() != 2 {
        out.push(Violation::new(
            RuleCode::OperandCount,
            if operands.len() > 2 {
                Location::Operand(2)
            } else {
                Location::Instruction
            },
            format!("mov takes 2 operands (d, a), not {}", operands.len()),
        ));
        return out;
    }
    match (&operands[0], &operands[1]) {
        (Operand::Vector(_), Operand::Vector(_)) => out.push(Violation::new(
            RuleCode::OperandShape,
            Location::Operand(1),
            "mov packs a vector into a scalar or unpacks a scalar into a vector, not vector to vector",
        )),
        (Operand::Vector(elements), scalar) => {
            check_vector(ty, elements, 0, &mut out);
            check_scalar(ty, scalar, 1, &mut out);
        }
        (scalar, Operand::Vector(elements)) => {
            check_scalar(ty, scalar, 0, &mut out);
            check_vector(ty, elements, 1, &mut out);
        }
        (d, a) => {
            check_scalar(ty, d, 0, &mut out);
            check_scalar(ty, a, 1, &mut out);
        }
    }
    out
}

/// `mov.vN.T d, a` (`.vN` before or after the type): both operands are vectors of `N` = 2 or 4
/// elements (brace vectors, or vector registers, which the rules do not see); each element as
/// the scalar form's operand of `T`; at most 128 bits ("Vector type too large, exceeds 128 bit
/// limit"); no `.pred` ("Vector operand is not allowed for instruction 'mov'"). Measured in
/// `tests/conformance/mov-vector.tsv`.
fn validate_vector_mov(
    ty: Type,
    vector: Indexed<u32>,
    operands: &[Operand],
    out: &mut Vec<Violation>,
) {
    let count = vector.value;
    if ty == Type::Pred || ty == Type::B128 {
        out.push(Violation::new(
            RuleCode::TypeModifier,
            Location::Modifier(vector.index),
            format!("mov.v{count} has no `{ty}` elements"),
        ));
        return;
    }
    if count == 8 {
        // ptxas: "Illegal vector size: 8" (or "exceeds 128 bit limit" for wider elements).
        out.push(Violation::new(
            RuleCode::VectorLength,
            Location::Modifier(vector.index),
            "a mov vector has 2 or 4 elements",
        ));
        return;
    }
    if count * ty.bits() > 128 {
        out.push(Violation::new(
            RuleCode::VectorLength,
            Location::Modifier(vector.index),
            format!(
                "mov.v{count}{ty} moves {} bits; a vector holds at most 128",
                count * ty.bits()
            ),
        ));
        return;
    }
    if operands.len() != 2 {
        out.push(Violation::new(
            RuleCode::OperandCount,
            Location::Instruction,
            format!("mov takes 2 operands (d, a), not {}", operands.len()),
        ));
        return;
    }
    for (index, operand) in operands.iter().enumerate() {
        let destination = index == 0;
        // ptxas 13.5 takes a scalar source of the element's type or a constant, for every
        // element (`mov.v2.u32 {%r1, %r2}, %r3`; "Arguments mismatch for instruction 'mov'" for
        // a `.u64` register there): it is checked as one element.
        let scalar;
        let elements: &[Element] = match operand {
            Operand::Vector(elements) => elements,
            Operand::Register(ty) if !destination => {
                scalar = [Element::Register(*ty)];
                &scalar
            }
            Operand::Immediate(literal) if !destination => {
                scalar = [Element::Immediate(*literal)];
                &scalar
            }
            Operand::Other | Operand::PredicatePair(..) => continue,
            // So is a variable's address (`mov.v2.s16 {%h1, _}, sym`) and a 32-bit special
            // register in a 32-bit integer or bit type (`mov.v2.u32 {%r1, %r2}, %tid.x`);
            // ptxas 13.5 refuses one for `.f64` ("Special register argument not allowed for
            // instruction 'mov'") and `.s64` ("Arguments mismatch").
            Operand::Symbol(_) if !destination => continue,
            Operand::Special(width)
                if !destination
                    && ty.bits() == 32
                    && ty.kind() != crate::types::TypeKind::Float
                    && width.converts_from(32) =>
            {
                continue;
            }
            _ => {
                out.push(Violation::new(
                    RuleCode::OperandShape,
                    Location::Operand(index),
                    format!("mov.v{count} moves vectors: write `{{...}}` with {count} elements"),
                ));
                continue;
            }
        };
        if matches!(operand, Operand::Vector(_)) && elements.len() != count as usize {
            out.push(Violation::new(
                RuleCode::VectorLength,
                Location::Operand(index),
                format!(
                    "mov.v{count} needs {count} elements, not {}",
                    elements.len()
                ),
            ));
            continue;
        }
        let mut registers = 0;
        for (position, element) in elements.iter().enumerate() {
            let at = match operand {
                Operand::Vector(_) => Location::Element {
                    operand: index,
                    element: position,
                },
                _ => Location::Operand(index),
            };
            match element {
                Element::Register(r) if scalar_fits(ty, *r, destination) => registers += 1,
                Element::Register(r) => out.push(Violation::new(
                    RuleCode::RegisterType,
                    at,
                    format!(
                        "each element of mov.v{count}{ty} is a {}-bit register of a compatible \
                         type, not `{r}`",
                        ty.bits()
                    ),
                )),
                // In a vector, ptxas takes any literal for a bit type (`{1.5, %b}` for
                // `.b16`, `{0f3F800000, %b}` for `.b64`), the scalar rules otherwise.
                Element::Immediate(literal)
                    if !destination && (ty.kind() == TypeKind::Bit || literal.fits(ty)) => {}
                Element::Immediate(literal) if !destination => {
                    out.push(literal_violation(at, "a", ty, *literal));
                }
                Element::Sink if destination => {}
                Element::Sink => out.push(sink_in_source(at)),
                Element::Immediate(_) => out.push(Violation::new(
                    RuleCode::OperandShape,
                    at,
                    "a destination element must be a register or `_`",
                )),
                Element::Other => registers += 1,
            }
        }
        if destination && registers == 0 {
            out.push(only_sinks(0));
        }
    }
}
