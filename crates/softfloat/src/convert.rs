//! The conversion engine: decode the source into an exact value, round it once to the
//! destination, then apply the saturation modifiers. Integers only.

use crate::format::{Encoding, Format, NanEncoding};
use crate::{Converted, Flags, Rounding, Status, Type};

/// An exactly decoded source value. `Finite` is `mant * 2^exp` with `mant != 0`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Value {
    Nan,
    Inf { neg: bool },
    Zero { neg: bool },
    Finite { neg: bool, mant: u64, exp: i32 },
}

/// Rounding direction used by the engine.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Dir {
    NearestEven,
    NearestAway,
    Zero,
    Down,
    Up,
    /// `.rs`: `random` holds `width` random bits, added to the top `width` discarded bits.
    Stochastic {
        random: u32,
        width: u32,
    },
}

/// Number of random bits one `.rs` conversion to `to` consumes (PTX ISA 9.7.9.21: "13 LSBs"
/// per half for `.f16x2`, each 16-bit half for `.bf16x2`, a 16-bit value per operand pair for
/// the fp8/fp6 `x4` forms, 8 bits per operand for `.e2m1x4`). See `docs/softfloat.md` for how
/// the bits are aligned with the discarded mantissa bits.
#[must_use]
pub const fn random_bits_width(to: Type) -> u32 {
    match to {
        Type::F16 => 13,
        Type::E2m1 => 8,
        _ => 16,
    }
}

impl Dir {
    fn from_rounding(r: Rounding, to: Type, random_bits: Option<u32>) -> Dir {
        match r {
            Rounding::Rn | Rounding::Rni => Dir::NearestEven,
            Rounding::Rna => Dir::NearestAway,
            Rounding::Rz | Rounding::Rzi => Dir::Zero,
            Rounding::Rm | Rounding::Rmi => Dir::Down,
            Rounding::Rp | Rounding::Rpi => Dir::Up,
            Rounding::Rs => {
                let width = random_bits_width(to);
                let mask = (1u32 << width) - 1;
                Dir::Stochastic {
                    random: random_bits.unwrap_or(0) & mask,
                    width,
                }
            }
        }
    }

    /// Whether an overflowing result of sign `neg` goes to MAX_NORM rather than infinity
    /// (IEEE 754 7.4 overflow rules; `.rs` follows the direction its carry chose).
    fn overflow_to_max(self, neg: bool, rounded_up: bool) -> bool {
        match self {
            Dir::NearestEven | Dir::NearestAway => false,
            Dir::Zero => true,
            Dir::Down => !neg,
            Dir::Up => neg,
            Dir::Stochastic { .. } => !rounded_up,
        }
    }
}

/// Rounds `mant * 2^exp` to an integer multiple `n` of `2^q`; returns `(n, inexact,
/// rounded_up)`. The caller guarantees that `mant << (exp - q)` fits when `exp >= q`.
#[inline(always)]
pub(crate) fn round_at(neg: bool, mant: u64, exp: i32, q: i32, dir: Dir) -> (u64, bool, bool) {
    if exp >= q {
        return (mant << (exp - q) as u32, false, false);
    }
    let s = (q - exp) as u32;
    // kept = mant >> s; rem = the discarded low s bits; `half` compares rem with 2^(s-1).
    let (kept, rem, cmp_half) = if s < 64 {
        let rem = mant & ((1u64 << s) - 1);
        (mant >> s, rem, rem.cmp(&(1u64 << (s - 1))))
    } else if s == 64 {
        (0, mant, mant.cmp(&(1u64 << 63)))
    } else {
        (0, mant, core::cmp::Ordering::Less)
    };
    if rem == 0 {
        return (kept, false, false);
    }
    let up = match dir {
        Dir::NearestEven => {
            cmp_half == core::cmp::Ordering::Greater
                || (cmp_half == core::cmp::Ordering::Equal && kept & 1 == 1)
        }
        Dir::NearestAway => cmp_half != core::cmp::Ordering::Less,
        Dir::Zero => false,
        Dir::Down => neg,
        Dir::Up => !neg,
        Dir::Stochastic { random, width } => {
            // The top `width` discarded bits, as a `width`-bit integer.
            let rem = u128::from(rem);
            let top = if s >= width {
                let sh = s - width;
                if sh >= 128 { 0 } else { rem >> sh }
            } else {
                rem << (width - s)
            };
            top + u128::from(random) >= (1u128 << width)
        }
    };
    (kept + u64::from(up), true, up)
}

/// Sign-extends the low `width` bits of `bits`.
#[inline]
fn sign_extend(bits: u64, width: u32) -> i64 {
    let sh = 64 - width;
    ((bits << sh) as i64) >> sh
}

/// Decodes `bits` of type `from` exactly. `.ftz` flushes f32 subnormal inputs ("subnormal
/// inputs are flushed to sign-preserving zero").
#[inline]
pub(crate) fn decode(bits: u64, from: Type, ftz: bool, status: &mut Status) -> Value {
    if let Some((w, signed)) = from.integer() {
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let raw = bits & mask;
        if raw == 0 {
            return Value::Zero { neg: false };
        }
        if signed {
            let v = sign_extend(raw, w);
            return Value::Finite {
                neg: v < 0,
                mant: v.unsigned_abs(),
                exp: 0,
            };
        }
        return Value::Finite {
            neg: false,
            mant: raw,
            exp: 0,
        };
    }
    let Some(fmt) = from.format() else {
        return Value::Zero { neg: false };
    };
    let v = decode_format(bits, fmt);
    if ftz && from == Type::F32 {
        if let Value::Finite { neg, mant, .. } = v {
            if mant < (1u64 << 23) {
                status.underflow = true;
                status.inexact = true;
                return Value::Zero { neg };
            }
        }
    }
    v
}

/// Decodes the bits of one value of format `fmt` (bits outside the value are ignored: the two
/// padding MSBs of an fp6 byte, the high nibble of an e2m1 byte, the low 13 bits of tf32).
#[inline]
pub(crate) fn decode_format(bits: u64, fmt: &Format) -> Value {
    let field = (bits & fmt.value_mask()) >> fmt.low_zero_bits;
    if let Encoding::TwosComplementFixed { fraction_bits } = fmt.encoding {
        let v = sign_extend(field, fmt.value_bits());
        if v == 0 {
            return Value::Zero { neg: false };
        }
        return Value::Finite {
            neg: v < 0,
            mant: v.unsigned_abs(),
            exp: -(fraction_bits as i32),
        };
    }
    let mb = fmt.mantissa_bits;
    let neg = fmt.signed && (field >> (fmt.value_bits() - 1)) & 1 == 1;
    let mant = field & ((1u64 << mb) - 1);
    let e = (field >> mb) & fmt.max_exponent_field();
    match fmt.nan {
        NanEncoding::AllOnesExponent if e == fmt.max_exponent_field() => {
            return if mant == 0 {
                Value::Inf { neg }
            } else {
                Value::Nan
            };
        }
        NanEncoding::AllOnesPattern
            if e == fmt.max_exponent_field() && mant == (1u64 << mb) - 1 =>
        {
            return Value::Nan;
        }
        NanEncoding::AllOnesExponentOnly if e == fmt.max_exponent_field() => return Value::Nan,
        _ => {}
    }
    if e == 0 && fmt.subnormals {
        if mant == 0 {
            Value::Zero { neg }
        } else {
            Value::Finite {
                neg,
                mant,
                exp: 1 - fmt.bias - mb as i32,
            }
        }
    } else {
        Value::Finite {
            neg,
            mant: mant | (1u64 << mb),
            exp: e as i32 - fmt.bias - mb as i32,
        }
    }
}

/// Whether `mant * 2^exp` (mant != 0) is greater than MAX_NORM of the float format `fmt`.
#[inline]
fn above_max_norm(mant: u64, exp: i32, fmt: &Format) -> bool {
    let mb = fmt.mantissa_bits;
    let etop = exp + 63 - mant.leading_zeros() as i32;
    let emax = fmt.max_normal_exponent_field() as i32 - fmt.bias;
    if etop != emax {
        return etop > emax;
    }
    let max_mant = fmt.max_normal_mantissa_field() | (1u64 << mb);
    let x_aligned = mant << mant.leading_zeros();
    let m_aligned = max_mant << (63 - mb);
    x_aligned > m_aligned
}

/// The result of an overflow: sign-preserved MAX_NORM when `.satfinite` applies or the
/// rounding direction goes toward zero, otherwise infinity, or NaN for e4m3 and ue8m0, which
/// have no infinity (`cuda_fp8.hpp`: "no Inf in E4M3").
#[inline]
fn overflow_bits(fmt: &Format, neg: bool, to_max: bool) -> u64 {
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if to_max {
        return fmt.max_normal_bits() | sign;
    }
    if let Some(inf) = fmt.infinity_bits() {
        inf | sign
    } else if fmt.has_nan() {
        fmt.canonical_nan | sign
    } else {
        fmt.max_normal_bits() | sign
    }
}

/// Rounds a decoded value to the floating-point format `fmt`.
#[inline]
pub(crate) fn encode_float(
    v: Value,
    fmt: &Format,
    dir: Dir,
    satfinite: bool,
    st: &mut Status,
) -> u64 {
    if let Encoding::TwosComplementFixed { fraction_bits } = fmt.encoding {
        return encode_fixed(v, fmt, fraction_bits, dir, st);
    }
    let (neg, mant, exp) = match v {
        Value::Nan => {
            st.invalid = true;
            // `.satfinite`: "For `.e2m1x2`, `.e2m3x2`, `.e3m2x2`, ... `NaN` results are
            // converted to positive *MAX_NORM*"; the headers do the same without it.
            return if fmt.has_nan() {
                fmt.canonical_nan
            } else {
                fmt.max_normal_bits()
            };
        }
        Value::Inf { neg } => {
            let neg = neg && fmt.signed;
            if satfinite || !fmt.has_nan() {
                st.overflow = true;
                return overflow_bits(fmt, neg, true);
            }
            return overflow_bits(fmt, neg, false);
        }
        Value::Zero { neg } => {
            // ue8m0 has no zero: its smallest value 2^-127 (0x00) is what zero rounds to.
            return if neg && fmt.signed { fmt.sign_bit() } else { 0 };
        }
        Value::Finite { neg, mant, exp } => (neg && fmt.signed, mant, exp),
    };
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if satfinite && above_max_norm(mant, exp, fmt) {
        st.overflow = true;
        st.inexact = true;
        return fmt.max_normal_bits() | sign;
    }
    let mb = fmt.mantissa_bits as i32;
    let etop = exp + 63 - mant.leading_zeros() as i32;
    let emin = if fmt.subnormals {
        1 - fmt.bias
    } else {
        -fmt.bias
    };
    let mut q = etop.max(emin) - mb;
    let (mut n, inexact, up) = round_at(neg, mant, exp, q, dir);
    st.inexact |= inexact;
    if n >> (mb + 1) != 0 {
        n >>= 1;
        q += 1;
    }
    if n == 0 {
        st.underflow = true;
        return sign;
    }
    let field = if n < (1u64 << mb) {
        if inexact {
            st.underflow = true;
        }
        n
    } else {
        let biased = (q + mb + fmt.bias) as u64;
        let frac = n - (1u64 << mb);
        let max_e = fmt.max_normal_exponent_field();
        if biased > max_e || (biased == max_e && frac > fmt.max_normal_mantissa_field()) {
            st.overflow = true;
            st.inexact = true;
            return overflow_bits(fmt, neg, satfinite || dir.overflow_to_max(neg, up));
        }
        (biased << mb) | frac
    };
    (field << fmt.low_zero_bits) | sign
}

/// Rounds a decoded value to a two's complement fixed-point format (`.s2f6`), saturating to
/// ±MAX_NORM (the format has no NaN or infinity; NaN becomes +MAX_NORM as for the other
/// NaN-less `.satfinite` destinations).
fn encode_fixed(v: Value, fmt: &Format, fraction_bits: u32, dir: Dir, st: &mut Status) -> u64 {
    let width = fmt.value_bits();
    let mask = (1u64 << width) - 1;
    let max = fmt.max_normal_bits();
    let neg_max = max.wrapping_neg() & mask;
    match v {
        Value::Nan => {
            st.invalid = true;
            max
        }
        Value::Inf { neg } => {
            st.overflow = true;
            if neg { neg_max } else { max }
        }
        Value::Zero { .. } => 0,
        Value::Finite { neg, mant, exp } => {
            let etop = exp + 63 - mant.leading_zeros() as i32;
            let limit_exp = width as i32 - 1 - fraction_bits as i32; // 2^limit_exp > MAX_NORM
            let q = -(fraction_bits as i32);
            let above = if etop >= limit_exp {
                true
            } else if exp >= q {
                (mant << (exp - q) as u32) > max
            } else {
                let sh = (q - exp) as u32;
                sh < 64 && u128::from(mant) > (u128::from(max) << sh)
            };
            if above {
                st.overflow = true;
                st.inexact = true;
                return if neg { neg_max } else { max };
            }
            let (n, inexact, _) = round_at(neg, mant, exp, q, dir);
            st.inexact |= inexact;
            if n > max {
                // |x| <= MAX_NORM never rounds above it; |x| > MAX_NORM is clamped.
                st.overflow = true;
                return if neg { neg_max } else { max };
            }
            if neg { n.wrapping_neg() & mask } else { n }
        }
    }
}

/// Whether the fast path [`fast_float`] applies from `src` to `dst`: both are signed IEEE-style
/// floats with gradual underflow, `dst` keeps fewer mantissa bits and no wider exponent than
/// `src`, so every finite `dst` value (MAX_NORM included) is exactly representable in `src`.
#[inline(always)]
const fn fast_ok(src: &Format, dst: &Format) -> bool {
    matches!(src.encoding, Encoding::Float)
        && matches!(dst.encoding, Encoding::Float)
        && src.signed
        && dst.signed
        && src.subnormals
        && dst.subnormals
        && src.low_zero_bits == 0
        && src.container_bits <= 32
        && dst.mantissa_bits < src.mantissa_bits
        && dst.exponent_bits <= src.exponent_bits
}

/// The fast path of [`encode_float`] for a normal finite source value whose exponent is within
/// the destination's range (the common case); `None` sends the input to the general path.
/// Same results as the general path, only on 64-bit integers and without decoding into
/// [`Value`]: `kept`, the discarded bits and the rounding decision are the same quantities.
#[inline(always)]
fn fast_float(
    x: u64,
    src: &Format,
    dst: &Format,
    dir: Dir,
    satfinite: bool,
    st: &mut Status,
) -> Option<u64> {
    let ms = src.mantissa_bits;
    let mb = dst.mantissa_bits;
    let sign_shift = src.value_bits() - 1;
    let neg = (x >> sign_shift) & 1 == 1;
    let a = x & ((1u64 << sign_shift) - 1);
    let emax = dst.max_normal_exponent_field() as i32 - dst.bias;
    let emin = 1 - dst.bias;
    // Thresholds on the magnitude bits of the source (all constants once inlined):
    // infinity/NaN, 2^(emax+1) (beyond MAX_NORM whatever the rounding) and 2^emin (the
    // destination's smallest normal). `fast_ok` guarantees that they are source normals.
    let src_inf = src.max_exponent_field() << ms;
    let src_overflow = ((emax + 1 + src.bias) as u64) << ms;
    let src_min_normal = ((emin + src.bias) as u64) << ms;
    if a >= src_inf {
        return None;
    }
    let sign = if neg { dst.sign_bit() } else { 0 };
    if a >= src_overflow {
        if satfinite {
            st.overflow = true;
            st.inexact = true;
            return Some(dst.max_normal_bits() | sign);
        }
        // `.rs` needs its carry: the general path computes it.
        if let Dir::Stochastic { .. } = dir {
            return None;
        }
        st.overflow = true;
        st.inexact = true;
        return Some(overflow_bits(dst, neg, dir.overflow_to_max(neg, true)));
    }
    if satfinite {
        // MAX_NORM of `dst` in the bit layout of `src` (exact: see `fast_ok`).
        let max_in_src =
            (((emax + src.bias) as u64) << ms) | (dst.max_normal_mantissa_field() << (ms - mb));
        if a > max_in_src {
            st.overflow = true;
            st.inexact = true;
            return Some(dst.max_normal_bits() | sign);
        }
    }
    // `kept` is the truncated result already in the destination's encoding: for a normal
    // result the source bits shifted right with the exponent re-biased (the hidden bit is
    // implicit on both sides); for a subnormal result the significand (with its hidden bit)
    // shifted by the extra denormalization. A carry out of the mantissa then moves into the
    // exponent field by itself.
    let (s, kept, mant) = if a >= src_min_normal {
        let s = ms - mb;
        let rebias = ((src.bias - dst.bias) as u64) << mb;
        (s, (a >> s) - rebias, a)
    } else {
        let e = a >> ms;
        let hidden = if e == 0 { 0 } else { 1u64 << ms };
        let mant = (a & ((1u64 << ms) - 1)) | hidden;
        let big_e = e.max(1) as i32 - src.bias;
        let s = (ms - mb + (emin - big_e) as u32).min(63);
        (s, mant >> s, mant)
    };
    // 1 <= s <= 63 (`fast_ok` excludes equal precisions), so plain u64 shifts suffice.
    let rem = mant & ((1u64 << s) - 1);
    let half = 1u64 << (s - 1);
    let inexact = rem != 0;
    let up = match dir {
        Dir::NearestEven => (rem > half) | ((rem == half) & (kept & 1 == 1)),
        Dir::NearestAway => rem >= half,
        Dir::Zero => false,
        Dir::Down => neg & inexact,
        Dir::Up => !neg & inexact,
        Dir::Stochastic { .. } => round_at(neg, mant & ((1u64 << s) - 1), 0, s as i32, dir).2,
    };
    let res = kept + u64::from(up);
    st.inexact |= inexact;
    let max_field = dst.max_normal_bits() >> dst.low_zero_bits;
    if res > max_field {
        st.overflow = true;
        return Some(overflow_bits(
            dst,
            neg,
            satfinite || dir.overflow_to_max(neg, up),
        ));
    }
    if res < (1u64 << mb) && inexact {
        st.underflow = true;
    }
    Some((res << dst.low_zero_bits) | sign)
}

/// The fast path for `.ue8m0` destinations from a source with the same exponent field (f32,
/// bf16): the result is the source's exponent, adjusted by the rounding of the mantissa
/// (`.rz` keeps it, `.rp` rounds any non-zero mantissa up, `.rn` rounds a mantissa of at
/// least one half up, as `cuda_fp8.hpp` does), clamped below at 2^-127 (`0x00`). Returns
/// `None` for NaN and infinity, and for other sources.
#[inline(always)]
fn fast_ue8m0(x: u64, src: &Format, dir: Dir, satfinite: bool, st: &mut Status) -> Option<u64> {
    if src.exponent_bits != 8 || src.bias != 127 || src.low_zero_bits != 0 || !src.signed {
        return None;
    }
    let ms = src.mantissa_bits;
    let a = x & ((1u64 << (src.value_bits() - 1)) - 1);
    let e = a >> ms;
    if e == 0xff {
        return None;
    }
    let frac = a & ((1u64 << ms) - 1);
    let half = 1u64 << (ms - 1);
    let up = match dir {
        Dir::Zero | Dir::Down => false,
        Dir::Up => frac != 0,
        Dir::NearestEven | Dir::NearestAway => frac >= half,
        Dir::Stochastic { .. } => return None,
    };
    st.inexact = frac != 0 || e == 0;
    if e == 0 {
        // Below 2^-126: 2^-127 is `half` units of the subnormal quantum.
        let one = match dir {
            Dir::Up => frac > half,
            Dir::NearestEven | Dir::NearestAway => frac >= half + (half >> 1),
            _ => false,
        };
        return Some(u64::from(one));
    }
    let biased = e + u64::from(up);
    if biased >= 0xff {
        st.overflow = true;
        return Some(if satfinite || dir.overflow_to_max(false, up) {
            0xfe
        } else {
            0xff
        });
    }
    Some(biased)
}

/// Whether `bits` is a NaN of format `fmt`.
#[inline]
pub(crate) fn is_nan(bits: u64, fmt: &Format) -> bool {
    matches!(decode_format(bits, fmt), Value::Nan)
}

/// Converts to an integer of `width` bits, clamping to the destination range ("For
/// float-to-integer conversions, the result is clamped to the destination range by default").
#[inline]
fn encode_int(
    v: Value,
    width: u32,
    signed: bool,
    dir: Dir,
    nan_value: u64,
    st: &mut Status,
) -> u64 {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let max = if signed { mask >> 1 } else { mask };
    let min_bits = if signed { 1u64 << (width - 1) } else { 0 };
    let clamp = |neg: bool, st: &mut Status| {
        st.overflow = true;
        st.inexact = true;
        if neg { min_bits } else { max }
    };
    match v {
        Value::Nan => {
            st.invalid = true;
            nan_value
        }
        Value::Inf { neg } => clamp(neg, st),
        Value::Zero { .. } => 0,
        Value::Finite { neg, mant, exp } => {
            let etop = exp + 63 - mant.leading_zeros() as i32;
            if etop >= 64 {
                return clamp(neg, st);
            }
            let (n, inexact, _) = round_at(neg, mant, exp, 0, dir);
            st.inexact |= inexact;
            if neg {
                if n == 0 {
                    0
                } else if !signed || n > (1u64 << (width - 1)) {
                    clamp(true, st)
                } else {
                    n.wrapping_neg() & mask
                }
            } else if n > max {
                clamp(false, st)
            } else {
                n
            }
        }
    }
}

/// Integer-to-integer conversion: truncation with sign or zero extension of the source, or,
/// with `.sat`, clamping "to `MININT..MAXINT` for the size of the operation".
fn int_to_int(bits: u64, from: (u32, bool), to: (u32, bool), sat: bool) -> (u64, Status) {
    let (fw, fs) = from;
    let (tw, ts) = to;
    let fmask = if fw == 64 { u64::MAX } else { (1u64 << fw) - 1 };
    let tmask = if tw == 64 { u64::MAX } else { (1u64 << tw) - 1 };
    let v: i128 = if fs {
        i128::from(sign_extend(bits & fmask, fw))
    } else {
        i128::from(bits & fmask)
    };
    let mut st = Status::default();
    if !sat {
        return ((v as u64) & tmask, st);
    }
    let (lo, hi): (i128, i128) = if ts {
        (-(1i128 << (tw - 1)), (1i128 << (tw - 1)) - 1)
    } else {
        (0, (1i128 << tw) - 1)
    };
    let c = v.clamp(lo, hi);
    if c != v {
        st.overflow = true;
        st.inexact = true;
    }
    ((c as u64) & tmask, st)
}

/// Post-processing of a floating-point result: `.ftz` on f32 results, `.sat` and `.relu`.
#[inline]
fn finish_float(mut bits: u64, to: Type, fmt: &Format, flags: Flags, st: &mut Status) -> u64 {
    if flags.ftz && to == Type::F32 && bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0 {
        // "Modifier `.ftz` may be specified to flush single-precision subnormal inputs and
        // results to sign-preserving zero."
        st.underflow = true;
        st.inexact = true;
        bits &= 0x8000_0000;
    }
    if flags.sat {
        // ".sat limits the result to the range [0.0, 1.0]. `NaN` results are flushed to
        // positive zero."
        let one = (fmt.bias as u64) << (fmt.mantissa_bits + fmt.low_zero_bits);
        if is_nan(bits, fmt) || bits & fmt.sign_bit() != 0 {
            bits = 0;
        } else if bits > one {
            bits = one;
        }
    }
    if flags.relu {
        // ".relu clamps the result to 0 if negative. `NaN` results are converted to canonical
        // `NaN`."
        if fmt.has_nan() && is_nan(bits, fmt) {
            bits = fmt.canonical_nan;
        } else if let Encoding::TwosComplementFixed { .. } = fmt.encoding {
            if bits & fmt.sign_bit() != 0 {
                bits = 0;
            }
        } else if bits & fmt.sign_bit() != 0 {
            bits = 0;
        }
    }
    bits
}

/// Rounds a decoded float value to an integral value of the same format (`.rni`, `.rzi`,
/// `.rmi`, `.rpi` on a float-to-float conversion: "The result is an integral value, stored in
/// floating-point format").
#[inline]
fn round_to_integral(v: Value, dir: Dir, st: &mut Status) -> Value {
    match v {
        Value::Finite { neg, mant, exp } if exp < 0 => {
            let (n, inexact, _) = round_at(neg, mant, exp, 0, dir);
            st.inexact |= inexact;
            if n == 0 {
                Value::Zero { neg }
            } else {
                Value::Finite {
                    neg,
                    mant: n,
                    exp: 0,
                }
            }
        }
        other => other,
    }
}

/// What a conversion makes of a NaN source where an sm_90 GPU does not return the destination's
/// canonical NaN. The spec leaves these NaNs unspecified (it fixes only `.sat`, `.relu` and the
/// NaN-less `.satfinite` destinations); the table is what an H100 returned for every NaN of the
/// 16-bit formats and thousands of f32/f64 NaNs (`tests/hardware/`, `docs/hardware.md`).
#[derive(Clone, Copy, Debug)]
enum NanPropagation {
    /// The source's sign and payload, the payload's top bits aligned with the destination's
    /// mantissa (zero-extended or truncated); `quiet` sets the destination's quiet bit. A
    /// truncated payload of zero leaves an infinity (`cvt.rna.tf32.f32` of `0x7f800001`).
    Payload { quiet: bool },
    /// `Payload { quiet: false }`, then one unit in the last place less: `cvt.rna.satfinite`
    /// `.tf32.f32` saturates by decrementing every all-ones-exponent result, which leaves most
    /// NaNs NaN but turns a NaN whose top ten payload bits are zero into MAX_NORM.
    PayloadLessOneUlp,
}

/// The measured sm_90 NaN rule of one conversion, or `None` for the canonical NaN.
fn nan_propagation(
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
) -> Option<NanPropagation> {
    use NanPropagation::{Payload, PayloadLessOneUlp};
    if flags.sat || flags.relu {
        return None; // both define their NaN result
    }
    let float_rounding = !rounding.is_integer();
    match (from, to) {
        // cvt.f64.f32, cvt.f32.f64, cvt.{f16,bf16}.f64, cvt.f64.{f16,bf16}: quieted payload.
        (Type::F32, Type::F64)
        | (Type::F64, Type::F32 | Type::F16 | Type::Bf16)
        | (Type::F16 | Type::Bf16, Type::F64) => Some(Payload { quiet: true }),
        // cvt.f32.bf16 is a shift ("NaN input yields unspecified NaN"), except with .ftz.
        (Type::Bf16, Type::F32) if !flags.ftz => Some(Payload { quiet: false }),
        // cvt.f32.f32 and cvt.f64.f64 pass a NaN through; cvt.rni.f64.f64 quiets it.
        (Type::F32, Type::F32) if float_rounding => Some(Payload { quiet: false }),
        (Type::F64, Type::F64) => Some(Payload {
            quiet: !float_rounding,
        }),
        (Type::F32, Type::Tf32) if rounding == Rounding::Rna => Some(if flags.satfinite {
            PayloadLessOneUlp
        } else {
            Payload { quiet: false }
        }),
        _ => None,
    }
}

/// Applies a [`NanPropagation`] to the NaN `bits` of format `src`. With `.ftz` an f32 NaN source
/// is first replaced by the canonical f32 NaN (`cvt.ftz.f64.f32` gives `0x7fffffffe0000000`
/// for every NaN, `cvt.ftz.f32.f32` the canonical NaN).
fn propagate_nan(
    bits: u64,
    from: Type,
    src: &Format,
    dst: &Format,
    rule: NanPropagation,
    ftz: bool,
) -> u64 {
    let bits = if ftz && from == Type::F32 {
        src.canonical_nan
    } else {
        bits
    };
    let field = (bits & src.value_mask()) >> src.low_zero_bits;
    let (ms, md) = (src.mantissa_bits, dst.mantissa_bits);
    let mant = field & ((1u64 << ms) - 1);
    let mut payload = if md >= ms {
        mant << (md - ms)
    } else {
        mant >> (ms - md)
    };
    if let NanPropagation::Payload { quiet: true } = rule {
        payload |= 1u64 << (md - 1);
    }
    let sign = if (field >> (src.value_bits() - 1)) & 1 == 1 {
        dst.sign_bit()
    } else {
        0
    };
    let out = sign | ((dst.max_exponent_field() << md | payload) << dst.low_zero_bits);
    match rule {
        NanPropagation::PayloadLessOneUlp => out - (1u64 << dst.low_zero_bits),
        NanPropagation::Payload { .. } => out,
    }
}

/// Converts one value: `cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.to.from d, a`
/// (PTX ISA 9.7.9.21: "Convert between different types and sizes.").
///
/// * `bits`: the source value in the low [`Type::bits`] bits; higher bits are ignored ("The
///   lower `n` bits corresponding to the instruction-type width are used in the conversion").
/// * `rounding`: the rounding modifier. Integer rounding modifiers on a float-to-float
///   conversion round to an integral value. For exact conversions the mode does not matter.
///   For `.ue8m0` destinations the sign is ignored and `.rn` rounds an exact midpoint upward
///   (the behaviour of `cuda_fp8.hpp`'s `__internal_cvt_float_to_e8m0_rn`).
/// * `flags`: `.ftz`, `.sat`, `.relu`, `.satfinite`.
/// * `random_bits`: the random bits of one operand for `.rs`, already extracted from `rbits`
///   (see [`crate::pack`] for the layouts); only the low [`random_bits_width`] bits are used.
///
/// Float-to-integer NaN: "Zero if source is not `.f64` and destination is not `.s64`,
/// `.u64`. Otherwise 1 << (BitWidth(dst) - 1)".
///
/// The common pairs of types run a copy of the conversion specialised for them (see
/// [`converter`]); the results are the same as the general code's.
#[must_use]
pub fn convert(
    bits: u64,
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    random_bits: Option<u32>,
) -> Converted {
    match converter(from, to) {
        Some(specialised) => specialised(bits, rounding, flags, random_bits),
        None => convert_general(bits, from, to, rounding, flags, random_bits),
    }
}

/// [`convert`] with its source and destination types fixed.
pub type Converter = fn(u64, Rounding, Flags, Option<u32>) -> Converted;

/// The common pairs of types, each with the code that uses them written once: `$apply` is
/// expanded for every pair with the constants `$f` and `$t` set to its types.
macro_rules! for_common_pairs {
    ($from:expr, $to:expr, |$f:ident, $t:ident| $apply:expr, $other:expr) => {
        for_common_pairs!(@pairs $from, $to, |$f, $t| $apply, $other;
            (F32, F16), (F32, Bf16), (F32, Tf32), (F32, E4m3), (F32, E5m2), (F32, E2m3),
            (F32, E3m2), (F32, E2m1), (F32, Ue8m0), (F32, F64), (F32, S32), (F32, U32),
            (F64, F32), (F64, F16), (F16, F32), (Bf16, F32), (F16, E4m3), (F16, E5m2),
            (F16, E2m3), (F16, E3m2), (F16, E2m1), (Bf16, E4m3), (Bf16, E5m2), (Bf16, Ue8m0),
            (E4m3, F16), (E5m2, F16), (E2m3, F16), (E3m2, F16), (E2m1, F16), (Ue8m0, Bf16),
            (S32, F32), (U32, F32))
    };
    (@pairs $from:expr, $to:expr, |$f:ident, $t:ident| $apply:expr, $other:expr;
        $(($pf:ident, $pt:ident)),*) => {
        match ($from, $to) {
            $((Type::$pf, Type::$pt) => {
                const $f: Type = Type::$pf;
                const $t: Type = Type::$pt;
                $apply
            })*
            _ => $other,
        }
    };
}

/// A copy of [`convert`] specialised for one common pair of types (the formats' parameters
/// become constants), or `None` for the other pairs (many values of one pair go through
/// [`convert_each`] instead). `convert(bits, from, to, ..)` is
/// `converter(from, to)(bits, ..)` where this is `Some`: a caller that converts many values of
/// one pair one at a time (the compiled tier) chooses it once.
pub fn converter(from: Type, to: Type) -> Option<Converter> {
    for_common_pairs!(
        from,
        to,
        |F, T| {
            let specialised: Converter = |bits, rounding, flags, random_bits| {
                convert_any(bits, F, T, rounding, flags, random_bits)
            };
            Some(specialised)
        },
        None
    )
}

/// [`convert`] of every value of `values`, in place, without random bits (every rounding but
/// `.rs`): one dispatch on the types for all of them, then a loop specialised for the pair.
/// The results are those of [`convert`].
pub fn convert_each(values: &mut [u64], from: Type, to: Type, rounding: Rounding, flags: Flags) {
    if let (Some(f), Some(t)) = (from.integer(), to.integer()) {
        for value in values.iter_mut() {
            *value = int_to_int(*value, f, t, flags.sat).0;
        }
        return;
    }
    for_common_pairs!(
        from,
        to,
        |F, T| {
            for value in values.iter_mut() {
                *value = convert_any(*value, F, T, rounding, flags, None).bits;
            }
        },
        {
            for value in values.iter_mut() {
                *value = convert_general(*value, from, to, rounding, flags, None).bits;
            }
        }
    );
}

/// [`convert`] for the pairs without a specialised copy.
#[inline(never)]
fn convert_general(
    bits: u64,
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    random_bits: Option<u32>,
) -> Converted {
    convert_any(bits, from, to, rounding, flags, random_bits)
}

/// [`convert`] for any pair of types; inlined into each specialised copy.
#[inline(always)]
fn convert_any(
    bits: u64,
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    random_bits: Option<u32>,
) -> Converted {
    let mut st = Status::default();
    let dir = Dir::from_rounding(rounding, to, random_bits);
    if let (Some(f), Some(t)) = (from.integer(), to.integer()) {
        let (bits, status) = int_to_int(bits, f, t, flags.sat);
        return Converted { bits, status };
    }
    if !flags.ftz && !flags.sat && !rounding.is_integer() {
        if to == Type::Ue8m0 {
            if let Some(sf) = from.format() {
                if let Some(out) = fast_ue8m0(bits, sf, dir, flags.satfinite, &mut st) {
                    return Converted {
                        bits: out,
                        status: st,
                    };
                }
            }
        }
        if let (Some(sf), Some(df)) = (from.format(), to.format()) {
            if fast_ok(sf, df) {
                if let Some(mut out) = fast_float(bits, sf, df, dir, flags.satfinite, &mut st) {
                    if flags.relu {
                        out = finish_float(out, to, df, flags, &mut st);
                    }
                    return Converted {
                        bits: out,
                        status: st,
                    };
                }
            }
        }
    }
    if let (Some(rule), Some(src), Some(dst)) = (
        nan_propagation(from, to, rounding, flags),
        from.format(),
        to.format(),
    ) {
        if is_nan(bits, src) {
            st.invalid = true;
            return Converted {
                bits: propagate_nan(bits, from, src, dst, rule, flags.ftz),
                status: st,
            };
        }
    }
    let v = decode(bits, from, flags.ftz, &mut st);
    let out = convert_value(v, from, to, dir, rounding, flags, &mut st);
    Converted {
        bits: out,
        status: st,
    }
}

#[inline]
fn convert_value(
    v: Value,
    from: Type,
    to: Type,
    dir: Dir,
    rounding: Rounding,
    flags: Flags,
    st: &mut Status,
) -> u64 {
    if let Some((w, signed)) = to.integer() {
        let nan_value = if from == Type::F64 || w == 64 {
            1u64 << (w - 1)
        } else {
            0
        };
        return encode_int(v, w, signed, dir, nan_value, st);
    }
    let Some(fmt) = to.format() else {
        return 0;
    };
    let mut v = v;
    let mut dir = dir;
    if rounding.is_integer() && from.integer().is_none() {
        v = round_to_integral(v, dir, st);
        dir = Dir::NearestEven;
    }
    if to == Type::Ue8m0 {
        // The destination has no sign: ".. a positive *MAX_NORM* in `.ue8m0x2` for which the
        // destination sign is not supported"; rounding applies to the magnitude.
        dir = match dir {
            Dir::NearestEven | Dir::NearestAway => Dir::NearestAway,
            Dir::Zero | Dir::Down => Dir::Zero,
            Dir::Up => Dir::Up,
            other => other,
        };
        v = match v {
            Value::Inf { .. } => Value::Inf { neg: false },
            Value::Zero { .. } => Value::Zero { neg: false },
            Value::Finite { mant, exp, .. } => Value::Finite {
                neg: false,
                mant,
                exp,
            },
            Value::Nan => Value::Nan,
        };
    }
    let bits = encode_float(v, fmt, dir, flags.satfinite, st);
    finish_float(bits, to, fmt, flags, st)
}

/// Converts with a `.scaled::n2::ue8m0` scale factor (the `.s2f6x2` forms): "For down
/// conversion, inputs are divided by `scale-factor` and then conversion is performed";
/// "For up-conversion, inputs are converted to destination type and then multiplied by
/// `scale-factor`". The scale is one `.ue8m0` value, 2^(scale-127); `0xff` is NaN and makes
/// the result NaN (which `.satfinite` then turns into +MAX_NORM for `.s2f6`). The division and
/// the multiplication by a power of two are exact, so one rounding happens in total.
#[must_use]
pub fn convert_scaled(
    bits: u64,
    from: Type,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    scale: u8,
) -> Converted {
    let mut st = Status::default();
    let dir = Dir::from_rounding(rounding, to, None);
    let mut v = decode(bits, from, flags.ftz, &mut st);
    if scale == 0xff {
        v = Value::Nan;
    } else if let Value::Finite { neg, mant, exp } = v {
        let shift = i32::from(scale) - 127;
        let exp = if to == Type::S2f6 {
            exp - shift
        } else {
            exp + shift
        };
        v = Value::Finite { neg, mant, exp };
    }
    let out = convert_value(v, from, to, dir, rounding, flags, &mut st);
    Converted {
        bits: out,
        status: st,
    }
}

/// One conversion between two fixed formats, with the fast path inlined for those formats.
#[inline(always)]
fn convert_fixed(
    bits: u64,
    from: Type,
    src: &Format,
    to: Type,
    dst: &Format,
    rounding: Rounding,
    flags: Flags,
) -> u64 {
    if !flags.ftz && !flags.sat && !flags.relu && !rounding.is_integer() && rounding != Rounding::Rs
    {
        let mut st = Status::default();
        let dir = Dir::from_rounding(rounding, to, None);
        if let Some(out) = fast_float(bits, src, dst, dir, flags.satfinite, &mut st) {
            return out;
        }
    }
    convert(bits, from, to, rounding, flags, None).bits
}

/// `cvt.{rn,rz,rm,rp}{.relu}{.satfinite}.f16.f32` on raw bits (same result as [`convert`]).
#[must_use]
#[inline]
pub fn f32_to_f16(bits: u32, rounding: Rounding, flags: Flags) -> u16 {
    convert_fixed(
        u64::from(bits),
        Type::F32,
        &crate::format::F32,
        Type::F16,
        &crate::format::F16,
        rounding,
        flags,
    ) as u16
}

/// `cvt.{rn,rz,rm,rp}{.relu}{.satfinite}.bf16.f32` on raw bits (same result as [`convert`]).
#[must_use]
#[inline]
pub fn f32_to_bf16(bits: u32, rounding: Rounding, flags: Flags) -> u16 {
    convert_fixed(
        u64::from(bits),
        Type::F32,
        &crate::format::F32,
        Type::Bf16,
        &crate::format::BF16,
        rounding,
        flags,
    ) as u16
}

/// `cvt.rn.satfinite{.relu}.e4m3x2.f32` for one operand, on raw bits (same result as
/// [`convert`]).
#[must_use]
#[inline]
pub fn f32_to_e4m3(bits: u32, rounding: Rounding, flags: Flags) -> u8 {
    convert_fixed(
        u64::from(bits),
        Type::F32,
        &crate::format::F32,
        Type::E4m3,
        &crate::format::E4M3,
        rounding,
        flags,
    ) as u8
}

/// `cvt.rn.satfinite{.relu}.e2m1x2.f32` for one operand, on raw bits (result in the low
/// nibble; same result as [`convert`]).
#[must_use]
#[inline]
pub fn f32_to_e2m1(bits: u32, rounding: Rounding, flags: Flags) -> u8 {
    convert_fixed(
        u64::from(bits),
        Type::F32,
        &crate::format::F32,
        Type::E2m1,
        &crate::format::E2M1,
        rounding,
        flags,
    ) as u8
}

/// `cvt.rn.satfinite{.relu}.e5m2x2.f16x2` for one lane, on raw bits (same result as
/// [`convert`]).
#[must_use]
#[inline]
pub fn f16_to_e5m2(bits: u16, rounding: Rounding, flags: Flags) -> u8 {
    convert_fixed(
        u64::from(bits),
        Type::F16,
        &crate::format::F16,
        Type::E5m2,
        &crate::format::E5M2,
        rounding,
        flags,
    ) as u8
}

/// `cvt.f32.f16` on raw bits (exact).
#[must_use]
#[inline]
pub fn f16_to_f32(bits: u16) -> u32 {
    convert(
        u64::from(bits),
        Type::F16,
        Type::F32,
        Rounding::Rn,
        Flags::NONE,
        None,
    )
    .bits as u32
}
