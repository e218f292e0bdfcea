//! The conversion family: `mov` (plain, pack, unpack, vector), `cvt` and `cvt.pack`, through
//! [`crate::cvt`] (the adapter to `ptxsim-softfloat`) and [`crate::semantics`].

use ptxsim_isa::Type;
use ptxsim_softfloat::pack::PackType;

use super::{Executor, Put};
use crate::cvt::{self, CvtOp};
use crate::ir::bit_type;
use crate::ir::{Destination, Source};
use crate::semantics::{chop, pack, unpack};

impl Executor<'_, '_> {
    /// `mov.type d, a`: the source, chopped to the type (PTX ISA 9.7.9.4).
    #[inline(always)]
    pub(super) fn mov(
        &mut self,
        lanes: &[usize],
        ty: Type,
        destination: Destination,
        source: Source,
    ) {
        let put = Put::new(destination, ty);
        if ty.bits() <= 64 {
            self.map1(lanes, (source, ty.bits()), &put, |a| a);
        } else {
            for &lane in lanes {
                let value = chop(self.read(lane, source), ty.bits());
                self.put(lane, &put, value);
            }
        }
    }

    /// `mov.type d, {a, b, ...}`: the elements packed, the first in the lowest bits.
    #[inline(always)]
    pub(super) fn mov_pack(
        &mut self,
        lanes: &[usize],
        ty: Type,
        destination: Destination,
        elements: &[Source],
    ) {
        let element_bits = ty.bits() / (elements.len().max(1) as u32);
        let mut values = Vec::with_capacity(elements.len());
        let put = Put::new(destination, ty);
        for &lane in lanes {
            values.clear();
            for element in elements {
                values.push(self.read(lane, *element));
            }
            self.put(lane, &put, pack(&values, element_bits));
        }
    }

    /// `mov.vN.type {d...}, {a...}`: element by element.
    #[inline(always)]
    pub(super) fn mov_vector(
        &mut self,
        lanes: &[usize],
        ty: Type,
        destinations: &[Option<Destination>],
        sources: &[Source],
    ) {
        let puts: Vec<Option<Put>> = destinations
            .iter()
            .map(|d| d.map(|d| Put::new(d, ty)))
            .collect();
        let mut values = Vec::with_capacity(sources.len());
        for &lane in lanes {
            values.clear();
            for source in sources {
                values.push(chop(self.read(lane, *source), ty.bits()));
            }
            for (put, &value) in puts.iter().zip(&values) {
                if let Some(put) = put {
                    self.put(lane, put, value);
                }
            }
        }
    }

    /// `mov.type {d, e, ...}, a`: the source unpacked, the first element from the lowest bits.
    #[inline(always)]
    pub(super) fn mov_unpack(
        &mut self,
        lanes: &[usize],
        ty: Type,
        elements: &[Option<Destination>],
        source: Source,
    ) {
        let element_bits = ty.bits() / (elements.len().max(1) as u32);
        for &lane in lanes {
            let value = chop(self.read(lane, source), ty.bits());
            let parts = unpack(value, element_bits, elements.len());
            for (element, part) in elements.iter().zip(parts) {
                if let Some(destination) = element {
                    self.write(lane, *destination, part, bit_type(element_bits));
                }
            }
        }
    }

    /// `cvt`: in columns through [`cvt::apply_each`] when it takes the form, else lane by lane
    /// through [`cvt::apply`].
    #[inline(always)]
    pub(super) fn cvt(
        &mut self,
        lanes: &[usize],
        op: &CvtOp,
        destination: Destination,
        sources: &[Source],
    ) {
        let count = sources.len().min(6);
        let mut widths = [0u32; 6];
        for (index, width) in widths.iter_mut().enumerate().take(count) {
            *width = cvt::source_width(op, index, sources.len());
        }
        let put = Put::new(destination, op.destination);
        if let (Some(&a), true) = (sources.first(), count <= 2) {
            let mut columns = std::mem::take(self.columns);
            self.gather(lanes, a, widths[0], &mut columns.a);
            columns.b.clear();
            if let Some(&b) = sources.get(1) {
                self.gather(lanes, b, widths[1], &mut columns.b);
            }
            let done = cvt::apply_each(op, &mut columns.a, &mut columns.b);
            if done {
                self.scatter(lanes, &put, &columns.a);
            }
            *self.columns = columns;
            if done {
                return;
            }
        }
        for &lane in lanes {
            let mut values = [0u64; 6];
            for index in 0..count {
                values[index] = chop(self.read(lane, sources[index]), widths[index]) as u64;
            }
            let result = cvt::apply(op, &values[..count]);
            self.put(lane, &put, u128::from(result));
        }
    }

    /// `cvt.pack`, lane by lane through [`cvt::apply_pack`].
    #[inline(always)]
    pub(super) fn cvt_pack(
        &mut self,
        lanes: &[usize],
        ty: PackType,
        destination: Destination,
        a: Source,
        b: Source,
        c: Option<Source>,
    ) {
        let put = Put::new(destination, Type::U32);
        for &lane in lanes {
            let a = self.read_bits(lane, a, 32);
            let b = self.read_bits(lane, b, 32);
            let c = match c {
                Some(c) => self.read_bits(lane, c, 32),
                None => 0,
            };
            let result = cvt::apply_pack(ty, a, b, c);
            self.put(lane, &put, u128::from(result));
        }
    }
}
