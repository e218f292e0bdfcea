//! Target and PTX ISA version requirements of the instructions decoded by
//! [`crate::ops::decode_op`], as data: one [`Gate`] per feature of [`OP_GATES`].
//!
//! Each number is the one the spec section's "PTX ISA Notes" / "Target ISA Notes" give and
//! ptxas 13.5 enforces; `tests/conformance/ops-targets.tsv` has ptxas's verdict on every
//! decoded form on 22 `.target`/`.version` pairs.

use crate::form::OpInstruction;
use crate::gating::{Applies, BLACKWELL_SPECIFIC, Gate, SM120_SPECIFIC, Support, TargetSet};
use crate::mma::MmaType;
use crate::opcode::Opcode;
use crate::ops::{
    AtomOp, FloatModifiers, FloatOp, FloatUnaryOp, Im2colWide, IntOp, MbarrierOp, OpForm, Space,
    TensormapField,
};
use crate::target::PtxVersion;
use crate::types::Type;

/// A feature of a non-conversion instruction that only some targets or versions have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpFeature {
    /// The instructions the first targets lacked, by the oldest target ptxas 13.5 takes them
    /// on ("Instruction 'atom' requires .target sm_11 or higher"; PTX ISA "Target ISA notes":
    /// `atom`/`red` "require sm_11 or higher", `brkpt` sm_11): `atom`, `red`, `brkpt`.
    OldTarget11,
    /// sm_12: `vote`; `atom`/`red` on `.shared` ("Feature 'shared storage' requires .target
    /// sm_12 or higher") or with a 64-bit type ("Instruction 'atom.add.u64.global' requires
    /// .target sm_12 or higher").
    OldTarget12,
    /// sm_20 (ptxas 13.5: "Instruction 'bfe' requires .target sm_20 or higher"; each opcode's
    /// "Target ISA notes"): `bfe`, `bfi`, `popc`, `clz`, `brev`, `prmt`, `ldu`, `testp`,
    /// `copysign`, `isspacep`, `cvta`, `prefetch`, `prefetchu`, `bar.red`, `div`/`rcp`/`sqrt`
    /// `.f32` with a rounding modifier ("Instruction 'div.rnd.f32' requires .target sm_20"),
    /// `atom`/`red` `.add.f32`, and generic addressing (`ld`, `st`, `atom`, `red` without a
    /// state space).
    OldTarget20,
    /// sm_30: `shfl` ("Instruction 'shfl' requires .target sm_30 or higher").
    OldTarget30,
    /// sm_32: `shf` ("Instruction 'shf.l' requires .target sm_32 or higher").
    OldTarget32,
    /// `fma.f32` (PTX ISA 2.0, sm_20; ptxas 13.5: "Feature 'fma.f32' requires PTX ISA
    /// .version 2.0 or later", "Instruction 'fma.f32' requires .target sm_20 or higher").
    FmaF32,
    /// `fma.f64` (PTX ISA 1.4: "Feature 'fma.f64' requires PTX ISA .version 1.4 or later").
    FmaF64,
    /// `membar` (PTX ISA 1.4: "Feature 'membar' requires PTX ISA .version 1.4 or later").
    Membar,
    /// `membar.sys` (PTX ISA 2.0, sm_20: "Feature 'membar.sys' requires PTX ISA .version 2.0",
    /// "Instruction 'membar.sys' requires .target sm_20 or higher").
    MembarSys,
    /// `vote.ballot` (PTX ISA 2.0, sm_20: "Feature 'vote.ballot' requires PTX ISA .version 2.0
    /// or later", "Instruction 'vote.ballot' requires .target sm_20 or higher").
    VoteBallot,
    /// `rcp.approx.f64` (PTX ISA 2.1: "Feature 'rcp.approx.f64' requires PTX ISA .version 2.1
    /// or later").
    RcpApproxF64,
    /// `.approx` on `div`, `rcp`, `sqrt` (PTX ISA 1.4: "Feature '.approx' requires PTX ISA
    /// .version 1.4 or later").
    Approx,
    /// `suq` (PTX ISA 1.5: "Feature 'suq' requires PTX ISA .version 1.5 or later").
    Suq,
    /// `shfl.sync`, `bar.warp.sync` (PTX ISA 6.0; ptxas 13.5: "Feature 'shfl.sync' requires
    /// PTX ISA .version 6.0 or later", "Feature 'bar.warp' requires ...").
    WarpSync,
    /// `add`, `sub`, `mul`, `fma`, `neg`, `setp` on `.f16`/`.f16x2` (9.7.4: "requires sm_53 or
    /// higher", "introduced in PTX ISA version 4.2").
    HalfArithmetic,
    /// `abs` on `.f16`/`.f16x2` (9.7.4.6: PTX ISA 6.5, sm_53).
    HalfAbs,
    /// `min`/`max` on `.f16`/`.f16x2`/`.bf16`/`.bf16x2`, and `.NaN` (9.7.4.7-8, 9.7.3.11-12:
    /// PTX ISA 7.0, sm_80).
    HalfMinMaxOrNan,
    /// `fma.relu` and `fma`/`abs`/`neg` on `.bf16`/`.bf16x2` (9.7.4.5, 9.7.4.6: PTX ISA 7.0,
    /// sm_80).
    ReluOrBf16,
    /// `add`, `sub`, `mul`, `setp` on `.bf16`/`.bf16x2` (9.7.4.1-3: PTX ISA 7.8, sm_90).
    Bf16Arithmetic,
    /// `min.relu.s32`, `max.relu.s32` (9.7.1.12-13: PTX ISA 8.0, sm_90).
    IntegerRelu,
    /// Memory-consistency semantics on `ld`/`st`/`atom`/`red` and `fence.sc`/`.acq_rel`
    /// (8 "Memory Consistency Model": PTX ISA 6.0, sm_70).
    Semantics,
    /// The `.cluster` scope (PTX ISA 7.8, sm_90).
    ClusterScope,
    /// A `.cta`, `.gpu` or `.sys` scope on `atom`/`red` (9.7.13.5-6, "The optional .scope
    /// qualifier specifies the set of threads that can directly observe the memory
    /// synchronizing effect"; the text gives no requirement, ptxas 13.5 does: "Feature 'scopes
    /// on atomic operations' requires .target sm_60 or higher", "... requires PTX ISA .version
    /// 5.0 or later").
    AtomScope,
    /// Thread-block clusters: `mapa`, `getctarank`, `barrier.cluster`, and the
    /// `.shared::cluster` state space of `ld`, `st`, `atom`, `red`, `cvta`, `isspacep`
    /// (PTX ISA 7.8, sm_90; ptxas 13.5: "Feature 'mapa' requires .target sm_90 or higher",
    /// "Feature '::cluster' requires PTX ISA .version 7.8 or later").
    Cluster,
    /// `cp.async.bulk` (non-tensor), its groups and `cp.async.bulk.prefetch` (PTX ISA 8.0,
    /// sm_90; ptxas 13.5: "Feature 'cp.async.bulk' requires PTX ISA .version 8.0 or later",
    /// "Feature 'cp.async.bulk.commit_group' requires .target sm_90 or higher").
    CpAsyncBulk,
    /// `cp.async.bulk.shared::cta.global` (ptxas 13.5: "Feature 'cp.async.bulk with destination
    /// state space as .shared::cta' requires PTX ISA .version 8.6 or later").
    CpAsyncBulkSharedCta,
    /// `cp.async.bulk.tensor...tile::gather4` and `.im2col::w` into `.shared::cta` (PTX ISA 8.6: "sm_100 or
    /// higher when destination state space is .shared::cta"; ptxas 13.5 on sm_90a: "Feature
    /// '.tile::gather4 with destination state space as .shared::cta' requires .target sm_100 or
    /// higher").
    TensorGather4SharedCta,
    /// `cp.async.bulk.tensor`'s `.tile::gather4` and `.im2col::w` into `.shared::cluster`,
    /// `.tile::scatter4`, `.im2col::w::128` and `.cta_group`, and `cp.async.bulk.prefetch.tensor`'s `.tile::gather4`, `.im2col::w` and
    /// `.im2col::w::128` (PTX ISA 8.6: "sm_100a, sm_101a ... and family-specific architectures";
    /// ptxas 13.5 takes them on sm_100a/f and sm_103a/f, and refuses sm_100 and sm_120a:
    /// "Feature '.tile::scatter4' not supported on .target 'sm_120a'").
    TensorCopySm100,
    /// `tensormap.replace` (PTX ISA 8.3, sm_90a; ptxas 13.5: "Instruction 'tensormap.replace'
    /// not supported on .target 'sm_90'").
    TensormapReplace,
    /// `tensormap.replace.swizzle_atomicity` (ptxas 13.5: "Instruction
    /// 'tensormap.replace.swizzle_atomicity' not supported on .target 'sm_90a'", "Feature
    /// 'tensormap.replace.swizzle_atomicity' requires PTX ISA .version 8.6 or later"; taken on
    /// sm_100a to sm_121a and the families).
    TensormapSwizzleAtomicity,
    /// `tensormap.cp_fenceproxy` (PTX ISA 8.3, sm_90).
    TensormapCpFenceproxy,
    /// `setmaxnreg` (ptxas 13.5: "Instruction 'setmaxnreg.inc' not supported on .target
    /// 'sm_90'"; PTX ISA 8.0 on sm_90a, and the arch- and family-specific targets of sm_100 and
    /// later).
    Setmaxnreg,
    /// `barrier.cluster` with a memory-ordering qualifier, `.arrive.relaxed`,
    /// `.arrive.release` or `.wait.acquire` (ptxas 13.5: "Modifier '.relaxed' on
    /// 'barrier.cluster.arrive' requires PTX ISA .version 8.0 or later", the same for
    /// `.release` and for `.acquire` on 'barrier.cluster.wait').
    BarrierClusterOrdering,
    /// `atom.add.f64` / `red.add.f64` (9.7.13.5: sm_60).
    AtomF64,
    /// `atom.add.noftz.f16x2` (9.7.13.5: PTX ISA 6.2, sm_60).
    AtomF16x2,
    /// `atom.add.noftz.f16`, `atom.cas.b16` (PTX ISA 6.3, sm_70).
    AtomF16,
    /// `atom.add.noftz.bf16`/`.bf16x2` (PTX ISA 7.8, sm_90).
    AtomBf16,
    /// `atom.exch.b128`, `atom.cas.b128` (PTX ISA 8.3, sm_90).
    Atom128,
    /// `ld`/`st` of `.b128` (PTX ISA 8.3, sm_70).
    Memory128,
    /// `.L1::evict_*` / `.L1::no_allocate` hints (PTX ISA 7.4, sm_70).
    L1Eviction,
    /// `.L2::64B`/`::128B`/`::256B` prefetch sizes (PTX ISA 7.4, sm_75).
    L2Prefetch,
    /// `cvta.param`, `cvta.to.param` (9.7.9.20: PTX ISA 7.7).
    CvtaParam,
    /// `bar.cta.*`, `barrier.cta.*` (9.7.13.1: the `.cta` spelling is PTX ISA 7.8).
    BarCta,
    /// `fence.proxy.alias` (PTX ISA 7.5, sm_70).
    ProxyFence,
    /// `membar.proxy.alias` (PTX ISA 7.5; ptxas 13.5 takes it from sm_60: "Modifier '.alias'
    /// requires .target sm_60 or higher").
    MembarProxy,
    /// `min`/`max` `.xorsign.abs` (9.7.3.11-12, 9.7.4.7-8: PTX ISA 7.2, sm_86).
    XorsignAbs,
    /// `fma.oob` (9.7.4.5: PTX ISA 8.1, sm_90).
    Oob,
    /// `.u16x2`/`.s16x2` arithmetic (9.7.1.1-2, 9.7.1.12-13: PTX ISA 8.0, sm_90).
    HalfInteger,
    /// `cvta.param` also needs sm_70 (ptxas 13.5).
    CvtaParamTarget,
    /// `shfl` without `.sync` (9.7.9.5: "`shfl` is deprecated"; ptxas 13.5: "Instruction 'shfl'
    /// without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4",
    /// and takes it there below PTX ISA 6.4).
    ShflWithoutSync,
    /// `vote` without `.sync` (9.7.13.10: deprecated; ptxas 13.5: "Instruction 'vote' without
    /// '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4", and
    /// takes it there below PTX ISA 6.4).
    VoteWithoutSync,
    /// `redux.sync` (9.7.13.12: PTX ISA 7.0, sm_80).
    Redux,
    /// `redux.sync.{min,max}.f32` (9.7.13.12: PTX ISA 8.6, sm_100a; ptxas 13.5 also takes
    /// sm_103a and the sm_100f family, not sm_110a or sm_120a).
    ReduxF32,
    /// `match.sync` (9.7.13.10: PTX ISA 6.0, sm_70).
    Match,
    /// `elect.sync` (9.7.13.14: PTX ISA 8.0, sm_90).
    Elect,
    /// `activemask` (9.7.13.11: PTX ISA 6.2, sm_30).
    Activemask,
    /// `cp.async` and its groups (9.7.9.25.3: PTX ISA 7.0, sm_80).
    CpAsync,
    /// `atom`/`red` with `.v2`/`.v4`/`.v8` (9.7.13.5: PTX ISA 8.1, sm_90).
    AtomVector,
    /// `.L2::cache_hint` on `ld`/`st`/`atom`/`red` (PTX ISA 9.0, ld: "Support for
    /// .level::cache_hint qualifier introduced in PTX ISA version 7.4", sm_80; ptxas 13.5:
    /// "Modifier '.L2::cache_hint' requires .target sm_80 or higher").
    CacheHint,
    /// `.param::entry`/`.param::func` on `ld`/`st` (ptxas 13.5: "Feature '::entry' requires
    /// PTX ISA .version 8.3 or later").
    ParamSubspace,
    /// `.mmio` on `ld`/`st` (ptxas 13.5: "Feature '.mmio' requires PTX ISA .version 8.2 or
    /// later"; PTX ISA 9.0, ld: sm_70).
    Mmio,
    /// `.volatile` on `.local` (ptxas 13.5: "Feature 'ld/st with .local.volatile' requires
    /// PTX ISA .version 9.1 or later").
    LocalVolatile,
    /// `fence.acquire`/`fence.release` without `.sync_restrict` or a proxy (ptxas 13.5:
    /// "Modifier '.release' on 'fence' requires PTX ISA .version 8.6 or later", "requires
    /// .target sm_90 or higher").
    FenceAcquireRelease,
    /// `prefetch` with an eviction priority (`.L2::evict_last`, `.L2::evict_normal`; ptxas
    /// 13.5: "Modifier 'cache eviction priority' on 'prefetch' requires PTX ISA .version 7.4",
    /// "requires .target sm_80"), and `discard`, `applypriority`, `createpolicy` (PTX ISA 7.4,
    /// sm_80; "Feature 'discard' requires .target sm_80 or higher").
    CacheControl,
    /// `prefetch.tensormap` (PTX ISA 8.0, sm_90; ptxas 13.5: "Modifier '.tensormap' requires
    /// .target sm_90 or higher").
    PrefetchTensormap,
    /// `fence.proxy.async*` (PTX ISA 9.0, fence: PTX ISA 8.0, sm_90; ptxas 13.5: "Modifier
    /// '.async' requires PTX ISA .version 8.0 or later").
    ProxyAsync,
    /// `fence.proxy.tensormap::generic` and the other uni-directional proxy fences (PTX ISA
    /// 8.3, sm_90; ptxas 13.5: "Feature 'fence.proxy with uni-directional ...' requires").
    ProxyTensormap,
    /// `.sync_restrict::*` on `fence` (PTX ISA 8.6, sm_90; ptxas 13.5: "Feature
    /// '.sync_restrict' requires PTX ISA .version 8.6 or later").
    SyncRestrict,
    /// `fence.mbarrier_init.release.cluster` (PTX ISA 8.0, sm_90; ptxas 13.5: "Feature
    /// '.op_restrict' requires ...").
    OpRestrict,
    /// 256-bit `ld`/`st` (`.v8` of 32-bit, `.v4` of 64-bit types; ptxas 13.5: "Feature '256
    /// bit wide load/store' requires PTX ISA .version 8.8 or later", "requires .target sm_100
    /// or higher").
    Wide256,
    /// `ex2.approx.f16{x2}` and `tanh.approx` on `.f32`/`.f16`/`.f16x2` (9.7.3.22, 9.7.4.9-10:
    /// PTX ISA 7.0, sm_75; ptxas 13.5: "Feature 'tanh' requires .target sm_75 or higher").
    HalfTranscendental,
    /// `ex2.approx.ftz.bf16{x2}`, `tanh.approx.bf16{x2}` (9.7.4.9-10: PTX ISA 7.8, sm_90).
    Bf16Transcendental,
    /// `bmsk`, `szext` (9.7.1.21-22: PTX ISA 7.6, sm_70).
    BitMask,
    /// `dp4a`, `dp2a` (9.7.1.23-24: PTX ISA 5.0, sm_61).
    DotProduct,
    /// `nanosleep` (9.7.19.2: PTX ISA 6.3, sm_70; ptxas 13.5 takes PTX ISA 6.2).
    Nanosleep,
    /// `griddepcontrol` (9.7.13.13; ptxas 13.5: "Feature 'griddepcontrol' requires PTX ISA
    /// .version 7.8 or later", "Instruction 'griddepcontrol' requires .target sm_90 or higher").
    Griddepcontrol,
    /// `set` with an `.f16` destination or `.f16`/`.f16x2` operands (9.7.4: PTX ISA 4.2,
    /// sm_53; ptxas 13.5: "f16 arithemetic and compare instructions").
    HalfSet,
    /// `set` of `.f16`/`.f16x2` operands with an integer destination (ptxas 13.5: "half
    /// precision floating point set instruction with integer result" needs PTX ISA 6.5).
    HalfSetInteger,
    /// `set` with `.bf16`/`.bf16x2` (PTX ISA 7.8, sm_90; ptxas 13.5: "Feature 'set.bf16'
    /// requires .target sm_90 or higher").
    Bf16Set,
    /// `mbarrier.init/inval/arrive/arrive_drop/test_wait/pending_count` and
    /// `cp.async.mbarrier.arrive` (9.7.13.15: PTX ISA 7.0, sm_80).
    Mbarrier,
    /// `mbarrier.test_wait.parity` (PTX ISA 7.1, sm_80).
    MbarrierParity,
    /// `mbarrier.try_wait{.parity}` (PTX ISA 7.8, sm_90).
    MbarrierTryWait,
    /// `mbarrier.expect_tx`, `.complete_tx`, `.arrive.expect_tx`, the `.sem`/`.scope`
    /// qualifiers and `.shared::cluster` (PTX ISA 8.0, sm_90).
    MbarrierTx,
    /// `.relaxed` on `mbarrier.arrive`/waits (PTX ISA 8.6, sm_90).
    MbarrierRelaxed,
    /// The `.shared::cta` spelling (PTX ISA 7.8).
    SharedCta,
    /// `.release`/`.acquire`/`.relaxed` on mbarrier (ptxas 13.5: "Modifier '.acquire' on
    /// 'mbarrier.test_wait' requires PTX ISA .version 8.0 or later").
    MbarrierSem,
    /// `mma` `.m16n8k8` with `.f16`, `.m8n8k16` with `.s8`/`.u8`, `.m8n8k32` with `.s4`/`.u4`
    /// (9.7.14.5.14: PTX ISA 6.5, sm_75).
    MmaTuring,
    /// `mma` `.m8n8k128` with `.b1` (9.7.14.5.14: "introduced in PTX ISA version 7.0", "sm_75
    /// or higher"; ptxas 13.5: "Feature '.m8n8k128' requires PTX ISA .version 7.0 or later").
    MmaSingleBit,
    /// `.and` in a single-bit `mma` (9.7.14.5.14: PTX ISA 7.1, sm_80; ptxas 13.5: "Modifier
    /// '.and' on 'mma' requires .target sm_80 or higher").
    MmaBitAnd,
    /// `mma.sp` (9.7.14.6.3: PTX ISA 7.1, sm_80; ptxas 13.5: "Feature 'Sparse MMA' requires
    /// .target sm_80 or higher").
    MmaSparse,
    /// `mma.sp::ordered_metadata` (9.7.14.6.3: PTX ISA 8.5, sm_80; ptxas 13.5: "Feature
    /// '.sp::ordered_metadata' requires PTX ISA .version 8.5 or later").
    MmaOrderedMetadata,
    /// `mma` `.m8n8k4` with `.f16` (PTX ISA 6.4, sm_70).
    MmaVolta,
    /// `mma` `.m16n8k16`/`.m16n8k32`, `.bf16`, `.tf32`, `.m8n8k4.f64` (PTX ISA 7.0, sm_80).
    MmaAmpere,
    /// `mma` `.m16n8k4`/`.m16n8k8`/`.m16n8k16` with `.f64` (PTX ISA 7.8, sm_90).
    MmaF64Hopper,
    /// `mma` with `.e4m3`/`.e5m2` (PTX ISA 8.4, sm_89).
    MmaFp8,
    /// `mma` with FP8 and the `.m16n8k16` shape or `.f16` accumulation (PTX ISA 8.7, sm_89).
    MmaFp8K16OrF16,
    /// `mma` with `.kind::f8f6f4` (FP8, FP6, FP4 in 8-bit containers; ptxas 13.5: "Feature
    /// '.kind::f8f6f4' not supported on .target 'sm_120'"): PTX ISA 8.6 (8.7 where the
    /// header needs it) on the arch- and family-specific targets of sm_100 and sm_120 — with
    /// FP8 operands ptxas 13.5 takes it on sm_100a/f, sm_103a and sm_110a too (CUTLASS and
    /// libcu++ emit it there); FP6 and FP4 need sm_120 ([`OpFeature::MmaFp6Fp4`]).
    MmaKindF8f6f4,
    /// `mma` with FP6 or FP4 operands (`.e3m2`, `.e2m3`, `.e2m1`; ptxas 13.5: "Instruction
    /// 'mma with with FP6/FP4 floating point type' not supported on .target 'sm_100a'",
    /// "... requires PTX ISA .version 8.7 or later"; sm_120a, sm_121a, sm_120f).
    MmaFp6Fp4,
    /// `mma` with `.block_scale` (ptxas 13.5: "Instruction 'mma with block scale' not
    /// supported on .target 'sm_100a'", "Feature 'mma with block scale' requires PTX ISA
    /// .version 8.7 or later"; sm_120a, sm_121a, sm_120f).
    MmaBlockScale,
    /// `mma` with `.scale_vec::4X` and `.ue8m0` scale factors (`.kind::mxf4nvf4`; ptxas 13.5:
    /// "Feature 'mma with .scale_vec::4X and .ue8m0 scale type' requires PTX ISA .version 9.1
    /// or later", where the 9.0 text's Table 36 pairs 4X with `.ue4m3` only).
    MmaScaleVec4xUe8m0,
    /// `wmma` (9.7.14.4: PTX ISA 6.0, sm_70).
    Wmma,
    /// `ld.global.nc` (9.7.9.9: sm_32; ptxas 13.5: "Instruction 'ld.nc' requires .target sm_32
    /// or higher"; LLVM's `ldg` intrinsics on `sm_30`).
    LdNonCoherent,
    /// `.cc` with a 64-bit type: `add.cc`, `addc.cc`, `sub.cc`, `subc.cc`, `mad.lo.cc`
    /// `.u64`/`.s64` (PTX ISA 4.3; ptxas 13.5: "Feature '.cc with 64bit type' requires PTX ISA
    /// .version 4.3 or later"; `addc.u64` without `.cc` is older).
    CarryWide,
    /// `wmma` with the shapes `.m32n8k16` and `.m8n32k16` (PTX ISA 6.1; ptxas 13.5: "Feature
    /// '.m32n8k16' requires PTX ISA .version 6.1 or later").
    WmmaTallShapes,
    /// `wmma` with `.aligned` (ptxas 13.5: "Feature '.aligned modifier for wmma' requires PTX
    /// ISA .version 6.3 or later"; from 6.3 on it is mandatory, [`crate::wmma::version_rule`]).
    WmmaAligned,
    /// `wmma` with `.s8`/`.u8` (PTX ISA 6.3, sm_72; ptxas 13.5: "Feature 'WMMA with integer
    /// types' requires PTX ISA .version 6.3 or later").
    WmmaInteger,
    /// `wmma` with the sub-byte `.m8n8k32` (`.s4`/`.u4`) and single-bit `.m8n8k128` (`.b1`)
    /// shapes (9.7.14.4: PTX ISA 6.3, sm_75; ptxas 13.5: "Feature '.s4' requires .target sm_75
    /// or higher").
    WmmaSubByte,
    /// `.and` in a single-bit `wmma.mma` (9.7.14.4.5: PTX ISA 7.1, sm_80; ptxas 13.5:
    /// "Modifier '.and' on 'wmma.mma' requires .target sm_80 or higher").
    WmmaBitAnd,
    /// `wmma` with `.bf16`/`.tf32` (PTX ISA 7.0, sm_80; ptxas 13.5: "Feature 'WMMA with
    /// .bf16/.tf32 FP types' requires .target sm_80 or higher").
    WmmaAlternate,
    /// `wmma` `.m8n8k4` with `.f64` (PTX ISA 7.0, sm_80; ptxas 13.5: "Feature 'WMMA with fp64
    /// types' requires .target sm_80 or higher").
    WmmaF64,
    /// `ldmatrix` (9.7.14.5.15: PTX ISA 6.5, sm_75).
    Ldmatrix,
    /// `stmatrix` (9.7.14.5.16: PTX ISA 7.8, sm_90).
    Stmatrix,
    /// `movmatrix` (9.7.14.5.17: PTX ISA 7.8, sm_75).
    Movmatrix,
    /// `wgmma` (9.7.15.5.2, 9.7.15.6-7: PTX ISA 8.0, sm_90a; ptxas 13.5: "Instruction
    /// 'wgmma.fence' not supported on .target 'sm_90'").
    Wgmma,
    /// `wgmma.mma_async.sp` (9.7.15.6.3, "Introduced in PTX ISA version 8.2"; ptxas 13.5:
    /// "Feature 'Sparse WGMMA with floating point types' requires PTX ISA .version 8.2 or
    /// later", the same for the FP8 and integer types).
    WgmmaSparse,
    /// `wgmma.mma_async` with `.s8` and `.u8` mixed (ptxas 13.5: "Feature 'WGMMA with mixed
    /// integer types' requires PTX ISA .version 8.4 or later").
    WgmmaMixedInteger,
    /// `lop3.BoolOp` (ptxas 13.5: "Feature 'lop3.<BoolOp>' requires PTX ISA .version 8.2 or
    /// later"; accepted on sm_70 at 8.2).
    Lop3BoolOp,
    /// `sured.b.{min,max}` on `.u64`/`.s64` (`.s64` has no other operation) and `sured.p` on
    /// `.b64` (ptxas 13.5: "Feature
    /// '64-bit min/max operation on sured.b' requires PTX ISA .version 8.1 or later",
    /// "Feature '.b64 on sured.p' requires PTX ISA .version 8.1 or later").
    Sured64,
}

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

/// Every gate of the non-conversion instructions.
pub const OP_GATES: &[Gate] = &[
    Gate {
        feature: "wmma",
        applies: Applies::Op(OpFeature::Wmma),
        support: &[Support {
            since: v(6, 0),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "ld.global.nc",
        applies: Applies::Op(OpFeature::LdNonCoherent),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(32),
        }],
    },
    Gate {
        feature: ".cc with a 64-bit type",
        applies: Applies::Op(OpFeature::CarryWide),
        support: &[Support {
            since: v(4, 3),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "wmma .m32n8k16/.m8n32k16",
        applies: Applies::Op(OpFeature::WmmaTallShapes),
        support: &[Support {
            since: v(6, 1),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: ".aligned modifier for wmma",
        applies: Applies::Op(OpFeature::WmmaAligned),
        support: &[Support {
            since: v(6, 3),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "wmma with integer types",
        applies: Applies::Op(OpFeature::WmmaInteger),
        support: &[Support {
            since: v(6, 3),
            targets: TargetSet::AtLeast(72),
        }],
    },
    Gate {
        feature: "wmma with sub-byte and single-bit types",
        applies: Applies::Op(OpFeature::WmmaSubByte),
        support: &[Support {
            since: v(6, 3),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "wmma.mma with .and.popc",
        applies: Applies::Op(OpFeature::WmmaBitAnd),
        support: &[Support {
            since: v(7, 1),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "wmma with .bf16/.tf32",
        applies: Applies::Op(OpFeature::WmmaAlternate),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "wmma with .f64",
        applies: Applies::Op(OpFeature::WmmaF64),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "ldmatrix",
        applies: Applies::Op(OpFeature::Ldmatrix),
        support: &[Support {
            since: v(6, 5),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "stmatrix",
        applies: Applies::Op(OpFeature::Stmatrix),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "movmatrix",
        applies: Applies::Op(OpFeature::Movmatrix),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "mma.m8n8k4 with .f16",
        applies: Applies::Op(OpFeature::MmaVolta),
        support: &[Support {
            since: v(6, 4),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "mma.m16n8k8.f16 / m8n8k16 8-bit integer / m8n8k32 4-bit integer",
        applies: Applies::Op(OpFeature::MmaTuring),
        support: &[Support {
            since: v(6, 5),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "mma.m8n8k128 with .b1",
        applies: Applies::Op(OpFeature::MmaSingleBit),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "mma with .and.popc",
        applies: Applies::Op(OpFeature::MmaBitAnd),
        support: &[Support {
            since: v(7, 1),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "sparse mma",
        applies: Applies::Op(OpFeature::MmaSparse),
        support: &[Support {
            since: v(7, 1),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "mma.sp::ordered_metadata",
        applies: Applies::Op(OpFeature::MmaOrderedMetadata),
        support: &[Support {
            since: v(8, 5),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "mma .m16n8k16/.m16n8k32, .bf16, .tf32, .m8n8k4.f64",
        applies: Applies::Op(OpFeature::MmaAmpere),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "mma .m16n8kK with .f64",
        applies: Applies::Op(OpFeature::MmaF64Hopper),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "mma with FP8",
        applies: Applies::Op(OpFeature::MmaFp8),
        support: &[Support {
            since: v(8, 4),
            targets: TargetSet::AtLeast(89),
        }],
    },
    Gate {
        feature: "mma with FP8 and .m16n8k16 or .f16 accumulation",
        applies: Applies::Op(OpFeature::MmaFp8K16OrF16),
        support: &[Support {
            since: v(8, 7),
            targets: TargetSet::AtLeast(89),
        }],
    },
    Gate {
        feature: "mma with .kind::f8f6f4",
        applies: Applies::Op(OpFeature::MmaKindF8f6f4),
        support: &[Support {
            since: v(8, 6),
            targets: BLACKWELL_SPECIFIC,
        }],
    },
    Gate {
        feature: "mma with FP6/FP4 types",
        applies: Applies::Op(OpFeature::MmaFp6Fp4),
        support: &[Support {
            since: v(8, 7),
            targets: SM120_SPECIFIC,
        }],
    },
    Gate {
        feature: "mma with block scale",
        applies: Applies::Op(OpFeature::MmaBlockScale),
        support: &[Support {
            since: v(8, 7),
            targets: SM120_SPECIFIC,
        }],
    },
    Gate {
        feature: "mma with .scale_vec::4X and .ue8m0 scale factors",
        applies: Applies::Op(OpFeature::MmaScaleVec4xUe8m0),
        support: &[Support {
            since: v(9, 1),
            targets: SM120_SPECIFIC,
        }],
    },
    Gate {
        feature: "half-precision arithmetic",
        applies: Applies::Op(OpFeature::HalfArithmetic),
        support: &[Support {
            since: v(4, 2),
            targets: TargetSet::AtLeast(53),
        }],
    },
    Gate {
        feature: "abs on .f16",
        applies: Applies::Op(OpFeature::HalfAbs),
        support: &[Support {
            since: v(6, 5),
            targets: TargetSet::AtLeast(53),
        }],
    },
    Gate {
        feature: "half-precision min/max and .NaN",
        applies: Applies::Op(OpFeature::HalfMinMaxOrNan),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "fma.relu and .bf16 fma/abs/neg",
        applies: Applies::Op(OpFeature::ReluOrBf16),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: ".bf16 add/sub/mul/setp",
        applies: Applies::Op(OpFeature::Bf16Arithmetic),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "min/max .relu on .s32",
        applies: Applies::Op(OpFeature::IntegerRelu),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "memory-consistency semantics",
        applies: Applies::Op(OpFeature::Semantics),
        support: &[Support {
            since: v(6, 0),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "the .cluster scope",
        applies: Applies::Op(OpFeature::ClusterScope),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "thread-block clusters",
        applies: Applies::Op(OpFeature::Cluster),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "cp.async.bulk",
        applies: Applies::Op(OpFeature::CpAsyncBulk),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "cp.async.bulk with a .shared::cta destination",
        applies: Applies::Op(OpFeature::CpAsyncBulkSharedCta),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: ".tile::gather4 or .im2col::w with a .shared::cta destination",
        applies: Applies::Op(OpFeature::TensorGather4SharedCta),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::AtLeast(100),
        }],
    },
    Gate {
        feature: "cp.async.bulk.tensor's .tile::gather4 and .im2col::w (to .shared::cluster), \
                  .tile::scatter4, .im2col::w::128 and .cta_group",
        applies: Applies::Op(OpFeature::TensorCopySm100),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::Specific {
                arch: &[100, 101, 103, 110],
                families: &[100, 110],
            },
        }],
    },
    Gate {
        feature: "tensormap.replace.swizzle_atomicity",
        applies: Applies::Op(OpFeature::TensormapSwizzleAtomicity),
        support: &[Support {
            since: v(8, 6),
            targets: BLACKWELL_SPECIFIC,
        }],
    },
    Gate {
        feature: "tensormap.replace",
        applies: Applies::Op(OpFeature::TensormapReplace),
        support: &[Support {
            since: v(8, 3),
            targets: TargetSet::Specific {
                arch: &[90, 100, 101, 103, 110, 120, 121],
                families: &[100, 110, 120],
            },
        }],
    },
    Gate {
        feature: "tensormap.cp_fenceproxy",
        applies: Applies::Op(OpFeature::TensormapCpFenceproxy),
        support: &[Support {
            since: v(8, 3),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "setmaxnreg",
        applies: Applies::Op(OpFeature::Setmaxnreg),
        support: &[
            Support {
                since: v(8, 0),
                targets: TargetSet::Specific {
                    arch: &[90],
                    families: &[],
                },
            },
            Support {
                since: v(8, 6),
                targets: BLACKWELL_SPECIFIC,
            },
        ],
    },
    Gate {
        feature: "barrier.cluster with a memory-ordering qualifier",
        applies: Applies::Op(OpFeature::BarrierClusterOrdering),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "scopes on atomic operations",
        applies: Applies::Op(OpFeature::AtomScope),
        support: &[Support {
            since: v(5, 0),
            targets: TargetSet::AtLeast(60),
        }],
    },
    Gate {
        feature: "atom.add.f64",
        applies: Applies::Op(OpFeature::AtomF64),
        support: &[Support {
            since: v(5, 0),
            targets: TargetSet::AtLeast(60),
        }],
    },
    Gate {
        feature: "atom.add.noftz.f16x2",
        applies: Applies::Op(OpFeature::AtomF16x2),
        support: &[Support {
            since: v(6, 2),
            targets: TargetSet::AtLeast(60),
        }],
    },
    Gate {
        feature: "atom.add.noftz.f16 and atom.cas.b16",
        applies: Applies::Op(OpFeature::AtomF16),
        support: &[Support {
            since: v(6, 3),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "atom.add.noftz.bf16/.bf16x2",
        applies: Applies::Op(OpFeature::AtomBf16),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "128-bit atom.exch/atom.cas",
        applies: Applies::Op(OpFeature::Atom128),
        support: &[Support {
            since: v(8, 3),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "ld/st of .b128",
        applies: Applies::Op(OpFeature::Memory128),
        support: &[Support {
            since: v(8, 3),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: ".L1 eviction hints",
        applies: Applies::Op(OpFeature::L1Eviction),
        support: &[Support {
            since: v(7, 4),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: ".L2 prefetch sizes",
        applies: Applies::Op(OpFeature::L2Prefetch),
        support: &[Support {
            since: v(7, 4),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "cvta.param",
        applies: Applies::Op(OpFeature::CvtaParam),
        support: &[Support {
            since: v(7, 7),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "bar.cta",
        applies: Applies::Op(OpFeature::BarCta),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "fence.proxy.alias",
        applies: Applies::Op(OpFeature::ProxyFence),
        support: &[Support {
            since: v(7, 5),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "membar.proxy.alias",
        applies: Applies::Op(OpFeature::MembarProxy),
        support: &[Support {
            since: v(7, 5),
            targets: TargetSet::AtLeast(60),
        }],
    },
    Gate {
        feature: ".xorsign.abs",
        applies: Applies::Op(OpFeature::XorsignAbs),
        support: &[Support {
            since: v(7, 2),
            targets: TargetSet::AtLeast(86),
        }],
    },
    Gate {
        feature: "fma.oob",
        applies: Applies::Op(OpFeature::Oob),
        support: &[Support {
            since: v(8, 1),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: ".u16x2/.s16x2 arithmetic",
        applies: Applies::Op(OpFeature::HalfInteger),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "cvta.param",
        applies: Applies::Op(OpFeature::CvtaParamTarget),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "vote without .sync",
        applies: Applies::Op(OpFeature::VoteWithoutSync),
        support: &[Support {
            since: v(1, 2),
            targets: TargetSet::Below(70, v(6, 4)),
        }],
    },
    Gate {
        feature: "redux",
        applies: Applies::Op(OpFeature::Redux),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "wgmma",
        applies: Applies::Op(OpFeature::Wgmma),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::Specific {
                arch: &[90],
                families: &[],
            },
        }],
    },
    Gate {
        feature: "wgmma.mma_async.sp",
        applies: Applies::Op(OpFeature::WgmmaSparse),
        support: &[Support {
            since: v(8, 2),
            targets: TargetSet::Specific {
                arch: &[90],
                families: &[],
            },
        }],
    },
    Gate {
        feature: "wgmma.mma_async with mixed .s8/.u8",
        applies: Applies::Op(OpFeature::WgmmaMixedInteger),
        support: &[Support {
            since: v(8, 4),
            targets: TargetSet::Specific {
                arch: &[90],
                families: &[],
            },
        }],
    },
    Gate {
        feature: "redux.f32",
        applies: Applies::Op(OpFeature::ReduxF32),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::Specific {
                arch: &[100, 103],
                families: &[100],
            },
        }],
    },
    Gate {
        feature: "match",
        applies: Applies::Op(OpFeature::Match),
        support: &[Support {
            since: v(6, 0),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "elect",
        applies: Applies::Op(OpFeature::Elect),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: ".L2::cache_hint",
        applies: Applies::Op(OpFeature::CacheHint),
        support: &[Support {
            since: v(7, 4),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "L2 cache control (eviction priorities, discard, applypriority, createpolicy)",
        applies: Applies::Op(OpFeature::CacheControl),
        support: &[Support {
            since: v(7, 4),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "prefetch.tensormap",
        applies: Applies::Op(OpFeature::PrefetchTensormap),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: ".param::entry / .param::func",
        applies: Applies::Op(OpFeature::ParamSubspace),
        support: &[Support {
            since: v(8, 3),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: ".mmio",
        applies: Applies::Op(OpFeature::Mmio),
        support: &[Support {
            since: v(8, 2),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: ".volatile on .local",
        applies: Applies::Op(OpFeature::LocalVolatile),
        support: &[Support {
            since: v(9, 1),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "fence.acquire / fence.release",
        applies: Applies::Op(OpFeature::FenceAcquireRelease),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "fence.proxy.async",
        applies: Applies::Op(OpFeature::ProxyAsync),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "uni-directional proxy fences",
        applies: Applies::Op(OpFeature::ProxyTensormap),
        support: &[Support {
            since: v(8, 3),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "fence .sync_restrict",
        applies: Applies::Op(OpFeature::SyncRestrict),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "fence.mbarrier_init",
        applies: Applies::Op(OpFeature::OpRestrict),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "256-bit ld/st",
        applies: Applies::Op(OpFeature::Wide256),
        support: &[Support {
            since: v(8, 8),
            targets: TargetSet::AtLeast(100),
        }],
    },
    Gate {
        feature: "atom/red with vector types",
        applies: Applies::Op(OpFeature::AtomVector),
        support: &[Support {
            since: v(8, 1),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "cp.async",
        applies: Applies::Op(OpFeature::CpAsync),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "activemask",
        applies: Applies::Op(OpFeature::Activemask),
        support: &[Support {
            since: v(6, 2),
            targets: TargetSet::AtLeast(30),
        }],
    },
    Gate {
        feature: "ex2.approx.f16 and tanh.approx",
        applies: Applies::Op(OpFeature::HalfTranscendental),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(75),
        }],
    },
    Gate {
        feature: "ex2/tanh on .bf16",
        applies: Applies::Op(OpFeature::Bf16Transcendental),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "bmsk and szext",
        applies: Applies::Op(OpFeature::BitMask),
        support: &[Support {
            since: v(7, 6),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "dp4a and dp2a",
        applies: Applies::Op(OpFeature::DotProduct),
        support: &[Support {
            since: v(5, 0),
            targets: TargetSet::AtLeast(61),
        }],
    },
    Gate {
        feature: "griddepcontrol",
        applies: Applies::Op(OpFeature::Griddepcontrol),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "nanosleep",
        applies: Applies::Op(OpFeature::Nanosleep),
        support: &[Support {
            since: v(6, 2),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "half-precision set",
        applies: Applies::Op(OpFeature::HalfSet),
        support: &[Support {
            since: v(4, 2),
            targets: TargetSet::AtLeast(53),
        }],
    },
    Gate {
        feature: "half-precision set with an integer result",
        applies: Applies::Op(OpFeature::HalfSetInteger),
        support: &[Support {
            since: v(6, 5),
            targets: TargetSet::AtLeast(53),
        }],
    },
    Gate {
        feature: "set on .bf16",
        applies: Applies::Op(OpFeature::Bf16Set),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "mbarrier",
        applies: Applies::Op(OpFeature::Mbarrier),
        support: &[Support {
            since: v(7, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "mbarrier.test_wait.parity",
        applies: Applies::Op(OpFeature::MbarrierParity),
        support: &[Support {
            since: v(7, 1),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: "mbarrier.try_wait",
        applies: Applies::Op(OpFeature::MbarrierTryWait),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "mbarrier transaction counts, .sem/.scope, .shared::cluster",
        applies: Applies::Op(OpFeature::MbarrierTx),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "mbarrier .relaxed",
        applies: Applies::Op(OpFeature::MbarrierRelaxed),
        support: &[Support {
            since: v(8, 6),
            targets: TargetSet::AtLeast(90),
        }],
    },
    Gate {
        feature: "mbarrier .release/.acquire",
        applies: Applies::Op(OpFeature::MbarrierSem),
        support: &[Support {
            since: v(8, 0),
            targets: TargetSet::AtLeast(80),
        }],
    },
    Gate {
        feature: ".shared::cta",
        applies: Applies::Op(OpFeature::SharedCta),
        support: &[Support {
            since: v(7, 8),
            targets: TargetSet::AtLeast(20),
        }],
    },
    Gate {
        feature: "atom, red, brkpt",
        applies: Applies::Op(OpFeature::OldTarget11),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(11),
        }],
    },
    Gate {
        feature: "vote, and atom/red on .shared or 64-bit types",
        applies: Applies::Op(OpFeature::OldTarget12),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(12),
        }],
    },
    Gate {
        feature: "an instruction of sm_20",
        applies: Applies::Op(OpFeature::OldTarget20),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(20),
        }],
    },
    Gate {
        feature: "shfl",
        applies: Applies::Op(OpFeature::OldTarget30),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(30),
        }],
    },
    Gate {
        feature: "shf",
        applies: Applies::Op(OpFeature::OldTarget32),
        support: &[Support {
            since: v(1, 0),
            targets: TargetSet::AtLeast(32),
        }],
    },
    Gate {
        feature: "fma.f32",
        applies: Applies::Op(OpFeature::FmaF32),
        support: &[Support {
            since: v(2, 0),
            targets: TargetSet::AtLeast(20),
        }],
    },
    Gate {
        feature: "fma.f64",
        applies: Applies::Op(OpFeature::FmaF64),
        support: &[Support {
            since: v(1, 4),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "membar",
        applies: Applies::Op(OpFeature::Membar),
        support: &[Support {
            since: v(1, 4),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "membar.sys",
        applies: Applies::Op(OpFeature::MembarSys),
        support: &[Support {
            since: v(2, 0),
            targets: TargetSet::AtLeast(20),
        }],
    },
    Gate {
        feature: "vote.ballot",
        applies: Applies::Op(OpFeature::VoteBallot),
        support: &[Support {
            since: v(2, 0),
            targets: TargetSet::AtLeast(20),
        }],
    },
    Gate {
        feature: "rcp.approx.f64",
        applies: Applies::Op(OpFeature::RcpApproxF64),
        support: &[Support {
            since: v(2, 1),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: ".approx",
        applies: Applies::Op(OpFeature::Approx),
        support: &[Support {
            since: v(1, 4),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "suq",
        applies: Applies::Op(OpFeature::Suq),
        support: &[Support {
            since: v(1, 5),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "shfl.sync, bar.warp.sync",
        applies: Applies::Op(OpFeature::WarpSync),
        support: &[Support {
            since: v(6, 0),
            targets: TargetSet::Any,
        }],
    },
    Gate {
        feature: "shfl without .sync",
        applies: Applies::Op(OpFeature::ShflWithoutSync),
        support: &[Support {
            since: v(3, 0),
            targets: TargetSet::Below(70, v(6, 4)),
        }],
    },
    Gate {
        feature: "lop3.BoolOp",
        applies: Applies::Op(OpFeature::Lop3BoolOp),
        support: &[Support {
            since: v(8, 2),
            targets: TargetSet::AtLeast(70),
        }],
    },
    Gate {
        feature: "64-bit sured",
        applies: Applies::Op(OpFeature::Sured64),
        support: &[Support {
            since: v(8, 1),
            targets: TargetSet::Any,
        }],
    },
];

/// The modifiers of a decoded instruction, as written (`add.rn.f16` -> `rn`, `f16`).
fn modifiers(op: &OpInstruction) -> impl Iterator<Item = &str> {
    op.text.split('.').skip(1)
}

/// The index of the first modifier `pick` selects.
fn modifier_index(op: &OpInstruction, pick: impl Fn(&str) -> bool) -> Option<usize> {
    modifiers(op).position(pick)
}

fn is_f16(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::F16x2)
}

fn is_bf16(ty: Type) -> bool {
    matches!(ty, Type::Bf16 | Type::Bf16x2)
}

/// The index of the first of `names` among the modifiers, as a gate's answer.
fn named_any(op: &OpInstruction, names: &[&str]) -> Option<Option<usize>> {
    Some(modifier_index(op, |m| names.contains(&m)))
}

/// [`applies`] for the whole-opcode gates of the first targets and [`OpFeature::WarpSync`]
/// (`None`: not one of them). Measured with ptxas 13.5 on sm_10 ... sm_35 at PTX ISA 1.4-4.0.
fn old_target_applies(feature: OpFeature, op: &OpInstruction) -> Option<Option<Option<usize>>> {
    use Opcode as O;
    let named = |name: &str| modifier_index(op, |m| m == name);
    let has = |name: &str| named(name).is_some();
    let wide = || modifier_index(op, |m| matches!(m, "u64" | "s64" | "b64" | "f64"));
    let rounding = || modifier_index(op, |m| matches!(m, "rn" | "rz" | "rm" | "rp"));
    let whole = |yes: bool| Some(yes.then_some(None));
    match feature {
        OpFeature::OldTarget11 => whole(matches!(op.opcode, O::Atom | O::Red | O::Brkpt)),
        OpFeature::OldTarget12 => Some(match op.opcode {
            O::Vote => Some(None),
            O::Atom | O::Red if has("shared") => Some(named("shared")),
            O::Atom | O::Red if wide().is_some() => Some(wide()),
            _ => None,
        }),
        OpFeature::OldTarget20 => Some(match op.opcode {
            O::Bfe
            | O::Bfi
            | O::Popc
            | O::Clz
            | O::Brev
            | O::Prmt
            | O::Ldu
            | O::Testp
            | O::Copysign
            | O::Isspacep
            | O::Cvta
            | O::Prefetch
            | O::Prefetchu => Some(None),
            O::Bar if has("red") => Some(named("red")),
            O::Div | O::Rcp | O::Sqrt if has("f32") && rounding().is_some() => Some(rounding()),
            O::Atom | O::Red if has("add") && has("f32") => Some(named("f32")),
            // Generic addressing: `ld`/`st`/`atom`/`red` without a state space ("Feature
            // 'generic addressing' requires .target sm_20 or higher").
            O::Ld | O::St | O::Atom | O::Red
                if modifier_index(op, |m| {
                    m.starts_with("global")
                        || m.starts_with("shared")
                        || m.starts_with("local")
                        || m.starts_with("const")
                        || m.starts_with("param")
                })
                .is_none() =>
            {
                Some(None)
            }
            _ => None,
        }),
        OpFeature::OldTarget30 => whole(op.opcode == O::Shfl),
        OpFeature::OldTarget32 => whole(op.opcode == O::Shf),
        OpFeature::FmaF32 => whole(op.opcode == O::Fma && has("f32")),
        OpFeature::FmaF64 => whole(op.opcode == O::Fma && has("f64")),
        OpFeature::Membar => whole(op.opcode == O::Membar),
        OpFeature::MembarSys => Some(if op.opcode == O::Membar && has("sys") {
            Some(named("sys"))
        } else {
            None
        }),
        OpFeature::VoteBallot => Some(if op.opcode == O::Vote && has("ballot") {
            Some(named("ballot"))
        } else {
            None
        }),
        OpFeature::RcpApproxF64 => Some(if op.opcode == O::Rcp && has("approx") && has("f64") {
            Some(named("approx"))
        } else {
            None
        }),
        OpFeature::Approx => Some(
            if matches!(op.opcode, O::Div | O::Rcp | O::Sqrt) && has("approx") {
                Some(named("approx"))
            } else {
                None
            },
        ),
        OpFeature::Suq => whole(op.opcode == O::Suq),
        OpFeature::WarpSync => Some(match op.opcode {
            O::Shfl if has("sync") => Some(named("sync")),
            O::Bar if has("warp") => Some(named("warp")),
            _ => None,
        }),
        _ => None,
    }
}

/// Whether `feature` applies to `op`, and if so the index of the modifier that brings it in
/// (the type's, where the type decides).
pub(crate) fn applies(feature: OpFeature, op: &OpInstruction) -> Option<Option<usize>> {
    let type_index = || modifier_index(op, |m| Type::from_name(m).is_some());
    let named = |name: &str| modifier_index(op, |m| m == name);
    let hit = |yes: bool| yes.then(type_index);
    if let Some(answer) = old_target_applies(feature, op) {
        return answer;
    }
    match (feature, op.form) {
        (
            OpFeature::HalfArithmetic,
            OpForm::FloatBinary {
                op: FloatOp::Add | FloatOp::Sub | FloatOp::Mul,
                ty,
                ..
            }
            | OpForm::Fma { ty, .. }
            | OpForm::FloatUnary {
                op: FloatUnaryOp::Neg,
                ty,
                ..
            }
            | OpForm::Setp { ty, .. },
        ) => hit(is_f16(ty)),
        (
            OpFeature::HalfAbs,
            OpForm::FloatUnary {
                op: FloatUnaryOp::Abs,
                ty,
                ..
            },
        ) => hit(is_f16(ty)),
        (
            OpFeature::HalfMinMaxOrNan,
            OpForm::FloatBinary {
                op: FloatOp::Min | FloatOp::Max,
                ty,
                modifiers: m,
            },
        ) => {
            if m.nan {
                Some(named("NaN"))
            } else {
                hit(is_f16(ty) || is_bf16(ty))
            }
        }
        (OpFeature::ReluOrBf16, OpForm::Fma { ty, modifiers: m }) => {
            if m.relu {
                Some(named("relu"))
            } else {
                hit(is_bf16(ty))
            }
        }
        (
            OpFeature::ReluOrBf16,
            OpForm::FloatUnary {
                op: FloatUnaryOp::Abs | FloatUnaryOp::Neg,
                ty,
                ..
            },
        ) => hit(is_bf16(ty)),
        (
            OpFeature::Bf16Arithmetic,
            OpForm::FloatBinary {
                op: FloatOp::Add | FloatOp::Sub | FloatOp::Mul,
                ty,
                ..
            }
            | OpForm::Setp { ty, .. },
        ) => hit(is_bf16(ty)),
        (
            OpFeature::IntegerRelu,
            OpForm::IntBinary {
                op: IntOp::Min | IntOp::Max,
                relu: true,
                ..
            },
        ) => Some(named("relu")),
        (OpFeature::Semantics, OpForm::Ld { .. } | OpForm::St { .. } | OpForm::Atom { .. })
        | (OpFeature::Semantics, OpForm::Fence) => {
            let semantics = |m: &str| {
                matches!(
                    m,
                    "relaxed" | "acquire" | "release" | "acq_rel" | "sc" | "weak"
                )
            };
            let proxy = op.text.starts_with("fence.proxy");
            // Every `fence` but `fence.proxy` has the gate, also without a semantics word
            // (ptxas 13.5: "Feature 'fence instruction' requires .target sm_70 or higher" for
            // `fence.cta;`).
            let fence = op.text.starts_with("fence");
            (!proxy)
                .then(|| modifier_index(op, semantics).or(fence.then_some(0)))
                .flatten()
                .map(Some)
        }
        (OpFeature::AtomScope, OpForm::Atom { .. }) => {
            modifier_index(op, |m| matches!(m, "cta" | "gpu" | "sys")).map(Some)
        }
        (
            OpFeature::ClusterScope,
            OpForm::Ld { .. } | OpForm::St { .. } | OpForm::Atom { .. } | OpForm::Fence,
        ) => named("cluster").map(Some),
        (OpFeature::Cluster, OpForm::Mapa { .. } | OpForm::Getctarank { .. })
        | (OpFeature::Cluster, OpForm::BarrierCluster { .. }) => Some(Some(0)),
        (
            OpFeature::Cluster,
            OpForm::Ld {
                space: Space::SharedCluster,
                ..
            }
            | OpForm::St {
                space: Space::SharedCluster,
                ..
            }
            | OpForm::Atom {
                space: Space::SharedCluster,
                ..
            }
            | OpForm::Cvta {
                space: Space::SharedCluster,
                ..
            }
            | OpForm::Isspacep {
                space: Space::SharedCluster,
            },
        ) => named("shared::cluster").map(Some),
        (
            OpFeature::CpAsyncBulk,
            OpForm::CpAsyncBulk { .. }
            | OpForm::CpAsyncBulkTensor { .. }
            | OpForm::CpReduceAsyncBulk { .. }
            | OpForm::CpAsyncBulkPrefetchTensor { .. }
            | OpForm::CpAsyncBulkGroup { .. }
            | OpForm::CpAsyncBulkPrefetch { .. },
        ) => Some(Some(0)),
        (
            OpFeature::CpAsyncBulkSharedCta,
            OpForm::CpAsyncBulk {
                destination: Space::Shared,
                ..
            }
            | OpForm::CpAsyncBulkTensor {
                shared_cta: true, ..
            },
        ) => named("shared::cta").map(Some),
        (
            OpFeature::TensorGather4SharedCta,
            OpForm::CpAsyncBulkTensor {
                four_rows: true,
                load: true,
                shared_cta: true,
                ..
            },
        ) => named("tile::gather4").map(Some),
        // ptxas 13.5 on sm_90a: "Feature '.im2col::w with destination state space as
        // .shared::cta' requires .target sm_100 or higher" (taken on sm_120a).
        (
            OpFeature::TensorGather4SharedCta,
            OpForm::CpAsyncBulkTensor {
                wide: Some(Im2colWide::W),
                shared_cta: true,
                ..
            },
        ) => named("im2col::w").map(Some),
        // ptxas 13.5: "Feature '.im2col::w with destination state space as .shared::cluster'
        // not supported on .target 'sm_100'", "Feature '.im2col::w::128' not supported on
        // .target 'sm_120a'" (either destination).
        (
            OpFeature::TensorCopySm100,
            OpForm::CpAsyncBulkTensor {
                four_rows,
                load,
                shared_cta,
                cta_group,
                wide,
                ..
            },
        ) => {
            if cta_group.is_some() {
                named_any(op, &["cta_group::1", "cta_group::2"])
            } else if four_rows && !(load && shared_cta) {
                named_any(op, &["tile::gather4", "tile::scatter4"])
            } else if wide == Some(Im2colWide::W128) {
                named("im2col::w::128").map(Some)
            } else if wide == Some(Im2colWide::W) && !shared_cta {
                named("im2col::w").map(Some)
            } else {
                None
            }
        }
        // ptxas 13.5: "Feature '.tile::gather4 with cp.async.bulk.prefetch.tensor' not
        // supported on .target 'sm_100'", the same for `.im2col::w` and `.im2col::w::128`.
        (
            OpFeature::TensorCopySm100,
            OpForm::CpAsyncBulkPrefetchTensor {
                wide, four_rows, ..
            },
        ) if wide || four_rows => named_any(op, &["tile::gather4", "im2col::w", "im2col::w::128"]),
        (OpFeature::Setmaxnreg, OpForm::Setmaxnreg { .. }) => Some(Some(0)),
        (OpFeature::TensormapReplace, OpForm::TensormapReplace { .. }) => Some(Some(0)),
        (
            OpFeature::TensormapSwizzleAtomicity,
            OpForm::TensormapReplace {
                field: TensormapField::SwizzleAtomicity,
                ..
            },
        ) => named("swizzle_atomicity").map(Some),
        (OpFeature::TensormapCpFenceproxy, OpForm::TensormapCpFenceproxy) => Some(Some(0)),
        (OpFeature::BarrierClusterOrdering, OpForm::BarrierCluster { ordered: true, .. }) => {
            named_any(op, &["relaxed", "release", "acquire"])
        }
        (
            OpFeature::AtomF64,
            OpForm::Atom {
                op: AtomOp::Add,
                ty: Type::F64,
                ..
            },
        ) => Some(type_index()),
        (
            OpFeature::AtomF16x2,
            OpForm::Atom {
                ty: Type::F16x2, ..
            },
        ) => Some(type_index()),
        (
            OpFeature::AtomF16,
            OpForm::Atom {
                ty: Type::F16 | Type::B16,
                ..
            },
        ) => Some(type_index()),
        (
            OpFeature::AtomBf16,
            OpForm::Atom {
                ty: Type::Bf16 | Type::Bf16x2,
                ..
            },
        ) => Some(type_index()),
        (OpFeature::Atom128, OpForm::Atom { ty: Type::B128, .. }) => Some(type_index()),
        (OpFeature::AtomVector, OpForm::Atom { vector, .. }) if vector > 1 => {
            named_any(op, &["v2", "v4", "v8"])
        }
        (
            OpFeature::Memory128,
            OpForm::Ld { ty: Type::B128, .. } | OpForm::St { ty: Type::B128, .. },
        ) => Some(type_index()),
        (
            OpFeature::CacheHint,
            OpForm::Ld {
                cache_policy: true, ..
            }
            | OpForm::St {
                cache_policy: true, ..
            }
            | OpForm::Atom {
                cache_policy: true, ..
            },
        ) => Some(named("L2::cache_hint")),
        (OpFeature::Wide256, OpForm::Ld { ty, vector, .. } | OpForm::St { ty, vector, .. })
            if u32::from(vector) * ty.bits() == 256 =>
        {
            named_any(op, &["v4", "v8"])
        }
        (OpFeature::CacheControl, OpForm::CacheAdvice | OpForm::CreatePolicy(_)) => Some(Some(0)),
        (OpFeature::CacheControl, OpForm::Prefetch) => {
            modifier_index(op, |m| m.starts_with("L2::evict_")).map(Some)
        }
        (OpFeature::PrefetchTensormap, OpForm::Prefetch) => named("tensormap").map(Some),
        (OpFeature::Mmio, OpForm::Ld { .. } | OpForm::St { .. }) => named("mmio").map(Some),
        (
            OpFeature::LocalVolatile,
            OpForm::Ld {
                space: Space::Local,
                ..
            }
            | OpForm::St {
                space: Space::Local,
                ..
            },
        ) => named("volatile").map(Some),
        (OpFeature::FenceAcquireRelease, OpForm::Fence)
            if op.text.starts_with("fence.")
                && !modifiers(op).any(|m| {
                    m == "proxy" || m == "mbarrier_init" || m.starts_with("sync_restrict::")
                }) =>
        {
            modifier_index(op, |m| m == "acquire" || m == "release").map(Some)
        }
        (OpFeature::L1Eviction, OpForm::Ld { .. } | OpForm::St { .. }) => {
            modifier_index(op, |m| m.starts_with("L1::")).map(Some)
        }
        (OpFeature::L2Prefetch, OpForm::Ld { .. }) => {
            modifier_index(op, |m| m.starts_with("L2::") && m.ends_with('B')).map(Some)
        }
        // A prefetch size, and ptxas 13.5: "Modifier '.L2::cache_hint' requires PTX ISA
        // .version 7.4 or later".
        (OpFeature::L2Prefetch, OpForm::CpAsync { .. }) => {
            modifier_index(op, |m| m.starts_with("L2::")).map(Some)
        }
        (
            OpFeature::CvtaParam,
            OpForm::Cvta {
                space: Space::Param,
                ..
            },
        ) => Some(named("param")),
        // ptxas 13.5: "Feature 'cvta/isspacep with .param state space' requires PTX ISA
        // .version 7.7 or later".
        (
            OpFeature::CvtaParam,
            OpForm::Isspacep {
                space: Space::Param,
            },
        ) => Some(modifier_index(op, |m| m.starts_with("param"))),
        (OpFeature::BarCta, OpForm::Barrier { .. }) => named("cta").map(Some),
        (
            OpFeature::XorsignAbs,
            OpForm::FloatBinary {
                modifiers:
                    FloatModifiers {
                        xorsign_abs: true, ..
                    },
                ..
            },
        ) => Some(named("xorsign")),
        (
            OpFeature::Oob,
            OpForm::Fma {
                modifiers: FloatModifiers { oob: true, .. },
                ..
            },
        ) => Some(named("oob")),
        (
            OpFeature::HalfInteger,
            OpForm::IntBinary {
                ty: Type::U16x2 | Type::S16x2,
                ..
            },
        ) => Some(type_index()),
        (
            OpFeature::CvtaParamTarget,
            OpForm::Cvta {
                space: Space::Param,
                ..
            },
        )
        | (
            OpFeature::CvtaParamTarget,
            OpForm::Isspacep {
                space: Space::Param,
            },
        ) => Some(named("param")),
        (OpFeature::ShflWithoutSync, OpForm::Shfl { sync: false, .. })
        | (OpFeature::VoteWithoutSync, OpForm::Vote { sync: false, .. })
        | (OpFeature::Redux, OpForm::Redux { .. })
        | (OpFeature::Match, OpForm::Match { .. })
        | (OpFeature::Elect, OpForm::Elect)
        | (OpFeature::Activemask, OpForm::Activemask)
        | (OpFeature::CpAsync, OpForm::CpAsync { .. } | OpForm::CpAsyncGroup { .. }) => {
            Some(Some(0))
        }
        (OpFeature::ReduxF32, OpForm::Redux { ty: Type::F32, .. }) => Some(type_index()),
        (
            OpFeature::HalfTranscendental,
            OpForm::FloatUnary {
                op: FloatUnaryOp::Ex2,
                ty,
                ..
            },
        ) => hit(is_f16(ty)),
        (
            OpFeature::HalfTranscendental,
            OpForm::FloatUnary {
                op: FloatUnaryOp::Tanh,
                ty,
                ..
            },
        ) => hit(!is_bf16(ty)),
        (
            OpFeature::Bf16Transcendental,
            OpForm::FloatUnary {
                op: FloatUnaryOp::Ex2 | FloatUnaryOp::Tanh,
                ty,
                ..
            },
        ) => hit(is_bf16(ty)),
        (OpFeature::BitMask, OpForm::Bmsk { .. } | OpForm::Szext { .. })
        | (OpFeature::DotProduct, OpForm::Dot { .. })
        | (OpFeature::Nanosleep, OpForm::Nanosleep)
        | (OpFeature::Griddepcontrol, OpForm::Griddepcontrol { .. }) => Some(Some(0)),
        (OpFeature::Mbarrier, OpForm::Mbarrier { .. }) => Some(Some(0)),
        (
            OpFeature::MbarrierParity,
            OpForm::Mbarrier {
                op: MbarrierOp::Wait { parity: true, .. },
                ..
            },
        ) => named("parity").map(Some),
        (
            OpFeature::MbarrierTryWait,
            OpForm::Mbarrier {
                op: MbarrierOp::Wait { try_wait: true, .. },
                ..
            },
        ) => Some(Some(0)),
        (
            OpFeature::MbarrierTx,
            OpForm::Mbarrier {
                op: mop, cluster, ..
            },
        ) => {
            let tx = matches!(
                mop,
                MbarrierOp::ExpectTx
                    | MbarrierOp::CompleteTx
                    | MbarrierOp::Arrive {
                        expect_tx: true,
                        ..
                    }
            );
            if tx {
                Some(Some(0))
            } else if cluster {
                named("shared::cluster").map(Some)
            } else {
                None
            }
        }
        (
            OpFeature::MbarrierRelaxed,
            OpForm::Mbarrier {
                op: MbarrierOp::Arrive { .. } | MbarrierOp::Wait { .. },
                ..
            },
        ) => named("relaxed").map(Some),
        (
            OpFeature::SharedCta,
            OpForm::Mbarrier { .. }
            | OpForm::Ldmatrix(_)
            | OpForm::Stmatrix(_)
            | OpForm::Wmma(_)
            | OpForm::Ld { .. }
            | OpForm::St { .. }
            | OpForm::Atom { .. }
            | OpForm::Isspacep { .. }
            // ptxas 13.5: "Feature '::cta' requires PTX ISA .version 7.8 or later" for
            // `cvta.shared::cta` and `cvta.to.shared::cta` too.
            | OpForm::Cvta { .. },
        ) => named("shared::cta").map(Some),
        // ptxas 13.5: "Feature '::entry' requires PTX ISA .version 8.3 or later" for
        // `isspacep.param::entry` and `cvta.param::entry` too.
        (
            OpFeature::ParamSubspace,
            OpForm::Ld { .. } | OpForm::St { .. } | OpForm::Isspacep { .. } | OpForm::Cvta { .. },
        ) => modifier_index(op, |m| m == "param::entry" || m == "param::func").map(Some),
        (OpFeature::Wmma, OpForm::Wmma(_)) => Some(Some(0)),
        (OpFeature::WmmaAligned, OpForm::Wmma(_)) => named("aligned").map(Some),
        (OpFeature::LdNonCoherent, OpForm::Ld { .. }) => named("nc").map(Some),
        (
            OpFeature::CarryWide,
            OpForm::Carry {
                ty: Type::U64 | Type::S64,
                carry_out: true,
                ..
            },
        ) => named("cc").map(Some),
        (OpFeature::WmmaTallShapes, OpForm::Wmma(_)) => {
            modifier_index(op, |m| m == "m32n8k16" || m == "m8n32k16").map(Some)
        }
        // `wmma.load.c`/`wmma.store.d` `.s32` of the 8-bit shapes too (ptxas 13.5: "Feature
        // 'WMMA with integer types' requires .target sm_72 or higher").
        (OpFeature::WmmaInteger, OpForm::Wmma(f)) => {
            hit(f.a.is_int8() || f.a == MmaType::S32 && !(f.m == 8 && f.k >= 32))
        }
        (OpFeature::WmmaSubByte, OpForm::Wmma(f)) => hit(f.m == 8 && f.k >= 32),
        (OpFeature::WmmaBitAnd, OpForm::Wmma(f)) => hit(f.bit_op == Some(crate::mma::BitOp::And)),
        (OpFeature::WmmaAlternate, OpForm::Wmma(f)) => {
            hit(matches!(f.a, MmaType::Bf16 | MmaType::Tf32) || (f.m, f.n, f.k) == (16, 16, 8))
        }
        (OpFeature::WmmaF64, OpForm::Wmma(f)) => hit(f.a == MmaType::F64),
        (OpFeature::Ldmatrix, OpForm::Ldmatrix(_))
        | (OpFeature::Stmatrix, OpForm::Stmatrix(_))
        | (OpFeature::Movmatrix, OpForm::Movmatrix) => Some(Some(0)),
        (OpFeature::MbarrierSem, OpForm::Mbarrier { .. }) => {
            modifier_index(op, |m| matches!(m, "release" | "acquire" | "relaxed")).map(Some)
        }
        (OpFeature::ClusterScope, OpForm::Mbarrier { .. }) => named("cluster").map(Some),
        (OpFeature::HalfSet, OpForm::Set { dtype, stype, .. }) => {
            hit(dtype == Type::F16 || is_f16(stype))
        }
        (OpFeature::HalfSetInteger, OpForm::Set { dtype, stype, .. }) => {
            hit(is_f16(stype) && !dtype.is_float())
        }
        (OpFeature::Bf16Set, OpForm::Set { dtype, stype, .. }) => {
            hit(is_bf16(dtype) || is_bf16(stype))
        }
        (OpFeature::MmaVolta, OpForm::Mma(f)) => hit(f.is_quad_pair()),
        (OpFeature::MmaTuring, OpForm::Mma(f)) => hit((f.a == MmaType::F16
            && (f.m, f.k) == (16, 8))
            || ((f.a.is_int8() || f.a.is_int4()) && f.m == 8)),
        (OpFeature::MmaSingleBit, OpForm::Mma(f)) => hit(f.a == MmaType::B1 && f.m == 8),
        (OpFeature::MmaBitAnd, OpForm::Mma(f)) => hit(f.bit_op == Some(crate::mma::BitOp::And)),
        (OpFeature::MmaSparse, OpForm::Mma(f)) => hit(f.sparse.is_some()),
        (OpFeature::MmaOrderedMetadata, OpForm::Mma(f)) => {
            hit(f.sparse == Some(crate::mma::Sparsity::OrderedMetadata))
        }
        (OpFeature::MmaAmpere, OpForm::Mma(f)) => hit((f.m == 16 && f.k >= 16)
            || matches!(f.a, MmaType::Bf16 | MmaType::Tf32)
            || (f.a == MmaType::F64 && f.m == 8)),
        (OpFeature::MmaF64Hopper, OpForm::Mma(f)) => hit(f.a == MmaType::F64 && f.m == 16),
        (OpFeature::MmaFp8, OpForm::Mma(f)) => hit(f.a.is_fp8()),
        (OpFeature::MmaFp8K16OrF16, OpForm::Mma(f)) => {
            hit(f.a.is_fp8() && (f.k == 16 || f.d == MmaType::F16))
        }
        (OpFeature::MmaKindF8f6f4, OpForm::Mma(f)) => hit(f.kind_f8f6f4),
        (OpFeature::MmaFp6Fp4, OpForm::Mma(f)) => hit(f.a.is_fp6_or_fp4() || f.b.is_fp6_or_fp4()),
        (OpFeature::MmaBlockScale, OpForm::Mma(f)) => hit(f.block_scale.is_some()),
        (OpFeature::MmaScaleVec4xUe8m0, OpForm::Mma(f)) => f
            .block_scale
            .is_some_and(|s| s.vec == 4 && !s.ue4m3)
            .then(|| named("scale_vec::4X")),
        (OpFeature::Wgmma, OpForm::Wgmma(_)) => Some(Some(0)),
        (OpFeature::WgmmaSparse, OpForm::Wgmma(crate::wgmma::WgmmaOp::Mma(f))) => {
            f.sparse.then(|| named("sp"))
        }
        (OpFeature::WgmmaMixedInteger, OpForm::Wgmma(crate::wgmma::WgmmaOp::Mma(f))) => {
            f.mixed_integer().then(type_index)
        }
        (OpFeature::ProxyFence, OpForm::Fence | OpForm::FenceProxyAcquire) => {
            op.text.starts_with("fence.proxy").then_some(Some(0))
        }
        (OpFeature::MembarProxy, OpForm::Fence) => {
            op.text.starts_with("membar.proxy").then_some(Some(0))
        }
        (OpFeature::ProxyAsync, OpForm::Fence) => named("async").map(Some),
        (
            OpFeature::Lop3BoolOp,
            OpForm::Lop3 {
                bool_op: Some(_), ..
            },
        ) => named_any(op, &["or", "and"]),
        (OpFeature::Sured64, OpForm::Sured(f)) => hit(matches!(f.ty, Type::S64 | Type::B64)
            || (f.ty == Type::U64
                && matches!(
                    f.op,
                    crate::texture::SurfaceReduction::Min | crate::texture::SurfaceReduction::Max
                ))),
        (OpFeature::ProxyTensormap, OpForm::Fence | OpForm::FenceProxyAcquire) => {
            modifier_index(op, |m| m.ends_with("::generic")).map(Some)
        }
        (OpFeature::SyncRestrict, OpForm::Fence) => {
            modifier_index(op, |m| m.starts_with("sync_restrict::")).map(Some)
        }
        (OpFeature::OpRestrict, OpForm::Fence) if op.text.starts_with("fence.") => {
            named("mbarrier_init").map(Some)
        }
        _ => None,
    }
}
