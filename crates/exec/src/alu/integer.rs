//! The integer family: `add sub mul div rem min max and or xor shl shr`, `abs neg not cnot popc
//! clz brev`, `mad`, `mul24`/`mad24` and `sad` (PTX ISA 9.7.1 and 9.7.8).

use ptxsim_isa::ops::{IntOp, IntTernaryOp, IntUnaryOp, MulMode};
use ptxsim_isa::{Type, TypeKind};

use super::bits::shf;
use super::{clamp_signed, mask, sext, width};

/// `add sub mul div rem min max and or xor shl shr` on integer, bit-size and `.pred` types
/// (PTX ISA 9.7.1 and 9.7.8).
///
/// * `add`/`sub` wrap; with `sat` (`add.sat.s32`) "the result is clamped to `MININT..MAXINT`
///   ... instead of wrapping" (9.7.1.1).
/// * `mul.lo`/`mul.hi` keep "the lower / upper n bits" of the 2n-bit product; `mul.wide`
///   returns the whole 2n-bit product: "`.wide` ... the result is twice the width of the
///   operands" (9.7.1.3). Signed types multiply as signed.
/// * `div` truncates toward zero, `rem` takes the sign of the dividend (9.7.1.8-9: "`d = a /
///   b`", "`d = a % b`" with C semantics). `MIN / -1` wraps to `MIN` and `MIN % -1` is 0.
///   Division (and `rem`) by zero is not defined by the spec; like NVIDIA hardware it returns
///   a value with all bits set ("the integer division operators on NVIDIA GPUs return a result
///   with all bits set to 1 ... The same applies to a modulo operator", N. Juffa,
///   stackoverflow.com/questions/12960005).
/// * `min`/`max` compare as signed for `.s` types, else unsigned; `.relu` (`min.relu.s32`)
///   "clamps the result to 0 if negative" (9.7.1.12).
/// * `shl`/`shr`: `b` is the unsigned 32-bit shift amount; "Shift amounts greater than the
///   register width N are clamped to N" (9.7.8.8-9); `shr` on signed types "fills with the
///   sign bit", on unsigned and bit types with 0.
/// * `.pred`: only bit 0 takes part.
#[inline(always)]
pub fn int_binary(op: IntOp, ty: Type, sat: bool, relu: bool, a: u64, b: u64) -> u64 {
    // `add`/`min`/`max` on `.u16x2`/`.s16x2` (9.7.1.1, 9.7.1.12-13): "forms input vectors by
    // half word values from source operands. Half-word operands are then [added / compared] in
    // parallel": `d[i] = iA[i] + iB[i]` (wrapping), `(iA[i] < iB[i]) ? iA[i] : iB[i]`, each
    // half the 16-bit type's operation (`.relu` clamps a negative `.s16x2` half to 0).
    if matches!(ty, Type::U16x2 | Type::S16x2) {
        let half = if ty == Type::U16x2 {
            Type::U16
        } else {
            Type::S16
        };
        let lane = |x: u64, y: u64| int_binary(op, half, sat, relu, x & 0xffff, y & 0xffff);
        return lane(a, b) & 0xffff | (lane(a >> 16, b >> 16) & 0xffff) << 16;
    }
    let w = width(ty);
    let m = mask(w);
    let signed = ty.kind() == TypeKind::Signed;
    let shift = b as u32;
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, w) as i128, sext(b, w) as i128);
    let result = match op {
        IntOp::Add if sat && signed => clamp_signed(sa + sb, w),
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub if sat && signed => clamp_signed(sa - sb, w),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::Mul(MulMode::Lo) => a.wrapping_mul(b),
        IntOp::Mul(MulMode::Hi) => {
            if signed {
                ((sa * sb) >> w) as u64
            } else {
                ((a as u128 * b as u128) >> w) as u64
            }
        }
        IntOp::Mul(MulMode::Wide) => {
            let product = if signed {
                (sa * sb) as u64
            } else {
                (a as u128 * b as u128) as u64
            };
            return product & mask(2 * w);
        }
        IntOp::Mul24 { hi } => mul24(hi, signed, a, b),
        IntOp::Div if b == 0 => u64::MAX,
        IntOp::Div if signed => (sa / sb) as u64,
        IntOp::Div => a / b,
        IntOp::Rem if b == 0 => u64::MAX,
        IntOp::Rem if signed => (sa % sb) as u64,
        IntOp::Rem => a % b,
        IntOp::Min | IntOp::Max => {
            let a_less = if signed { sa < sb } else { a < b };
            let pick_a = a_less == (op == IntOp::Min);
            let r = if pick_a { a } else { b };
            if relu && signed && sext(r, w) < 0 {
                0
            } else {
                r
            }
        }
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl => {
            if shift >= w {
                0
            } else {
                a << shift
            }
        }
        IntOp::Shr => {
            if signed {
                (sext(a, w) >> shift.min(w - 1)) as u64
            } else if shift >= w {
                0
            } else {
                a >> shift
            }
        }
    };
    result & m
}

/// `mul24.{lo,hi}` (PTX ISA 9.7.1.5): "the product of two 24-bit integer values held in 32-bit
/// source registers" (the low 24 bits of each, sign-extended for `.s32`), "`t = a * b; d =
/// t<47..16>` for `.hi`, `d = t<31..0>` for `.lo`".
fn mul24(hi: bool, signed: bool, a: u64, b: u64) -> u64 {
    let (x, y) = if signed {
        (sext(a & 0xff_ffff, 24), sext(b & 0xff_ffff, 24))
    } else {
        ((a & 0xff_ffff) as i64, (b & 0xff_ffff) as i64)
    };
    let t = (x * y) as u64;
    let bits = if hi { t >> 16 } else { t };
    bits & 0xffff_ffff
}

/// `mad24`, `sad`, `shf` (PTX ISA 9.7.1.6, 9.7.1.7, 9.7.8.7):
///
/// * `mad24.{lo,hi}`: "`t = a * b; d = t<47..16> + c` (`.hi`), `d = t<31..0> + c` (`.lo`)",
///   with `a` and `b` 24-bit values as in [`mul24`]; `.sat` ("applies only to `.s32` type in
///   `.hi` mode") clamps the 32-bit signed addition to `MININT..MAXINT`.
/// * `sad`: "`d = c + ((a<b) ? b-a : a-b)`", the comparison signed for signed types, the sum
///   wrapping in the type's width.
/// * `shf.l`/`shf.r`: "`n = (.mode == .clamp) ? min(c, 32) : c & 0x1f`"; the 64-bit value
///   `b:a` shifted left (the upper 32 bits kept) or right (the lower 32 bits kept) by `n`.
pub fn int_ternary(op: IntTernaryOp, ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let signed = ty.kind() == TypeKind::Signed;
    let (a, b, c) = (a & m, b & m, c & m);
    let result = match op {
        IntTernaryOp::Mad24 { hi, sat } => {
            let product = mul24(hi, signed, a, b);
            if sat && signed {
                clamp_signed(i128::from(sext(product, 32)) + i128::from(sext(c, 32)), 32)
            } else {
                product.wrapping_add(c)
            }
        }
        IntTernaryOp::Sad => {
            let a_less = if signed {
                sext(a, w) < sext(b, w)
            } else {
                a < b
            };
            let difference = if a_less {
                b.wrapping_sub(a)
            } else {
                a.wrapping_sub(b)
            };
            c.wrapping_add(difference)
        }
        IntTernaryOp::Shf { left, clamp } => shf(left, clamp, a, b, c),
    };
    result & m
}

/// `abs neg not cnot popc clz brev` (PTX ISA 9.7.1.10-17, 9.7.8.4-5).
///
/// * `abs`/`neg` on signed types wrap: `abs(MIN)` and `neg(MIN)` are `MIN` (two's complement,
///   "`d = |a|`", "`d = -a`").
/// * `not`: "Invert the bits in `a`"; on `.pred` bit 0 only.
/// * `cnot`: "`d = (a==0) ? 1 : 0`".
/// * `popc`: "Count the number of one bits in `a`"; `clz`: "Count the number of leading zeros
///   in `a` starting with the most-significant bit"; both give a `.u32` result.
/// * `brev`: "Perform bitwise reversal of input" within the type width.
#[inline]
pub fn int_unary(op: IntUnaryOp, ty: Type, a: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let a = a & m;
    match op {
        IntUnaryOp::Abs => (sext(a, w).unsigned_abs()) & m,
        IntUnaryOp::Neg => a.wrapping_neg() & m,
        IntUnaryOp::Not => !a & m,
        IntUnaryOp::Cnot => u64::from(a == 0),
        IntUnaryOp::Popc => u64::from(a.count_ones()),
        IntUnaryOp::Clz => u64::from(a.leading_zeros() - (64 - w)),
        IntUnaryOp::Brev => {
            if w == 0 {
                0
            } else {
                a.reverse_bits() >> (64 - w)
            }
        }
    }
}

/// `mad.mode{.sat}.type d, a, b, c` (PTX ISA 9.7.1.4): "Multiplies two values, optionally
/// extracts the high or low half of the intermediate result, and adds a third value".
///
/// * `.lo`/`.hi`: `d = lo/hi(a * b) + c`, all n bits, wrapping.
/// * `.wide`: `c` and `d` are 2n bits: `d = a * b + c` on 2n bits.
/// * `sat` (`mad.hi.sat.s32` only): "the result is saturated to `MININT..MAXINT`"; the
///   saturation applies to the final addition. It is ignored in other modes.
#[inline(always)]
pub fn int_mad(mode: MulMode, ty: Type, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    let w = width(ty);
    match mode {
        MulMode::Wide => {
            let product = int_binary(IntOp::Mul(MulMode::Wide), ty, false, false, a, b);
            product.wrapping_add(c) & mask(2 * w)
        }
        MulMode::Lo => {
            let p = int_binary(IntOp::Mul(MulMode::Lo), ty, false, false, a, b);
            p.wrapping_add(c) & mask(w)
        }
        MulMode::Hi => {
            let p = int_binary(IntOp::Mul(MulMode::Hi), ty, false, false, a, b);
            if sat && ty.kind() == TypeKind::Signed {
                clamp_signed(sext(p, w) as i128 + sext(c, w) as i128, w) & mask(w)
            } else {
                p.wrapping_add(c) & mask(w)
            }
        }
    }
}
