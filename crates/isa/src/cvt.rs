//! `cvt` (PTX ISA 9.7.9.21) and `cvt.pack` (9.7.9.22): the syntax table, modifier decoding and
//! the modifier and operand rules.

use crate::form::{
    DecodeError, DecodeErrorKind, Indexed, Literal, Location, Operand, RuleCode, Violation,
};
use crate::layout::{OperandSlot, RegisterRule, SlotShape, check_slots};
use crate::opcode::Rounding;
use crate::types::{Type, TypeKind};

use CvtOperands::{FourWithRandomBits as Four, One, Two, TwoWithRandomBits as TwoRbits};
use Presence::{Forbidden, Optional, Required};
use RuleCode::{
    FtzIllegal, ReluIllegal, RoundingIllegal, RoundingRequired, SatIllegal, SatfiniteIllegal,
    SatfiniteRequired, ScaledIllegal,
};
use Type::*;

/// Whether a modifier may, must or must not appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Must not appear.
    Forbidden,
    /// May appear.
    Optional,
    /// Must appear.
    Required,
}

/// The rounding rule of one syntax line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundingRule {
    /// The scalar lines `cvt{.irnd}/{.frnd}{.ftz}{.sat}.dtype.atype`: mandatory, optional or
    /// illegal depending on the conversion (cvt.md "Integer Notes", "Floating Point Notes").
    ByConversion,
    /// Exactly one of these is mandatory.
    OneOf(&'static [Rounding]),
}

/// How the operands of a syntax line are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtOperands {
    /// `d, a`
    One,
    /// `d, a, b`
    Two,
    /// `d, a, b, rbits`
    TwoWithRandomBits,
    /// `d, {a, b, e, f}, rbits`
    FourWithRandomBits,
}

/// One line of the cvt Syntax block of cvt.md, with its type sets expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CvtSyntax {
    /// The line as the spec writes it.
    pub syntax: &'static str,
    /// Allowed `.dtype`s.
    pub destination: &'static [Type],
    /// Allowed `.atype`s.
    pub source: &'static [Type],
    /// Which rounding modifiers are allowed or required.
    pub rounding: RoundingRule,
    /// Whether `{.ftz}{.sat}` appear (the scalar lines only).
    pub ftz_sat: bool,
    /// Whether `{.relu}` appears.
    pub relu: bool,
    /// `.satfinite`.
    pub satfinite: Presence,
    /// Whether `{.scaled::n2::ue8m0}` and `{, scale-factor}` appear.
    pub scaled: bool,
    /// The operand layout.
    pub operands: CvtOperands,
}

/// `.dtype = .atype` of the scalar lines.
pub const SCALAR_TYPES: &[Type] = &[U8, U16, U32, U64, S8, S16, S32, S64, Bf16, F16, F32, F64];
const INTEGER_TYPES: &[Type] = &[U8, U16, U32, U64, S8, S16, S32, S64];
const F8X2: &[Type] = &[E4m3x2, E5m2x2];
const F4X2: &[Type] = &[E2m1x2];
const F6X2: &[Type] = &[E2m3x2, E3m2x2];
const F8X4: &[Type] = &[E4m3x4, E5m2x4];
const F4X4: &[Type] = &[E2m1x4];
const F6X4: &[Type] = &[E2m3x4, E3m2x4];
const FP16X2: &[Type] = &[F16x2, Bf16x2];
const FRND2: &[Rounding] = &[Rounding::Rn, Rounding::Rz];
const FRND3: &[Rounding] = &[Rounding::Rz, Rounding::Rp];
const RN: &[Rounding] = &[Rounding::Rn];
const RS: &[Rounding] = &[Rounding::Rs];
const RNA: &[Rounding] = &[Rounding::Rna];

const fn line(
    syntax: &'static str,
    destination: &'static [Type],
    source: &'static [Type],
    rounding: &'static [Rounding],
    relu: bool,
    satfinite: Presence,
    operands: CvtOperands,
) -> CvtSyntax {
    CvtSyntax {
        syntax,
        destination,
        source,
        rounding: RoundingRule::OneOf(rounding),
        ftz_sat: false,
        relu,
        satfinite,
        scaled: false,
        operands,
    }
}

const fn scaled(mut syntax: CvtSyntax) -> CvtSyntax {
    syntax.scaled = true;
    syntax
}

/// The cvt Syntax block of cvt.md (PTX ISA 9.1), one entry per line, in the spec's order. The
/// two scalar lines (`.irnd` and `.frnd`) are one entry whose rounding rule depends on the
/// conversion.
#[rustfmt::skip]
pub const CVT_SYNTAX: &[CvtSyntax] = &[
    CvtSyntax {
        syntax: "cvt{.irnd|.frnd}{.ftz}{.sat}.dtype.atype d, a",
        destination: SCALAR_TYPES,
        source: SCALAR_TYPES,
        rounding: RoundingRule::ByConversion,
        ftz_sat: true,
        relu: false,
        satfinite: Forbidden,
        scaled: false,
        operands: One,
    },
    //   syntax line                                                      .dtype      .atype   rounding relu satfinite operands
    line("cvt.frnd2{.relu}{.satfinite}.f16.f32 d, a",                     &[F16],     &[F32],  FRND2, true,  Optional,  One),
    line("cvt.frnd2{.relu}{.satfinite}.f16x2.f32 d, a, b",                &[F16x2],   &[F32],  FRND2, true,  Optional,  Two),
    line("cvt.rs{.relu}{.satfinite}.f16x2.f32 d, a, b, rbits",            &[F16x2],   &[F32],  RS,    true,  Optional,  TwoRbits),
    line("cvt.frnd2{.relu}{.satfinite}.bf16.f32 d, a",                    &[Bf16],    &[F32],  FRND2, true,  Optional,  One),
    line("cvt.frnd2{.relu}{.satfinite}.bf16x2.f32 d, a, b",               &[Bf16x2],  &[F32],  FRND2, true,  Optional,  Two),
    line("cvt.rs{.relu}{.satfinite}.bf16x2.f32 d, a, b, rbits",           &[Bf16x2],  &[F32],  RS,    true,  Optional,  TwoRbits),
    line("cvt.rna{.satfinite}.tf32.f32 d, a",                             &[Tf32],    &[F32],  RNA,   false, Optional,  One),
    line("cvt.frnd2{.satfinite}{.relu}.tf32.f32 d, a",                    &[Tf32],    &[F32],  FRND2, true,  Optional,  One),
    line("cvt.rn.satfinite{.relu}.f8x2type.f32 d, a, b",                  F8X2,       &[F32],  RN,    true,  Required,  Two),
    line("cvt.rn.satfinite{.relu}.f8x2type.fp16x2 d, a",                  F8X2,       FP16X2,  RN,    true,  Required,  One),
    line("cvt.rn{.relu}.f16x2.f8x2type d, a",                             &[F16x2],   F8X2,    RN,    true,  Forbidden, One),
    line("cvt.rs{.relu}.satfinite.f8x4type.f32 d, {a, b, e, f}, rbits",   F8X4,       &[F32],  RS,    true,  Required,  Four),
    line("cvt.rn.satfinite{.relu}.f4x2type.f32 d, a, b",                  F4X2,       &[F32],  RN,    true,  Required,  Two),
    line("cvt.rn.satfinite{.relu}.f4x2type.fp16x2type d, a",              F4X2,       FP16X2,  RN,    true,  Required,  One),
    line("cvt.rn{.relu}.f16x2.f4x2type d, a",                             &[F16x2],   F4X2,    RN,    true,  Forbidden, One),
    line("cvt.rs{.relu}.satfinite.f4x4type.f32 d, {a, b, e, f}, rbits",   F4X4,       &[F32],  RS,    true,  Required,  Four),
    line("cvt.rn.satfinite{.relu}.f6x2type.f32 d, a, b",                  F6X2,       &[F32],  RN,    true,  Required,  Two),
    line("cvt.rn.satfinite{.relu}.f6x2type.fp16x2type d, a",              F6X2,       FP16X2,  RN,    true,  Required,  One),
    line("cvt.rn{.relu}.f16x2.f6x2type d, a",                             &[F16x2],   F6X2,    RN,    true,  Forbidden, One),
    line("cvt.rs{.relu}.satfinite.f6x4type.f32 d, {a, b, e, f}, rbits",   F6X4,       &[F32],  RS,    true,  Required,  Four),
    line("cvt.frnd3{.satfinite}.ue8m0x2.f32 d, a, b",                     &[Ue8m0x2], &[F32],  FRND3, false, Optional,  Two),
    line("cvt.frnd3{.satfinite}.ue8m0x2.bf16x2 d, a",                     &[Ue8m0x2], &[Bf16x2], FRND3, false, Optional, One),
    line("cvt.rn.bf16x2.ue8m0x2 d, a",                                    &[Bf16x2],  &[Ue8m0x2], RN,  false, Forbidden, One),
    // Not in the PTX ISA 9.1 text of ../shared/spec: PTX ISA 9.2 added the `.bf16x2`
    // destination to the three `.f16x2.fNx2type` lines above. nvcc 13.5 emits
    // `cvt.rn.bf16x2.e2m1x2` for `__nv_cvt_fp4x2_to_bfloat162x2` (ptx-samples/nvcc/
    // fp4_convert.sm_100a.ptx); ptxas 13.5 accepts all five types, with and without `.relu`,
    // from `.version 9.2` ("Feature 'cvt.bf16x2.e2m1x2' requires PTX ISA .version 9.2"), and
    // `.satfinite` on them (ptx-samples/hand/cvt_packed_ptx95_sm100f.ptx, ptxas the oracle).
    line("cvt.rn{.relu}{.satfinite}.bf16x2.f8x2type d, a",               &[Bf16x2],  F8X2,    RN,    true,  Optional,  One),
    line("cvt.rn{.relu}{.satfinite}.bf16x2.f4x2type d, a",               &[Bf16x2],  F4X2,    RN,    true,  Optional,  One),
    line("cvt.rn{.relu}{.satfinite}.bf16x2.f6x2type d, a",               &[Bf16x2],  F6X2,    RN,    true,  Optional,  One),
    scaled(line("cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.f32 d, a, b{, scale-factor}",
                &[S2f6x2], &[F32], RN, true, Required, Two)),
    scaled(line("cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.bf16x2 d, a{, scale-factor}",
                &[S2f6x2], &[Bf16x2], RN, true, Required, One)),
    scaled(line("cvt.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.s2f6x2 d, a{, scale-factor}",
                &[Bf16x2], &[S2f6x2], RN, true, Optional, One)),
];

/// The spelling of the scale qualifier (cvt.md: "Optional qualifier `.scaled::n2::ue8m0`").
pub const SCALED: &str = "scaled::n2::ue8m0";

/// A decoded `cvt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CvtForm {
    /// `.dtype`.
    pub destination: Indexed<Type>,
    /// `.atype`.
    pub source: Indexed<Type>,
    /// The rounding modifier, if any.
    pub rounding: Option<Indexed<Rounding>>,
    /// Index of `.ftz`, if present.
    pub ftz: Option<usize>,
    /// Index of `.sat`, if present.
    pub sat: Option<usize>,
    /// Index of `.relu`, if present.
    pub relu: Option<usize>,
    /// Index of `.satfinite`, if present.
    pub satfinite: Option<usize>,
    /// Index of `.scaled::n2::ue8m0`, if present.
    pub scaled: Option<usize>,
    /// The syntax line of [`CVT_SYNTAX`] this instruction is checked against: among the lines
    /// whose types match, the one its modifiers break the fewest rules of.
    pub syntax: &'static CvtSyntax,
}

/// How a scalar conversion relates its types (cvt.md "Integer Notes", "Floating Point Notes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Integer to integer.
    IntToInt,
    /// Integer to floating point.
    IntToFloat,
    /// Floating point to integer.
    FloatToInt,
    /// Floating point to a narrower floating point.
    FloatNarrowing,
    /// Floating point to the same type.
    FloatSame,
    /// Between `.f16` and `.bf16` (same size, either way loses precision).
    FloatSameSize,
    /// Floating point to a wider floating point.
    FloatWidening,
}

/// Classifies a scalar conversion.
pub fn conversion(destination: Type, source: Type) -> Conversion {
    match (destination.is_float(), source.is_float()) {
        (false, false) => Conversion::IntToInt,
        (true, false) => Conversion::IntToFloat,
        (false, true) => Conversion::FloatToInt,
        (true, true) if destination == source => Conversion::FloatSame,
        (true, true) if destination.bits() < source.bits() => Conversion::FloatNarrowing,
        (true, true) if destination.bits() == source.bits() => Conversion::FloatSameSize,
        (true, true) => Conversion::FloatWidening,
    }
}

/// The roundings a scalar conversion allows, and whether one is required.
///
/// * float-to-int: an integer rounding is required ("Integer rounding is required for
///   float-to-integer conversions").
/// * int-to-float and float narrowing: a float rounding is required.
/// * same type float: an integer rounding is optional ("same-size float-to-float conversions
///   where the value is rounded to an integer").
/// * `.f16`<->`.bf16`: a float rounding is optional (loss of precision, not narrower).
/// * widening from `.bf16`: a float rounding is optional; the spec's own example is
///   `cvt.f64.bf16.rp` and ptxas 13.5 accepts it. Other widenings and int-to-int take none.
pub fn scalar_rounding(destination: Type, source: Type) -> (&'static [Rounding], bool) {
    match conversion(destination, source) {
        Conversion::IntToInt => (&[], false),
        Conversion::IntToFloat | Conversion::FloatNarrowing => (Rounding::FLOAT, true),
        Conversion::FloatToInt => (Rounding::INTEGER, true),
        Conversion::FloatSame => (Rounding::INTEGER, false),
        Conversion::FloatSameSize => (Rounding::FLOAT, false),
        Conversion::FloatWidening if source == Bf16 => (Rounding::FLOAT, false),
        Conversion::FloatWidening => (&[], false),
    }
}

/// Whether `.sat` is legal on a scalar conversion (cvt.md "Saturation modifier"): for integer
/// destinations only when the destination range is not a superset of the source range (always
/// for float sources, where it is redundant); for `.f16`/`.f32`/`.f64` destinations always.
/// ptxas 13.5 rejects `.sat` whenever `.bf16` is the source or destination ("Applies to
/// `.f16`, `.f32`, and `.f64` types").
pub fn scalar_sat_allowed(destination: Type, source: Type) -> bool {
    if destination == Bf16 || source == Bf16 {
        return false;
    }
    match (destination.integer_range(), source.integer_range()) {
        (Some((dmin, dmax)), Some((smin, smax))) => !(dmin <= smin && smax <= dmax),
        (Some(_), None) => true,
        (None, _) => matches!(destination, F16 | F32 | F64),
    }
}

fn unknown_modifier(index: usize, modifier: &str) -> DecodeError {
    let error = DecodeError::new(
        DecodeErrorKind::UnknownModifier,
        Some(index),
        format!("`.{modifier}` is not a cvt modifier"),
    );
    if modifier.starts_with("scaled") {
        error.with_fix(format!("the only scale qualifier is `.{SCALED}`"))
    } else {
        error
    }
}

fn set_flag(slot: &mut Option<usize>, index: usize, modifier: &str) -> Result<(), DecodeError> {
    if slot.is_some() {
        return Err(DecodeError::new(
            DecodeErrorKind::DuplicateModifier,
            Some(index),
            format!("`.{modifier}` appears twice"),
        )
        .with_fix("remove the repeated modifier"));
    }
    *slot = Some(index);
    Ok(())
}

/// Decodes the modifiers of a `cvt` (not `cvt.pack`). Modifiers may come in any order
/// (`cvt.f64.bf16.rp` is a spec example); the first type modifier is `.dtype`, the second
/// `.atype`.
pub(crate) fn decode_cvt(modifiers: &[&str]) -> Result<CvtForm, DecodeError> {
    let mut rounding: Option<Indexed<Rounding>> = None;
    let (mut ftz, mut sat, mut relu, mut satfinite, mut scaled) = (None, None, None, None, None);
    let mut types: Vec<Indexed<Type>> = Vec::new();
    for (index, &modifier) in modifiers.iter().enumerate() {
        if let Some(r) = Rounding::from_name(modifier) {
            if let Some(previous) = rounding {
                return Err(DecodeError::new(
                    DecodeErrorKind::ConflictingModifier,
                    Some(index),
                    format!(
                        "at most one rounding modifier; `{}` is already given",
                        previous.value
                    ),
                )
                .with_fix(format!("remove `.{modifier}`")));
            }
            rounding = Some(Indexed { value: r, index });
            continue;
        }
        match modifier {
            "ftz" => set_flag(&mut ftz, index, modifier)?,
            "sat" => set_flag(&mut sat, index, modifier)?,
            "relu" => set_flag(&mut relu, index, modifier)?,
            "satfinite" => set_flag(&mut satfinite, index, modifier)?,
            SCALED => set_flag(&mut scaled, index, modifier)?,
            _ => match Type::from_name(modifier) {
                Some(t) => {
                    if types.len() == 2 {
                        return Err(DecodeError::new(
                            DecodeErrorKind::ExtraType,
                            Some(index),
                            "cvt takes two type modifiers, `.dtype.atype`",
                        )
                        .with_fix(format!("remove `.{modifier}`")));
                    }
                    types.push(Indexed { value: t, index });
                }
                None => return Err(unknown_modifier(index, modifier)),
            },
        }
    }
    let (destination, source) = match types.as_slice() {
        [d, a] => (*d, *a),
        _ => {
            return Err(DecodeError::new(
                DecodeErrorKind::MissingType,
                None,
                "cvt needs a destination and a source type, `.dtype.atype`",
            ));
        }
    };
    let candidates: Vec<&'static CvtSyntax> = CVT_SYNTAX
        .iter()
        .filter(|s| s.destination.contains(&destination.value) && s.source.contains(&source.value))
        .collect();
    if candidates.is_empty() {
        let error = DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(source.index),
            format!(
                "no cvt form converts {} to {}",
                source.value, destination.value
            ),
        );
        return Err(match destination.value.kind() {
            TypeKind::Bit => {
                error.with_fix("cvt has no `.bX` instruction types; use `.uX` or `.sX`")
            }
            _ if source.value.kind() == TypeKind::Bit => {
                error.with_fix("cvt has no `.bX` instruction types; use `.uX` or `.sX`")
            }
            _ => error,
        });
    }
    let mut form = CvtForm {
        destination,
        source,
        rounding,
        ftz,
        sat,
        relu,
        satfinite,
        scaled,
        syntax: candidates[0],
    };
    let mut best = usize::MAX;
    for syntax in candidates {
        let trial = CvtForm {
            syntax,
            ..form.clone()
        };
        let count = modifier_violations(&trial).len();
        if count < best {
            best = count;
            form = trial;
        }
    }
    Ok(form)
}

impl CvtForm {
    /// The canonical spelling, e.g. `cvt.rn.satfinite.e2m1x2.f32`.
    pub fn text(&self) -> String {
        let mut s = String::from("cvt");
        if let Some(r) = self.rounding {
            s.push_str(&r.value.to_string());
        }
        for (flag, name) in [
            (self.ftz, "ftz"),
            (self.sat, "sat"),
            (self.relu, "relu"),
            (self.satfinite, "satfinite"),
            (self.scaled, SCALED),
        ] {
            if flag.is_some() {
                s.push('.');
                s.push_str(name);
            }
        }
        s.push_str(&self.destination.value.to_string());
        s.push_str(&self.source.value.to_string());
        s
    }

    /// The operands this form takes, in order, with the registers each accepts (cvt.md
    /// Description and Notes).
    pub fn layout(&self) -> Vec<OperandSlot> {
        let d = self.destination.value;
        let a = self.source.value;
        let syntax = self.syntax;
        // The scalar lines, `.f16.f32` and `.f16x2.f32` take `.f32` sources under Table 27
        // (wider bit-size registers too); every newer line takes exactly `.f32` or `.b32`
        // (ptxas 13.5, tests/conformance/cvt-operands.tsv).
        let scalar_line = syntax.ftz_sat || matches!(d, F16) || (d == F16x2 && a == F32);
        // "A source [destination] register wider than the specified type may be used, except
        // when the operand has .bf16 ... format"; ptxas 13.5 applies this to both operands of a
        // conversion with a .bf16 side.
        let exact = syntax.ftz_sat && (d == Bf16 || a == Bf16);
        let (destination, source) = if exact {
            (exact_rule(d), exact_rule(a))
        } else {
            (destination_rule(d, a), source_register_rule(a, scalar_line))
        };
        let mut slots = vec![OperandSlot {
            name: "d",
            is_destination: true,
            shape: SlotShape::Scalar(destination),
        }];
        match syntax.operands {
            CvtOperands::One => slots.push(source_slot("a", source)),
            CvtOperands::Two | CvtOperands::TwoWithRandomBits => {
                slots.push(source_slot("a", source));
                slots.push(source_slot("b", source));
            }
            CvtOperands::FourWithRandomBits => slots.push(OperandSlot {
                name: "{a, b, e, f}",
                is_destination: false,
                shape: SlotShape::Vector {
                    length: 4,
                    element: RegisterRule::OneOf(&[F32, B32]),
                },
            }),
        }
        if matches!(
            syntax.operands,
            CvtOperands::TwoWithRandomBits | CvtOperands::FourWithRandomBits
        ) {
            slots.push(source_slot("rbits", RegisterRule::OneOf(&[B32])));
        }
        if self.scaled.is_some() {
            slots.push(source_slot("scale-factor", RegisterRule::OneOf(&[B16])));
        }
        slots
    }
}

fn exact_rule(t: Type) -> RegisterRule {
    if t == Bf16 {
        RegisterRule::OneOf(&[B16])
    } else {
        RegisterRule::SameSize(t)
    }
}

fn source_slot(name: &'static str, rule: RegisterRule) -> OperandSlot {
    OperandSlot {
        name,
        is_destination: false,
        shape: SlotShape::Scalar(rule),
    }
}

/// The destination register rule (cvt.md Description and Notes): relaxed (Table 28) except
/// for the formats that name their register or "cannot be wider".
fn destination_rule(d: Type, a: Type) -> RegisterRule {
    match d {
        Bf16 => RegisterRule::OneOf(&[B16]),
        Bf16x2 | Tf32 | E4m3x4 | E5m2x4 | E2m3x4 | E3m2x4 => RegisterRule::OneOf(&[B32]),
        // "For .f16x2 instruction type, destination operand d has .f16x2 or .b32 type"; ptxas
        // 13.5 also takes wider bit-size registers for the `.f16x2.f32` lines only.
        F16x2 if a == F32 => RegisterRule::OneOf(&[F16x2, B32, B64, B128]),
        F16x2 => RegisterRule::OneOf(&[F16x2, B32]),
        E2m1x2 => RegisterRule::OneOf(&[B8]),
        E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | E2m1x4 | Ue8m0x2 | S2f6x2 => {
            RegisterRule::OneOf(&[B16])
        }
        _ => RegisterRule::RelaxedDestination(d),
    }
}

/// The source register rule for `a`/`b`.
fn source_register_rule(a: Type, scalar_line: bool) -> RegisterRule {
    match a {
        Bf16 => RegisterRule::OneOf(&[B16]),
        F32 if !scalar_line => RegisterRule::OneOf(&[F32, B32]),
        F16x2 => RegisterRule::OneOf(&[F16x2, B32]),
        Bf16x2 => RegisterRule::OneOf(&[B32]),
        E2m1x2 => RegisterRule::OneOf(&[B8]),
        E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 | S2f6x2 => RegisterRule::OneOf(&[B16]),
        _ => RegisterRule::RelaxedSource(a),
    }
}

fn rounding_list(roundings: &[Rounding]) -> String {
    let names: Vec<String> = roundings.iter().map(|r| format!("`{r}`")).collect();
    names.join(", ")
}

/// The modifier rules of cvt.md for the form's syntax line.
fn modifier_violations(form: &CvtForm) -> Vec<Violation> {
    let mut out = Vec::new();
    let syntax = form.syntax;
    let d = form.destination.value;
    let a = form.source.value;
    let (allowed, required): (&[Rounding], bool) = match syntax.rounding {
        RoundingRule::ByConversion => scalar_rounding(d, a),
        RoundingRule::OneOf(list) => (list, true),
    };
    match form.rounding {
        None if required => out.push(
            Violation::new(
                RoundingRequired,
                Location::Instruction,
                format!("a rounding modifier is mandatory for cvt{d}{a} (cvt.md: \"Rounding modifier is mandatory\")"),
            )
            .with_fix(format!("add one of {}", rounding_list(allowed))),
        ),
        Some(r) if !allowed.contains(&r.value) => {
            let rule = if allowed.is_empty() {
                format!("cvt{d}{a} takes no rounding modifier")
            } else {
                format!("cvt{d}{a} takes {} here, not `{}`", rounding_list(allowed), r.value)
            };
            let fix = if allowed.is_empty() {
                format!("remove `{}`", r.value)
            } else {
                format!("use one of {}", rounding_list(allowed))
            };
            out.push(Violation::new(RoundingIllegal, Location::Modifier(r.index), rule).with_fix(fix));
        }
        _ => {}
    }
    if let Some(i) = form.ftz {
        if !syntax.ftz_sat || (d != F32 && a != F32) {
            out.push(
                Violation::new(
                    FtzIllegal,
                    Location::Modifier(i),
                    "`.ftz` can only be specified when .dtype or .atype is .f32, on the plain conversion forms",
                )
                .with_fix("remove `.ftz`"),
            );
        }
    }
    if let Some(i) = form.sat {
        if !syntax.ftz_sat || !scalar_sat_allowed(d, a) {
            out.push(
                Violation::new(
                    SatIllegal,
                    Location::Modifier(i),
                    format!("`.sat` is illegal for cvt{d}{a}: saturation is not possible or not supported for these types"),
                )
                .with_fix("remove `.sat`"),
            );
        }
    }
    if let Some(i) = form.relu {
        if !syntax.relu {
            out.push(
                Violation::new(
                    ReluIllegal,
                    Location::Modifier(i),
                    format!("`.relu` is not allowed on cvt{d}{a}"),
                )
                .with_fix("remove `.relu`"),
            );
        }
    }
    match (form.satfinite, syntax.satfinite) {
        (Some(i), Presence::Forbidden) => out.push(
            Violation::new(
                SatfiniteIllegal,
                Location::Modifier(i),
                format!("`.satfinite` is not allowed on cvt{d}{a}"),
            )
            .with_fix("remove `.satfinite`"),
        ),
        (None, Presence::Required) => out.push(
            Violation::new(
                SatfiniteRequired,
                Location::Instruction,
                format!("`.satfinite` is mandatory for conversions to {d}"),
            )
            .with_fix("add `.satfinite`"),
        ),
        _ => {}
    }
    if let Some(i) = form.scaled {
        if !syntax.scaled {
            out.push(
                Violation::new(
                    ScaledIllegal,
                    Location::Modifier(i),
                    format!("`.{SCALED}` is only for .s2f6x2 conversions"),
                )
                .with_fix(format!("remove `.{SCALED}`")),
            );
        }
    }
    out
}

/// Every rule of cvt.md for a decoded cvt with its operands.
pub(crate) fn validate_cvt(form: &CvtForm, operands: &[Operand]) -> Vec<Violation> {
    let mut out = modifier_violations(form);
    let slots = form.layout();
    if form.syntax.scaled && form.scaled.is_none() && operands.len() == slots.len() + 1 {
        out.push(
            Violation::new(
                RuleCode::OperandCount,
                Location::Operand(slots.len()),
                format!("operand `scale-factor` and qualifier `.{SCALED}` must be used together"),
            )
            .with_fix(format!("add `.{SCALED}` or remove the operand")),
        );
        return out;
    }
    // A special register is a source only of integer-to-integer conversions ("Special register
    // argument not allowed for instruction 'cvt'"); its width is checked with the slots.
    if form.source.value.is_integer() && !form.destination.value.is_integer() {
        out.extend(special_sources(
            operands,
            "a special register can only be the source of an integer-to-integer cvt",
        ));
    }
    out.extend(check_slots(&slots, operands));
    // ptxas folds `cvt.rna{.satfinite}.tf32.f32` of a constant into a `mov.b32` and then takes
    // only `0f` bits there: "Arguments mismatch for instruction 'mov'" for `1.5`, `1e3` or `0d`
    // literals, which `.rn`/`.rz` accept (tests/conformance/literals.tsv).
    let rna = form.rounding.is_some_and(|r| r.value == Rounding::Rna);
    if form.destination.value == Tf32 && rna {
        if let Some(Operand::Immediate(literal)) = operands.get(1) {
            if literal.fits(F32) && *literal != Literal::F32Bits {
                out.push(Violation::new(
                    RuleCode::LiteralKind,
                    Location::Operand(1),
                    format!(
                        "operand `a` of cvt.rna.tf32.f32 takes a `0f` literal, not {} (ptxas \
                         turns the conversion of a constant into a mov.b32)",
                        literal.describe()
                    ),
                ));
            }
        }
    }
    out
}

/// A decoded `cvt.pack` (PTX ISA 9.7.9.22).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CvtPackForm {
    /// Index of `.sat`, if present.
    pub sat: Option<usize>,
    /// `.convertType`.
    pub convert: Indexed<Type>,
    /// `.abType`.
    pub ab: Indexed<Type>,
    /// `.cType`, if present.
    pub c: Option<Indexed<Type>>,
}

/// `.convertType` of the two-operand line.
pub const PACK_WIDE: &[Type] = &[U16, S16];
/// `.convertType` of the line with the `c` operand.
pub const PACK_NARROW: &[Type] = &[U2, S2, U4, S4, U8, S8];

pub(crate) fn decode_cvt_pack(modifiers: &[&str]) -> Result<CvtPackForm, DecodeError> {
    let mut sat = None;
    let mut types: Vec<Indexed<Type>> = Vec::new();
    for (index, &modifier) in modifiers.iter().enumerate().skip(1) {
        if modifier == "sat" {
            set_flag(&mut sat, index, modifier)?;
            continue;
        }
        let Some(t) = Type::from_name(modifier) else {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!("`.{modifier}` is not a cvt.pack modifier"),
            ));
        };
        let position = types.len();
        let allowed: &[Type] = match position {
            0 => &[U16, S16, U2, S2, U4, S4, U8, S8],
            1 => &[S32],
            2 => &[B32],
            _ => &[],
        };
        if !allowed.contains(&t) {
            let what = ["convertType", "abType", "cType"]
                .get(position)
                .copied()
                .unwrap_or("type");
            let kind = if position > 2 {
                DecodeErrorKind::ExtraType
            } else {
                DecodeErrorKind::UnsupportedTypes
            };
            let names: Vec<String> = allowed.iter().map(|t| format!("`{t}`")).collect();
            let rule = if names.is_empty() {
                "cvt.pack takes at most three types, `.convertType.abType.cType`".to_string()
            } else {
                format!(
                    "`.{what}` of cvt.pack is one of {}, not `{t}`",
                    names.join(", ")
                )
            };
            return Err(DecodeError::new(kind, Some(index), rule));
        }
        types.push(Indexed { value: t, index });
    }
    match types.as_slice() {
        [convert, ab] => Ok(CvtPackForm {
            sat,
            convert: *convert,
            ab: *ab,
            c: None,
        }),
        [convert, ab, c] => Ok(CvtPackForm {
            sat,
            convert: *convert,
            ab: *ab,
            c: Some(*c),
        }),
        _ => Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "cvt.pack needs `.convertType.abType`",
        )),
    }
}

impl CvtPackForm {
    /// The canonical spelling, e.g. `cvt.pack.sat.u8.s32.b32`.
    pub fn text(&self) -> String {
        let mut s = String::from("cvt.pack");
        if self.sat.is_some() {
            s.push_str(".sat");
        }
        s.push_str(&self.convert.value.to_string());
        s.push_str(&self.ab.value.to_string());
        if let Some(c) = self.c {
            s.push_str(&c.value.to_string());
        }
        s
    }

    /// Whether this is a line with the `c` operand (8-, 4- and 2-bit `.convertType`).
    pub fn takes_c(&self) -> bool {
        PACK_NARROW.contains(&self.convert.value)
    }

    /// The operands: `d, a, b` or `d, a, b, c`.
    pub fn layout(&self) -> Vec<OperandSlot> {
        let mut slots = vec![
            OperandSlot {
                name: "d",
                is_destination: true,
                shape: SlotShape::Scalar(RegisterRule::RelaxedDestination(U32)),
            },
            source_slot("a", RegisterRule::RelaxedSource(S32)),
            source_slot("b", RegisterRule::RelaxedSource(S32)),
        ];
        if self.takes_c() {
            slots.push(source_slot("c", RegisterRule::RelaxedSource(B32)));
        }
        slots
    }
}

/// A violation for every special register among the sources (operands after `d`).
fn special_sources<'a>(
    operands: &'a [Operand],
    rule: &'a str,
) -> impl Iterator<Item = Violation> + 'a {
    operands
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, operand)| matches!(operand, Operand::Special(_)))
        .map(move |(index, _)| {
            Violation::new(RuleCode::SpecialRegister, Location::Operand(index), rule)
        })
}

pub(crate) fn validate_cvt_pack(form: &CvtPackForm, operands: &[Operand]) -> Vec<Violation> {
    let mut out = Vec::new();
    // "Special register argument not allowed for instruction 'cvt.pack'" (ptxas 13.5).
    out.extend(special_sources(
        operands,
        "cvt.pack takes no special register; copy it to a register with mov first",
    ));
    if form.sat.is_none() {
        out.push(
            Violation::new(
                RuleCode::SatRequired,
                Location::Instruction,
                "cvt.pack requires `.sat` (cvt.pack syntax)",
            )
            .with_fix("add `.sat`"),
        );
    }
    match (form.takes_c(), form.c) {
        (true, None) => out.push(
            Violation::new(
                RuleCode::TypeModifier,
                Location::Instruction,
                format!(
                    "cvt.pack{} needs `.cType` `.b32` and the `c` operand",
                    form.convert.value
                ),
            )
            .with_fix("add `.b32`"),
        ),
        (false, Some(c)) => out.push(
            Violation::new(
                RuleCode::TypeModifier,
                Location::Modifier(c.index),
                format!(
                    "cvt.pack{} takes no `.cType` and no `c` operand",
                    form.convert.value
                ),
            )
            .with_fix("remove `.b32`"),
        ),
        _ => {}
    }
    out.extend(check_slots(&form.layout(), operands));
    out
}

/// The cvt Syntax line names for the types a line lists, for documentation.
pub fn describe_types(types: &[Type]) -> String {
    if types == SCALAR_TYPES {
        return "u8..u64, s8..s64, bf16, f16, f32, f64".to_string();
    }
    if types == INTEGER_TYPES {
        return "u8..u64, s8..s64".to_string();
    }
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    names.join(", ")
}
