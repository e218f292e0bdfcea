//! The comparison and selection family: `setp`, `selp`, `slct`.

use ptxsim_isa::Type;
use ptxsim_isa::ops::{BoolOp, Compare, TestpOp};

use super::{Executor, Put};
use crate::alu;
use crate::ir::{Destination, PredicateSource, Source};

impl Executor<'_, '_> {
    /// `setp` ([`alu::compare`], [`alu::combine`]) in columns, the common forms specialised: `p`
    /// and `q` (the complement) for every lane.
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn setp(
        &mut self,
        lanes: &[usize],
        compare: Compare,
        ty: Type,
        ftz: bool,
        combine: Option<(BoolOp, PredicateSource)>,
        p: Destination,
        q: Option<Destination>,
        a: Source,
        b: Source,
    ) {
        let put_p = Put::new(p, Type::Pred);
        let put_q = q.map(|q| Put::new(q, Type::Pred));
        let mut columns = std::mem::take(self.columns);
        self.gather(lanes, a, ty.bits(), &mut columns.a);
        self.gather(lanes, b, ty.bits(), &mut columns.b);
        // The comparison's result per lane, then `p` (in `out`) and `q` (in `a`).
        columns.out.clear();
        specialise!(
            (compare, ty, ftz) => (Compare, Type, bool),
            [
                (Compare::Eq, Type::S32, false),
                (Compare::Ne, Type::S32, false),
                (Compare::Lt, Type::S32, false),
                (Compare::Le, Type::S32, false),
                (Compare::Gt, Type::S32, false),
                (Compare::Ge, Type::S32, false),
                (Compare::Eq, Type::U32, false),
                (Compare::Ne, Type::U32, false),
                (Compare::Lt, Type::U32, false),
                (Compare::Le, Type::U32, false),
                (Compare::Gt, Type::U32, false),
                (Compare::Ge, Type::U32, false),
                (Compare::Lt, Type::S64, false),
                (Compare::Ge, Type::S64, false),
                (Compare::Lt, Type::U64, false),
                (Compare::Ge, Type::U64, false),
            ],
            {|x, y| (compare, ty, ftz) => u64::from(alu::compare(compare, ty, ftz, x, y))},
            |f| columns
                .out
                .extend(columns.a.iter().zip(&columns.b).map(|(&x, &y)| f(x, y)))
        );
        match combine {
            Some((op, c)) => {
                self.gather(lanes, c.source, 1, &mut columns.c);
                let negated = c.negated;
                for (p, &c) in columns.out.iter_mut().zip(&columns.c) {
                    let (r, c) = (*p == 1, (c == 1) != negated);
                    *p =
                        u64::from(alu::combine(op, r, c)) | u64::from(alu::combine(op, !r, c)) << 1;
                }
            }
            None => {
                for p in &mut columns.out {
                    *p |= (*p ^ 1) << 1;
                }
            }
        }
        for (q, p) in columns.a.iter_mut().zip(&mut columns.out) {
            *q = *p >> 1;
            *p &= 1;
        }
        self.scatter(lanes, &put_p, &columns.out);
        if let Some(put_q) = put_q {
            self.scatter(lanes, &put_q, &columns.a);
        }
        *self.columns = columns;
    }

    /// `selp.type d, a, b, c`: `a` when `c` is true, else `b` (PTX ISA 9.7.7.4).
    #[inline(always)]
    pub(super) fn selp(
        &mut self,
        lanes: &[usize],
        ty: Type,
        destination: Destination,
        a: Source,
        b: Source,
        c: Source,
    ) {
        let put = Put::new(destination, ty);
        let operands = [(a, ty.bits()), (b, ty.bits()), (c, 1)];
        self.map3(lanes, operands, &put, |a, b, c| if c == 1 { a } else { b });
    }

    /// `slct` ([`alu::slct`]).
    #[inline(always)]
    pub(super) fn slct(
        &mut self,
        lanes: &[usize],
        ty: Type,
        float_selector: bool,
        ftz: bool,
        destination: Destination,
        [a, b, c]: [Source; 3],
    ) {
        let put = Put::new(destination, ty);
        let operands = [(a, ty.bits()), (b, ty.bits()), (c, 32)];
        self.map3(lanes, operands, &put, |a, b, c| {
            alu::slct(float_selector, ftz, a, b, c)
        });
    }
}

impl Executor<'_, '_> {
    /// `testp` ([`alu::testp`]).
    #[inline(always)]
    pub(super) fn testp(
        &mut self,
        lanes: &[usize],
        op: TestpOp,
        ty: Type,
        destination: Destination,
        a: Source,
    ) {
        let put = Put::new(destination, Type::Pred);
        self.map1(lanes, (a, ty.bits()), &put, |a| {
            u64::from(alu::testp(op, ty, a))
        });
    }

    /// `set` ([`alu::set`]), lane by lane.
    #[allow(clippy::too_many_arguments)] // The fields of the instruction kind, as the dispatch binds them.
    #[inline(always)]
    pub(super) fn set(
        &mut self,
        lanes: &[usize],
        compare: Compare,
        dtype: Type,
        stype: Type,
        ftz: bool,
        combine: Option<(BoolOp, PredicateSource)>,
        destination: Destination,
        a: Source,
        b: Source,
    ) {
        let put = Put::new(destination, dtype);
        let bits = stype.bits();
        for &lane in lanes {
            let c = combine.map(|(op, c)| {
                let value = self.read_bits(lane, c.source, 1) == 1;
                (op, value != c.negated)
            });
            let (x, y) = (self.read_bits(lane, a, bits), self.read_bits(lane, b, bits));
            let d = alu::set(compare, dtype, stype, ftz, c, x, y);
            self.put(lane, &put, u128::from(d));
        }
    }
}
