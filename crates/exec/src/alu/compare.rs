//! The comparison and selection family: the comparison and combination of `setp`, and `slct`
//! (PTX ISA 9.7.7).

use ptxsim_isa::ops::{BoolOp, Compare, TestpOp};
use ptxsim_isa::{Type, TypeKind};

use super::float::Format;
use super::{mask, sext, width};

/// The comparison of `setp.CmpOp{.ftz}.type` (PTX ISA 9.7.7.2 and the tables "Operators for
/// signed integer, unsigned integer, and bit-size types" and "Floating-point comparison
/// operators").
///
/// * Integers: `.eq .ne` on the bits; `.lt .le .gt .ge` signed for `.s` types and unsigned for
///   `.u` and `.b` types; `.lo .ls .hi .hs` always unsigned. The float-only operators map to
///   their ordered counterparts (`.num` is true, `.nan` false).
/// * Floats (`.f32 .f64 .f16 .bf16`; for the x2 types, the low lane): "`.eq .ne .lt .le .gt
///   .ge` ... If either operand is NaN, the result is False"; "`.equ .neu .ltu .leu .gtu .geu`
///   ... If either operand is NaN, the result is True"; "`.num` ... True if both operands are
///   numeric values (not NaN)", "`.nan` ... True if either operand is NaN". `.ftz` flushes
///   subnormal `.f32`/`.f16` inputs; +0.0 == -0.0. `.lo .ls .hi .hs` act as `.lt .le .gt .ge`.
#[inline(always)]
pub fn compare(compare: Compare, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    if let Some(format) = Format::of(ty) {
        let flush = |x: u64| {
            let x = x & mask(format.width());
            if ftz && format.has_ftz() {
                format.flush(x)
            } else {
                x
            }
        };
        let (x, y) = (to_f64(format, flush(a)), to_f64(format, flush(b)));
        let unordered = x.is_nan() || y.is_nan();
        return match compare {
            Compare::Eq => x == y,
            Compare::Ne => !unordered && x != y,
            Compare::Lt | Compare::Lo => x < y,
            Compare::Le | Compare::Ls => x <= y,
            Compare::Gt | Compare::Hi => x > y,
            Compare::Ge | Compare::Hs => x >= y,
            Compare::Equ => unordered || x == y,
            Compare::Neu => x != y,
            Compare::Ltu => unordered || x < y,
            Compare::Leu => unordered || x <= y,
            Compare::Gtu => unordered || x > y,
            Compare::Geu => unordered || x >= y,
            Compare::Num => !unordered,
            Compare::Nan => unordered,
        };
    }
    let w = width(ty);
    let (a, b) = (a & mask(w), b & mask(w));
    let signed = ty.kind() == TypeKind::Signed;
    let ordering = if signed {
        sext(a, w).cmp(&sext(b, w))
    } else {
        a.cmp(&b)
    };
    let unsigned = a.cmp(&b);
    match compare {
        Compare::Eq | Compare::Equ => a == b,
        Compare::Ne | Compare::Neu => a != b,
        Compare::Lt | Compare::Ltu => ordering.is_lt(),
        Compare::Le | Compare::Leu => ordering.is_le(),
        Compare::Gt | Compare::Gtu => ordering.is_gt(),
        Compare::Ge | Compare::Geu => ordering.is_ge(),
        Compare::Lo => unsigned.is_lt(),
        Compare::Ls => unsigned.is_le(),
        Compare::Hi => unsigned.is_gt(),
        Compare::Hs => unsigned.is_ge(),
        Compare::Num => true,
        Compare::Nan => false,
    }
}

/// The combination of `setp.CmpOp.BoolOp`: "`p = BoolOp(t, c)`" (PTX ISA 9.7.7.2).
#[inline]
pub fn combine(op: BoolOp, a: bool, b: bool) -> bool {
    match op {
        BoolOp::And => a && b,
        BoolOp::Or => a || b,
        BoolOp::Xor => a != b,
    }
}

/// The exact value of a floating-point number (f16, bf16 and f32 are subsets of f64).
fn to_f64(format: Format, x: u64) -> f64 {
    match format {
        Format::Double => f64::from_bits(x),
        Format::Single => f64::from(f32::from_bits(x as u32)),
        Format::BFloat => f64::from(f32::from_bits((x as u32 & 0xffff) << 16)),
        Format::Half => {
            let x = x & 0xffff;
            let negative = x & 0x8000 != 0;
            let exponent = ((x >> 10) & 0x1f) as i32;
            let fraction = (x & 0x3ff) as f64;
            let magnitude = match exponent {
                0 => fraction * 2f64.powi(-24),
                31 if fraction == 0.0 => f64::INFINITY,
                31 => f64::NAN,
                e => (1024.0 + fraction) * 2f64.powi(e - 25),
            };
            if negative { -magnitude } else { magnitude }
        }
    }
}

/// `slct.dtype.s32 d, a, b, c` / `slct{.ftz}.dtype.f32` (PTX ISA 9.7.7.5): "If `c >= 0`, `a` is
/// stored in `d`, otherwise `b`" ("The selected input is copied to the output without
/// modification"). For an `.f32` `c`, `-0.0 >= 0` holds and a NaN compares false; `.ftz`
/// flushes a subnormal `c` to a zero of its sign, which then selects `a`.
pub fn slct(float_selector: bool, ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    let c = c as u32;
    let take_a = if float_selector {
        let magnitude = c & 0x7fff_ffff;
        let nan = magnitude > 0x7f80_0000;
        let flushed_zero = ftz && magnitude < 0x0080_0000;
        !nan && (c >> 31 == 0 || magnitude == 0 || flushed_zero)
    } else {
        (c as i32) >= 0
    };
    if take_a { a } else { b }
}

/// `testp.op.type p, a` (PTX ISA 9.7.3.1) on `.f32`/`.f64`: "tests common properties of
/// floating-point numbers"; `.finite` (not infinite, not NaN), `.infinite`, `.number` (not
/// NaN), `.notanumber`, `.normal` ("As a special case, positive and negative zero are
/// considered normal numbers"), `.subnormal`.
pub fn testp(op: TestpOp, ty: Type, a: u64) -> bool {
    use std::num::FpCategory as C;
    let category = if ty == Type::F64 {
        f64::from_bits(a).classify()
    } else {
        f32::from_bits(a as u32).classify()
    };
    match op {
        TestpOp::Finite => !matches!(category, C::Infinite | C::Nan),
        TestpOp::Infinite => category == C::Infinite,
        TestpOp::Number => category != C::Nan,
        TestpOp::NotANumber => category == C::Nan,
        TestpOp::Normal => matches!(category, C::Normal | C::Zero),
        TestpOp::Subnormal => category == C::Subnormal,
    }
}

/// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}` (PTX ISA 9.7.6.1): "`t = (a CmpOp
/// b) ? 1 : 0; if (isFloat(dtype)) d = BoolOp(t, c) ? 1.0f : 0x00000000; else d = BoolOp(t,
/// c) ? 0xffffffff : 0x00000000;`" — 1.0 of the destination's format (`.f32`, `.f16`,
/// `.bf16`), all ones of an integer destination. For `.f16x2`/`.bf16x2` operands (9.7.4) each
/// half is compared (and combined with `c`) on its own and gives its half of `d`: 1.0 of the
/// half format for an `.f16x2`/`.bf16x2` destination, `0xffff` for `.u32`/`.s32`. The
/// comparison is [`compare()`]'s (setp's), `c` is `combine`d when given.
pub fn set(
    compare_op: Compare,
    dtype: Type,
    stype: Type,
    ftz: bool,
    combine_with: Option<(BoolOp, bool)>,
    a: u64,
    b: u64,
) -> u64 {
    let decide = |t: bool| combine_with.map_or(t, |(op, c)| combine(op, t, c));
    if matches!(stype, Type::F16x2 | Type::Bf16x2) {
        let lane_ty = if stype == Type::F16x2 {
            Type::F16
        } else {
            Type::Bf16
        };
        let one = match dtype {
            Type::F16x2 => 0x3c00,
            Type::Bf16x2 => 0x3f80,
            _ => 0xffff,
        };
        let lane = |shift: u32| {
            let t = compare(
                compare_op,
                lane_ty,
                ftz,
                a >> shift & 0xffff,
                b >> shift & 0xffff,
            );
            if decide(t) { one << shift } else { 0 }
        };
        return lane(0) | lane(16);
    }
    if !decide(compare(compare_op, stype, ftz, a, b)) {
        return 0;
    }
    match dtype {
        Type::F32 => 0x3f80_0000,
        Type::F16 => 0x3c00,
        Type::Bf16 => 0x3f80,
        other => mask(width(other)),
    }
}
