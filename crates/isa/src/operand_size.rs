//! Operand size exceeding instruction-type size (PTX ISA 9.4.1, Tables 27 and 28).
//!
//! `ld`, `st` and `cvt` accept source and destination registers wider than the instruction
//! type; the tables say, for each instruction type and register type, whether that is allowed
//! and what happens to the bits. The two tables are kept here as data, row by row, exactly as
//! the spec prints them; [`source_rule`] and [`destination_rule`] look cells up.

use crate::types::Type;

/// A cell of Table 27 (source operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceRule {
    /// "–": allowed, the register has the instruction type's size, no conversion needed.
    NoConversion,
    /// "chop": allowed; only the low bits that fit the instruction type are used.
    Chop,
    /// "inv": invalid, a parse error.
    Invalid,
}

/// A cell of Table 28 (destination operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DestinationRule {
    /// "–": allowed, the register has the instruction type's size, no conversion needed.
    NoConversion,
    /// "zext": allowed; the result is zero-extended to the register width.
    ZeroExtend,
    /// "sext": allowed; the result is sign-extended to the register width.
    SignExtend,
    /// "inv": invalid, a parse error.
    Invalid,
}

impl SourceRule {
    /// Whether the register may be used.
    pub const fn is_allowed(self) -> bool {
        !matches!(self, SourceRule::Invalid)
    }
}

impl DestinationRule {
    /// Whether the register may be used.
    pub const fn is_allowed(self) -> bool {
        !matches!(self, DestinationRule::Invalid)
    }
}

/// The row and column order of both tables, as printed in the spec.
pub const TABLE_TYPES: [Type; 16] = [
    Type::B8,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::F16,
    Type::F32,
    Type::F64,
];

// Cell aliases so that the rows below read like the spec's tables.
const N: SourceRule = SourceRule::NoConversion;
const C: SourceRule = SourceRule::Chop;
const I: SourceRule = SourceRule::Invalid;
const DN: DestinationRule = DestinationRule::NoConversion;
const Z: DestinationRule = DestinationRule::ZeroExtend;
const S: DestinationRule = DestinationRule::SignExtend;
const DI: DestinationRule = DestinationRule::Invalid;

/// Table 27, rows = instruction type, columns = source register type, both in
/// [`TABLE_TYPES`] order.
#[rustfmt::skip]
pub const SOURCE_TABLE: [[SourceRule; 16]; 16] = [
    //  b8 b16 b32 b64 b128 s8 s16 s32 s64 u8 u16 u32 u64 f16 f32 f64
    [N, C, C, C, C, N, C, C, C, N, C, C, C, C, C, C], // b8
    [I, N, C, C, C, I, N, C, C, I, N, C, C, N, C, C], // b16
    [I, I, N, C, C, I, I, N, C, I, I, N, C, I, N, C], // b32
    [I, I, I, N, C, I, I, I, N, I, I, I, N, I, I, N], // b64
    [I, I, I, I, N, I, I, I, I, I, I, I, I, I, I, I], // b128
    [N, C, C, C, C, N, C, C, C, N, C, C, C, I, I, I], // s8
    [I, N, C, C, C, I, N, C, C, I, N, C, C, I, I, I], // s16
    [I, I, N, C, C, I, I, N, C, I, I, N, C, I, I, I], // s32
    [I, I, I, N, C, I, I, I, N, I, I, I, N, I, I, I], // s64
    [N, C, C, C, C, N, C, C, C, N, C, C, C, I, I, I], // u8
    [I, N, C, C, C, I, N, C, C, I, N, C, C, I, I, I], // u16
    [I, I, N, C, C, I, I, N, C, I, I, N, C, I, I, I], // u32
    [I, I, I, N, C, I, I, I, N, I, I, I, N, I, I, I], // u64
    [I, N, C, C, C, I, I, I, I, I, I, I, I, N, I, I], // f16
    [I, I, N, C, C, I, I, I, I, I, I, I, I, I, N, I], // f32
    [I, I, I, N, C, I, I, I, I, I, I, I, I, I, I, N], // f64
];

/// Table 28, rows = instruction type, columns = destination register type, both in
/// [`TABLE_TYPES`] order.
#[rustfmt::skip]
pub const DESTINATION_TABLE: [[DestinationRule; 16]; 16] = [
    //  b8 b16 b32 b64 b128 s8 s16 s32 s64 u8 u16 u32 u64 f16 f32 f64
    [DN, Z, Z, Z, Z, DN, Z, Z, Z, DN, Z, Z, Z, Z, Z, Z],              // b8
    [DI, DN, Z, Z, Z, DI, DN, Z, Z, DI, DN, Z, Z, DN, Z, Z],          // b16
    [DI, DI, DN, Z, Z, DI, DI, DN, Z, DI, DI, DN, Z, DI, DN, Z],      // b32
    [DI, DI, DI, DN, Z, DI, DI, DI, DN, DI, DI, DI, DN, DI, DI, DN],  // b64
    [DI, DI, DI, DI, DN, DI, DI, DI, DI, DI, DI, DI, DI, DI, DI, DI], // b128
    [DN, S, S, S, S, DN, S, S, S, DN, S, S, S, DI, DI, DI],           // s8
    [DI, DN, S, S, S, DI, DN, S, S, DI, DN, S, S, DI, DI, DI],        // s16
    [DI, DI, DN, S, S, DI, DI, DN, S, DI, DI, DN, S, DI, DI, DI],     // s32
    [DI, DI, DI, DN, S, DI, DI, DI, DN, DI, DI, DI, DN, DI, DI, DI],  // s64
    [DN, Z, Z, Z, Z, DN, Z, Z, Z, DN, Z, Z, Z, DI, DI, DI],           // u8
    [DI, DN, Z, Z, Z, DI, DN, Z, Z, DI, DN, Z, Z, DI, DI, DI],        // u16
    [DI, DI, DN, Z, Z, DI, DI, DN, Z, DI, DI, DN, Z, DI, DI, DI],     // u32
    [DI, DI, DI, DN, Z, DI, DI, DI, DN, DI, DI, DI, DN, DI, DI, DI],  // u64
    [DI, DN, Z, Z, Z, DI, DI, DI, DI, DI, DI, DI, DI, DN, DI, DI],    // f16
    [DI, DI, DN, Z, Z, DI, DI, DI, DI, DI, DI, DI, DI, DI, DN, DI],   // f32
    [DI, DI, DI, DN, Z, DI, DI, DI, DI, DI, DI, DI, DI, DI, DI, DN],  // f64
];

fn table_index(ty: Type) -> Option<usize> {
    TABLE_TYPES.iter().position(|&t| t == ty)
}

/// The Table 27 cell for an instruction type and a source register type, or `None` when either
/// type is not a row/column of the table (e.g. `.f16x2`, `.pred`, `.bf16`).
pub fn source_rule(instruction: Type, register: Type) -> Option<SourceRule> {
    Some(SOURCE_TABLE[table_index(instruction)?][table_index(register)?])
}

/// The Table 28 cell for an instruction type and a destination register type, or `None` when
/// either type is not a row/column of the table.
pub fn destination_rule(instruction: Type, register: Type) -> Option<DestinationRule> {
    Some(DESTINATION_TABLE[table_index(instruction)?][table_index(register)?])
}
