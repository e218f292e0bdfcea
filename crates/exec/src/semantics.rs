//! Semantics as small pure functions on bits (style rule 5). The machine fetches operands,
//! calls these, and writes back.

use std::sync::OnceLock;

use ptxsim_isa::{DestinationRule, Type, destination_rule};

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
/// so, chop to the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension {
    source_mask: u128,
    /// The result's sign bit when it is sign-extended, else 0.
    sign_bit: u128,
    register_mask: u128,
    /// For [`Extension::apply64`]: `64 - width` when the result is sign-extended from fewer
    /// than 64 bits, else 0.
    sign_shift: u32,
}

impl Extension {
    /// The rule for results of type `instruction` written to a register of type `register`
    /// (from a table of every pair, made once: instructions ask for it each time they run).
    #[inline]
    pub fn new(instruction: Type, register: Type) -> Self {
        static TABLE: OnceLock<Vec<Extension>> = OnceLock::new();
        let count = Type::ALL.len();
        let table = TABLE.get_or_init(|| {
            Type::ALL
                .iter()
                .flat_map(|&instruction| {
                    Type::ALL
                        .iter()
                        .map(move |&register| Self::compute(instruction, register))
                })
                .collect()
        });
        // `Type::ALL` is in declaration order, so a type's discriminant is its index.
        table
            .get(instruction as usize * count + register as usize)
            .copied()
            .unwrap_or_else(|| Self::compute(instruction, register))
    }

    fn compute(instruction: Type, register: Type) -> Self {
        let width = instruction.bits();
        let column = if register == Type::F16x2 {
            Type::U32
        } else {
            register
        };
        let sign_extend = width > 0
            && width < 128
            && destination_rule(instruction, column) == Some(DestinationRule::SignExtend);
        Self {
            source_mask: mask(width),
            sign_bit: if sign_extend { 1u128 << (width - 1) } else { 0 },
            register_mask: mask(register.bits()),
            sign_shift: if sign_extend && width < 64 {
                64 - width
            } else {
                0
            },
        }
    }

    /// Whether the register is at most 64 bits wide, so that [`Extension::apply64`] applies.
    #[inline(always)]
    pub fn narrow(self) -> bool {
        self.register_mask <= u128::from(u64::MAX)
    }

    /// For a register of at most 64 bits whose value needs no sign extension: the mask that
    /// [`Extension::apply64`] then amounts to.
    #[inline(always)]
    pub fn mask64(self) -> Option<u64> {
        (self.sign_shift == 0).then_some((self.source_mask & self.register_mask) as u64)
    }

    /// [`Extension::apply`] for a register of at most 64 bits (see [`Extension::narrow`]),
    /// without branches: the sign bit is shifted to bit 63 and back arithmetically.
    #[inline(always)]
    pub fn apply64(self, value: u64) -> u64 {
        let value = value & self.source_mask as u64;
        let shift = self.sign_shift;
        ((((value << shift) as i64) >> shift) as u64) & self.register_mask as u64
    }

    /// The register's new value for the result `value`.
    #[inline(always)]
    pub fn apply(self, value: u128) -> u128 {
        let value = value & self.source_mask;
        if value & self.sign_bit != 0 {
            (value | !self.source_mask) & self.register_mask
        } else {
            value & self.register_mask
        }
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
