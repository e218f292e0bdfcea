//! The sm_90 multi-function unit (`MUFU.EX2`, `.LG2`, `.RCP`, `.RSQ`, `.SQRT`) from silicon
//! tables, and the instruction sequences ptxas 13 makes of the PTX forms that use it.
//!
//! **Tables.** `scripts/hardware/approx/tables.sh` ran the `.ftz` forms on an H200 over whole
//! binades (2^23 or 2^24 operands each; the `.ftz` forms are a lone `MUFU` instruction, see
//! `tests/hardware/approx/tables/approx-sass.txt`) and the results are embedded here
//! (`mufu_*.delta.xz`: u32 differences of consecutive results, xz). The unit's result depends
//! on the operand's exponent only through a shift, found by comparing binades (notes on each
//! function below), so one binade (two for `RSQ`/`SQRT`/`LG2`, one per sign for `EX2`)
//! determines every operand. Every function here is checked against the GPU's chunk hashes of
//! all 2^32 operands (`approx-hashes.tsv`) by `cargo run --release -p ptxsim-exec --example
//! approx_hashes`; docs/approx.md has the figures.
//!
//! **Sequences** (ptxas 13.0, `-arch=sm_90`, `approx-sass.txt`): the forms without `.ftz` scale
//! a subnormal operand into the normal range around the `MUFU` instruction (the unit flushes
//! subnormal operands and results), and `div` multiplies by the reciprocal. Those steps are
//! ordinary f32 `FMUL`/`FADD` (round to nearest even; `.FTZ` flushes operands and result),
//! which the host's f32 arithmetic performs bit for bit.

use std::sync::OnceLock;

use super::F32_NAN;

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
const MANT: u32 = 0x007f_ffff;

/// 2^-126, the smallest normal f32 (`FSETP.GEU |x|, 1.175494350822287508e-38`).
const MIN_NORMAL: f32 = f32::MIN_POSITIVE;
/// 2^126 (`FSETP.GT |x|, 8.50705917302346158658e+37`).
const TWO_126: f32 = 8.507_059e37;
const TWO_24: f32 = 16_777_216.0;

/// Decodes an embedded table: xz, then u32 little-endian differences summed (wrapping). A table
/// that does not decode gives an empty vector, whose lookups answer NaN (a test checks every
/// table's length, so this never happens in a release).
fn decode(xz: &[u8]) -> Vec<u32> {
    let mut raw = Vec::new();
    if lzma_rs::xz_decompress(&mut &xz[..], &mut raw).is_err() {
        return Vec::new();
    }
    sum_deltas(&raw)
}

/// The running wrapping sum of little-endian u32 differences.
fn sum_deltas(raw: &[u8]) -> Vec<u32> {
    let mut y = 0u32;
    raw.chunks_exact(4)
        .map(|d| {
            y = y.wrapping_add(u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
            y
        })
        .collect()
}

/// One embedded table.
#[derive(Debug)]
pub struct Table {
    cell: OnceLock<Vec<u32>>,
    xz: &'static [u8],
    /// How many results the table holds.
    pub len: usize,
}

impl Table {
    const fn new(xz: &'static [u8], len: usize) -> Table {
        Table {
            cell: OnceLock::new(),
            xz,
            len,
        }
    }

    /// The decoded results (decoded once, on first use).
    pub fn results(&self) -> &[u32] {
        self.cell.get_or_init(|| decode(self.xz))
    }

    fn get(&self, i: u32) -> u32 {
        self.results().get(i as usize).copied().unwrap_or(F32_NAN)
    }
}

/// `MUFU.EX2` of `x = ±k·2^-23`, k in [0, 2^23): index k for `+`, 2^23 + k for `-`.
pub static EX2: Table = Table::new(include_bytes!("mufu_ex2.delta.xz"), 1 << 24);
/// `MUFU.RCP` of the f32 patterns `0x3f800000 + i`, i in [0, 2^23) (`[1, 2)`).
pub static RCP: Table = Table::new(include_bytes!("mufu_rcp.delta.xz"), 1 << 23);
/// `MUFU.RSQ` of `0x3f800000 + i`, i in [0, 2^24) (`[1, 4)`).
pub static RSQ: Table = Table::new(include_bytes!("mufu_rsqrt.delta.xz"), 1 << 24);
/// `MUFU.SQRT` of `0x3f800000 + i`, i in [0, 2^24) (`[1, 4)`).
pub static SQRT: Table = Table::new(include_bytes!("mufu_sqrt.delta.xz"), 1 << 24);
/// `MUFU.LG2` of `0x3f000000 + i`, i in [0, 2^24) (`[0.5, 2)`).
pub static LG2: Table = Table::new(include_bytes!("mufu_lg2.delta.xz"), 1 << 24);

/// `MUFU.RCP64H` of the high words `0x3ff00000 + i`, i in [0, 2^20) (`[1, 2)`; the
/// `rcp.approx.ftz.f64` dense section of `tests/hardware/approx/approx-raw.bin`).
pub static RCP64H: Table = Table::new(include_bytes!("mufu_rcp64h.delta.xz"), 1 << 20);
/// `MUFU.RSQ64H` of the high words `0x3ff00000 + i`, i in [0, 2^21) (`[1, 4)`; the
/// `rsqrt.approx.ftz.f64` dense section).
pub static RSQ64H: Table = Table::new(include_bytes!("mufu_rsq64h.delta.xz"), 1 << 21);

/// `MUFU.SIN` of the revolutions `r = t·2^-25`, t in [0, 2^23) (the first quadrant), as
/// `sin.approx.ftz.f32` gave them for operands whose revolutions land there (tables2.cu).
pub static SIN_Q0: Table = Table::new(include_bytes!("mufu_sin_q0.delta.xz"), 1 << 23);
/// `MUFU.COS` likewise.
pub static COS_Q0: Table = Table::new(include_bytes!("mufu_cos_q0.delta.xz"), 1 << 23);

/// `MUFU.TANH` (`tanh.approx.f32`) of the positive operands with exponent field 119..129
/// (`[2^-8, 8)`), binade by binade, one result per aligned group of `2^k` operands (`k` per
/// binade, in the file's first line: the unit ignores that many low mantissa bits there).
#[derive(Debug)]
pub struct TanhTable {
    /// Low mantissa bits ignored, per binade.
    pub ks: [u32; 11],
    /// Index of each binade's first result.
    pub starts: [u32; 11],
    /// The results.
    pub results: Vec<u32>,
}

static TANH_XZ: &[u8] = include_bytes!("mufu_tanh.sub.xz");
static TANH: OnceLock<TanhTable> = OnceLock::new();

/// The decoded tanh table (an empty one, whose lookups answer NaN, if the embedded file does not
/// decode: a test checks that it does).
pub fn tanh_table() -> &'static TanhTable {
    TANH.get_or_init(|| {
        let empty = TanhTable {
            ks: [0; 11],
            starts: [0; 11],
            results: Vec::new(),
        };
        let mut raw = Vec::new();
        if lzma_rs::xz_decompress(&mut &TANH_XZ[..], &mut raw).is_err() {
            return empty;
        }
        let Some(eol) = raw.iter().position(|&b| b == b'\n') else {
            return empty;
        };
        let ks: Vec<u32> = String::from_utf8_lossy(&raw[..eol])
            .split_whitespace()
            .filter_map(|k| k.parse().ok())
            .collect();
        let Ok(ks) = <[u32; 11]>::try_from(ks) else {
            return empty;
        };
        if ks.iter().any(|&k| k > 8) {
            return empty;
        }
        let mut starts = [0u32; 11];
        let mut n = 0u32;
        for (start, k) in starts.iter_mut().zip(ks) {
            *start = n;
            n += 1 << (23 - k);
        }
        let results = sum_deltas(&raw[eol + 1..]);
        if results.len() != n as usize {
            return empty;
        }
        TanhTable {
            ks,
            starts,
            results,
        }
    })
}

fn is_nan(a: u32) -> bool {
    a & !SIGN > INF
}

/// Replaces the biased exponent of the table result `t` by its own plus `shift`: zero (same
/// sign) below the normal range, infinity above it, as the unit never produces subnormals.
fn rescale(sign: u32, t: u32, shift: i32) -> u32 {
    let e = ((t >> 23) & 0xff) as i32 + shift;
    if e <= 0 {
        sign
    } else if e >= 255 {
        sign | INF
    } else {
        sign | ((e as u32) << 23) | (t & MANT)
    }
}

/// `MUFU.RCP`: 1/x. The table's binade `[1, 2)` scaled: `rcp(m·2^e) = rcp(m)·2^-e`; a zero or
/// subnormal operand gives an infinity of its sign, an infinity a zero, a result below 2^-126
/// a zero.
pub fn rcp(a: u32) -> u32 {
    if is_nan(a) {
        return F32_NAN;
    }
    let sign = a & SIGN;
    let mag = a & !SIGN;
    if mag < 0x0080_0000 {
        return sign | INF;
    }
    if mag == INF {
        return sign;
    }
    let e = (mag >> 23) as i32 - 127;
    rescale(sign, RCP.get(mag & MANT), -e)
}

/// Splits a positive normal `m·2^e` into the index of `m·2^(e mod 2)` in the `[1, 4)` tables
/// and `e div 2` (floor).
fn even_split(mag: u32) -> (u32, i32) {
    let e = (mag >> 23) as i32 - 127;
    let odd = (e & 1) as u32;
    ((odd << 23) | (mag & MANT), e.div_euclid(2))
}

/// `MUFU.RSQ`: 1/sqrt(x), from `[1, 4)`: `rsq(m·4^k) = rsq(m)·2^-k`. `±0` (and subnormals)
/// give `±Inf`, `+Inf` gives `+0`, any other negative operand NaN.
pub fn rsq(a: u32) -> u32 {
    root(a, true)
}

/// `MUFU.SQRT`, from `[1, 4)`: `sqrt(m·4^k) = sqrt(m)·2^k`. `±0` (and subnormals) give a zero
/// of their sign, `+Inf` itself, any other negative operand NaN.
pub fn sqrt(a: u32) -> u32 {
    root(a, false)
}

/// `MUFU.RSQ` (`inverse`) or `MUFU.SQRT` from its `[1, 4)` table: `m·4^k` gives the table's
/// result times `2^∓k`; the zeros, infinities and negative operands as [`rsq`] and [`sqrt`] say.
fn root(a: u32, inverse: bool) -> u32 {
    if is_nan(a) {
        return F32_NAN;
    }
    let sign = a & SIGN;
    let mag = a & !SIGN;
    if mag < 0x0080_0000 {
        return if inverse { sign | INF } else { sign };
    }
    if sign != 0 {
        return F32_NAN;
    }
    if mag == INF {
        return if inverse { 0 } else { INF };
    }
    let (i, k) = even_split(mag);
    if inverse {
        rescale(0, RSQ.get(i), -k)
    } else {
        rescale(0, SQRT.get(i), k)
    }
}

/// `MUFU.EX2`: 2^x. The unit turns |x| into fixed point with 23 fraction bits, truncating
/// (measured: the two operands of each pair `2j·2^-24`, `(2j+1)·2^-24` give the same result,
/// as do all operands below 2^-22 in magnitude), and splits it into an integer `n` and a fraction
/// `f`: `2^x = T+(f)·2^n` for `x ≥ 0` and `T-(f)·2^-n` for `x < 0`, the two halves of the
/// table (the result for -x is not derived from the one for x: `ex2(-2^-23) = 1 - 2^-23`,
/// not the nearest `1 - 2^-24`). Subnormal operands act as zero (result 1); results beyond
/// the normal range are `+Inf` or `+0`.
pub fn ex2(a: u32) -> u32 {
    if is_nan(a) {
        return F32_NAN;
    }
    let neg = a & SIGN != 0;
    let mag = a & !SIGN;
    // |x| >= 128: beyond the range of the result (also the infinities).
    if mag >= 0x4300_0000 {
        return if neg { 0 } else { INF };
    }
    let fixed = if mag < 0x0080_0000 {
        0
    } else {
        let m = (mag & MANT) | 0x0080_0000;
        let e = (mag >> 23) as i32 - 127;
        // m·2^(e-23)·2^23 = m·2^e: e < 7 here, so the shift stays within 31 bits.
        if e >= 0 {
            m << e
        } else if e > -24 {
            m >> -e
        } else {
            0
        }
    };
    let n = (fixed >> 23) as i32;
    let f = fixed & MANT;
    if neg {
        rescale(0, EX2.get((1 << 23) | f), -n)
    } else {
        rescale(0, EX2.get(f), n)
    }
}

/// The value of a finite f32 `t` times 2^36, exactly, where that is an integer (`None` if it
/// is not: finer than 2^-36).
fn fixed36(t: u32) -> Option<i64> {
    let mag = t & !SIGN;
    if mag == 0 {
        return Some(0);
    }
    let m = i64::from((mag & MANT) | 0x0080_0000);
    let sh = ((mag >> 23) & 0xff) as i32 - 127 - 23 + 36;
    let v = if sh >= 0 {
        m.checked_shl(sh as u32)?
    } else if m & ((1 << -sh) - 1) == 0 {
        m >> -sh
    } else {
        return None;
    };
    Some(if t & SIGN != 0 { -v } else { v })
}

/// One unit in the last place of the finite f32 `t`, in units of 2^-36 (at least 1).
fn ulp36(t: u32) -> i64 {
    let sh = ((t >> 23) & 0xff) as i32 - 127 - 23 + 36;
    1i64 << sh.clamp(0, 62)
}

/// The f32 nearest `v·2^-36` toward zero (`v` an integer of at most 45 bits).
fn to_f32_rz(v: i64) -> u32 {
    if v == 0 {
        return 0;
    }
    let sign = if v < 0 { SIGN } else { 0 };
    let a = v.unsigned_abs();
    let top = 63 - a.leading_zeros() as i32; // a in [2^top, 2^(top+1))
    let mant = if top >= 23 {
        a >> (top - 23)
    } else {
        a << (23 - top)
    };
    let e = top - 36 + 127;
    sign | ((e as u32) << 23) | (mant as u32 & MANT)
}

/// `MUFU.LG2`: log2(x). The unit adds the exponent `e` of `x = m·2^e` to a fixed-point
/// `L(m) ≈ log2(m)` with 36 fraction bits and truncates the sum toward zero to f32 (measured:
/// every result in `[0.5, 2)` is a multiple of 2^-36, and `lg2(0.5·(1 + 3·2^-23))` is the
/// sum truncated, not rounded). The binade `[1, 2)` (e = 0) gives `L(m)` truncated and `[0.5,
/// 1)` (e = -1) gives `L(m) - 1` truncated, which together bound `L(m)` to an interval; for
/// every `m` and every other `e` all values of that interval give the same result (checked
/// for all 2^23 × 254 pairs when the tables were made), so the interval's lower end serves.
/// `lg2(1) = 0` exactly although `lg2(2^e) = e - L(1)` truncated for e < 0. A zero or subnormal
/// operand gives `-Inf`, `+Inf` itself, a negative operand NaN.
pub fn lg2(a: u32) -> u32 {
    if is_nan(a) {
        return F32_NAN;
    }
    let mag = a & !SIGN;
    if mag < 0x0080_0000 {
        return SIGN | INF;
    }
    if a & SIGN != 0 {
        return F32_NAN;
    }
    if mag == INF {
        return INF;
    }
    let e = (mag >> 23) as i32 - 127;
    let i = mag & MANT;
    let lo = LG2.get(i);
    let hi = LG2.get((1 << 23) | i);
    match e {
        0 => return hi,
        -1 => return lo,
        _ => {}
    }
    let (Some(h), Some(l)) = (fixed36(hi), fixed36(lo)) else {
        return F32_NAN;
    };
    // L in [h, h + ulp(hi)) from e = 0, and L - 1 in (l - ulp(lo), l] from e = -1.
    let low = h.max((1i64 << 36) + l - ulp36(lo) + 1);
    to_f32_rz(i64::from(e) * (1i64 << 36) + low)
}

/// `MUFU.TANH` (`tanh.approx.f32`, which ptxas makes one instruction): odd (measured on every
/// operand of the table's binades), the identity below 2^-8 in magnitude (subnormals too: the
/// form has no `.ftz`), ±1 from 8 on (and for ±Inf), the table in between.
pub fn tanh(a: u32) -> u32 {
    if is_nan(a) {
        return F32_NAN;
    }
    let sign = a & SIGN;
    let mag = a & !SIGN;
    let field = mag >> 23;
    if field < 119 {
        return a;
    }
    if field >= 130 {
        return sign | 0x3f80_0000;
    }
    let t = tanh_table();
    let b = (field - 119) as usize;
    let i = t.starts[b] + ((mag & MANT) >> t.ks[b]);
    sign | t.results.get(i as usize).copied().unwrap_or(F32_NAN)
}

/// `1/(2π)` rounded to f32 (`0x3e22f983`), the constant of ptxas's `FMUL.RZ` before `MUFU.SIN`
/// and `MUFU.COS`.
const INV_TAU: f32 = 0.159_154_94;

/// `sin.approx.f32` / `cos.approx.f32` (with or without `.ftz`: the same SASS), ptxas 13:
/// `r = FMUL.RZ(x, 1/(2π))`, then `MUFU.SIN`/`MUFU.COS` of `r` revolutions. The unit keeps the
/// fraction of `r` in fixed point with 25 bits (measured: over the 1,070,141,404 operands whose
/// revolutions fall in the first quadrant, all operands with the same 25-bit fraction gave the
/// same result); the two high bits are the quadrant, the 23 low bits index the first-quadrant
/// tables: `sin` of quadrant q is `S, C, -S, -C` and `cos` is `C, -S, -C, S`. Negative operands:
/// `sin` is odd and `cos` even. A subnormal operand acts as a zero, an infinity gives NaN.
pub fn sincos(sin: bool, a: u32) -> u32 {
    if is_nan(a) || a & !SIGN == INF {
        return F32_NAN;
    }
    let sign = a & SIGN;
    let x = if a & 0x7f80_0000 == 0 {
        0.0
    } else {
        f(a & !SIGN)
    };
    // FMUL.RZ: the f64 product of two f32s is exact; round it toward zero.
    let p = f64::from(x) * f64::from(INV_TAU);
    let mut r = p as f32;
    if f64::from(r) > p {
        r = f32::from_bits(r.to_bits() - 1);
    }
    let bits = r.to_bits();
    let fixed = if bits & 0x7f80_0000 == 0 {
        0
    } else {
        let m = u64::from((bits & MANT) | 0x0080_0000);
        // r·2^25 = m·2^(e+2), e the unbiased exponent; only its low 25 bits matter.
        let sh = ((bits >> 23) & 0xff) as i32 - 127 + 2;
        if sh >= 25 {
            0
        } else if sh >= 0 {
            (m << sh) as u32 & 0x01ff_ffff
        } else if sh > -32 {
            (m >> -sh) as u32 & 0x01ff_ffff
        } else {
            0
        }
    };
    let q = fixed >> 23;
    let t = fixed & MANT;
    let (s, c) = (SIN_Q0.get(t), COS_Q0.get(t));
    let v = match (sin, q) {
        (true, 0) | (false, 3) => s,
        (true, 1) | (false, 0) => c,
        (true, 2) | (false, 1) => s ^ SIGN,
        _ => c ^ SIGN,
    };
    if sin { v ^ sign } else { v }
}

// ---------------------------------------------------------------------------------------------
// The f64 helpers: the high word of an f64 (sign, 11-bit exponent, 20 mantissa bits) in, the
// high word of the result out.

const MANT64H: u32 = 0x000f_ffff;

/// [`rescale`] for an f64 high word.
fn rescale64h(sign: u32, t: u32, shift: i32) -> u32 {
    let e = ((t >> 20) & 0x7ff) as i32 + shift;
    if e <= 0 {
        sign
    } else if e >= 0x7ff {
        sign | 0x7ff0_0000
    } else {
        sign | ((e as u32) << 20) | (t & MANT64H)
    }
}

/// `MUFU.RCP64H` for a positive or negative normal high word `hi` (the callers handle zeros,
/// subnormals, infinities and NaNs): `rcp(m·2^e) = rcp(m)·2^-e`, a result below the normal
/// range flushed to a zero of the operand's sign.
pub fn rcp64h(hi: u32) -> u32 {
    let e = ((hi >> 20) & 0x7ff) as i32 - 1023;
    rescale64h(hi & SIGN, RCP64H.get(hi & MANT64H), -e)
}

/// `MUFU.RSQ64H` for a positive normal high word: `rsq(m·4^k) = rsq(m)·2^-k`.
pub fn rsq64h(hi: u32) -> u32 {
    let e = ((hi >> 20) & 0x7ff) as i32 - 1023;
    let odd = (e & 1) as u32;
    rescale64h(
        0,
        RSQ64H.get((odd << 20) | (hi & MANT64H)),
        -e.div_euclid(2),
    )
}

/// `rsqrt.approx.f64` for a positive normal `x` (ptxas 13, sm_90): `y0 = MUFU.RSQ64H(hi(x))`
/// (low word 0), then one step `y = fma(fma(e, 0.375, 0.5), y0·e, y0)` with
/// `e = fma(x, -y0·y0, 1)`; a subnormal `x` is first scaled by 2^54 and the result by 2^27.
pub fn rsqrt_f64_refined(x: f64) -> f64 {
    let (x, scale) = if x < f64::MIN_POSITIVE {
        (x * 18_014_398_509_481_984.0, 134_217_728.0)
    } else {
        (x, 1.0)
    };
    let y0 = f64::from_bits(u64::from(rsq64h((x.to_bits() >> 32) as u32)) << 32);
    let e = x.mul_add(-(y0 * y0), 1.0);
    let p = e.mul_add(0.375, 0.5);
    let q = y0 * e;
    let y = p.mul_add(q, y0);
    if scale == 1.0 { y } else { y * scale }
}

// ---------------------------------------------------------------------------------------------
// The instruction sequences of the PTX forms (ptxas 13.0, sm_90).

fn f(a: u32) -> f32 {
    f32::from_bits(a)
}

fn flush(a: u32) -> u32 {
    if a & 0x7f80_0000 == 0 { a & SIGN } else { a }
}

/// `FMUL.FTZ`: operands and result flushed.
fn fmul_ftz(a: u32, b: u32) -> u32 {
    flush((f(flush(a)) * f(flush(b))).to_bits())
}

/// `|x| >= 2^-126`, unordered (`FSETP.GEU`: true for NaN).
fn not_tiny(a: u32) -> bool {
    f(a).abs().partial_cmp(&MIN_NORMAL) != Some(std::cmp::Ordering::Less)
}

/// `ex2.approx.f32` (no `.ftz`): `p = x >= -126 (GEU)`; `@!p x *= 0.5`; `MUFU.EX2`; `@!p r *= r`
/// — the square produces the subnormal results.
pub fn ex2_full(a: u32) -> u32 {
    let p = f(a).partial_cmp(&-126.0) != Some(std::cmp::Ordering::Less);
    if p {
        ex2(a)
    } else {
        let r = f(ex2((f(a) * 0.5).to_bits()));
        (r * r).to_bits()
    }
}

/// `lg2.approx.f32`: `@!p x *= 2^24`; `MUFU.LG2`; `@!p r += -24` with `p = |x| >= 2^-126`.
pub fn lg2_full(a: u32) -> u32 {
    if not_tiny(a) {
        lg2(a)
    } else {
        (f(lg2((f(a) * TWO_24).to_bits())) + -24.0).to_bits()
    }
}

/// `rsqrt.approx.f32`: `@!p x *= 2^24`; `MUFU.RSQ`; `@!p r *= 4096`.
pub fn rsqrt_full(a: u32) -> u32 {
    if not_tiny(a) {
        rsq(a)
    } else {
        (f(rsq((f(a) * TWO_24).to_bits())) * 4096.0).to_bits()
    }
}

/// `sqrt.approx.f32`: `@!p x *= 2^24`; `MUFU.SQRT`; `@!p r *= 2^-12`.
pub fn sqrt_full(a: u32) -> u32 {
    if not_tiny(a) {
        sqrt(a)
    } else {
        (f(sqrt((f(a) * TWO_24).to_bits())) * (1.0 / 4096.0)).to_bits()
    }
}

/// `rcp.approx.f32`: `s = |x| > 2^126 ? 0.25 : |x| >= 2^-126 (GEU) ? 1 : 2^24`;
/// `r = s·MUFU.RCP(x·s)`.
pub fn rcp_full(a: u32) -> u32 {
    let x = f(a);
    let s = if x.abs() > TWO_126 {
        0.25
    } else if not_tiny(a) {
        1.0
    } else {
        TWO_24
    };
    (s * f(rcp((x * s).to_bits()))).to_bits()
}

/// `div.approx.ftz.f32`: `MUFU.RCP b`, then `FMUL.FTZ a, r`.
/// `div.approx.f32`: `@!p {b *= 2^24; a *= 2^24}` with `p = |b| >= 2^-126 (GEU)`, `MUFU.RCP b`,
/// `FMUL r, a`.
pub fn div_approx(a: u32, b: u32, ftz: bool) -> u32 {
    if ftz {
        return fmul_ftz(a, rcp(b));
    }
    let (a, b) = if not_tiny(b) {
        (f(a), f(b))
    } else {
        (f(a) * TWO_24, f(b) * TWO_24)
    };
    (f(rcp(b.to_bits())) * a).to_bits()
}

/// `div.full.f32`: `@(|b| > 2^126) {b *= 0.25; a *= 0.25}`, `@!(|b| >= 2^-126) {b *= 2^24;
/// a *= 2^24}`, `MUFU.RCP b`, `FMUL r, a`. With `.ftz` only the first scaling (`FSETP.FTZ`,
/// `FMUL.FTZ`) and a flushing final `FMUL.FTZ`.
pub fn div_full(a: u32, b: u32, ftz: bool) -> u32 {
    if ftz {
        let huge = f(flush(b)).abs() > TWO_126;
        let (a, b) = if huge {
            (
                fmul_ftz(a, 0.25f32.to_bits()),
                fmul_ftz(b, 0.25f32.to_bits()),
            )
        } else {
            (a, b)
        };
        return fmul_ftz(rcp(b), a);
    }
    let (mut a, mut b) = (f(a), f(b));
    if b.abs() > TWO_126 {
        a *= 0.25;
        b *= 0.25;
    }
    if b.abs() < MIN_NORMAL {
        a *= TWO_24;
        b *= TWO_24;
    }
    (f(rcp(b.to_bits())) * a).to_bits()
}
