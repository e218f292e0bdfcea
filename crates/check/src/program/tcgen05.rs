//! The executable forms of the Blackwell tensor-core instructions, `tcgen05` (PTX ISA 9.7.16),
//! built by [`super::build`] and run by the executor against the CTA's tensor memory.
//!
//! `tcgen05.wait::ld`, `tcgen05.wait::st` and `tcgen05.fence::*` become
//! [`super::InstructionKind::Fence`]: the executor completes every asynchronous tcgen05
//! operation when it is issued, so nothing is left to wait for or to order.

use super::{Destination, MemoryOperand, PredicateSource, Source};
use ptxsim_isa::Type;
use ptxsim_isa::ops::Space;

/// The data-movement shape of `tcgen05.ld` / `tcgen05.st` (9.7.16.2.3: "lane x size").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `.16x64b`.
    S16x64b,
    /// `.16x128b`.
    S16x128b,
    /// `.16x256b`.
    S16x256b,
    /// `.32x32b`.
    S32x32b,
    /// `.16x32bx2`: two `16x32b` accesses, the second `immHalfSplitoff` columns further.
    S16x32bx2,
}

impl Shape {
    /// The shape's name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Shape::S16x64b => "16x64b",
            Shape::S16x128b => "16x128b",
            Shape::S16x256b => "16x256b",
            Shape::S32x32b => "32x32b",
            Shape::S16x32bx2 => "16x32bx2",
        }
    }

    /// The shape of a modifier, if it is one.
    pub fn parse(name: &str) -> Option<Shape> {
        Some(match name {
            "16x64b" => Shape::S16x64b,
            "16x128b" => Shape::S16x128b,
            "16x256b" => Shape::S16x256b,
            "32x32b" => Shape::S32x32b,
            "16x32bx2" => Shape::S16x32bx2,
            _ => return None,
        })
    }

    /// The 32-bit registers of one repetition (Table 49: `.num` `.x1` of `.16x256b` is 4
    /// registers, of `.16x128b` 2, of the others 1).
    pub fn registers(self) -> usize {
        match self {
            Shape::S16x256b => 4,
            Shape::S16x128b => 2,
            _ => 1,
        }
    }
}

/// The shape of `tcgen05.cp` (9.7.16.2.3: `.128x256b`, `.4x256b`, `.128x128b`, and the
/// multicast shapes `.32x128b.warpx4` and `.64x128b.warpx2::02_13` / `::01_23`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyShape {
    /// `.128x256b`: 128 rows of 32 bytes.
    S128x256b,
    /// `.4x256b`: 4 rows of 32 bytes.
    S4x256b,
    /// `.128x128b`: 128 rows of 16 bytes.
    S128x128b,
    /// `.32x128b.warpx4`: 32 rows of 16 bytes, "multicasted into all 4 warps" (the lanes of
    /// each warp's quarter of tensor memory receive the same rows).
    S32x128bWarpx4,
    /// `.64x128b.warpx2::02_13`: 64 rows of 16 bytes, rows 0-31 into the quarters of warps 0
    /// and 2, rows 32-63 into those of warps 1 and 3.
    S64x128bWarpx2Pairs02And13,
    /// `.64x128b.warpx2::01_23`: 64 rows of 16 bytes, rows 0-31 into the quarters of warps 0
    /// and 1, rows 32-63 into those of warps 2 and 3.
    S64x128bWarpx2Pairs01And23,
}

impl CopyShape {
    /// Rows (of the source) and bytes per row.
    pub fn rows_and_bytes(self) -> (usize, usize) {
        match self {
            CopyShape::S128x256b => (128, 32),
            CopyShape::S4x256b => (4, 32),
            CopyShape::S128x128b => (128, 16),
            CopyShape::S32x128bWarpx4 => (32, 16),
            CopyShape::S64x128bWarpx2Pairs02And13 | CopyShape::S64x128bWarpx2Pairs01And23 => {
                (64, 16)
            }
        }
    }

    /// The tensor-memory lanes, counted from `taddr`'s, that row `row` of the source is
    /// written to. Without multicast, lane `row`. `.warpx4` ("the data being copied is
    /// multicasted into all 4 warps"): lane `row + 32 q` for each quarter `q`. The `.warpx2`
    /// forms, whose lanes the ISA draws only in a figure, follow CuTe's copy traits
    /// (`include/cute/atom/copy_traits_sm100.hpp`, whose `ValID` maps each logical bit to its
    /// tensor-memory address): `SM100_UTCCP_2x64dp128bitlw0213_1cta` is `(64,128,2) :
    /// (DP,1,64 DP)` (row `r` to lanes `r` and `r + 64`), and
    /// `SM100_UTCCP_2x64dp128bitlw0123_1cta` is `(32,128,2,2) : (DP,1,64 DP,32 DP)` with the
    /// third mode the source's second block of 32 rows (row `32 j + r` to lanes `64 j + r` and
    /// `64 j + r + 32`).
    pub fn destination_lanes(self, row: usize) -> impl Iterator<Item = usize> {
        let (first, copies, step) = match self {
            CopyShape::S128x256b | CopyShape::S4x256b | CopyShape::S128x128b => (row, 1, 0),
            CopyShape::S32x128bWarpx4 => (row, 4, 32),
            CopyShape::S64x128bWarpx2Pairs02And13 => (row, 2, 64),
            CopyShape::S64x128bWarpx2Pairs01And23 => (row + 32 * (row / 32), 2, 32),
        };
        (0..copies).map(move |copy| first + step * copy)
    }
}

/// `tcgen05.ld.red ... .redOp{.abs}{.NaN}.type r, redval, [taddr]` (9.7.16.8.3): "the
/// reduction operation specified by .redOp is performed on the data that is loaded across
/// columns in each lane", the result in `redval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadReduction {
    /// `.max` (else `.min`).
    pub max: bool,
    /// `.f32`, `.u32` or `.s32`.
    pub ty: Type,
    /// `.abs` (`.f32`): the reduction of the absolute values.
    pub abs: bool,
    /// `.NaN` (`.f32`): a NaN value gives the canonical NaN.
    pub nan: bool,
    /// `redval`.
    pub dest: Destination,
}

/// `.kind` of `tcgen05.mma` (9.7.16.10.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `.kind::f16`: `.f16`/`.bf16` A and B, K = 16.
    F16,
    /// `.kind::tf32`: K = 8.
    Tf32,
    /// `.kind::f8f6f4`: K = 32.
    F8f6f4,
    /// `.kind::i8`: `.s8`/`.u8`, K = 32.
    I8,
    /// `.kind::mxf8f6f4.block_scale`: FP8, FP6 or FP4 scaled by `.ue8m0` factors, one per 32
    /// elements of K (`.scale_vec::1X`), K = 32.
    Mxf8f6f4,
    /// `.kind::mxf4.block_scale`: `.e2m1` packed two to a byte, `.ue8m0` factors, one per 32
    /// elements of K (`.scale_vec::2X`), K = 64.
    Mxf4,
    /// `.kind::mxf4nvf4.block_scale`: `.e2m1` packed two to a byte, `.ue8m0` or `.ue4m3`
    /// factors, one per 32 (`.scale_vec::2X`) or 16 (`.scale_vec::4X`) elements of K, K = 64.
    Mxf4nvf4,
}

impl Kind {
    /// The kind of a modifier (`kind::f16`, ...), if it is one ptxsim runs.
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "kind::f16" => Kind::F16,
            "kind::tf32" => Kind::Tf32,
            "kind::f8f6f4" => Kind::F8f6f4,
            "kind::i8" => Kind::I8,
            "kind::mxf8f6f4" => Kind::Mxf8f6f4,
            "kind::mxf4" => Kind::Mxf4,
            "kind::mxf4nvf4" => Kind::Mxf4nvf4,
            _ => return None,
        })
    }

    /// K of one instruction (Table 39: 16 for `.kind::f16`, 8 for `.kind::tf32`, 32 for
    /// `.kind::f8f6f4`, `.kind::mxf8f6f4` and `.kind::i8`, 64 for `.kind::mxf4` and
    /// `.kind::mxf4nvf4`, dense).
    pub fn k(self) -> usize {
        match self {
            Kind::F16 => 16,
            Kind::Tf32 => 8,
            Kind::F8f6f4 | Kind::I8 | Kind::Mxf8f6f4 => 32,
            Kind::Mxf4 | Kind::Mxf4nvf4 => 64,
        }
    }

    /// Whether the kind is block-scaled (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`
    /// take `.block_scale` and the scale-factor operands).
    pub fn block_scaled(self) -> bool {
        matches!(self, Kind::Mxf8f6f4 | Kind::Mxf4 | Kind::Mxf4nvf4)
    }

    /// Whether A and B hold `.e2m1` elements packed two to a byte ("no explicit padding is
    /// necessary" for `.kind::mxf4` and `.kind::mxf4nvf4`, 9.7.14.5.14).
    pub fn packed_fp4(self) -> bool {
        matches!(self, Kind::Mxf4 | Kind::Mxf4nvf4)
    }
}

/// What `tcgen05.mma.ws` does with its B collector buffer (`.collector::bN::usage`, 9.7.16.10.9;
/// without the qualifier `.collector::b0::discard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectorUsage {
    /// `::fill`: B is read from shared memory and kept in the buffer.
    Fill,
    /// `::use`: B is the buffer's.
    Use,
    /// `::lastuse`: B is the buffer's, which is then emptied.
    LastUse,
    /// `::discard`: B is read from shared memory and not kept.
    Discard,
}

/// The B collector buffer of `tcgen05.mma.ws`: `b0` to `b3` and its usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Collector {
    /// The buffer, 0 to 3.
    pub buffer: u32,
    /// What the instruction does with it.
    pub usage: CollectorUsage,
}

/// Where `tcgen05.mma` takes A from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaA {
    /// `a-desc`: a shared-memory descriptor (9.7.16.4.1).
    Descriptor(Source),
    /// `[a-tmem]`: tensor memory.
    Tmem(MemoryOperand),
}

/// `tcgen05.mma.cta_group.kind [d-tmem], a-desc|[a-tmem], b-desc, idesc,
/// {disable-output-lane,} enable-input-d {, scale-input-d};` (9.7.16.10.9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mma {
    /// `.kind`.
    pub kind: Kind,
    /// `[d-tmem]`.
    pub d: MemoryOperand,
    /// A.
    pub a: MmaA,
    /// `b-desc`.
    pub b: Source,
    /// `idesc`: the 32-bit instruction descriptor (9.7.16.4.2).
    pub idesc: Source,
    /// `disable-output-lane`: 32-bit masks of the lanes of D left unchanged (four; eight with
    /// `.cta_group::2`).
    pub disable_output_lane: Vec<Source>,
    /// `enable-input-d`: "If enable-input-d is false, then D = A*B".
    pub enable_input_d: PredicateSource,
    /// `scale-input-d` (0 without it): D = A*B + D * 2^-scale-input-d.
    pub scale_input_d: Option<Source>,
    /// `[scale-A-tmem], [scale-B-tmem]` of `.block_scale`.
    pub scales: Option<(MemoryOperand, MemoryOperand)>,
    /// The scale factors per row of A (and column of B) in one instruction's K: 1, 2 or 4
    /// (`.scale_vec::1X/2X/4X`, `.block32`/`.block16`); 0 without `.block_scale`.
    pub scale_vec: u32,
    /// `.cta_group::2`: the product of a CTA pair (A, B and D split across the two CTAs).
    pub pair: bool,
    /// `.ws` (weight-stationary) and its B collector buffer.
    pub ws: Option<Collector>,
    /// `.sp`: `[sp-meta-tmem]`, the sparsity metadata of A in tensor memory (9.7.16.10.8).
    pub sparse_metadata: Option<MemoryOperand>,
}

/// One `tcgen05` instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tcgen05 {
    /// `tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols;`
    Alloc {
        /// `[dst]`: where the address of the allocation is written.
        dst: MemoryOperand,
        /// Shared (with `.shared::cta`) or generic.
        space: Space,
        /// `nCols`.
        columns: Source,
        /// `.cta_group::2`: one warp of each CTA of the pair allocates, collectively.
        pair: bool,
    },
    /// `tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols;`
    Dealloc {
        /// `taddr`.
        taddr: Source,
        /// `nCols`.
        columns: Source,
        /// `.cta_group::2`: one warp of each CTA of the pair frees, collectively.
        pair: bool,
    },
    /// `tcgen05.relinquish_alloc_permit.cta_group.sync.aligned;`
    Relinquish {
        /// `.cta_group::2`.
        pair: bool,
    },
    /// `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff};`
    Ld {
        /// The shape.
        shape: Shape,
        /// `.num` (`.x1` ... `.x128`).
        num: u32,
        /// `.pack::16b`: two 16-bit elements of adjacent columns in each register.
        pack: bool,
        /// `r`.
        d: Vec<Destination>,
        /// `[taddr]`.
        taddr: MemoryOperand,
        /// `immHalfSplitoff` of `.16x32bx2`.
        split: u32,
        /// `.red`: the reduction of each thread's loaded values into `redval`.
        red: Option<LoadReduction>,
    },
    /// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r;`
    St {
        /// The shape.
        shape: Shape,
        /// `.num`.
        num: u32,
        /// `.unpack::16b`: each register's two halves go to adjacent columns.
        unpack: bool,
        /// `r`.
        sources: Vec<Source>,
        /// `[taddr]`.
        taddr: MemoryOperand,
        /// `immHalfSplitoff` of `.16x32bx2`.
        split: u32,
    },
    /// `tcgen05.cp.cta_group.shape [taddr], s-desc;` (no decompression, no multicast).
    Cp {
        /// The shape.
        shape: CopyShape,
        /// `[taddr]`.
        taddr: MemoryOperand,
        /// `s-desc`: the shared-memory descriptor of the source.
        desc: Source,
        /// `.cta_group::2`: into the tensor memory of both CTAs of the pair.
        pair: bool,
    },
    /// `tcgen05.shift.cta_group.down [taddr];`
    Shift {
        /// `[taddr]`.
        taddr: MemoryOperand,
        /// `.cta_group::2`: in the tensor memory of both CTAs of the pair.
        pair: bool,
    },
    /// `tcgen05.mma`.
    Mma(Box<Mma>),
    /// `tcgen05.commit.cta_group.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64
    /// [mbar]{, ctaMask};`
    Commit {
        /// `[mbar]`.
        mbar: MemoryOperand,
        /// `.shared::cluster` or generic.
        space: Space,
        /// `ctaMask` of `.multicast::cluster` (16 bits, one per `%cluster_ctarank`).
        cta_mask: Option<Source>,
        /// `.cta_group::2`.
        pair: bool,
    },
}

impl Tcgen05 {
    /// Whether all the threads of a warp execute it together (`.sync.aligned`: alloc,
    /// dealloc, relinquish_alloc_permit, ld, st); mma, cp, shift and commit are issued by
    /// each thread that executes them.
    pub fn warp_collective(&self) -> bool {
        matches!(
            self,
            Tcgen05::Alloc { .. }
                | Tcgen05::Dealloc { .. }
                | Tcgen05::Relinquish { .. }
                | Tcgen05::Ld { .. }
                | Tcgen05::St { .. }
        )
    }

    /// The `.cta_group` the instruction names (1 or 2); `None` for ld and st, which have none.
    pub fn cta_group(&self) -> Option<u32> {
        let pair = match self {
            Tcgen05::Alloc { pair, .. }
            | Tcgen05::Dealloc { pair, .. }
            | Tcgen05::Relinquish { pair }
            | Tcgen05::Cp { pair, .. }
            | Tcgen05::Shift { pair, .. }
            | Tcgen05::Commit { pair, .. } => *pair,
            Tcgen05::Mma(mma) => mma.pair,
            Tcgen05::Ld { .. } | Tcgen05::St { .. } => return None,
        };
        Some(if pair { 2 } else { 1 })
    }
}
