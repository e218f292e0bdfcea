//! Semantics as small pure functions on bits (style rule 5). The machine fetches operands,
//! calls these, and writes back.

use ptxsim_isa::Type;

pub use ptxsim_check::program::mask;

/// Chops a source value to the instruction type's width: "When a source operand has a size that
/// exceeds the instruction-type size, the source data is truncated (chopped) to the appropriate
/// number of bits specified by the instruction type-size" (PTX ISA 9.4.1, Table 27).
pub fn chop(value: u128, bits: u32) -> u128 {
    value & mask(bits)
}

/// Extends a result of instruction type `instruction` to a destination register of type
/// `register`: "If the corresponding instruction type is signed integer, the data is
/// sign-extended; otherwise, the data is zero-extended" (PTX ISA 9.4.1, Table 28). The result is
/// masked to the register's width.
///
/// Types outside Table 28 (packed and sub-byte types) are zero-extended; an `.f16x2` register
/// counts as a 32-bit integer register, as in `ptxsim-isa`.
pub fn extend(value: u128, instruction: Type, register: Type) -> u128 {
    Extension::new(instruction, register).apply(value)
}

/// [`extend`]'s rule for one instruction type and one register type, decided once (per
/// instruction, not per thread): chop to the instruction type, sign-extend when Table 28 says
/// so, chop to the register. Three bytes (the widths and the choice), so that an instruction
/// copies it cheaply; the masks are computed where they are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension {
    /// The instruction type's width in bits (0 to 128).
    source: u8,
    /// The register's width in bits.
    register: u8,
    /// Whether the result is sign-extended (Table 28), for a width of 1 to 127 bits.
    sign_extend: bool,
}

impl Extension {
    /// The rule for results of type `instruction` written to a register of type `register`.
    /// Table 28's sign-extension cells are exactly a signed instruction type (`.s8` .. `.s64`)
    /// written to a wider integer or bit-size register (an `.f16x2` register counts as `.u32`),
    /// decided here without a lookup because every instruction asks each time it runs; the
    /// test `extension_is_table_28` checks this against the table for every pair of types.
    #[inline]
    pub fn new(instruction: Type, register: Type) -> Self {
        let column = if register == Type::F16x2 {
            Type::U32
        } else {
            register
        };
        let width = instruction.bits();
        let sign_extend = matches!(instruction, Type::S8 | Type::S16 | Type::S32 | Type::S64)
            && matches!(
                column,
                Type::B8
                    | Type::B16
                    | Type::B32
                    | Type::B64
                    | Type::B128
                    | Type::S8
                    | Type::S16
                    | Type::S32
                    | Type::S64
                    | Type::U8
                    | Type::U16
                    | Type::U32
                    | Type::U64
            )
            && column.bits() > width;
        Self {
            source: width.min(128) as u8,
            register: register.bits().min(128) as u8,
            sign_extend,
        }
    }

    #[inline(always)]
    fn source_mask(self) -> u128 {
        width_mask(self.source)
    }

    #[inline(always)]
    fn register_mask(self) -> u128 {
        width_mask(self.register)
    }

    /// For [`Extension::apply64`]: `64 - width` when the result is sign-extended from fewer
    /// than 64 bits, else 0.
    #[inline(always)]
    fn sign_shift(self) -> u32 {
        if self.sign_extend && self.source < 64 {
            64 - u32::from(self.source)
        } else {
            0
        }
    }

    /// Whether the register is at most 64 bits wide, so that [`Extension::apply64`] applies.
    #[inline(always)]
    pub fn narrow(self) -> bool {
        self.register <= 64
    }

    /// For a register of at most 64 bits whose value needs no sign extension: the mask that
    /// [`Extension::apply64`] then amounts to.
    #[inline(always)]
    pub fn mask64(self) -> Option<u64> {
        (self.sign_shift() == 0).then_some((self.source_mask() & self.register_mask()) as u64)
    }

    /// [`Extension::apply`] for a register of at most 64 bits (see [`Extension::narrow`]),
    /// without branches: the sign bit is shifted to bit 63 and back arithmetically.
    #[inline(always)]
    pub fn apply64(self, value: u64) -> u64 {
        let value = value & self.source_mask() as u64;
        let shift = self.sign_shift();
        ((((value << shift) as i64) >> shift) as u64) & self.register_mask() as u64
    }

    /// For a register of at most 64 bits: the mask of the instruction type's width, the shift
    /// of [`Extension::apply64`]'s sign extension (0 for none) and the register's mask, so that
    /// generated code applies the rule as `apply64` does.
    pub fn parts64(self) -> (u64, u32, u64) {
        (
            self.source_mask() as u64,
            self.sign_shift(),
            self.register_mask() as u64,
        )
    }

    /// The register's new value for the result `value`.
    #[inline(always)]
    pub fn apply(self, value: u128) -> u128 {
        let source_mask = self.source_mask();
        let value = value & source_mask;
        let sign_bit = if self.sign_extend {
            1u128 << (self.source - 1)
        } else {
            0
        };
        if value & sign_bit != 0 {
            (value | !source_mask) & self.register_mask()
        } else {
            value & self.register_mask()
        }
    }
}

/// [`mask`] of a width of at most 128 bits, here so that it inlines into the lane loops.
#[inline(always)]
fn width_mask(bits: u8) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// `mov` pack (PTX ISA 9.7.9.4): "d = a.x | (a.y << w) | (a.z << 2w) | (a.w << 3w)" — the first
/// element in the lowest bits. Each element is chopped to `element_bits`.
pub fn pack(elements: &[u128], element_bits: u32) -> u128 {
    elements
        .iter()
        .enumerate()
        .fold(0u128, |acc, (index, value)| {
            let shift = element_bits.saturating_mul(index as u32);
            if shift >= 128 {
                acc
            } else {
                acc | (chop(*value, element_bits) << shift)
            }
        })
}

/// `mov` unpack (PTX ISA 9.7.9.4): "{ d.x, d.y, ... } = { a[0..w-1], a[w..2w-1], ... }" —
/// element `i` takes bits `[i*w, (i+1)*w)`.
pub fn unpack(value: u128, element_bits: u32, count: usize) -> Vec<u128> {
    (0..count)
        .map(|index| {
            let shift = element_bits.saturating_mul(index as u32);
            if shift >= 128 {
                0
            } else {
                chop(value >> shift, element_bits)
            }
        })
        .collect()
}

/// The value of a predicate guard: `@%p` executes when `%p` is true, `@!%p` when it is false
/// (PTX ISA 9.3, "Predicated Execution").
pub fn guard_passes(predicate: u128, negated: bool) -> bool {
    (predicate & 1 == 1) != negated
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free 64-bit form gives the results of the general one (whose rules the test
    /// above checks against Table 28) for every instruction and register type pair.
    #[test]
    fn apply64_agrees_with_apply() {
        let values = [
            0u64,
            1,
            0x7f,
            0x80,
            0xff,
            0x8000,
            0xffff,
            0x8000_0000,
            u64::MAX,
            0x1234_5678_9abc_def0,
        ];
        let mut checked = 0;
        for &instruction in Type::ALL {
            for &register in Type::ALL {
                let rule = Extension::new(instruction, register);
                if !rule.narrow() || instruction.bits() > 64 {
                    continue;
                }
                for &value in &values {
                    assert_eq!(
                        u128::from(rule.apply64(value)),
                        rule.apply(u128::from(value)),
                        "{instruction} into {register}: {value:#x}"
                    );
                    if let Some(mask) = rule.mask64() {
                        assert_eq!(u128::from(value & mask), rule.apply(u128::from(value)));
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// [`Extension::new`]'s rule is Table 28 (`ptxsim_isa::destination_rule`, the table as the
    /// ISA prints it): sign extension exactly in its sign-extension cells, for every pair of
    /// types (an `.f16x2` register read as its `.u32` column; types outside the table never).
    #[test]
    fn extension_is_table_28() {
        use ptxsim_isa::{DestinationRule, destination_rule};
        let mut sign_cells = 0;
        for &instruction in Type::ALL {
            for &register in Type::ALL {
                let column = if register == Type::F16x2 {
                    Type::U32
                } else {
                    register
                };
                let table =
                    destination_rule(instruction, column) == Some(DestinationRule::SignExtend);
                assert_eq!(
                    Extension::new(instruction, register).sign_extend,
                    table,
                    "{instruction} into {register}"
                );
                sign_cells += usize::from(table);
            }
        }
        // Four signed rows, each sign-extending into the wider .b/.s/.u columns: s8 into 10
        // (b16..b128, s16..s64, u16..u64), s16 into 7, s32 into 4, s64 into 1 (b128); and the
        // .f16x2 register, as .u32, for s8 and s16.
        assert_eq!(sign_cells, 10 + 7 + 4 + 1 + 2);
    }

    #[test]
    fn signed_results_sign_extend_into_wider_registers() {
        // Table 28: s8 row, b32 column = sext; u8 row = zext; f16 row, b32 column = zext.
        assert_eq!(extend(0x80, Type::S8, Type::B32), 0xffff_ff80);
        assert_eq!(extend(0x80, Type::U8, Type::B32), 0x80);
        assert_eq!(extend(0x8000, Type::F16, Type::B32), 0x8000);
        assert_eq!(extend(0x80, Type::S8, Type::S64), 0xffff_ffff_ffff_ff80);
    }

    #[test]
    fn pack_puts_the_first_element_lowest() {
        // mov.md: "d = a.x | (a.y << 8)".
        assert_eq!(pack(&[0x12, 0x34], 8), 0x3412);
        assert_eq!(unpack(0x3412, 8, 2), vec![0x12, 0x34]);
        assert_eq!(pack(&[1, 2], 64), (2u128 << 64) | 1);
    }
}
