//! The adapter between `ptxsim-isa`'s decoded `cvt` forms and `ptxsim-softfloat`. Every call
//! into softfloat lives in this module, so changes to its API stay local.
//!
//! Lane order follows the Semantics block of PTX ISA 9.7.9.21: operand `a` (or the upper half of
//! a packed source) lands in the upper bits of `d`.

use ptxsim_softfloat as sf;
use ptxsim_softfloat::pack::{self, PackType};

pub use ptxsim_check::program::cvt::{
    CvtOp, CvtShape, DEFAULT_SCALE, element_type, int_to_float, lower_cvt, lower_cvt_pack,
    source_width, source_widths,
};

/// Runs one conversion on its already chopped sources (in syntax order) and returns the result
/// in the low `op.destination.bits()` bits (PTX ISA 9.7.9.21, Semantics). Missing sources read
/// as zero; the program builder guarantees the count.
pub fn apply(op: &CvtOp, sources: &[u64]) -> u64 {
    let get = |index: usize| sources.get(index).copied().unwrap_or(0);
    let lo32 = |index: usize| get(index) as u32;
    let r = op.rounding;
    let f = op.flags;
    let scale = |index: usize| {
        if op.scaled {
            get(index) as u16
        } else {
            DEFAULT_SCALE
        }
    };
    match op.shape {
        CvtShape::Scalar { from, to } => {
            let random = (r == sf::Rounding::Rs).then(|| lo32(1));
            sf::convert(get(0), from, to, r, f, random).bits
        }
        CvtShape::F32x2ToHalf2 { to } => u64::from(pack::cvt_f32x2_to_half2(
            lo32(0),
            lo32(1),
            to,
            r,
            f,
            lo32(2),
        )),
        CvtShape::F32x2ToX2 { to } => u64::from(pack::cvt_f32x2_to_x2(lo32(0), lo32(1), to, r, f)),
        CvtShape::Half2ToX2 { from, to } => {
            u64::from(pack::cvt_half2_to_x2(lo32(0), from, to, r, f))
        }
        CvtShape::X2ToHalf2 { from, to } => {
            u64::from(pack::cvt_x2_to_half2(get(0) as u16, from, to, f))
        }
        CvtShape::F32x4ToX4 { to } => u64::from(pack::cvt_f32x4_to_x4(
            [lo32(0), lo32(1), lo32(2), lo32(3)],
            to,
            r,
            f,
            lo32(4),
        )),
        CvtShape::F32x2ToS2f6x2 => {
            u64::from(pack::cvt_f32x2_to_s2f6x2(lo32(0), lo32(1), r, f, scale(2)))
        }
        CvtShape::Bf16x2ToS2f6x2 => u64::from(pack::cvt_bf16x2_to_s2f6x2(lo32(0), r, f, scale(1))),
        CvtShape::S2f6x2ToBf16x2 => {
            u64::from(pack::cvt_s2f6x2_to_bf16x2(get(0) as u16, r, f, scale(1)))
        }
    }
}

/// [`apply`] for many lanes at once (one dispatch for all of them) for the shapes with one or
/// two value sources, without `.rs` random bits or scale factors: `a[i]` holds lane `i`'s first
/// source (chopped) and, for the two-source shapes, `b[i]` its second; on return `a[i]` holds
/// the result (`b` is scratch space for the one-source shapes). Returns `false`, changing
/// nothing, for the other forms, which run lane by lane through [`apply`].
pub fn apply_each(op: &CvtOp, a: &mut [u64], b: &mut Vec<u64>) -> bool {
    let (r, f) = (op.rounding, op.flags);
    if r == sf::Rounding::Rs || op.scaled {
        return false;
    }
    match op.shape {
        CvtShape::Scalar { from, to } => sf::convert_each(a, from, to, r, f),
        CvtShape::F32x2ToHalf2 { to } => pack::cvt_f32x2_to_half2_each(a, b, to, r, f),
        CvtShape::F32x2ToX2 { to } => pack::cvt_f32x2_to_x2_each(a, b, to, r, f),
        CvtShape::Half2ToX2 { from, to } => pack::cvt_half2_to_x2_each(a, b, from, to, r, f),
        CvtShape::X2ToHalf2 { from, to } => pack::cvt_x2_to_half2_each(a, b, from, to, f),
        CvtShape::F32x4ToX4 { .. }
        | CvtShape::F32x2ToS2f6x2
        | CvtShape::Bf16x2ToS2f6x2
        | CvtShape::S2f6x2ToBf16x2 => return false,
    }
    true
}

/// `cvt.pack.sat` on chopped sources (PTX ISA 9.7.9.22): "Convert two 32-bit integers `a` and
/// `b` into specified type and pack the results into `d`" — `b` in the lowest bits, `a` above
/// it, the rest of `d` from the low bits of `c`.
pub fn apply_pack(ty: PackType, a: u64, b: u64, c: u64) -> u64 {
    u64::from(pack::cvt_pack_sat(
        ty,
        a as u32 as i32,
        b as u32 as i32,
        c as u32,
    ))
}

/// Converts `bits` of `from` to an `f64` bit pattern exactly (every format `cvt` knows fits in
/// `f64`), for display only.
pub fn to_f64_bits(bits: u64, from: sf::Type) -> u64 {
    sf::convert(
        bits,
        from,
        sf::Type::F64,
        sf::Rounding::Rn,
        sf::Flags::NONE,
        None,
    )
    .bits
}

/// Rounds an `f64` bit pattern to `to` with `.rn` (used to encode decimal immediates of `.f16`).
pub fn from_f64_bits(bits: u64, to: sf::Type) -> u64 {
    sf::convert(
        bits,
        sf::Type::F64,
        to,
        sf::Rounding::Rn,
        sf::Flags::NONE,
        None,
    )
    .bits
}
