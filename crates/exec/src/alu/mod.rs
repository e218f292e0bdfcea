//! Semantics of the integer, logic, floating-point, comparison, permutation and atomic
//! instructions as pure functions on bits (style rule 5). The executor decodes an instruction
//! once ([`ptxsim_isa::ops::decode_op`]), fetches operands and calls one of these.
//!
//! One module per instruction family, as in the executor (`src/exec/`): `integer`
//! ([`int_binary`], [`int_unary`], [`int_mad`], [`int_ternary`]), `float` ([`float_binary`],
//! [`float_fma`], [`float_unary`]), `compare` ([`compare()`], [`combine`], [`slct`]), `bits`
//! ([`prmt`], [`lop3`], [`bfe`], [`bfi`], [`shf`]) and `memory` ([`atom`]).
//!
//! Values are `u64`s holding the low [`Type::bits`] bits of the operand; higher input bits are
//! ignored and results are chopped to the result width.
//!
//! Floating point follows PTX ISA 9.1 section 9.7.3 ("Floating-Point Instructions") and 9.7.4
//! ("Half Precision Floating-Point Instructions"): IEEE 754 arithmetic rounded once with the
//! instruction's rounding. Correctly rounded results for every rounding come from host
//! arithmetic (`.rn` on `.f32`/`.f64`, which Rust guarantees IEEE round-to-nearest-even) or from
//! `rustc_apfloat` (directed roundings and the half types); `sqrt` with a directed rounding is an
//! exact integer square root rounded by `rustc_apfloat`.
//!
//! NaN results are canonical:
//! * `.f32`: `0x7fffffff` — CUDA C++ Programming Guide, "Floating-Point Standard": "The result
//!   of a single-precision floating-point operation involving one or more input NaNs is the
//!   quiet NaN of bit pattern 0x7fffffff";
//! * `.f16`/`.bf16` (per lane of the x2 forms): `0x7fff`, the "canonical NaN" of 9.7.4;
//! * `.f64`: what an sm_90 GPU does (measured on every `.f64` form ptxsim runs,
//!   `tests/hardware/ops`; docs/divergences.md H3): a NaN operand comes out quieted, sign and
//!   payload kept (the first NaN of `a`, `b`; of `b`, `c`, `a` for `fma`); an invalid operation
//!   of numbers (`sqrt` of a negative, `0/0`, `inf - inf`) gives `0xfff8000000000000`; `abs`
//!   and `neg` of a NaN quiet it and leave its sign. `min`/`max` of two NaNs give
//!   `0x7fffffffffffffff` (not measured).

pub mod approx;
mod bits;
mod compare;
mod extra;
mod float;
mod integer;
pub mod matrix;
mod memory;
pub mod mma;
pub mod tcgen05;
pub mod tensor_cores;
mod warp;
pub mod wgmma;
pub mod wmma;

pub use bits::{bfe, bfi, lop3, prmt, shf};
pub use compare::{combine, compare, set, slct, testp};
pub use extra::{carry, int_extra};
pub use float::{
    F32_CANONICAL_NAN, F64_CANONICAL_NAN, F64_DEFAULT_NAN, HALF_CANONICAL_NAN, float_binary,
    float_fma, float_unary,
};
pub use integer::{int_binary, int_mad, int_ternary, int_unary};
pub use memory::{atom, atom_b128};
pub use warp::{redux, redux_f32, shfl_lane, vote};

use ptxsim_isa::Type;

#[inline]
const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
const fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// The operand width (`.b128` is not an ALU type; it is treated as 64 bits).
#[inline]
const fn width(ty: Type) -> u32 {
    let bits = ty.bits();
    if bits > 64 { 64 } else { bits }
}

/// Clamps to the range of a signed `bits`-bit integer ("`.sat` limits the result to
/// `MININT..MAXINT`").
#[inline]
fn clamp_signed(v: i128, bits: u32) -> u64 {
    let max = (1i128 << (bits - 1)) - 1;
    let min = -(1i128 << (bits - 1));
    v.clamp(min, max) as u64
}
