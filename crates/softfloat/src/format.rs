//! Number formats described as data (style rule 6).
//!
//! Every floating-point format that `cvt` reads or writes is one [`Format`] value: the field
//! widths, the exponent bias, whether it is signed, whether it has infinities, how it encodes
//! NaN, and where its bits sit in the container. The conversion code never matches on a format
//! name; it reads these fields.

/// How a floating-point format encodes NaN (PTX ISA 9.7.9.21, `.satfinite`: "if the input value
/// is `NaN`, then the result is `NaN` in the specified destination format" — for the formats
/// that have one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanEncoding {
    /// IEEE 754 style: the all-ones exponent with a non-zero mantissa is NaN and with a zero
    /// mantissa is infinity (f64, f32, f16, bf16, tf32, e5m2).
    AllOnesExponent,
    /// Only the bit patterns `S.1111.111` (all exponent and mantissa bits set) are NaN; there is
    /// no infinity (e4m3).
    AllOnesPattern,
    /// The all-ones exponent field is NaN; the format has no mantissa, no sign and no zero
    /// (ue8m0: `0xff` is NaN).
    AllOnesExponentOnly,
    /// No NaN encoding at all (e2m1, e2m3, e3m2, s2f6).
    None,
}

/// How the bits of a format are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Sign, biased exponent and mantissa fields.
    Float,
    /// A two's complement fixed-point number with `fraction_bits` bits after the binary point
    /// (the reading of `.s2f6` that this crate implements; see `docs/softfloat.md`).
    TwosComplementFixed {
        /// Number of fraction bits.
        fraction_bits: u32,
    },
}

/// A number format described by data (style rule 6: "formats are described by data (exponent
/// bits, mantissa bits, bias, has-infinity, NaN encoding, sign)").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The PTX type name without the leading dot, e.g. `"e4m3"`.
    pub name: &'static str,
    /// Bit interpretation: floating point or fixed point.
    pub encoding: Encoding,
    /// Width of the exponent field in bits (0 for fixed point).
    pub exponent_bits: u32,
    /// Width of the explicit mantissa (fraction) field in bits.
    pub mantissa_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Whether the format has a sign bit (ue8m0 has none).
    pub signed: bool,
    /// Whether the format encodes infinities.
    pub has_infinity: bool,
    /// How NaN is encoded.
    pub nan: NanEncoding,
    /// Whether a zero exponent field means a subnormal (gradual underflow). ue8m0 has no
    /// subnormals: its zero exponent field is the normal value 2^-127.
    pub subnormals: bool,
    /// Number of always-zero low bits below the mantissa inside the container: tf32 keeps 19
    /// significant bits in the f32 bit layout, so its low 13 mantissa bits are zero.
    pub low_zero_bits: u32,
    /// Width of the container in bits (the register bits one value occupies).
    pub container_bits: u32,
    /// The canonical NaN bit pattern written whenever a NaN result is produced (`.relu`:
    /// "`NaN` results are converted to canonical `NaN`"). Unused when `nan` is
    /// [`NanEncoding::None`].
    pub canonical_nan: u64,
}

impl Format {
    /// Number of significant bits in the format's stored value field (sign + exponent +
    /// mantissa, or the fixed-point width), not counting `low_zero_bits`.
    #[must_use]
    #[inline]
    pub const fn value_bits(&self) -> u32 {
        self.signed as u32 + self.exponent_bits + self.mantissa_bits
    }

    /// Mask of the bits of the container that carry the value.
    #[must_use]
    #[inline]
    pub const fn value_mask(&self) -> u64 {
        (u64::MAX >> (64 - self.value_bits())) << self.low_zero_bits
    }

    /// The all-ones exponent field value.
    #[must_use]
    #[inline]
    pub const fn max_exponent_field(&self) -> u64 {
        (1u64 << self.exponent_bits) - 1
    }

    /// Biased exponent field of the largest finite value (MAX_NORM).
    #[must_use]
    #[inline]
    pub const fn max_normal_exponent_field(&self) -> u64 {
        match self.nan {
            NanEncoding::AllOnesExponent | NanEncoding::AllOnesExponentOnly => {
                self.max_exponent_field() - 1
            }
            NanEncoding::AllOnesPattern | NanEncoding::None => self.max_exponent_field(),
        }
    }

    /// Mantissa field of the largest finite value (MAX_NORM).
    #[must_use]
    #[inline]
    pub const fn max_normal_mantissa_field(&self) -> u64 {
        let all = (1u64 << self.mantissa_bits) - 1;
        match self.nan {
            NanEncoding::AllOnesPattern => all - 1,
            _ => all,
        }
    }

    /// Bit pattern of +MAX_NORM, the largest finite value (`.satfinite`: "the result is
    /// sign-preserved *MAX_NORM* of the destination format").
    #[must_use]
    #[inline(always)]
    pub const fn max_normal_bits(&self) -> u64 {
        match self.encoding {
            Encoding::TwosComplementFixed { .. } => (1u64 << (self.value_bits() - 1)) - 1,
            Encoding::Float => {
                ((self.max_normal_exponent_field() << self.mantissa_bits)
                    | self.max_normal_mantissa_field())
                    << self.low_zero_bits
            }
        }
    }

    /// Bit pattern of +infinity, if the format has one.
    #[must_use]
    #[inline]
    pub const fn infinity_bits(&self) -> Option<u64> {
        if self.has_infinity {
            Some((self.max_exponent_field() << self.mantissa_bits) << self.low_zero_bits)
        } else {
            None
        }
    }

    /// The sign bit of the container (0 for unsigned formats).
    #[must_use]
    #[inline]
    pub const fn sign_bit(&self) -> u64 {
        if self.signed {
            1u64 << (self.value_bits() - 1 + self.low_zero_bits)
        } else {
            0
        }
    }

    /// Whether the format can encode NaN.
    #[must_use]
    #[inline]
    pub const fn has_nan(&self) -> bool {
        !matches!(self.nan, NanEncoding::None)
    }
}

/// IEEE 754 binary64 (`.f64`).
pub const F64: Format = Format {
    name: "f64",
    encoding: Encoding::Float,
    exponent_bits: 11,
    mantissa_bits: 52,
    bias: 1023,
    signed: true,
    has_infinity: true,
    nan: NanEncoding::AllOnesExponent,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 64,
    canonical_nan: 0x7fff_ffff_ffff_ffff,
};

/// IEEE 754 binary32 (`.f32`); NVIDIA's canonical f32 NaN is `0x7fffffff` (the host code of
/// `cuda_fp16.hpp` `__internal_half2float` writes it for every f16 NaN).
pub const F32: Format = Format {
    name: "f32",
    encoding: Encoding::Float,
    exponent_bits: 8,
    mantissa_bits: 23,
    bias: 127,
    signed: true,
    has_infinity: true,
    nan: NanEncoding::AllOnesExponent,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 32,
    canonical_nan: 0x7fff_ffff,
};

/// IEEE 754 binary16 (`.f16`); canonical NaN `0x7fff` (`cuda_fp16.hpp`
/// `__internal_float2half` writes it for every f32 NaN).
pub const F16: Format = Format {
    name: "f16",
    encoding: Encoding::Float,
    exponent_bits: 5,
    mantissa_bits: 10,
    bias: 15,
    signed: true,
    has_infinity: true,
    nan: NanEncoding::AllOnesExponent,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 16,
    canonical_nan: 0x7fff,
};

/// bfloat16 (`.bf16`); canonical NaN `0x7fff` (`cuda_bf16.hpp` `__internal_float2bfloat16`).
pub const BF16: Format = Format {
    name: "bf16",
    encoding: Encoding::Float,
    exponent_bits: 8,
    mantissa_bits: 7,
    bias: 127,
    signed: true,
    has_infinity: true,
    nan: NanEncoding::AllOnesExponent,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 16,
    canonical_nan: 0x7fff,
};

/// TensorFloat-32 (`.tf32`): 19 significant bits kept in the f32 bit layout, the low 13
/// mantissa bits zero ("For `.tf32` instruction type, operand `d` has `.b32` type").
/// Canonical NaN `0x7fffe000`: what `cvt.rn.tf32.f32` and `cvt.rz.tf32.f32` return for every NaN
/// on an sm_90 GPU (`tests/hardware/`; the f32 canonical NaN with the low 13 bits cleared).
pub const TF32: Format = Format {
    name: "tf32",
    encoding: Encoding::Float,
    exponent_bits: 8,
    mantissa_bits: 10,
    bias: 127,
    signed: true,
    has_infinity: true,
    nan: NanEncoding::AllOnesExponent,
    subnormals: true,
    low_zero_bits: 13,
    container_bits: 32,
    canonical_nan: 0x7fff_e000,
};

/// OCP FP8 E4M3 (`.e4m3`): bias 7, no infinity, NaN only `S.1111.111`, MAX_NORM 448.
/// Canonical NaN `0x7f` (`cuda_fp8.hpp` `__nv_cvt_double_to_fp8`).
pub const E4M3: Format = Format {
    name: "e4m3",
    encoding: Encoding::Float,
    exponent_bits: 4,
    mantissa_bits: 3,
    bias: 7,
    signed: true,
    has_infinity: false,
    nan: NanEncoding::AllOnesPattern,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 8,
    canonical_nan: 0x7f,
};

/// OCP FP8 E5M2 (`.e5m2`): IEEE-like, bias 15, MAX_NORM 57344. Canonical NaN `0x7f`
/// (`cuda_fp8.hpp` converts every NaN through the f32 canonical NaN, giving `0x7e | 0x3`).
pub const E5M2: Format = Format {
    name: "e5m2",
    encoding: Encoding::Float,
    exponent_bits: 5,
    mantissa_bits: 2,
    bias: 15,
    signed: true,
    has_infinity: true,
    nan: NanEncoding::AllOnesExponent,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 8,
    canonical_nan: 0x7f,
};

/// OCP MX FP6 E2M3 (`.e2m3`): bias 1, no infinity or NaN, MAX_NORM 7.5. One value per byte,
/// in the low 6 bits ("each 8-bit output will have 2 MSB bits padded with zeros").
pub const E2M3: Format = Format {
    name: "e2m3",
    encoding: Encoding::Float,
    exponent_bits: 2,
    mantissa_bits: 3,
    bias: 1,
    signed: true,
    has_infinity: false,
    nan: NanEncoding::None,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 8,
    canonical_nan: 0,
};

/// OCP MX FP6 E3M2 (`.e3m2`): bias 3, no infinity or NaN, MAX_NORM 28.
pub const E3M2: Format = Format {
    name: "e3m2",
    encoding: Encoding::Float,
    exponent_bits: 3,
    mantissa_bits: 2,
    bias: 3,
    signed: true,
    has_infinity: false,
    nan: NanEncoding::None,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 8,
    canonical_nan: 0,
};

/// OCP MX FP4 E2M1 (`.e2m1`): bias 1, no infinity or NaN, MAX_NORM 6. One value per nibble.
pub const E2M1: Format = Format {
    name: "e2m1",
    encoding: Encoding::Float,
    exponent_bits: 2,
    mantissa_bits: 1,
    bias: 1,
    signed: true,
    has_infinity: false,
    nan: NanEncoding::None,
    subnormals: true,
    low_zero_bits: 0,
    container_bits: 4,
    canonical_nan: 0,
};

/// OCP MX scale format UE8M0 (`.ue8m0`): unsigned, exponent only, bias 127, `0xff` NaN, no
/// zero and no subnormals (`0x00` is 2^-127). MAX_NORM is 2^127 (`0xfe`).
pub const UE8M0: Format = Format {
    name: "ue8m0",
    encoding: Encoding::Float,
    exponent_bits: 8,
    mantissa_bits: 0,
    bias: 127,
    signed: false,
    has_infinity: false,
    nan: NanEncoding::AllOnesExponentOnly,
    subnormals: false,
    low_zero_bits: 0,
    container_bits: 8,
    canonical_nan: 0xff,
};

/// `.s2f6`: read by this crate as an 8-bit two's complement fixed-point number with 2 integer
/// bits (including the sign) and 6 fraction bits, range [-2, 127/64], no NaN or infinity, and
/// MAX_NORM 127/64 (`0x7f`). The PTX text does not define the encoding; the decision and its
/// evidence are in `docs/softfloat.md`.
pub const S2F6: Format = Format {
    name: "s2f6",
    encoding: Encoding::TwosComplementFixed { fraction_bits: 6 },
    exponent_bits: 0,
    mantissa_bits: 7,
    bias: 0,
    signed: true,
    has_infinity: false,
    nan: NanEncoding::None,
    subnormals: false,
    low_zero_bits: 0,
    container_bits: 8,
    canonical_nan: 0,
};
