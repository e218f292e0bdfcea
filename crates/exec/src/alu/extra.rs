//! The integer instructions beyond the plain arithmetic: the extended-precision (carry)
//! instructions of PTX ISA 9.7.2, and `bfind`, `fns`, `bmsk`, `szext`, `dp4a`, `dp2a`
//! (9.7.1.16-17, 9.7.1.21-24), each as its section's "Semantics" block gives it.

use ptxsim_isa::Type;
use ptxsim_isa::ops::CarryOp;

use super::{mask, sext, width};
use crate::ir::IntExtraOp;

/// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}` on
/// `.u32 .s32 .u64 .s64`: the result and the new `CC.CF`. `carry_in` is `CC.CF` for the forms
/// that read it (`addc`, `subc`, `madc`), `None` for `add.cc`/`sub.cc`/`mad.cc`.
///
/// * 9.7.2.2 `addc`: "`d = a + b + CC.CF;` if .cc specified, carry-out written to CC.CF";
///   9.7.2.1 `add.cc`: "writing the carry-out value to the condition code register". The
///   carry-out is the carry out of the unsigned `w`-bit addition, whatever the signedness.
/// * 9.7.2.4 `subc`: the text says "`d = a - (b + CC.CF);` if .cc specified, borrow-out
///   written to CC.CF". An sm_90 GPU keeps the flag as a carry, the complement of the borrow
///   (measured on every `sub.cc`/`subc` form, `tests/hardware/scalar`; docs/divergences.md
///   H4): `sub.cc` computes `a + ~b + 1` and writes its carry-out (1 when nothing was
///   borrowed), `subc` computes `a + ~b + CC.CF`, i.e. `a - b - (1 - CC.CF)`. A chain of
///   `sub.cc` and `subc` subtracts multi-word values either way; the two readings differ when
///   `add.cc` feeds `subc`, `sub.cc` feeds `addc`, or the flag is read out (`addc d, 0, 0`),
///   and ptxsim follows the GPU.
/// * 9.7.2.6 `madc`: "`t = a * b; d = t<63..32> + c + CC.CF; // for .hi variant`, `d =
///   t<31..0> + c + CC.CF; // for .lo variant`; if .cc specified, carry-out from addition is
///   written to CC.CF" (for 64-bit types the halves of the 128-bit product). `.hi` of a signed
///   type takes the high half of the signed product.
pub fn carry(op: CarryOp, ty: Type, a: u64, b: u64, c: u64, carry_in: Option<bool>) -> (u64, bool) {
    let w = width(ty);
    let m = u128::from(mask(w));
    let (a, b, c) = (u128::from(a) & m, u128::from(b) & m, u128::from(c) & m);
    let cin = u128::from(carry_in.unwrap_or(false));
    match op {
        CarryOp::Add => {
            let sum = a + b + cin;
            ((sum & m) as u64, sum > m)
        }
        CarryOp::Sub => {
            // `a + ~b + carry`, with carry 1 for `sub.cc` (a plain subtraction).
            let sum = a + (!b & m) + u128::from(carry_in.unwrap_or(true));
            ((sum & m) as u64, sum > m)
        }
        CarryOp::Mad { hi } => {
            let signed = ty == Type::S32 || ty == Type::S64;
            let product: u128 = if signed {
                (i128::from(sext(a as u64, w)) * i128::from(sext(b as u64, w))) as u128
            } else {
                a * b
            };
            let half = if hi { (product >> w) & m } else { product & m };
            let sum = half + c + cin;
            ((sum & m) as u64, sum > m)
        }
    }
}

/// `bfind`, `fns`, `bmsk`, `szext`, `dp4a`, `dp2a` on the operands `a`, `b`, `c` (unused ones
/// are 0); the result is 32 bits.
pub fn int_extra(op: IntExtraOp, a: u64, b: u64, c: u64) -> u64 {
    u64::from(match op {
        IntExtraOp::Bfind { ty, shiftamt } => bfind(ty, shiftamt, a),
        IntExtraOp::Fns => fns(a as u32, b as u32, c as u32 as i32),
        IntExtraOp::Bmsk { clamp } => bmsk(clamp, a as u32, b as u32),
        IntExtraOp::Szext { signed, clamp } => szext(signed, clamp, a as u32, b as u32),
        IntExtraOp::Dot {
            dp2a,
            a_signed,
            b_signed,
        } => dot(dp2a, a_signed, b_signed, a as u32, b as u32, c as u32),
        IntExtraOp::Video(video) => video_simd(&video, a as u32, b as u32, c as u32),
        IntExtraOp::VideoScalar(video) => video_scalar(&video, a as u32, b as u32, c as u32),
    })
}

/// The SIMD video instructions `vadd2` ... `vset4` (9.7.18.2), the Semantics blocks of
/// vadd2.md/vadd4.md and vset2.md/vset4.md:
///
/// * "`Va = extractAndSignExt_4( a, b, .asel, .atype ); Vb = extractAndSignExt_4( a, b,
///   .bsel, .btype ); Vc = extractAndSignExt_4( c );`": "Elements of each quad byte source to
///   the operation are selected from any of the eight bytes in the two source operands a and
///   b using the asel and bsel modifiers" (half-words and `_2` for `vop2`).
/// * `vadd`: "`t[i] = Va[i] + Vb[i]`", `vsub`: "`Va[i] - Vb[i]`", `vavrg`: "`if ( ( Va[i] +
///   Vb[i] ) >= 0 ) { t[i] = ( Va[i] + Vb[i] + 1 ) >> 1; } else { t[i] = ( Va[i] + Vb[i] ) >>
///   1; }`", `vabsdiff`: "`| Va[i] - Vb[i] |`", `vmin`/`vmax`: "`MIN( Va[i], Vb[i] )`",
///   `vset`: "`t[i] = compare( Va[i], Vb[i], cmp ) ? 1 : 0;`".
/// * "`if (.sat) { if ( .dtype == .s32 ) t[i] = CLAMP( t[i], S8_MAX, S8_MIN ); else t[i] =
///   CLAMP( t[i], U8_MAX, U8_MIN ); }`" (`S16`/`U16` for `vop2`).
/// * "`if (.add) { d = c; for (i=0; i<4; i++) { d += mask[i] ? t[i] : 0; } } else { d = 0;
///   for (i=0; i<4; i++) { d |= mask[i] ? t[i] : Vc[i]; } }`": the merge places `t[i]` (or
///   `Vc[i]`) in lane `i` of `d`; the accumulation adds the full, possibly negative `t[i]`
///   modulo 2^32.
pub fn video_simd(v: &crate::ir::VideoSimd, a: u32, b: u32, c: u32) -> u32 {
    use ptxsim_isa::ops::{Compare, VideoOp};
    let (lanes, bits) = if v.quad { (4, 8) } else { (2, 16) };
    let lane_mask = (1u64 << bits) - 1;
    let pool = u64::from(b) << 32 | u64::from(a);
    let element = |index: u8, signed: bool| -> i64 {
        let raw = pool >> (bits * u32::from(index)) & lane_mask;
        if signed { sext(raw, bits) } else { raw as i64 }
    };
    let (low, high) = match (v.sat, v.d_signed) {
        (false, _) => (i64::MIN, i64::MAX),
        (true, true) => (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1),
        (true, false) => (0, lane_mask as i64),
    };
    let mut d = if v.add { c } else { 0 };
    for i in 0..lanes {
        let va = element(v.asel[i], v.a_signed);
        let vb = element(v.bsel[i], v.b_signed);
        let t = match v.op {
            VideoOp::Add => va + vb,
            VideoOp::Sub => va - vb,
            VideoOp::Avrg if va + vb >= 0 => (va + vb + 1) >> 1,
            VideoOp::Avrg => (va + vb) >> 1,
            VideoOp::Absdiff => (va - vb).abs(),
            VideoOp::Min => va.min(vb),
            VideoOp::Max => va.max(vb),
            VideoOp::Set(compare) => i64::from(match compare {
                Compare::Eq => va == vb,
                Compare::Ne => va != vb,
                Compare::Lt => va < vb,
                Compare::Le => va <= vb,
                Compare::Gt => va > vb,
                _ => va >= vb,
            }),
        }
        .clamp(low, high);
        let selected = v.mask >> i & 1 == 1;
        if v.add {
            if selected {
                d = d.wrapping_add(t as u32);
            }
        } else {
            let shift = bits * i as u32;
            let lane = if selected {
                t as u64
            } else {
                u64::from(c) >> shift
            };
            d |= ((lane & lane_mask) << shift) as u32;
        }
    }
    d
}

/// `partSelectSignExtend( x, type, sel )` of the scalar video instructions (9.7.18.1): "Using
/// the atype/btype and asel/bsel specifiers, the input values are extracted and sign- or
/// zero-extended internally to .s33 values."
fn video_part(x: u32, signed: bool, part: crate::ir::VideoPart) -> i64 {
    use crate::ir::VideoPart;
    let (raw, bits) = match part {
        VideoPart::Word => (u64::from(x), 32),
        VideoPart::Byte(i) => (u64::from(x >> (8 * u32::from(i)) & 0xff), 8),
        VideoPart::Half(i) => (u64::from(x >> (16 * u32::from(i)) & 0xffff), 16),
    };
    if signed { sext(raw, bits) } else { raw as i64 }
}

/// The scalar video instructions `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`,
/// `vset` and `vmad` (9.7.18.1), their Semantics blocks (vadd.md, vshl.md, vset.md, vmad.md):
///
/// * "`ta = partSelectSignExtend( a, atype, asel ); tb = partSelectSignExtend( b, btype, bsel
///   );`" ([`video_part`]; `vshl`/`vshr`: "`tb = partSelectSignExtend( b, .u32, bsel ); if (
///   mode == .clamp && tb > 32 ) tb = 32; if ( mode == .wrap ) tb = tb & 0x1f;`").
/// * `vadd`: "`tmp = ta + tb`", `vsub`: "`ta - tb`", `vabsdiff`: "`| ta - tb |`", `vmin`/`vmax`:
///   "`MIN( ta, tb )`", `vshl`: "`ta << tb`", `vshr`: "`ta >> tb`" (an arithmetic shift of a
///   signed `ta`), `vset`: "`tmp = compare( ta, tb, cmp ) ? 1 : 0;`".
/// * "`tmp = optSaturate( tmp, sat, isSigned(dtype), dsel );`": "The intermediate result is
///   optionally clamped to the range of the destination type (signed or unsigned), taking
///   into account the subword destination size in the case of optional data merging" (8 bits
///   for `.b0`..`.b3`, 16 for `.h0`/`.h1`, else 32).
/// * "`d = optSecondaryOp( op2, tmp, c );`" (`.add`: `tmp + c`, `.min`, `.max`; "The sign of
///   the third operand is based on dtype"), "`d = optMerge( dsel, tmp, c );`" (the byte or
///   half-word `dsel` of `d` is `tmp`'s low bits, the rest is `c`'s), `d` the result's low 32
///   bits.
/// * `vmad`: "`signedFinal = isSigned(atype) || isSigned(btype) || (a.negate ^ b.negate) ||
///   c.negate; tmp[127:0] = ta * tb; lsb = 0; if ( .po ) { lsb = 1; } else if ( a.negate ^
///   b.negate ) { tmp = ~tmp; lsb = 1; } else if ( c.negate ) { c = ~c; lsb = 1; } c128[127:0]
///   = (signedFinal) sext32( c ) : zext ( c ); tmp = tmp + c128 + lsb;`", then `.shr7` or
///   `.shr15` ("The intermediate result is optionally scaled via right-shift; this result is
///   sign-extended if the final result is signed, and zero-extended otherwise") and "`if (
///   .sat ) { if (signedFinal) result = CLAMP(result, S32_MAX, S32_MIN); else result =
///   CLAMP(result, U32_MAX, U32_MIN); }`".
pub fn video_scalar(v: &crate::ir::VideoScalar, a: u32, b: u32, c: u32) -> u32 {
    use crate::ir::VideoPart;
    use ptxsim_isa::ops::{Compare, VideoOp, VideoScalarOp, VideoSecondary};
    let ta = i128::from(video_part(a, v.a_signed, v.asel));
    let tb = i128::from(video_part(b, v.b_signed, v.bsel));
    let clamp = |value: i128, bits: u32, signed: bool| -> i128 {
        let (low, high) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        value.clamp(low, high)
    };
    if let VideoScalarOp::Mad { po, shift } = v.op {
        let signed_final = v.a_signed || v.b_signed || v.negate_product || v.negate_c;
        let mut tmp = ta * tb;
        let mut c = c;
        let mut lsb = 0;
        if po {
            lsb = 1;
        } else if v.negate_product {
            tmp = !tmp;
            lsb = 1;
        } else if v.negate_c {
            c = !c;
            lsb = 1;
        }
        let c128 = if signed_final {
            i128::from(c as i32)
        } else {
            i128::from(c)
        };
        let mut result = (tmp + c128 + lsb) >> shift;
        if v.sat {
            result = clamp(result, 32, signed_final);
        }
        return result as u32;
    }
    let tmp = match v.op {
        VideoScalarOp::Arithmetic(op) => match op {
            VideoOp::Add => ta + tb,
            VideoOp::Sub => ta - tb,
            VideoOp::Absdiff => (ta - tb).abs(),
            VideoOp::Min => ta.min(tb),
            VideoOp::Max => ta.max(tb),
            // The decoder makes no scalar `vavrg`.
            VideoOp::Avrg => (ta + tb) >> 1,
            VideoOp::Set(compare) => i128::from(match compare {
                Compare::Eq => ta == tb,
                Compare::Ne => ta != tb,
                Compare::Lt => ta < tb,
                Compare::Le => ta <= tb,
                Compare::Gt => ta > tb,
                _ => ta >= tb,
            }),
        },
        VideoScalarOp::Shl { clamp } | VideoScalarOp::Shr { clamp } => {
            let amount = if clamp { tb.min(32) } else { tb & 0x1f };
            if matches!(v.op, VideoScalarOp::Shl { .. }) {
                ta << amount
            } else {
                ta >> amount
            }
        }
        VideoScalarOp::Mad { .. } => 0,
    };
    let tmp = if v.sat {
        let bits = match v.dsel {
            VideoPart::Byte(_) => 8,
            VideoPart::Half(_) => 16,
            VideoPart::Word => 32,
        };
        clamp(tmp, bits, v.d_signed)
    } else {
        tmp
    };
    let c_value = if v.d_signed {
        i128::from(c as i32)
    } else {
        i128::from(c)
    };
    let d = match v.secondary {
        Some(VideoSecondary::Add) => tmp + c_value,
        Some(VideoSecondary::Min) => tmp.min(c_value),
        Some(VideoSecondary::Max) => tmp.max(c_value),
        None => tmp,
    } as u32;
    match v.dsel {
        VideoPart::Word => d,
        VideoPart::Byte(i) => {
            let shift = 8 * u32::from(i);
            (d & 0xff) << shift | c & !(0xff << shift)
        }
        VideoPart::Half(i) => {
            let shift = 16 * u32::from(i);
            (d & 0xffff) << shift | c & !(0xffff << shift)
        }
    }
}

/// 9.7.1.16: "`msb = (.type==.u32 || .type==.s32) ? 31 : 63;` // negate negative signed
/// inputs `if ((.type==.s32 || .type==.s64) && (a & (1<<msb))) { a = ~a; }` `.u32 d =
/// 0xffffffff;` ... the highest set bit ... `if (.shiftamt && d != 0xffffffff) { d = msb -
/// d; }`".
fn bfind(ty: Type, shiftamt: bool, a: u64) -> u32 {
    let w = width(ty);
    let msb = w - 1;
    let mut a = a & mask(w);
    if matches!(ty, Type::S32 | Type::S64) && a >> msb & 1 == 1 {
        a = !a & mask(w);
    }
    if a == 0 {
        return u32::MAX;
    }
    let d = 63 - a.leading_zeros();
    if shiftamt { msb - d } else { d }
}

/// 9.7.1.17: "find the n-th (given by offset) set bit in mask from the base bit ... If not
/// found, store 0xffffffff in d" (the Semantics block's loop). "Operand base must be <= 31,
/// otherwise behavior is undefined": ptxsim then finds nothing.
fn fns(mask_bits: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    let bit = |pos: i64| mask_bits >> pos & 1 == 1;
    if offset == 0 {
        return if bit(i64::from(base)) { base } else { u32::MAX };
    }
    let inc: i64 = if offset > 0 { 1 } else { -1 };
    let mut count = i64::from(offset).abs() - 1;
    let mut pos = i64::from(base);
    while (0..32).contains(&pos) {
        if bit(pos) {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += inc;
    }
    u32::MAX
}

/// 9.7.1.22, the Semantics block: `mask0 = (~0) << (a & 0x1f)`, `mask1 = (~0) << (a1 + b1)`
/// (0 when the sum, or with `.clamp` the position or width, overflows; all ones when `b1` is
/// 0), `d = mask0 & ~mask1`.
fn bmsk(clamp: bool, a: u32, b: u32) -> u32 {
    let a1 = a & 0x1f;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask0 = u32::MAX << a1;
    let mut overflow = sum >= 32;
    if clamp {
        if a >= 32 {
            overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        u32::MAX
    } else {
        u32::MAX << sum
    };
    mask0 & !mask1
}

/// 9.7.1.21, the Semantics block: `b1 = b & 0x1f`, `too_large = (b >= 32 && .mode ==
/// .clamp)`, `mask = too_large ? 0 : (~0) << b1`, the sign bit at `b1 - 1` for `.s32`, `d = (a
/// & ~mask) | (sign_bit ? mask : 0)`.
fn szext(signed: bool, clamp: bool, a: u32, b: u32) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { u32::MAX << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = !(b1 == 0 || too_large || !signed) && a >> sign_pos & 1 == 1;
    (a & !mask) | if sign_bit { mask } else { 0 }
}

/// 9.7.1.23-24: `d = c + Σ Va[i] * Vb[i]` over the four bytes of `a` and `b` (`dp4a`), or the
/// two 16-bit halves of `a` and the low (`.lo`) or high (`.hi`) two bytes of `b` (`dp2a`),
/// each sign- or zero-extended by its type; the sum wraps at 32 bits.
fn dot(dp2a: Option<bool>, a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let field = |v: u32, index: u32, bits: u32, signed: bool| -> i64 {
        let raw = u64::from(v >> (index * bits)) & mask(bits);
        if signed { sext(raw, bits) } else { raw as i64 }
    };
    let mut d = i64::from(c);
    match dp2a {
        None => {
            for i in 0..4 {
                d += field(a, i, 8, a_signed) * field(b, i, 8, b_signed);
            }
        }
        Some(hi) => {
            let select = if hi { 2 } else { 0 };
            for i in 0..2 {
                d += field(a, i, 16, a_signed) * field(b, select + i, 8, b_signed);
            }
        }
    }
    d as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples of PTX ISA 9.7.1.17: "fns.b32 d, 0xaaaaaaaa, 3, 1; // d = 3", "..., 3,
    /// -1; // d = 3", "..., 2, 1; // d = 3", "..., 2, -1; // d = 1".
    #[test]
    fn fns_examples() {
        assert_eq!(fns(0xaaaa_aaaa, 3, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 3, -1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, -1), 1);
    }

    /// 9.7.1.22: "bmsk.wrap.b32 rd, 1, 2; // Creates a bitmask of 0x00000006."; 9.7.1.21:
    /// "szext.wrap.u32 rd, 0xffffffff, 0; // Result is 0."
    #[test]
    fn bmsk_and_szext_examples() {
        assert_eq!(bmsk(false, 1, 2), 6);
        assert_eq!(szext(false, false, 0xffff_ffff, 0), 0);
    }

    /// 9.7.2.6's example: `[r3,r2,r1,r0] = [r5,r4] * [r7,r6]` by the listed sequence of
    /// mul/mad.cc/madc/addc, checked against the 128-bit product.
    #[test]
    fn madc_example_multiplies_64_by_64_bits() {
        let (x, y) = (0xfedc_ba98_7654_3210u64, 0xffff_ffff_0000_0001u64);
        let (r4, r5) = (x & 0xffff_ffff, x >> 32);
        let (r6, r7) = (y & 0xffff_ffff, y >> 32);
        let t = CarryOp::Mad { hi: false };
        let h = CarryOp::Mad { hi: true };
        let u = Type::U32;
        let r0 = (r4 * r6) & 0xffff_ffff;
        let r1 = (r4 * r6) >> 32;
        let (r1, cf) = carry(t, u, r5, r6, r1, None);
        let (r2, _) = carry(h, u, r5, r6, 0, Some(cf));
        let (r1, cf) = carry(t, u, r4, r7, r1, None);
        let (r2, cf) = carry(h, u, r4, r7, r2, Some(cf));
        let (r3, _) = carry(CarryOp::Add, u, 0, 0, 0, Some(cf));
        let (r2, cf) = carry(t, u, r5, r7, r2, None);
        let (r3, _) = carry(h, u, r5, r7, r3, Some(cf));
        let got =
            u128::from(r0) | u128::from(r1) << 32 | u128::from(r2) << 64 | u128::from(r3) << 96;
        assert_eq!(got, u128::from(x) * u128::from(y));
    }

    /// `sub.cc` then `subc` (9.7.2.4's example) subtract two-word values.
    #[test]
    fn subc_borrows() {
        for (a, b) in [(1u64 << 32, 1u64), (5, 7), (u64::MAX, u64::MAX - 1)] {
            let (lo, cf) = carry(CarryOp::Sub, Type::U32, a, b, 0, None);
            let (hi, _) = carry(CarryOp::Sub, Type::U32, a >> 32, b >> 32, 0, Some(cf));
            assert_eq!(lo | hi << 32, a.wrapping_sub(b), "{a:#x} - {b:#x}");
        }
    }

    /// 9.7.1.16: the most significant non-sign bit; 0xffffffff when there is none.
    #[test]
    fn bfind_follows_the_semantics_block() {
        assert_eq!(bfind(Type::U32, false, 0), u32::MAX);
        assert_eq!(bfind(Type::U32, false, 0x10), 4);
        assert_eq!(bfind(Type::U32, true, 0x10), 27);
        assert_eq!(bfind(Type::S32, false, 0xffff_ffff), u32::MAX);
        assert_eq!(bfind(Type::S32, false, 0xffff_fff0), 3);
        assert_eq!(bfind(Type::S64, true, 1), 63);
    }

    /// 9.7.1.23: four products of sign- or zero-extended bytes plus `c`.
    #[test]
    fn dp4a_extends_each_byte() {
        // bytes of a: 1, 2, 3, 0xff; of b: 4, 5, 6, 0xff.
        let (a, b) = (0xff03_0201, 0xff06_0504);
        assert_eq!(
            dot(None, false, false, a, b, 10),
            10 + 4 + 10 + 18 + 255 * 255
        );
        assert_eq!(dot(None, true, true, a, b, 10), 10 + 4 + 10 + 18 + 1);
        assert_eq!(dot(None, true, false, a, b, 0) as i32, 4 + 10 + 18 - 255);
        // dp2a.hi: a's halves 0x0201, 0xff03 (s16: -253) times b's bytes 2, 3 (6, 0xff).
        assert_eq!(
            dot(Some(true), true, false, a, b, 0) as i32,
            0x0201 * 6 + (-253) * 255
        );
    }
}
