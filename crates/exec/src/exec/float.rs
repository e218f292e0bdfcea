//! The floating-point family: `add sub mul div min max`, `fma`/`mad`, `abs neg rcp sqrt`,
//! through [`crate::alu`]'s floating-point semantics.

use ptxsim_isa::Type;
use ptxsim_isa::ops::{FloatModifiers, FloatOp, FloatUnaryOp};

use super::{Executor, Put};
use crate::alu;
use crate::ir::{Destination, Source};

impl Executor<'_, '_> {
    /// `add sub mul div min max` on floating-point types ([`alu::float_binary`]).
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn float_binary(
        &mut self,
        lanes: &[usize],
        op: FloatOp,
        ty: Type,
        modifiers: FloatModifiers,
        destination: Destination,
        a: Source,
        b: Source,
    ) {
        let put = Put::new(destination, ty);
        if ty == Type::F32 && modifiers == FloatModifiers::RN {
            // The commonest forms (`add.f32`, `sub.f32`, `mul.f32`): what
            // `alu::float_binary` computes for them (one IEEE operation rounded to nearest,
            // a NaN result canonical), written out so that the lane loop is straight-line code.
            let lane = |r: f32| {
                if r.is_nan() {
                    u64::from(alu::F32_CANONICAL_NAN)
                } else {
                    u64::from(r.to_bits())
                }
            };
            let f = |x: u64| f32::from_bits(x as u32);
            match op {
                FloatOp::Add => {
                    return self.map2(lanes, (a, 32), (b, 32), &put, |a, b| lane(f(a) + f(b)));
                }
                FloatOp::Sub => {
                    return self.map2(lanes, (a, 32), (b, 32), &put, |a, b| lane(f(a) - f(b)));
                }
                FloatOp::Mul => {
                    return self.map2(lanes, (a, 32), (b, 32), &put, |a, b| lane(f(a) * f(b)));
                }
                FloatOp::Div | FloatOp::Min | FloatOp::Max | FloatOp::Copysign => {}
            }
        }
        self.map2(lanes, (a, ty.bits()), (b, ty.bits()), &put, |a, b| {
            alu::float_binary(op, ty, modifiers, a, b)
        });
    }

    /// `fma` and float `mad` ([`alu::float_fma`]).
    #[inline(always)]
    pub(super) fn fma(
        &mut self,
        lanes: &[usize],
        ty: Type,
        modifiers: FloatModifiers,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let put = Put::new(destination, ty);
        let operands = [(a, ty.bits()), (b, ty.bits()), (c, ty.bits())];
        if ty == Type::F32 && modifiers == FloatModifiers::RN {
            // `fma.rn.f32`, the inner loop of every f32 GEMM: what `alu::float_fma` computes
            // for it (one fused operation rounded to nearest, a NaN result canonical), written
            // out so that the lane loop is straight-line code.
            let f = |x: u64| f32::from_bits(x as u32);
            return self.map3(lanes, operands, &put, |a, b, c| {
                let r = f(a).mul_add(f(b), f(c));
                if r.is_nan() {
                    u64::from(alu::F32_CANONICAL_NAN)
                } else {
                    u64::from(r.to_bits())
                }
            });
        }
        self.map3(lanes, operands, &put, |a, b, c| {
            alu::float_fma(ty, modifiers, a, b, c)
        });
    }

    /// `.f32x2` arithmetic (PTX ISA 9.7.3.3-6): "fA[0] = a[0:31]; fA[1] = a[32:63] ... d[i] =
    /// fA[i] + fB[i]" (and `-`, `*`, `fma`), each half computed as the `.f32` instruction with
    /// the same rounding and `.ftz` computes it ([`alu::float_binary`], [`alu::float_fma`]).
    pub(super) fn float_pair(
        &mut self,
        lanes: &[usize],
        op: Option<FloatOp>,
        modifiers: FloatModifiers,
        destination: Destination,
        sources: &[Source],
    ) {
        let put = Put::new(destination, Type::B64);
        let half = |x: u64, i: u32| (x >> (32 * i)) & 0xffff_ffff;
        let [a, b] = [0, 1].map(|i| (sources.get(i).copied().unwrap_or(Source::Immediate(0)), 64));
        let c = (sources.get(2).copied().unwrap_or(Source::Immediate(0)), 64);
        self.map3(lanes, [a, b, c], &put, |a, b, c| {
            (0..2).fold(0, |d, i| {
                let (a, b, c) = (half(a, i), half(b, i), half(c, i));
                let r = match op {
                    Some(op) => alu::float_binary(op, Type::F32, modifiers, a, b),
                    None => alu::float_fma(Type::F32, modifiers, a, b, c),
                };
                d | (r & 0xffff_ffff) << (32 * i)
            })
        });
    }

    /// The mixed-precision `add`/`sub`/`fma` (PTX ISA 9.7.5): "Converts input operand a from
    /// .atype into .f32 type" (`d = convert(a) + c`; `fma`: `d = convert(a) * convert(b) +
    /// c`), then the `.f32` instruction with the same rounding and `.sat`
    /// ([`alu::float_binary`], [`alu::float_fma`]). Every `.f16` and `.bf16` value is a `.f32`
    /// value, so the conversion is exact (`.bf16` is the upper half of a `.f32`).
    pub(super) fn float_mixed(
        &mut self,
        lanes: &[usize],
        op: Option<FloatOp>,
        narrow: Type,
        modifiers: FloatModifiers,
        destination: Destination,
        sources: &[Source],
    ) {
        let put = Put::new(destination, Type::F32);
        let widen = move |x: u64| {
            if narrow == Type::Bf16 {
                (x & 0xffff) << 16
            } else {
                u64::from(ptxsim_softfloat::f16_to_f32(x as u16))
            }
        };
        let source = |i: usize| sources.get(i).copied().unwrap_or(Source::Immediate(0));
        match op {
            Some(op) => self.map2(lanes, (source(0), 16), (source(1), 32), &put, |a, c| {
                alu::float_binary(op, Type::F32, modifiers, widen(a), c)
            }),
            None => self.map3(
                lanes,
                [(source(0), 16), (source(1), 16), (source(2), 32)],
                &put,
                |a, b, c| alu::float_fma(Type::F32, modifiers, widen(a), widen(b), c),
            ),
        }
    }

    /// `min`/`max` with three inputs (PTX ISA 8.8, min: "if (.abs) { a = |a|; b = |b|; c =
    /// |c| } d = two_inputs_min(d, a, b); d = two_inputs_min(d, d, c)"), each step the
    /// two-input `.f32` operation with `.ftz` and `.NaN` ([`alu::float_binary`]).
    pub(super) fn float_min_max_3(
        &mut self,
        lanes: &[usize],
        op: FloatOp,
        modifiers: FloatModifiers,
        abs: bool,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let put = Put::new(destination, Type::F32);
        let magnitude = |x: u64| if abs { x & 0x7fff_ffff } else { x };
        self.map3(lanes, [(a, 32), (b, 32), (c, 32)], &put, |a, b, c| {
            let d = alu::float_binary(op, Type::F32, modifiers, magnitude(a), magnitude(b));
            alu::float_binary(op, Type::F32, modifiers, d, magnitude(c))
        });
    }

    /// `abs neg rcp sqrt` on floating-point types ([`alu::float_unary`]).
    #[inline(always)]
    pub(super) fn float_unary(
        &mut self,
        lanes: &[usize],
        op: FloatUnaryOp,
        ty: Type,
        modifiers: FloatModifiers,
        destination: Destination,
        a: Source,
    ) {
        let put = Put::new(destination, ty);
        self.map1(lanes, (a, ty.bits()), &put, |a| {
            alu::float_unary(op, ty, modifiers, a)
        });
    }
}
