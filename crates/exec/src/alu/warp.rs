//! The warp family: the lane arithmetic of `shfl.sync` (PTX ISA 9.7.9.6) and the reductions of
//! `vote.sync` (9.7.13.9) and `redux.sync` (9.7.13.12), as pure functions on a lane index and
//! the operands; the executor (`src/exec/warp.rs`) gathers the lanes of a warp and calls them.

use ptxsim_isa::ops::{ReduxOp, ShflMode, VoteMode};

/// The source lane `j` of `shfl` for the thread in lane `lane` (0..32) and whether it is in
/// range (`pval`), by the Semantics block of PTX ISA 9.7.9.6:
///
/// ```text
/// bval[4:0] = b[4:0]; cval[4:0] = c[4:0]; mask[4:0] = c[12:8];
/// maxLane = (lane[4:0] & mask[4:0]) | (cval[4:0] & ~mask[4:0]);
/// minLane = (lane[4:0] & mask[4:0]);
/// .up:   j = lane - bval; pval = (j >= maxLane);
/// .down: j = lane + bval; pval = (j <= maxLane);
/// .bfly: j = lane ^ bval; pval = (j <= maxLane);
/// .idx:  j = minLane | (bval[4:0] & ~mask[4:0]); pval = (j <= maxLane);
/// if (!pval) j = lane;
/// ```
///
/// Returns `(j, pval)` with `j` in 0..32.
pub fn shfl_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = i64::from(lane & 31);
    let bval = i64::from(b & 31);
    let cval = i64::from(c & 31);
    let mask = i64::from((c >> 8) & 31);
    let max_lane = (lane & mask) | (cval & !mask & 31);
    let min_lane = lane & mask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane - bval;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !mask & 31);
            (j, j <= max_lane)
        }
    };
    let j = if pval { j } else { lane };
    ((j & 31) as u32, pval)
}

/// `vote.sync.mode` over the predicates of the participating lanes (`ballot`: bit `laneid` set
/// for each lane whose predicate is true; PTX ISA 9.7.13.9: "`.all`: True if source predicate
/// is True for all non-exited threads in membermask. `.any`: True if source predicate is True
/// for some thread in membermask. `.uni`: True if source predicate has the same value in all
/// non-exited threads in membermask"). `votes` is the ballot of the participating lanes and
/// `participants` their mask. The result is the predicate (0 or 1) or, for `.ballot`, the
/// 32-bit mask.
pub fn vote(mode: VoteMode, votes: u32, participants: u32) -> u32 {
    let votes = votes & participants;
    match mode {
        VoteMode::All => u32::from(votes == participants),
        VoteMode::Any => u32::from(votes != 0),
        VoteMode::Uni => u32::from(votes == 0 || votes == participants),
        VoteMode::Ballot => votes,
    }
}

/// `redux.sync.op` of two 32-bit values (PTX ISA 9.7.13.12: "For the `.add` operation result
/// is truncated to 32 bits"); `signed` for `.s32` `min`/`max`. The reduction is associative
/// and commutative, so the order of the lanes does not matter.
pub fn redux(op: ReduxOp, signed: bool, a: u32, b: u32) -> u32 {
    match op {
        ReduxOp::Add => a.wrapping_add(b),
        ReduxOp::Min if signed => (a as i32).min(b as i32) as u32,
        ReduxOp::Max if signed => (a as i32).max(b as i32) as u32,
        ReduxOp::Min => a.min(b),
        ReduxOp::Max => a.max(b),
        ReduxOp::And => a & b,
        ReduxOp::Or => a | b,
        ReduxOp::Xor => a ^ b,
    }
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` (9.7.13.12) over the participants' values: "if the
/// input value is 0.0 then +0.0 > -0.0"; "If .abs qualifier is specified, then the absolute
/// value of the input is considered"; "If the .NaN qualifier is specified, then the result ...
/// is canonical NaN if the input ... from any participating thread is NaN. In the absence of
/// .NaN qualifier, only non-NaN values are considered ... and the result will be canonical NaN
/// when all inputs are NaNs" (canonical NaN: `0x7fffffff`).
pub fn redux_f32(max: bool, abs: bool, nan: bool, values: impl Iterator<Item = u32>) -> u32 {
    const CANONICAL_NAN: u32 = 0x7fff_ffff;
    let is_nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
    // An order in which -0.0 < +0.0: the usual total order of IEEE bit patterns on numbers.
    let key = |x: u32| -> i64 {
        if x >> 31 == 1 {
            -i64::from(x & 0x7fff_ffff) - 1
        } else {
            i64::from(x)
        }
    };
    let mut best: Option<u32> = None;
    for x in values {
        let x = if abs { x & 0x7fff_ffff } else { x };
        if is_nan(x) {
            if nan {
                return CANONICAL_NAN;
            }
            continue;
        }
        best = Some(match best {
            Some(b) if (key(x) > key(b)) == max && key(x) != key(b) => x,
            Some(b) => b,
            None => x,
        });
    }
    best.unwrap_or(CANONICAL_NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values worked out by hand from the Semantics block (see [`shfl_lane`]).
    #[test]
    fn shfl_lanes_follow_the_semantics_block() {
        // `__shfl_down_sync(~0, v, 16)`: c = 0x1f (no segments, clamp 31).
        assert_eq!(shfl_lane(ShflMode::Down, 3, 16, 0x1f), (19, true));
        assert_eq!(shfl_lane(ShflMode::Down, 20, 16, 0x1f), (20, false)); // 36 > 31
        // `__shfl_up_sync(~0, v, 1)`: c = 0 (maxLane = 0 for segment 32).
        assert_eq!(shfl_lane(ShflMode::Up, 0, 1, 0), (0, false));
        assert_eq!(shfl_lane(ShflMode::Up, 5, 1, 0), (4, true));
        // `__shfl_xor_sync(~0, v, 8)`: c = 0x1f.
        assert_eq!(shfl_lane(ShflMode::Bfly, 3, 8, 0x1f), (11, true));
        assert_eq!(shfl_lane(ShflMode::Bfly, 27, 8, 0x1f), (19, true));
        // `__shfl_sync(~0, v, 7)`: c = 0x1f; b above 31 keeps only its low five bits.
        assert_eq!(shfl_lane(ShflMode::Idx, 12, 7, 0x1f), (7, true));
        assert_eq!(shfl_lane(ShflMode::Idx, 12, 32 + 7, 0x1f), (7, true));
        // Width 8 (`__shfl_down_sync(~0, v, 4, 8)`: c = ((32 - 8) << 8) | 0x1f = 0x181f):
        // segment mask 0x18, lane 13 is lane 5 of the segment 8..15, maxLane = 8 | 7 = 15.
        assert_eq!(shfl_lane(ShflMode::Down, 13, 4, 0x181f), (13, false)); // 17 > 15
        assert_eq!(shfl_lane(ShflMode::Down, 10, 4, 0x181f), (14, true));
        // `__shfl_sync(~0, v, 2, 8)`: lane 13 reads lane 8 + 2.
        assert_eq!(shfl_lane(ShflMode::Idx, 13, 2, 0x181f), (10, true));
        // `__shfl_up_sync(~0, v, 2, 8)`: c = (24 << 8) | 0 = 0x1800, maxLane = minLane.
        assert_eq!(shfl_lane(ShflMode::Up, 9, 2, 0x1800), (9, false)); // 7 < 8
        assert_eq!(shfl_lane(ShflMode::Up, 11, 2, 0x1800), (9, true));
    }

    #[test]
    fn votes_by_the_mode_sentences() {
        let all = 0xffff_ffff;
        assert_eq!(vote(VoteMode::Ballot, 0x0000_00f0, all), 0xf0);
        assert_eq!(vote(VoteMode::Ballot, 0x0000_00f0, 0x30), 0x30);
        assert_eq!(vote(VoteMode::All, all, all), 1);
        assert_eq!(vote(VoteMode::All, 0x7fff_ffff, all), 0);
        assert_eq!(vote(VoteMode::All, 0x0f, 0x0f), 1);
        assert_eq!(vote(VoteMode::Any, 0, all), 0);
        assert_eq!(vote(VoteMode::Any, 0x100, all), 1);
        assert_eq!(vote(VoteMode::Uni, 0, all), 1);
        assert_eq!(vote(VoteMode::Uni, 0x0f, 0x0f), 1);
        assert_eq!(vote(VoteMode::Uni, 0x07, 0x0f), 0);
    }

    #[test]
    fn redux_operations() {
        assert_eq!(redux(ReduxOp::Add, false, u32::MAX, 2), 1); // truncated to 32 bits
        assert_eq!(redux(ReduxOp::Min, true, (-5i32) as u32, 3), (-5i32) as u32);
        assert_eq!(redux(ReduxOp::Min, false, (-5i32) as u32, 3), 3);
        assert_eq!(redux(ReduxOp::Max, true, (-5i32) as u32, 3), 3);
        assert_eq!(
            redux(ReduxOp::Max, false, (-5i32) as u32, 3),
            (-5i32) as u32
        );
        assert_eq!(redux(ReduxOp::Xor, false, 0b1100, 0b1010), 0b0110);
    }

    /// 9.7.13.12: "+0.0 > -0.0", `.abs`, `.NaN` and the NaN-only case.
    #[test]
    fn redux_f32_follows_the_text() {
        let (one, neg_two, nan) = (0x3f80_0000u32, 0xc000_0000u32, 0x7fc0_0000u32);
        let (pz, nz) = (0u32, 0x8000_0000u32);
        assert_eq!(
            redux_f32(true, false, false, [one, neg_two, nan].into_iter()),
            one
        );
        assert_eq!(
            redux_f32(false, false, false, [one, neg_two, nan].into_iter()),
            neg_two
        );
        assert_eq!(
            redux_f32(true, true, false, [one, neg_two].into_iter()),
            0x4000_0000
        );
        assert_eq!(
            redux_f32(true, false, true, [one, nan].into_iter()),
            0x7fff_ffff
        );
        assert_eq!(
            redux_f32(false, false, false, [nan, nan].into_iter()),
            0x7fff_ffff
        );
        assert_eq!(redux_f32(true, false, false, [nz, pz].into_iter()), pz);
        assert_eq!(redux_f32(false, false, false, [pz, nz].into_iter()), nz);
    }
}
