//! PTX fundamental, packed and register types (PTX ISA 5.2, "Types"; 9.7.9.21 cvt for the
//! packed floating-point formats; 9.7.9.22 cvt.pack for the sub-byte integer types).

use std::fmt;

/// What a type's bits mean, which decides the operand-size rules of Tables 27 and 28.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// Untyped bits (`.b8` .. `.b128`).
    Bit,
    /// Two's complement signed integer (`.s2` .. `.s64`).
    Signed,
    /// Unsigned integer (`.u2` .. `.u64`).
    Unsigned,
    /// A scalar floating-point value (`.f16`, `.bf16`, `.tf32`, `.f32`, `.f64`).
    Float,
    /// Several narrower values packed into one (`.f16x2`, `.e4m3x2`, `.ue8m0x2`, ...).
    Packed,
    /// A predicate (`.pred`).
    Predicate,
}

macro_rules! types {
    ($($variant:ident = $name:literal, $bits:literal, $kind:ident, $register:literal;)*) => {
        /// A PTX type as it appears in an instruction-type or register-declaration modifier.
        ///
        /// Covers the fundamental types, the packed floating-point formats of `cvt`
        /// (9.7.9.21), and the sub-byte integer types of `cvt.pack` (9.7.9.22).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Type {
            $(#[doc = concat!("`.", $name, "`")] $variant,)*
        }

        impl Type {
            /// Every type, in declaration order.
            pub const ALL: &'static [Type] = &[$(Type::$variant,)*];

            /// The PTX spelling without the leading dot, e.g. `"bf16x2"`.
            pub const fn name(self) -> &'static str {
                match self { $(Type::$variant => $name,)* }
            }

            /// Size in bits (a `.pred` counts as 1 bit).
            pub const fn bits(self) -> u32 {
                match self { $(Type::$variant => $bits,)* }
            }

            /// What the bits mean.
            pub const fn kind(self) -> TypeKind {
                match self { $(Type::$variant => TypeKind::$kind,)* }
            }

            /// Whether `.reg .T` is a legal register declaration (ptxas 13.5 rejects
            /// `.reg .bf16`, `.reg .bf16x2`, `.reg .tf32` with a syntax error and the fp8/fp6/
            /// fp4/ue8m0/s2f6 formats with "may only be used as an instruction type").
            pub const fn is_register_type(self) -> bool {
                match self { $(Type::$variant => $register,)* }
            }

            /// Parses a type name, with or without the leading dot.
            pub fn from_name(name: &str) -> Option<Type> {
                let name = name.strip_prefix('.').unwrap_or(name);
                match name { $($name => Some(Type::$variant),)* _ => None }
            }
        }
    };
}

types! {
    B8 = "b8", 8, Bit, true;
    B16 = "b16", 16, Bit, true;
    B32 = "b32", 32, Bit, true;
    B64 = "b64", 64, Bit, true;
    B128 = "b128", 128, Bit, true;
    U8 = "u8", 8, Unsigned, true;
    U16 = "u16", 16, Unsigned, true;
    U32 = "u32", 32, Unsigned, true;
    U64 = "u64", 64, Unsigned, true;
    S8 = "s8", 8, Signed, true;
    S16 = "s16", 16, Signed, true;
    S32 = "s32", 32, Signed, true;
    S64 = "s64", 64, Signed, true;
    F16 = "f16", 16, Float, true;
    F16x2 = "f16x2", 32, Packed, true;
    U16x2 = "u16x2", 32, Packed, false;
    S16x2 = "s16x2", 32, Packed, false;
    Bf16 = "bf16", 16, Float, false;
    Bf16x2 = "bf16x2", 32, Packed, false;
    Tf32 = "tf32", 32, Float, false;
    F32 = "f32", 32, Float, true;
    F64 = "f64", 64, Float, true;
    Pred = "pred", 1, Predicate, true;
    E4m3x2 = "e4m3x2", 16, Packed, false;
    E5m2x2 = "e5m2x2", 16, Packed, false;
    E2m1x2 = "e2m1x2", 8, Packed, false;
    E2m3x2 = "e2m3x2", 16, Packed, false;
    E3m2x2 = "e3m2x2", 16, Packed, false;
    E4m3x4 = "e4m3x4", 32, Packed, false;
    E5m2x4 = "e5m2x4", 32, Packed, false;
    E2m1x4 = "e2m1x4", 16, Packed, false;
    E2m3x4 = "e2m3x4", 32, Packed, false;
    E3m2x4 = "e3m2x4", 32, Packed, false;
    Ue8m0x2 = "ue8m0x2", 16, Packed, false;
    S2f6x2 = "s2f6x2", 16, Packed, false;
    U2 = "u2", 2, Unsigned, false;
    S2 = "s2", 2, Signed, false;
    U4 = "u4", 4, Unsigned, false;
    S4 = "s4", 4, Signed, false;
}

impl Type {
    /// The types a `.reg` declaration may use, in declaration order (ptxas 13.5 accepts exactly
    /// these; see [`Type::is_register_type`]).
    pub const REGISTER_TYPES: &'static [Type] = &[
        Type::B8,
        Type::B16,
        Type::B32,
        Type::B64,
        Type::B128,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::F16x2,
        Type::F32,
        Type::F64,
        Type::Pred,
    ];

    /// Whether the type is a scalar or packed floating-point format.
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), TypeKind::Float | TypeKind::Packed)
    }

    /// Whether the type is a signed or unsigned integer.
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), TypeKind::Signed | TypeKind::Unsigned)
    }

    /// The bit-size type of the same width (`.b16` for `.bf16`), if there is one.
    pub const fn bit_type(self) -> Option<Type> {
        match self.bits() {
            8 => Some(Type::B8),
            16 => Some(Type::B16),
            32 => Some(Type::B32),
            64 => Some(Type::B64),
            128 => Some(Type::B128),
            _ => None,
        }
    }

    /// The value range of an integer type as (min, max), for the `.sat` rule of cvt.
    pub const fn integer_range(self) -> Option<(i128, i128)> {
        let bits = self.bits();
        match self.kind() {
            TypeKind::Signed => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            TypeKind::Unsigned => Some((0, (1i128 << bits) - 1)),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}
