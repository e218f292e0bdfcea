//! Conversions as the program holds them: a decoded `cvt` ([`CvtOp`]) with its softfloat
//! types, flags and rounding, and the encoding of literals for an operand type.
//!
//! Lane order follows the Semantics block of PTX ISA 9.7.9.21: operand `a` (or the upper half of
//! a packed source) lands in the upper bits of `d`.

use ptxsim_isa::{CvtForm, CvtPackForm, Type};
use ptxsim_softfloat as sf;
use ptxsim_softfloat::pack::PackType;

/// How the operands of a conversion are combined (one case per branch of the Semantics block
/// of PTX ISA 9.7.9.21).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CvtShape {
    /// `d = convert(a)`.
    Scalar {
        /// `.atype`.
        from: sf::Type,
        /// `.dtype`.
        to: sf::Type,
    },
    /// `.f16x2`/`.bf16x2` from two `.f32`: `d[31:16] = convert(a); d[15:0] = convert(b)`
    /// (`.rs` takes `rbits` as a third source).
    F32x2ToHalf2 {
        /// `F16` or `Bf16`.
        to: sf::Type,
    },
    /// Two `.f32` to an 8-bit (4-bit for e2m1) pair: `d[15:8] = convert(a); d[7:0] = convert(b)`.
    F32x2ToX2 {
        /// The element type.
        to: sf::Type,
    },
    /// An `.f16x2`/`.bf16x2` to a pair: `d[15:8] = convert(a[31:16]); d[7:0] = convert(a[15:0])`.
    Half2ToX2 {
        /// `F16` or `Bf16`.
        from: sf::Type,
        /// The element type.
        to: sf::Type,
    },
    /// A pair to `.f16x2` (`.bf16x2` for ue8m0): `d[31:16] = convert(a[15:8]); ...`.
    X2ToHalf2 {
        /// The element type.
        from: sf::Type,
        /// `F16` or `Bf16`.
        to: sf::Type,
    },
    /// Four `.f32` with `.rs` to an x4 type: `a`, `b`, `e`, `f` from the upper bits down.
    F32x4ToX4 {
        /// The element type.
        to: sf::Type,
    },
    /// `.s2f6x2` from two `.f32`, divided by the scale factors.
    F32x2ToS2f6x2,
    /// `.s2f6x2` from a `.bf16x2`, divided by the scale factors.
    Bf16x2ToS2f6x2,
    /// `.bf16x2` from an `.s2f6x2`, multiplied by the scale factors.
    S2f6x2ToBf16x2,
}

/// A decoded conversion, ready to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CvtOp {
    /// The operand combination.
    pub shape: CvtShape,
    /// The rounding (`.rn` when the instruction has none; such conversions are exact).
    pub rounding: sf::Rounding,
    /// `.ftz`, `.sat`, `.relu`, `.satfinite`.
    pub flags: sf::Flags,
    /// Whether `.scaled::n2::ue8m0` is present (then the last source is the scale factor).
    pub scaled: bool,
    /// `.dtype`, whose width the result has before Table 28's extension.
    pub destination: Type,
    /// `.atype`, whose width the sources `a`/`b` are chopped to (Table 27).
    pub source: Type,
}

/// The default scale factor: "If not specified explicitly, value of `scale-factor` will be
/// assumed to be `0x7f7f`, that is, assumed as value `1` for both input scale factors"
/// (PTX ISA 9.7.9.21).
pub const DEFAULT_SCALE: u16 = 0x7f7f;

/// The softfloat type of a scalar PTX type or of the element of a packed one.
pub fn element_type(ty: Type) -> Option<sf::Type> {
    Some(match ty {
        Type::U8 => sf::Type::U8,
        Type::U16 => sf::Type::U16,
        Type::U32 => sf::Type::U32,
        Type::U64 => sf::Type::U64,
        Type::S8 => sf::Type::S8,
        Type::S16 => sf::Type::S16,
        Type::S32 => sf::Type::S32,
        Type::S64 => sf::Type::S64,
        Type::F16 | Type::F16x2 => sf::Type::F16,
        Type::U16x2 | Type::S16x2 => return None,
        Type::Bf16 | Type::Bf16x2 => sf::Type::Bf16,
        Type::Tf32 => sf::Type::Tf32,
        Type::F32 => sf::Type::F32,
        Type::F64 => sf::Type::F64,
        Type::E4m3x2 | Type::E4m3x4 => sf::Type::E4m3,
        Type::E5m2x2 | Type::E5m2x4 => sf::Type::E5m2,
        Type::E2m1x2 | Type::E2m1x4 => sf::Type::E2m1,
        Type::E2m3x2 | Type::E2m3x4 => sf::Type::E2m3,
        Type::E3m2x2 | Type::E3m2x4 => sf::Type::E3m2,
        Type::Ue8m0x2 => sf::Type::Ue8m0,
        Type::S2f6x2 => sf::Type::S2f6,
        Type::B8
        | Type::B16
        | Type::B32
        | Type::B64
        | Type::B128
        | Type::Pred
        | Type::U2
        | Type::S2
        | Type::U4
        | Type::S4 => return None,
    })
}

fn is_pair(ty: Type) -> bool {
    matches!(
        ty,
        Type::E4m3x2 | Type::E5m2x2 | Type::E2m1x2 | Type::E2m3x2 | Type::E3m2x2 | Type::Ue8m0x2
    )
}

fn is_quad(ty: Type) -> bool {
    matches!(
        ty,
        Type::E4m3x4 | Type::E5m2x4 | Type::E2m1x4 | Type::E2m3x4 | Type::E3m2x4
    )
}

/// Lowers a decoded `cvt` to a [`CvtOp`], or says why it cannot run.
pub fn lower_cvt(form: &CvtForm) -> Result<CvtOp, String> {
    let d = form.destination.value;
    let a = form.source.value;
    let unsupported = || format!("no conversion from {a} to {d} is implemented");
    let de = element_type(d).ok_or_else(unsupported)?;
    let ae = element_type(a).ok_or_else(unsupported)?;
    let shape = match (d, a) {
        (Type::S2f6x2, Type::F32) => CvtShape::F32x2ToS2f6x2,
        (Type::S2f6x2, Type::Bf16x2) => CvtShape::Bf16x2ToS2f6x2,
        (Type::Bf16x2, Type::S2f6x2) => CvtShape::S2f6x2ToBf16x2,
        (Type::F16x2 | Type::Bf16x2, Type::F32) => CvtShape::F32x2ToHalf2 { to: de },
        (Type::F16x2 | Type::Bf16x2, _) if is_pair(a) => CvtShape::X2ToHalf2 { from: ae, to: de },
        (_, Type::F32) if is_pair(d) => CvtShape::F32x2ToX2 { to: de },
        (_, Type::F16x2 | Type::Bf16x2) if is_pair(d) => CvtShape::Half2ToX2 { from: ae, to: de },
        (_, Type::F32) if is_quad(d) => CvtShape::F32x4ToX4 { to: de },
        _ if d.kind() != ptxsim_isa::TypeKind::Packed
            && a.kind() != ptxsim_isa::TypeKind::Packed =>
        {
            CvtShape::Scalar { from: ae, to: de }
        }
        _ => return Err(unsupported()),
    };
    Ok(CvtOp {
        shape,
        rounding: form.rounding.map_or(sf::Rounding::Rn, |r| r.value),
        flags: sf::Flags {
            ftz: form.ftz.is_some(),
            sat: form.sat.is_some(),
            relu: form.relu.is_some(),
            satfinite: form.satfinite.is_some(),
        },
        scaled: form.scaled.is_some(),
        destination: d,
        source: a,
    })
}

/// The `.convertType` of a decoded `cvt.pack`.
pub fn lower_cvt_pack(form: &CvtPackForm) -> Result<PackType, String> {
    Ok(match form.convert.value {
        Type::U2 => PackType::U2,
        Type::S2 => PackType::S2,
        Type::U4 => PackType::U4,
        Type::S4 => PackType::S4,
        Type::U8 => PackType::U8,
        Type::S8 => PackType::S8,
        Type::U16 => PackType::U16,
        Type::S16 => PackType::S16,
        other => return Err(format!("cvt.pack has no {other} convert type")),
    })
}

/// The width in bits each source operand of `op` is chopped to before the conversion (Table 27:
/// "the source data is truncated (chopped) to the appropriate number of bits specified by the
/// instruction type-size"), in syntax order: `a`/`b` (or the four x4 inputs) at `.atype`'s width,
/// `rbits` at 32, `scale-factor` at 16.
pub fn source_widths(op: &CvtOp, count: usize) -> Vec<u32> {
    (0..count)
        .map(|index| source_width(op, index, count))
        .collect()
}

/// The width of source `index` of `count` (see [`source_widths`]), without allocating.
pub fn source_width(op: &CvtOp, index: usize, count: usize) -> u32 {
    let values = match op.shape {
        CvtShape::Scalar { .. }
        | CvtShape::Half2ToX2 { .. }
        | CvtShape::X2ToHalf2 { .. }
        | CvtShape::Bf16x2ToS2f6x2
        | CvtShape::S2f6x2ToBf16x2 => 1,
        CvtShape::F32x2ToHalf2 { .. } | CvtShape::F32x2ToX2 { .. } | CvtShape::F32x2ToS2f6x2 => 2,
        CvtShape::F32x4ToX4 { .. } => 4,
    };
    if index < values {
        op.source.bits()
    } else if op.scaled && index + 1 == count {
        16
    } else {
        32
    }
}

/// Converts an integer (two's complement in `bits`, of type `from`) to the float `to` with
/// `.rn`: how an integer literal is encoded for a floating-point instruction type.
pub fn int_to_float(bits: u64, from: sf::Type, to: sf::Type) -> u64 {
    sf::convert(bits, from, to, sf::Rounding::Rn, sf::Flags::NONE, None).bits
}
