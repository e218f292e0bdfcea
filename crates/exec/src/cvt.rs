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

/// One element's conversion with its types, rounding and flags fixed: what [`apply`] computes
/// for each element of the forms [`elementwise`] describes ("`d = convert(a)`", PTX ISA
/// 9.7.9.21, Semantics), for callers that choose the form once and convert many values (the
/// compiled tier).
#[derive(Clone, Copy, Debug)]
pub struct ElementConversion {
    from: sf::Type,
    to: sf::Type,
    rounding: sf::Rounding,
    flags: sf::Flags,
    /// `sf::convert`'s copy for the pair of types, chosen once.
    specialised: Option<sf::Converter>,
}

impl ElementConversion {
    fn new(from: sf::Type, to: sf::Type, rounding: sf::Rounding, flags: sf::Flags) -> Self {
        Self {
            from,
            to,
            rounding,
            flags,
            specialised: sf::converter(from, to),
        }
    }

    /// The converted element (its bits in the low bits of the result): `sf::convert`, its
    /// dispatch on the types made once.
    #[inline]
    pub fn convert(&self, bits: u64) -> u64 {
        match self.specialised {
            Some(specialised) => specialised(bits, self.rounding, self.flags, None).bits,
            None => sf::convert(bits, self.from, self.to, self.rounding, self.flags, None).bits,
        }
    }
}

/// How [`apply`] computes `op` from element conversions, for the forms without `.rs` random
/// bits or scale factors whose sources are each one element.
#[derive(Clone, Copy, Debug)]
pub enum Elementwise {
    /// `d = convert(a)` (float sources or destinations; integer-to-integer forms too).
    Scalar(ElementConversion),
    /// Two `.f32` sources, "the value converted from input `a` is stored in the upper half of
    /// `d` and the value converted from input `b` is stored in the lower half":
    /// `d = (((convert(a) & 0xffff_ffff) << lane) | (convert(b) & low)) & mask`.
    Pair {
        /// The conversion of each element.
        element: ElementConversion,
        /// The bit at which `a`'s element starts.
        lane: u32,
        /// The mask `b`'s element is taken with.
        low: u64,
        /// The mask of the packed result.
        mask: u64,
    },
}

/// The [`Elementwise`] form of `op`, or `None` for the forms it does not describe (`.rs`,
/// `.scaled`, the packed sources and the `x4` and `s2f6` forms).
pub fn elementwise(op: &CvtOp) -> Option<Elementwise> {
    if op.rounding == sf::Rounding::Rs || op.scaled {
        return None;
    }
    let element = |from, to| ElementConversion::new(from, to, op.rounding, op.flags);
    match op.shape {
        CvtShape::Scalar { from, to } => Some(Elementwise::Scalar(element(from, to))),
        // `cvt_f32x2_to_half2`: `(hi << 16) | (lo & 0xffff)` in 32 bits.
        CvtShape::F32x2ToHalf2 { to } => Some(Elementwise::Pair {
            element: element(sf::Type::F32, to),
            lane: 16,
            low: 0xffff,
            mask: 0xffff_ffff,
        }),
        // `cvt_f32x2_to_x2`: `((hi << lane) | lo) as u16`.
        CvtShape::F32x2ToX2 { to } => Some(Elementwise::Pair {
            element: element(sf::Type::F32, to),
            lane: pack::lane_bits(to),
            low: 0xffff_ffff,
            mask: 0xffff,
        }),
        CvtShape::Half2ToX2 { .. }
        | CvtShape::X2ToHalf2 { .. }
        | CvtShape::F32x4ToX4 { .. }
        | CvtShape::F32x2ToS2f6x2
        | CvtShape::Bf16x2ToS2f6x2
        | CvtShape::S2f6x2ToBf16x2 => None,
    }
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
