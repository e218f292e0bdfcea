//! The bit-manipulation family: `prmt`, `lop3`, `bfe`, `bfi`.

use ptxsim_isa::Type;
use ptxsim_isa::ops::PrmtMode;

use super::{Executor, Put};
use crate::alu;
use crate::ir::{Destination, Source};

impl Executor<'_, '_> {
    /// `prmt` ([`alu::prmt`]).
    #[inline(always)]
    pub(super) fn prmt(
        &mut self,
        lanes: &[usize],
        mode: PrmtMode,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let put = Put::new(destination, Type::B32);
        self.map3(lanes, [(a, 32), (b, 32), (c, 32)], &put, |a, b, c| {
            u64::from(alu::prmt(mode, a as u32, b as u32, c as u32))
        });
    }

    /// `lop3` ([`alu::lop3`]).
    #[inline(always)]
    pub(super) fn lop3(
        &mut self,
        lanes: &[usize],
        destination: Destination,
        [a, b, c]: [Source; 3],
        lut: u8,
    ) {
        let put = Put::new(destination, Type::B32);
        self.map3(lanes, [(a, 32), (b, 32), (c, 32)], &put, |a, b, c| {
            u64::from(alu::lop3(a as u32, b as u32, c as u32, lut))
        });
    }

    /// `bfe` ([`alu::bfe`]).
    #[inline(always)]
    pub(super) fn bfe(
        &mut self,
        lanes: &[usize],
        ty: Type,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let put = Put::new(destination, ty);
        let operands = [(a, ty.bits()), (b, 32), (c, 32)];
        self.map3(lanes, operands, &put, |a, position, length| {
            alu::bfe(ty, a, position as u32, length as u32)
        });
    }

    /// `bfi` ([`alu::bfi`]), lane by lane.
    #[inline(always)]
    pub(super) fn bfi(
        &mut self,
        lanes: &[usize],
        ty: Type,
        destination: Destination,
        [a, b, c, d]: [Source; 4],
    ) {
        let put = Put::new(destination, ty);
        for &lane in lanes {
            let a = self.read_bits(lane, a, ty.bits());
            let b = self.read_bits(lane, b, ty.bits());
            let position = self.read_bits(lane, c, 32) as u32;
            let length = self.read_bits(lane, d, 32) as u32;
            let result = alu::bfi(ty, a, b, position, length);
            self.put(lane, &put, u128::from(result));
        }
    }
}
