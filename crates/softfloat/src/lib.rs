//! Bit-exact software implementations of the PTX `cvt` and `cvt.pack` conversions.
//!
//! The semantics follow the PTX ISA, section 9.7.9.21 (`cvt`) and 9.7.9.22 (`cvt.pack`), and
//! NVIDIA's host reference code in the CUDA headers where the text is silent. Only integer
//! arithmetic is used: no host floating point takes part in any result (style rule 6).
//!
//! * [`convert`] is the one entry point for a single value: `cvt.{rnd}{.ftz}{.sat}{.relu}
//!   {.satfinite}.dtype.atype d, a`.
//! * [`pack`] holds the packing helpers for the `x2`/`x4` instruction types, the `.rs` random
//!   bit layouts, the `.s2f6x2` scale factors and `cvt.pack.sat`.
//! * [`mod@format`] describes every number format as data.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod convert;
pub mod format;
pub mod pack;

pub use convert::{
    Converter, convert, convert_each, convert_scaled, converter, f16_to_e5m2, f16_to_f32,
    f32_to_bf16, f32_to_e2m1, f32_to_e4m3, f32_to_f16, random_bits_width,
};
pub use format::{Format, NanEncoding};

/// A PTX scalar type that `cvt` reads or writes.
///
/// PTX ISA 9.7.9.21: ".dtype = .atype = { .u8, .u16, .u32, .u64, .s8, .s16, .s32, .s64, .bf16,
/// .f16, .f32, .f64 }", plus the element types of the packed forms (`.tf32`, `.e4m3`, `.e5m2`,
/// `.e2m3`, `.e3m2`, `.e2m1`, `.ue8m0`, `.s2f6`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `.u8`
    U8,
    /// `.u16`
    U16,
    /// `.u32`
    U32,
    /// `.u64`
    U64,
    /// `.s8`
    S8,
    /// `.s16`
    S16,
    /// `.s32`
    S32,
    /// `.s64`
    S64,
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
    /// `.tf32` (destination only in PTX; stored in the f32 layout).
    Tf32,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.e4m3` (element of `.e4m3x2`/`.e4m3x4`).
    E4m3,
    /// `.e5m2` (element of `.e5m2x2`/`.e5m2x4`).
    E5m2,
    /// `.e2m3` (element of `.e2m3x2`/`.e2m3x4`).
    E2m3,
    /// `.e3m2` (element of `.e3m2x2`/`.e3m2x4`).
    E3m2,
    /// `.e2m1` (element of `.e2m1x2`/`.e2m1x4`).
    E2m1,
    /// `.ue8m0` (element of `.ue8m0x2`).
    Ue8m0,
    /// `.s2f6` (element of `.s2f6x2`).
    S2f6,
}

impl Type {
    /// Every type, for table-driven tests and tools.
    pub const ALL: [Type; 20] = [
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::Bf16,
        Type::Tf32,
        Type::F32,
        Type::F64,
        Type::E4m3,
        Type::E5m2,
        Type::E2m3,
        Type::E3m2,
        Type::E2m1,
        Type::Ue8m0,
        Type::S2f6,
    ];

    /// The number format of a floating-point or fixed-point type, `None` for integers.
    #[must_use]
    pub const fn format(self) -> Option<&'static Format> {
        match self {
            Type::F16 => Some(&format::F16),
            Type::Bf16 => Some(&format::BF16),
            Type::Tf32 => Some(&format::TF32),
            Type::F32 => Some(&format::F32),
            Type::F64 => Some(&format::F64),
            Type::E4m3 => Some(&format::E4M3),
            Type::E5m2 => Some(&format::E5M2),
            Type::E2m3 => Some(&format::E2M3),
            Type::E3m2 => Some(&format::E3M2),
            Type::E2m1 => Some(&format::E2M1),
            Type::Ue8m0 => Some(&format::UE8M0),
            Type::S2f6 => Some(&format::S2F6),
            Type::U8
            | Type::U16
            | Type::U32
            | Type::U64
            | Type::S8
            | Type::S16
            | Type::S32
            | Type::S64 => None,
        }
    }

    /// Width in bits and signedness of an integer type, `None` for the others.
    #[must_use]
    pub const fn integer(self) -> Option<(u32, bool)> {
        match self {
            Type::U8 => Some((8, false)),
            Type::U16 => Some((16, false)),
            Type::U32 => Some((32, false)),
            Type::U64 => Some((64, false)),
            Type::S8 => Some((8, true)),
            Type::S16 => Some((16, true)),
            Type::S32 => Some((32, true)),
            Type::S64 => Some((64, true)),
            _ => None,
        }
    }

    /// Width of the type's value in bits (the container width for the packed element types:
    /// 8 for fp6 bytes, 4 for e2m1 nibbles, 32 for tf32).
    #[must_use]
    pub const fn bits(self) -> u32 {
        match self.integer() {
            Some((w, _)) => w,
            None => match self.format() {
                Some(f) => f.container_bits,
                None => 0,
            },
        }
    }

    /// The PTX type name without the leading dot.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Type::U8 => "u8",
            Type::U16 => "u16",
            Type::U32 => "u32",
            Type::U64 => "u64",
            Type::S8 => "s8",
            Type::S16 => "s16",
            Type::S32 => "s32",
            Type::S64 => "s64",
            _ => match self.format() {
                Some(f) => f.name,
                None => "",
            },
        }
    }
}

/// A rounding modifier (PTX ISA 9.7.9.21, "Floating-point rounding modifiers" and "Integer
/// rounding modifiers"): the one rounding type of ptxsim (`ptxsim_isa::Rounding` is this type),
/// used by the instruction table to decode and by the arithmetic to round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rounding {
    /// `.rn`: "rounding to nearest, with ties to even".
    Rn,
    /// `.rna`: "rounding to nearest, with ties away from zero".
    Rna,
    /// `.rz`: "rounding toward zero".
    Rz,
    /// `.rm`: "rounding toward negative infinity".
    Rm,
    /// `.rp`: "rounding toward positive infinity".
    Rp,
    /// `.rs`: "Operation's result is rounded in the direction toward zero or away from zero
    /// based on the carry out of the integer addition of the supplied random bits (`rbits`) to
    /// the truncated off (discarded) bits of mantissa from the input." The random bits are
    /// passed to [`convert`] separately.
    Rs,
    /// `.rni`: "round to nearest integer, choosing even integer if source is equidistant
    /// between two integers".
    Rni,
    /// `.rzi`: "round to nearest integer in the direction of zero".
    Rzi,
    /// `.rmi`: "round to nearest integer in direction of negative infinity".
    Rmi,
    /// `.rpi`: "round to nearest integer in direction of positive infinity".
    Rpi,
}

impl Rounding {
    /// Every rounding modifier.
    pub const ALL: &'static [Rounding] = &[
        Rounding::Rn,
        Rounding::Rna,
        Rounding::Rz,
        Rounding::Rm,
        Rounding::Rp,
        Rounding::Rs,
        Rounding::Rni,
        Rounding::Rzi,
        Rounding::Rmi,
        Rounding::Rpi,
    ];
    /// `.frnd` of the cvt syntax block: `{ .rn, .rz, .rm, .rp }`.
    pub const FLOAT: &'static [Rounding] =
        &[Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];
    /// `.irnd`: `{ .rni, .rzi, .rmi, .rpi }`.
    pub const INTEGER: &'static [Rounding] =
        &[Rounding::Rni, Rounding::Rzi, Rounding::Rmi, Rounding::Rpi];

    /// The modifier's spelling without the dot.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rna => "rna",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
            Rounding::Rs => "rs",
            Rounding::Rni => "rni",
            Rounding::Rzi => "rzi",
            Rounding::Rmi => "rmi",
            Rounding::Rpi => "rpi",
        }
    }

    /// Parses a modifier without its dot.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Rounding> {
        Rounding::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// Whether this is one of the integer rounding modifiers (`.rni`, `.rzi`, `.rmi`, `.rpi`).
    #[must_use]
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi
        )
    }
}

impl core::fmt::Display for Rounding {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// The saturation and flush modifiers of one `cvt` (PTX ISA 9.7.9.21).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// `.ftz`: "flush single-precision subnormal inputs and results to sign-preserving zero";
    /// it "applies only to single precision (`.f32`) inputs and results".
    pub ftz: bool,
    /// `.sat`: for integer destinations "limits the result to `MININT..MAXINT` for the size of
    /// the operation"; for floating-point destinations "limits the result to the range
    /// [0.0, 1.0]. `NaN` results are flushed to positive zero."
    pub sat: bool,
    /// `.relu`: "clamps the result to 0 if negative. `NaN` results are converted to canonical
    /// `NaN`."
    pub relu: bool,
    /// `.satfinite`: NaN stays NaN where the destination has one (else positive MAX_NORM);
    /// "If the absolute value of input (ignoring sign) is greater than *MAX_NORM* of the
    /// specified destination format, then the result is sign-preserved *MAX_NORM*".
    pub satfinite: bool,
}

impl Flags {
    /// No modifiers.
    pub const NONE: Flags = Flags {
        ftz: false,
        sat: false,
        relu: false,
        satfinite: false,
    };
    /// `.satfinite` only.
    pub const SATFINITE: Flags = Flags {
        ftz: false,
        sat: false,
        relu: false,
        satfinite: true,
    };
}

/// Exception-like status of one conversion (informational; PTX `cvt` raises no exceptions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Status {
    /// The result differs from the exact input value (rounding, clamping or flushing).
    pub inexact: bool,
    /// The input was NaN.
    pub invalid: bool,
    /// The magnitude exceeded the destination's finite range (before `.satfinite`/clamping).
    pub overflow: bool,
    /// The result was subnormal or zero and inexact, or was flushed by `.ftz`.
    pub underflow: bool,
}

/// The result of [`convert`]: the destination bits (in the low [`Type::bits`] bits, with no
/// sign extension; the register-width extension rule of the `cvt` Notes is the executor's job)
/// and the status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Converted {
    /// Destination bits, zero-extended to 64.
    pub bits: u64,
    /// Status flags.
    pub status: Status,
}
