//! The integer family: `add sub mul div rem min max and or xor shl shr`, the unary operations,
//! `mad`, `mad24`, `sad` and `shf`, through [`crate::alu`]'s integer semantics.

use ptxsim_isa::Type;
use ptxsim_isa::ops::{CarryOp, IntOp, IntTernaryOp, IntUnaryOp, MulMode};

use super::{Executor, Put};
use crate::alu;
use crate::ir::{Destination, IntExtraOp, RegisterId, Source};

impl Executor<'_, '_> {
    /// `add sub mul div rem min max and or xor shl shr` on integers ([`alu::int_binary`]), the
    /// common forms specialised.
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn int_binary(
        &mut self,
        lanes: &[usize],
        op: IntOp,
        ty: Type,
        sat: bool,
        relu: bool,
        destination: Destination,
        a: Source,
        b: Source,
    ) {
        // Shift amounts are `.u32` whatever the instruction type (PTX ISA 9.7.8.8).
        let b_bits = match op {
            IntOp::Shl | IntOp::Shr => 32,
            _ => ty.bits(),
        };
        let result_ty = match op {
            IntOp::Mul(MulMode::Wide) => wide_type(ty),
            _ => ty,
        };
        let put = Put::new(destination, result_ty);
        let (a, b) = ((a, ty.bits()), (b, b_bits));
        specialise!(
            (op, ty, sat, relu) => (IntOp, Type, bool, bool),
            [
                (IntOp::Add, Type::S32, false, false),
                (IntOp::Add, Type::U32, false, false),
                (IntOp::Add, Type::S64, false, false),
                (IntOp::Add, Type::U64, false, false),
                (IntOp::Sub, Type::S32, false, false),
                (IntOp::Sub, Type::U32, false, false),
                (IntOp::Sub, Type::S64, false, false),
                (IntOp::Sub, Type::U64, false, false),
                (IntOp::Mul(MulMode::Lo), Type::S32, false, false),
                (IntOp::Mul(MulMode::Lo), Type::U32, false, false),
                (IntOp::Mul(MulMode::Lo), Type::S64, false, false),
                (IntOp::Mul(MulMode::Lo), Type::U64, false, false),
                (IntOp::Mul(MulMode::Wide), Type::S32, false, false),
                (IntOp::Mul(MulMode::Wide), Type::U32, false, false),
                (IntOp::Shl, Type::B32, false, false),
                (IntOp::Shl, Type::B64, false, false),
                (IntOp::Shr, Type::U32, false, false),
                (IntOp::Shr, Type::S32, false, false),
                (IntOp::Shr, Type::B32, false, false),
                (IntOp::Shr, Type::U64, false, false),
                (IntOp::Shr, Type::S64, false, false),
                (IntOp::Shr, Type::B64, false, false),
                (IntOp::And, Type::B32, false, false),
                (IntOp::And, Type::B64, false, false),
                (IntOp::And, Type::Pred, false, false),
                (IntOp::Or, Type::B32, false, false),
                (IntOp::Or, Type::B64, false, false),
                (IntOp::Or, Type::Pred, false, false),
                (IntOp::Xor, Type::B32, false, false),
                (IntOp::Xor, Type::Pred, false, false),
                (IntOp::Min, Type::S32, false, false),
                (IntOp::Min, Type::U32, false, false),
                (IntOp::Max, Type::S32, false, false),
                (IntOp::Max, Type::U32, false, false),
            ],
            {|x, y| (op, ty, sat, relu) => alu::int_binary(op, ty, sat, relu, x, y)},
            |f| self.map2(lanes, a, b, &put, f)
        );
    }

    /// `abs neg not cnot popc clz brev` ([`alu::int_unary`]).
    #[inline(always)]
    pub(super) fn int_unary(
        &mut self,
        lanes: &[usize],
        op: IntUnaryOp,
        ty: Type,
        destination: Destination,
        a: Source,
    ) {
        let result_ty = match op {
            ptxsim_isa::ops::IntUnaryOp::Popc | ptxsim_isa::ops::IntUnaryOp::Clz => Type::U32,
            _ => ty,
        };
        let put = Put::new(destination, result_ty);
        self.map1(lanes, (a, ty.bits()), &put, |a| alu::int_unary(op, ty, a));
    }

    /// Integer `mad` ([`alu::int_mad`]), the common forms specialised.
    #[inline(always)]
    pub(super) fn mad(
        &mut self,
        lanes: &[usize],
        mode: MulMode,
        ty: Type,
        sat: bool,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let result_ty = match mode {
            MulMode::Wide => wide_type(ty),
            _ => ty,
        };
        let put = Put::new(destination, result_ty);
        let operands = [(a, ty.bits()), (b, ty.bits()), (c, result_ty.bits())];
        specialise!(
            (mode, ty, sat) => (MulMode, Type, bool),
            [
                (MulMode::Lo, Type::S32, false),
                (MulMode::Lo, Type::U32, false),
                (MulMode::Lo, Type::S64, false),
                (MulMode::Lo, Type::U64, false),
                (MulMode::Wide, Type::S32, false),
                (MulMode::Wide, Type::U32, false),
            ],
            {|x, y, z| (mode, ty, sat) => alu::int_mad(mode, ty, sat, x, y, z)},
            |f| self.map3(lanes, operands, &put, f)
        );
    }

    /// `mad24 sad shf` ([`alu::int_ternary`]).
    #[inline(always)]
    pub(super) fn int_ternary(
        &mut self,
        lanes: &[usize],
        op: IntTernaryOp,
        ty: Type,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let put = Put::new(destination, ty);
        let c_bits = match op {
            IntTernaryOp::Shf { .. } => 32,
            IntTernaryOp::Mad24 { .. } | IntTernaryOp::Sad => ty.bits(),
        };
        let operands = [(a, ty.bits()), (b, ty.bits()), (c, c_bits)];
        self.map3(lanes, operands, &put, |a, b, c| {
            alu::int_ternary(op, ty, a, b, c)
        });
    }
}

/// The double-width type of `.wide` results.
fn wide_type(ty: Type) -> Type {
    match ty {
        Type::S16 => Type::S32,
        Type::U16 => Type::U32,
        Type::S32 => Type::S64,
        Type::U32 => Type::U64,
        Type::B16 => Type::B32,
        Type::B32 => Type::B64,
        other => other,
    }
}

impl Executor<'_, '_> {
    /// The extended-precision instructions ([`alu::carry`]): lane by lane, reading and writing
    /// the thread's carry flag.
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn carry(
        &mut self,
        lanes: &[usize],
        op: CarryOp,
        ty: Type,
        destination: Destination,
        [a, b, c]: [Source; 3],
        carry_in: Option<RegisterId>,
        carry_out: Option<RegisterId>,
    ) {
        let put = Put::new(destination, ty);
        let flag = carry_out.map(|register| {
            Put::new(
                Destination {
                    register,
                    ty: Type::Pred,
                },
                Type::Pred,
            )
        });
        let bits = ty.bits();
        for &lane in lanes {
            let cin = carry_in.map(|r| self.read_bits(lane, Source::Register(r), 1) == 1);
            let (x, y, z) = (
                self.read_bits(lane, a, bits),
                self.read_bits(lane, b, bits),
                self.read_bits(lane, c, bits),
            );
            let (d, cout) = alu::carry(op, ty, x, y, z, cin);
            self.put(lane, &put, u128::from(d));
            if let Some(flag) = &flag {
                self.put(lane, flag, u128::from(cout));
            }
        }
    }

    /// `bfind fns bmsk szext dp4a dp2a` ([`alu::int_extra`]).
    #[inline(always)]
    pub(super) fn int_extra(
        &mut self,
        lanes: &[usize],
        op: IntExtraOp,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let a_bits = match op {
            IntExtraOp::Bfind { ty, .. } => ty.bits(),
            _ => 32,
        };
        let put = Put::new(destination, Type::U32);
        self.map3(lanes, [(a, a_bits), (b, 32), (c, 32)], &put, |a, b, c| {
            alu::int_extra(op, a, b, c)
        });
    }
}
