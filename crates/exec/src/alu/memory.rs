//! The memory family's arithmetic: the new value of an atomic update (PTX ISA 9.7.13.5-6).

use ptxsim_isa::Type;
use ptxsim_isa::ops::{AtomOp, FloatModifiers, FloatOp, IntOp};

use super::{float_binary, int_binary, mask, width};

/// The new memory value of `atom.exch.b128` / `atom.cas.b128` (PTX ISA 9.7.13.5, "atom{.sem}
/// {.scope}{.space}.cas.b128 d, [a], b, c", "atom{.sem}{.scope}{.space}.exch{.level::
/// cache_hint}.b128 d, [a], b"): "`exch(r, s) = s; cas(r,s,t) = (r == s) ? t : r`" on the whole
/// 128 bits; `None` for an operation the ISA has no `.b128` form of.
pub fn atom_b128(op: AtomOp, old: u128, b: u128, c: u128) -> Option<u128> {
    match op {
        AtomOp::Exch => Some(b),
        AtomOp::Cas => Some(if old == b { c } else { old }),
        _ => None,
    }
}

/// The new memory value of `atom.op.type` / `red.op.type` (PTX ISA 9.7.13.5-6): "`*a =
/// (operation == cas) ? operation(*a, b, c) : operation(*a, b)`" with "`inc(r, s) = (r >= s) ?
/// 0 : r+1; dec(r, s) = (r==0 || r > s) ? s : r-1; exch(r, s) = s; cas(r,s,t) = (r == s) ? t :
/// r`".
///
/// * Integer `.add` wraps; `.min`/`.max` are signed for `.s` types.
/// * Floating-point `.add` "rounds to nearest even" and keeps subnormals (the shared-memory
///   and `.noftz` behaviour), except that "Current implementation of atom.add.f32 on global
///   memory flushes subnormal inputs and results to sign-preserving zero" (`global`; measured
///   on an H200, `tests/hardware/ops`). x2 types lane by lane.
/// * `.f64` `.add` on global memory of a NaN gives that NaN unchanged, the memory's first
///   (measured: unlike the `.f64` arithmetic and shared memory's atomics, global memory's
///   atomic unit does not quiet a signalling NaN).
/// * Float `.min`/`.max` follow [`float_binary`].
pub fn atom(op: AtomOp, ty: Type, global: bool, old: u64, b: u64, c: u64) -> u64 {
    let w = width(ty);
    let m = mask(w);
    let (old, b, c) = (old & m, b & m, c & m);
    let rn = FloatModifiers::RN;
    let float = ty.is_float();
    let nan64 = |x: u64| ty == Type::F64 && (x >> 52) & 0x7ff == 0x7ff && x & mask(52) != 0;
    match op {
        AtomOp::Add if global && nan64(old) => old,
        AtomOp::Add if global && nan64(b) => b,
        AtomOp::Add if float && global && ty == Type::F32 => {
            let ftz = FloatModifiers { ftz: true, ..rn };
            float_binary(FloatOp::Add, ty, ftz, old, b)
        }
        AtomOp::Add if float => float_binary(FloatOp::Add, ty, rn, old, b),
        AtomOp::Min if float => float_binary(FloatOp::Min, ty, rn, old, b),
        AtomOp::Max if float => float_binary(FloatOp::Max, ty, rn, old, b),
        AtomOp::Add => old.wrapping_add(b) & m,
        AtomOp::Min => int_binary(IntOp::Min, ty, false, false, old, b),
        AtomOp::Max => int_binary(IntOp::Max, ty, false, false, old, b),
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    }
}
