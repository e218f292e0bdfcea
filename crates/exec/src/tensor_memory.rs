//! The tensor memory of a CTA (PTX ISA 9.7.16.1, "Tensor Memory"): "a dedicated on-chip memory
//! ... organized as a two-dimensional matrix where the horizontal rows are called lanes and
//! the vertical columns are called columns"; on sm_100a "128 lanes (rows) and 512 columns",
//! each cell 32 bits. An address is 32 bits: "bits 31-16 the lane index, 15-0 the column".
//!
//! Allocation is by columns (`tcgen05.alloc`: "The unit of allocation and de-allocation is 32
//! columns and all of lanes per column. The number of columns must be a power of 2 ... within
//! the range [32, 512]"). ptxsim places an allocation of `n` columns at the lowest free
//! multiple of `n`; where none is free the instruction would wait for a `tcgen05.dealloc` of
//! another warp, and ptxsim, which runs a warp's instruction to its end, traps instead
//! ([`AllocError::Full`]). Every access checks that its cell lies in an allocation.
//!
//! The fragments of `tcgen05.ld`/`tcgen05.st` (9.7.16.2.3.1, Figures 183-187) are
//! [`fragment`]'s, written from the ISA's figures as CUTLASS's `copy_traits_sm100.hpp` spells
//! them (`SM100_TMEM_LOAD_*` thread-value layouts).

use crate::ir::tcgen05::Shape;

/// Lanes of the tensor memory.
pub const LANES: u32 = 128;
/// Columns of the tensor memory.
pub const COLUMNS: u32 = 512;

/// Why `tcgen05.alloc` did not allocate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// `nCols` is not a power of 2 in [32, 512].
    Columns(u32),
    /// The CTA relinquished its permit ("it is illegal for a CTA to perform tcgen05.alloc
    /// after any of its constituent threads execute tcgen05.relinquish_alloc_permit").
    Relinquished,
    /// No `nCols` free columns (the allocated count given).
    Full(u32),
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AllocError::Columns(n) => write!(
                f,
                "nCols = {n}: the number of columns must be a power of 2 in [32, 512]"
            ),
            AllocError::Relinquished => write!(
                f,
                "the CTA relinquished its permit to allocate tensor memory \
                 (tcgen05.relinquish_alloc_permit)"
            ),
            AllocError::Full(used) => write!(
                f,
                "not enough free tensor memory ({used} of {COLUMNS} columns allocated): \
                 tcgen05.alloc would wait for a tcgen05.dealloc, which ptxsim does not model"
            ),
        }
    }
}

/// A collective `.cta_group::2` operation that the peer CTA's warp performed first and this
/// CTA's warp has yet to perform (an allocation's effect on this CTA's tensor memory is already
/// made; a deallocation frees this CTA's columns when this CTA's warp performs it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOp {
    /// `tcgen05.alloc.cta_group::2` of `columns` at column `start`.
    Alloc {
        /// The first column.
        start: u32,
        /// `nCols`.
        columns: u32,
    },
    /// `tcgen05.dealloc.cta_group::2` of `columns` at column `start`.
    Dealloc {
        /// The first column.
        start: u32,
        /// `nCols`.
        columns: u32,
    },
    /// `tcgen05.relinquish_alloc_permit.cta_group::2`.
    Relinquish,
}

impl std::fmt::Display for PairOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairOp::Alloc { start, columns } => {
                write!(
                    f,
                    "tcgen05.alloc.cta_group::2 of {columns} columns (at column {start})"
                )
            }
            PairOp::Dealloc { start, columns } => write!(
                f,
                "tcgen05.dealloc.cta_group::2 of {columns} columns (at column {start})"
            ),
            PairOp::Relinquish => write!(f, "tcgen05.relinquish_alloc_permit.cta_group::2"),
        }
    }
}

/// A CTA's tensor memory: its cells (made at the first allocation) and allocations.
#[derive(Clone, Debug, Default)]
pub struct TensorMemory {
    cells: Vec<u32>,
    /// `(first column, columns)` of each allocation.
    allocations: Vec<(u32, u32)>,
    relinquished: bool,
    /// The `.cta_group` of the CTA's first `tcgen05` instruction that names one.
    pub(crate) cta_group: Option<u32>,
    /// Collective operations of the pair that the peer CTA's warp performed first, in order.
    pending: std::collections::VecDeque<PairOp>,
    /// Whether every thread of the CTA finished.
    pub(crate) finished: bool,
    /// The B collector buffers `b0` to `b3` of `tcgen05.mma.ws`: B's elements (N rows of K), as
    /// `::fill` read them.
    pub(crate) collectors: [Option<Vec<Vec<u64>>>; 4],
}

/// The lane and column of a tensor-memory address.
pub fn split(address: u32) -> (u32, u32) {
    (address >> 16, address & 0xffff)
}

impl TensorMemory {
    /// Columns allocated now.
    pub fn allocated(&self) -> u32 {
        self.allocations.iter().map(|&(_, n)| n).sum()
    }

    /// `tcgen05.alloc` of `columns`: the address of the allocation (lane 0, its first column).
    pub fn alloc(&mut self, columns: u32) -> Result<u32, AllocError> {
        self.allowed(columns)?;
        let start = (0..COLUMNS / columns)
            .map(|i| i * columns)
            .find(|&start| self.free(start, columns))
            .ok_or(AllocError::Full(self.allocated()))?;
        self.place(start, columns);
        Ok(start)
    }

    /// Whether an allocation of `columns` may be made (a valid `nCols`, the permit kept).
    fn allowed(&self, columns: u32) -> Result<(), AllocError> {
        if !(32..=COLUMNS).contains(&columns) || !columns.is_power_of_two() {
            return Err(AllocError::Columns(columns));
        }
        if self.relinquished {
            return Err(AllocError::Relinquished);
        }
        Ok(())
    }

    /// Whether the columns `start .. start + columns` are free.
    fn free(&self, start: u32, columns: u32) -> bool {
        self.allocations
            .iter()
            .all(|&(first, n)| start + columns <= first || first + n <= start)
    }

    fn place(&mut self, start: u32, columns: u32) {
        if self.cells.is_empty() {
            self.cells = vec![0; (LANES * COLUMNS) as usize];
        }
        self.allocations.push((start, columns));
    }

    /// The collective operations the peer CTA performed that this CTA has not, for messages.
    pub fn pending(&self) -> Option<String> {
        (!self.pending.is_empty()).then(|| {
            self.pending
                .iter()
                .map(PairOp::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// This CTA's warp performs `op`, the peer's already did: the next pending operation must
    /// be `op` (then it is done: `Ok(true)`). `Ok(false)`: the peer's warp has not performed
    /// it yet.
    fn match_pending(&mut self, op: PairOp) -> Result<bool, String> {
        match self.pending.front() {
            None => Ok(false),
            Some(&front) if front == op => {
                self.pending.pop_front();
                Ok(true)
            }
            Some(&front) => Err(format!(
                "the peer CTA's warp performed {front}, and this CTA's warp {op}: the two warps \
                 of the pair must perform the same collective operations, in the same order"
            )),
        }
    }
}

/// `tcgen05.alloc.cta_group::2` by a warp of the CTA whose tensor memory is `own`, `peer` the
/// other CTA of the pair: "one warp from each of the peer CTAs must collectively perform the
/// allocation" (PTX ISA 9.7.16.7.1). The first warp of the two allocates the same columns (the
/// lowest multiple of `columns` free in both) in both tensor memories, and the second gets
/// the same address; an `nCols` that differs from the first warp's is an error. (On the GPU the
/// first warp waits for the second; here it goes on, which a program cannot tell apart.)
///
/// `peer` is the peer CTA's tensor memory, or why the CTA has no active peer: the second warp
/// of the pair needs none (the ISA's Table 47: "Warps can immediately exit after deallocating
/// Tensor Memory"), the first does.
pub fn pair_alloc(
    own: &mut TensorMemory,
    peer: Result<&mut TensorMemory, String>,
    columns: u32,
) -> Result<u32, String> {
    if let Some(&PairOp::Alloc { start, .. }) = own.pending.front() {
        own.match_pending(PairOp::Alloc { start, columns })?;
        return Ok(start);
    }
    own.match_pending(PairOp::Alloc { start: 0, columns })?;
    let peer = peer?;
    own.allowed(columns).map_err(|why| why.to_string())?;
    peer.allowed(columns)
        .map_err(|why| format!("in the peer CTA: {why}"))?;
    let start = (0..COLUMNS / columns)
        .map(|i| i * columns)
        .find(|&start| own.free(start, columns) && peer.free(start, columns))
        .ok_or_else(|| AllocError::Full(own.allocated().max(peer.allocated())).to_string())?;
    own.place(start, columns);
    peer.place(start, columns);
    peer.pending.push_back(PairOp::Alloc { start, columns });
    Ok(start)
}

/// `tcgen05.dealloc.cta_group::2`: "one warp from each of the peer CTAs must collectively
/// perform the ... de-allocation" (PTX ISA 9.7.16.7.1). Each warp frees the allocation in its
/// own CTA's tensor memory; the first also checks that the peer holds it, and the second that
/// the first freed the same columns. The peer's columns stay until the peer's warp frees them,
/// since the peer's threads may still be reading them (gau-nernst/learn-cuda's 2-SM
/// `matmul_v5` deallocates after a CTA barrier, not a cluster barrier, so the CTA that gets
/// there first must not free the other's accumulator).
pub fn pair_dealloc(
    own: &mut TensorMemory,
    peer: Result<&mut TensorMemory, String>,
    address: u32,
    columns: u32,
) -> Result<(), String> {
    let (lane, start) = split(address);
    let op = PairOp::Dealloc { start, columns };
    if lane == 0 && own.pending.front() == Some(&op) {
        own.dealloc(address, columns)?;
        own.pending.pop_front();
        return Ok(());
    }
    if let Some(front) = own.pending.front() {
        return Err(format!(
            "the peer CTA's warp performed {front}, and this CTA's warp {op}: the two warps of \
             the pair must perform the same collective operations, in the same order"
        ));
    }
    let peer = peer?;
    peer.allocation(address, columns)
        .map_err(|why| format!("in the peer CTA: {why}"))?;
    own.dealloc(address, columns)?;
    peer.pending.push_back(op);
    Ok(())
}

/// `tcgen05.relinquish_alloc_permit.cta_group::2`: both CTAs of the pair give up their permit.
pub fn pair_relinquish(
    own: &mut TensorMemory,
    peer: Result<&mut TensorMemory, String>,
) -> Result<(), String> {
    if own.match_pending(PairOp::Relinquish)? {
        return Ok(());
    }
    let peer = peer?;
    own.relinquish();
    peer.relinquish();
    peer.pending.push_back(PairOp::Relinquish);
    Ok(())
}

impl TensorMemory {
    /// `tcgen05.dealloc taddr, nCols`: "The operand taddr must point to a previous Tensor
    /// Memory allocation"; ptxsim also asks for the allocation's own column count.
    pub fn dealloc(&mut self, address: u32, columns: u32) -> Result<(), String> {
        let index = self.allocation(address, columns)?;
        self.allocations.swap_remove(index);
        Ok(())
    }

    /// The index of the allocation `taddr`, `nCols` names, or why there is none.
    fn allocation(&self, address: u32, columns: u32) -> Result<usize, String> {
        let (lane, column) = split(address);
        let found = self
            .allocations
            .iter()
            .position(|&(first, n)| lane == 0 && first == column && n == columns);
        match found {
            Some(index) => Ok(index),
            None => Err(format!(
                "taddr {address:#x} with nCols = {columns} is no allocation of the CTA's tensor \
                 memory (allocated: {}; freed twice, or not allocated)",
                self.describe()
            )),
        }
    }

    /// `tcgen05.relinquish_alloc_permit`.
    pub fn relinquish(&mut self) {
        self.relinquished = true;
    }

    /// The allocations, `[first, last]` column ranges, for messages.
    pub fn describe(&self) -> String {
        if self.allocations.is_empty() {
            return "none".to_string();
        }
        let mut ranges: Vec<(u32, u32)> = self.allocations.clone();
        ranges.sort_unstable();
        ranges
            .iter()
            .map(|&(first, n)| format!("columns {first}..{}", first + n - 1))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn index(&self, lane: u32, column: u32) -> Result<usize, String> {
        let inside = lane < LANES
            && self
                .allocations
                .iter()
                .any(|&(first, n)| (first..first + n).contains(&column));
        if inside {
            Ok((lane * COLUMNS + column) as usize)
        } else {
            Err(format!(
                "tensor memory lane {lane}, column {column} lies outside every allocation \
                 (allocated: {})",
                self.describe()
            ))
        }
    }

    /// The cell at `(lane, column)`, which must be allocated.
    pub fn read(&self, lane: u32, column: u32) -> Result<u32, String> {
        let index = self.index(lane, column)?;
        Ok(self.cells[index])
    }

    /// Writes the cell at `(lane, column)`, which must be allocated.
    pub fn write(&mut self, lane: u32, column: u32, value: u32) -> Result<(), String> {
        let index = self.index(lane, column)?;
        self.cells[index] = value;
        Ok(())
    }
}

/// Where register `register` of thread `thread` (0..32 of the warp) lies for `shape`: the lane
/// and column offsets from `taddr`, and whether it is in the second half of `.16x32bx2`
/// (which adds `immHalfSplitoff` to the column). Columns are 32-bit cells; with `.pack::16b`
/// column `c` stands for the cells `2c` and `2c + 1`. From Figures 183-187:
///
/// * `.32x32b`: thread `t` has lane `t`, register `r` column `r`;
/// * `.16x64b`: lane `t/4 + 8(t%2)`, column `2r + (t/2)%2`;
/// * `.16x128b`: register `r = 2j + i`: lane `t/4 + 8i`, column `4j + t%4`;
/// * `.16x256b`: register `r = 4j + i`: lane `t/4 + 8(i/2)`, column `8j + 2(t%4) + i%2`;
/// * `.16x32bx2`: lane `t%16`, column `r`, threads 16-31 in the second half.
pub fn fragment(shape: Shape, thread: usize, register: usize) -> (u32, u32, bool) {
    let (t, r) = (thread as u32, register as u32);
    match shape {
        Shape::S32x32b => (t, r, false),
        Shape::S16x64b => (t / 4 + 8 * (t % 2), 2 * r + (t / 2) % 2, false),
        Shape::S16x128b => (t / 4 + 8 * (r % 2), 4 * (r / 2) + t % 4, false),
        Shape::S16x256b => {
            let (j, i) = (r / 4, r % 4);
            (t / 4 + 8 * (i / 2), 8 * j + 2 * (t % 4) + i % 2, false)
        }
        Shape::S16x32bx2 => (t % 16, r, t >= 16),
    }
}

/// Lanes a shape's warp access spans from its base lane.
pub fn lanes_of(shape: Shape) -> u32 {
    match shape {
        Shape::S32x32b => 32,
        _ => 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_of_a_shape_is_one_registers() {
        // Each shape's .x1 covers its lanes x (size / 32) columns exactly once (9.7.16.2.3:
        // "lane x size").
        for (shape, lanes, columns) in [
            (Shape::S32x32b, 32, 1),
            (Shape::S16x64b, 16, 2),
            (Shape::S16x128b, 16, 4),
            (Shape::S16x256b, 16, 8),
            (Shape::S16x32bx2, 16, 2),
        ] {
            let mut seen = std::collections::HashSet::new();
            for thread in 0..32 {
                for register in 0..shape.registers() {
                    let (lane, column, half) = fragment(shape, thread, register);
                    let column = column + if half { 1 } else { 0 };
                    assert!(lane < lanes && column < columns, "{shape:?}");
                    assert!(seen.insert((lane, column)), "{shape:?} twice");
                }
            }
            assert_eq!(seen.len(), (lanes * columns) as usize, "{shape:?}");
        }
    }

    #[test]
    fn allocations_are_powers_of_two_and_freed_once() {
        let mut tmem = TensorMemory::default();
        assert_eq!(tmem.alloc(48), Err(AllocError::Columns(48)));
        assert_eq!(tmem.alloc(16), Err(AllocError::Columns(16)));
        assert_eq!(tmem.alloc(1024), Err(AllocError::Columns(1024)));
        assert_eq!(tmem.alloc(64), Ok(0));
        assert_eq!(tmem.alloc(32), Ok(64));
        assert_eq!(tmem.alloc(256), Ok(256));
        assert_eq!(tmem.alloc(256), Err(AllocError::Full(352)));
        assert!(tmem.write(5, 70, 7).is_ok());
        assert!(tmem.write(5, 100, 7).is_err());
        assert!(tmem.dealloc(64, 32).is_ok());
        assert!(tmem.dealloc(64, 32).is_err());
        assert!(tmem.read(5, 70).is_err());
        tmem.relinquish();
        assert_eq!(tmem.alloc(32), Err(AllocError::Relinquished));
    }
}
