//! The non-conversion instructions the executor runs (PTX ISA 9.7.1 integer arithmetic, 9.7.3
//! floating-point, 9.7.6 comparison and selection, 9.7.7 logic and shift, 9.7.9 data movement,
//! 9.7.12 control flow, 9.7.13 parallel synchronisation): their modifiers decoded into a typed
//! [`OpForm`] by [`decode_op`], the one place that reads those modifiers (style rule 1).
//!
//! `mov`, `cvt` and `cvt.pack` are decoded by [`crate::decode`] instead.

use crate::form::{DecodeError, DecodeErrorKind, Indexed};
use crate::opcode::{Opcode, Rounding};
use crate::types::Type;

/// The modifiers of a floating-point arithmetic instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FloatModifiers {
    /// The rounding, one of [`Rounding::FLOAT`] (`.rn` when none is written); the decoder
    /// accepts no other.
    pub rounding: Rounding,
    /// `.ftz`: subnormal inputs and results flush to sign-preserving zero.
    pub ftz: bool,
    /// `.sat`: the result clamps to [0.0, 1.0]; NaN becomes +0.0.
    pub sat: bool,
    /// `.relu` (half types, min/max): negative results clamp to +0; NaN stays canonical NaN.
    pub relu: bool,
    /// `.approx` (`div`, `rcp`, `sqrt`, ...) or `.full` (`div.full.f32`): the hardware result is
    /// approximate.
    pub approx: bool,
    /// `.full` (`div.full{.ftz}.f32`, 9.7.3.8): the "full-range approximation" (`approx` is
    /// set too).
    pub full: bool,
    /// `.NaN` (`min`/`max`): a NaN input gives canonical NaN instead of the other operand.
    pub nan: bool,
    /// `.oob` (`fma` on half types, 9.7.4.5): an operand that came from an out-of-bounds
    /// tensor load makes the result zero. Run as the H200 does it: `a` or `b` equal to the
    /// 16-bit pattern `0x7ff7` or `0xfff7` gives `+0` (`alu::float`, `scripts/hardware/oob`).
    pub oob: bool,
    /// `.xorsign.abs` (`min`/`max`, 9.7.3.11): the result's sign is the XOR of the operands'
    /// signs and its magnitude the min/max of their absolute values.
    pub xorsign_abs: bool,
}

impl FloatModifiers {
    /// No modifier but the default rounding: `.rn`, no `.ftz`, `.sat`, `.relu`, `.approx`,
    /// `.NaN`, `.oob` or `.xorsign.abs`.
    pub const RN: FloatModifiers = FloatModifiers {
        rounding: Rounding::Rn,
        ftz: false,
        sat: false,
        relu: false,
        approx: false,
        full: false,
        nan: false,
        oob: false,
        xorsign_abs: false,
    };
}

/// Which half of a product `mul`/`mad` keep (PTX ISA 9.7.1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MulMode {
    /// `.lo`: the low half (the default of the integer forms).
    Lo,
    /// `.hi`: the high half.
    Hi,
    /// `.wide`: the whole double-width product (16- and 32-bit types only).
    Wide,
}

/// An integer (or bitwise, or predicate) binary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul.lo` / `mul.hi` / `mul.wide`.
    Mul(MulMode),
    /// `div` (truncating).
    Div,
    /// `rem` (sign of the dividend).
    Rem,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `and` (also `.pred`).
    And,
    /// `or` (also `.pred`).
    Or,
    /// `xor` (also `.pred`).
    Xor,
    /// `shl`.
    Shl,
    /// `shr` (arithmetic for signed types).
    Shr,
    /// `mul24.lo` / `mul24.hi` (9.7.1.5): the product of the low 24 bits of each operand (a
    /// 48-bit product); `.lo` keeps its low 32 bits, `.hi` its high 32 bits.
    Mul24 {
        /// `.hi` rather than `.lo`.
        hi: bool,
    },
}

/// What a `bar`/`barrier` instruction does (9.7.13.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierOp {
    /// `.sync a{, b}`: arrive and wait.
    Sync,
    /// `.arrive a, b`: arrive without waiting.
    Arrive,
    /// `.red.popc.u32 d, a{, b}, {!}c`: arrive, wait, and count the threads whose `c` is true.
    RedPopc,
    /// `.red.and.pred p, a{, b}, {!}c`: whether `c` is true in every thread.
    RedAnd,
    /// `.red.or.pred p, a{, b}, {!}c`: whether `c` is true in some thread.
    RedOr,
}

/// The reduction of `vote` (9.7.13.8-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `.all`: true if the source predicate is true for all participating threads.
    All,
    /// `.any`: true if it is true for some.
    Any,
    /// `.uni`: true if it has the same value in all.
    Uni,
    /// `.ballot`: bit `laneid` set for each thread whose predicate is true.
    Ballot,
}

/// The operation of `redux.sync` (9.7.13.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add` (`.u32`, `.s32`), truncated to 32 bits.
    Add,
    /// `.min` (`.u32`, `.s32`, `.f32`).
    Min,
    /// `.max` (`.u32`, `.s32`, `.f32`).
    Max,
    /// `.and` (`.b32`).
    And,
    /// `.or` (`.b32`).
    Or,
    /// `.xor` (`.b32`).
    Xor,
}

/// The lane selection of `shfl` (9.7.9.5-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`: from the lane `b` below.
    Up,
    /// `.down`: from the lane `b` above.
    Down,
    /// `.bfly`: from the lane `lane ^ b`.
    Bfly,
    /// `.idx`: from lane `b`.
    Idx,
}

/// An integer operation of three sources that is neither `mad` nor a bit-field operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntTernaryOp {
    /// `mad24.{lo,hi}{.sat}` (9.7.1.6): `mul24` of `a` and `b`, plus `c`; `.sat` (`.hi.s32`
    /// only) clamps the sum to the signed 32-bit range.
    Mad24 {
        /// `.hi` rather than `.lo`.
        hi: bool,
        /// `.sat`.
        sat: bool,
    },
    /// `sad` (9.7.1.7): `d = c + |a - b|`.
    Sad,
    /// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c` (9.7.8.7): the 64-bit value `b:a` shifted by
    /// `c` (`.wrap`: modulo 32; `.clamp`: at most 32), 32 bits of it kept.
    Shf {
        /// `.l` (left: the upper word is kept) rather than `.r`.
        left: bool,
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
}

/// An integer (or bitwise, or predicate) unary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntUnaryOp {
    /// `abs`.
    Abs,
    /// `neg`.
    Neg,
    /// `not` (also `.pred`).
    Not,
    /// `cnot`: 1 when the operand is 0, else 0.
    Cnot,
    /// `popc`: the number of one bits (the result is `.u32`).
    Popc,
    /// `clz`: leading zeros (the result is `.u32`).
    Clz,
    /// `brev`: bits reversed.
    Brev,
}

/// A floating-point binary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul`.
    Mul,
    /// `div`.
    Div,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `copysign.type d, a, b` (9.7.3.2): "Copy sign bit of `a` into value of `b`": `d` is `b`
    /// with `a`'s sign (`.f32`, `.f64`).
    Copysign,
}

/// A floating-point unary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatUnaryOp {
    /// `abs`.
    Abs,
    /// `neg`.
    Neg,
    /// `rcp`.
    Rcp,
    /// `sqrt`.
    Sqrt,
    /// `rsqrt.approx{.ftz}.f32`, `rsqrt.approx{.ftz}.f64` (9.7.3.16).
    Rsqrt,
    /// `sin.approx{.ftz}.f32` (9.7.3.18).
    Sin,
    /// `cos.approx{.ftz}.f32` (9.7.3.19).
    Cos,
    /// `lg2.approx{.ftz}.f32` (9.7.3.20).
    Lg2,
    /// `ex2.approx{.ftz}.f32`, `ex2.approx.f16{x2}`, `ex2.approx.ftz.bf16{x2}` (9.7.3.21,
    /// 9.7.4.10).
    Ex2,
    /// `tanh.approx.{f32,f16,f16x2,bf16,bf16x2}` (9.7.3.22, 9.7.4.9).
    Tanh,
}

/// Which operation of the extended-precision (carry) instructions (9.7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CarryOp {
    /// `add.cc`, `addc`: `d = a + b (+ CC.CF)`.
    Add,
    /// `sub.cc`, `subc`: `d = a - (b (+ CC.CF))`.
    Sub,
    /// `mad{.lo,.hi}.cc`, `madc{.lo,.hi}`: `d = (a * b)<half> + c (+ CC.CF)`.
    Mad {
        /// `.hi` rather than `.lo`.
        hi: bool,
    },
}

/// The property `testp` tests (9.7.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TestpOp {
    /// `.finite`: not infinite and not NaN.
    Finite,
    /// `.infinite`: plus or minus infinity.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    NotANumber,
    /// `.normal`: a normal number; "positive and negative zero are considered normal numbers".
    Normal,
    /// `.subnormal`: a subnormal number.
    Subnormal,
}

/// A comparison of `setp` (PTX ISA 9.7.6.1, Tables "Operators for signed integer, unsigned
/// integer and bit-size types" and "Floating-point comparison operators").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compare {
    /// `.eq`.
    Eq,
    /// `.ne`.
    Ne,
    /// `.lt`.
    Lt,
    /// `.le`.
    Le,
    /// `.gt`.
    Gt,
    /// `.ge`.
    Ge,
    /// `.lo` (unsigned <).
    Lo,
    /// `.ls` (unsigned <=).
    Ls,
    /// `.hi` (unsigned >).
    Hi,
    /// `.hs` (unsigned >=).
    Hs,
    /// `.equ`: equal or unordered.
    Equ,
    /// `.neu`: not equal or unordered.
    Neu,
    /// `.ltu`.
    Ltu,
    /// `.leu`.
    Leu,
    /// `.gtu`.
    Gtu,
    /// `.geu`.
    Geu,
    /// `.num`: both operands are numbers.
    Num,
    /// `.nan`: either operand is NaN.
    Nan,
}

/// How `setp` combines its comparison with the predicate operand `c` (`.and`, `.or`, `.xor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
}

/// A state space of a memory instruction (PTX ISA 5.1). `Generic` is an instruction without
/// one: the address is a generic address.
///
/// `ptxsim_syntax::ast::StateSpace` is the other state-space enum: the directive a declaration
/// starts with, which has `.reg` (no memory) and no generic space. Both exist because
/// `ptxsim-syntax` depends on no other ptxsim crate and `ptxsim-isa` only on `ptxsim-softfloat`;
/// the program builder (`ptxsim_check::program`) maps a declaration's `StateSpace` to the
/// `Space` it is placed in, in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// No state space written: generic addressing.
    Generic,
    /// `.param` (kernel or function parameters).
    Param,
    /// `.global`.
    Global,
    /// `.shared` (also `.shared::cta`).
    Shared,
    /// `.shared::cluster` (PTX ISA 9.0, 5.1.4 "Shared State Space": "the shared memory window
    /// of every CTA of the cluster"; the `.shared::cta` window of the executing CTA lies inside
    /// it).
    SharedCluster,
    /// `.local`.
    Local,
    /// `.const`.
    Const,
}

impl Space {
    /// The PTX spelling without the dot (`generic` when none is written), as traces and the
    /// debugger print it.
    pub const fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Param => "param",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::SharedCluster => "shared::cluster",
            Space::Local => "local",
            Space::Const => "const",
        }
    }
}

/// The operation of `atom` / `red` (PTX ISA 9.7.13.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.add`.
    Add,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
    /// `.inc` (wrapping at the operand).
    Inc,
    /// `.dec`.
    Dec,
    /// `.and`.
    And,
    /// `.or`.
    Or,
    /// `.xor`.
    Xor,
    /// `.exch`.
    Exch,
    /// `.cas`.
    Cas,
}

/// The im2col-w load modes of `cp.async.bulk.tensor` (PTX ISA 9.0, 5.5.5 "im2col::w and
/// im2col::w::128 modes"), and of the tensor maps `cuTensorMapEncodeIm2colWide` makes
/// (`CUtensorMapIm2ColWideMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Im2colWide {
    /// `.im2col::w` (`CU_TENSOR_MAP_IM2COL_WIDE_MODE_W`): "The number of elements accessed in
    /// the im2col::w mode depends on the field Pixels-per-Column field in the TensorMap".
    W,
    /// `.im2col::w::128` (`CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128`): "The number of elements
    /// accessed in the im2col::w::128 mode is fixed and is equal to 128".
    W128,
}

/// The field of `tensormap.replace` (PTX ISA 9.0, tensormap.replace: `.field1 = {
/// .global_address, .rank }`, `.field2 = { .box_dim, .global_dim, .global_stride,
/// .element_stride }`, `.field3 = { .elemtype, .interleave_layout, .swizzle_mode,
/// .swizzle_atomicity, .fill_mode }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TensormapField {
    /// `.global_address` (`.b64`).
    GlobalAddress,
    /// `.rank` (the rank less one).
    Rank,
    /// `.box_dim` (with `ord`).
    BoxDim,
    /// `.global_dim` (with `ord`).
    GlobalDim,
    /// `.global_stride` (with `ord`, `.b64`).
    GlobalStride,
    /// `.element_stride` (with `ord`).
    ElementStride,
    /// `.elemtype`.
    ElemType,
    /// `.interleave_layout`.
    InterleaveLayout,
    /// `.swizzle_mode`.
    SwizzleMode,
    /// `.swizzle_atomicity`.
    SwizzleAtomicity,
    /// `.fill_mode`.
    FillMode,
}

impl TensormapField {
    /// Whether the field takes the `ord` operand (`.field2`).
    pub fn has_ordinal(self) -> bool {
        matches!(
            self,
            TensormapField::BoxDim
                | TensormapField::GlobalDim
                | TensormapField::GlobalStride
                | TensormapField::ElementStride
        )
    }

    /// Whether `new_val` must be an immediate (`.field3`: "the operand new_val must be an
    /// immediate").
    pub fn immediate(self) -> bool {
        matches!(
            self,
            TensormapField::ElemType
                | TensormapField::InterleaveLayout
                | TensormapField::SwizzleMode
                | TensormapField::SwizzleAtomicity
                | TensormapField::FillMode
        )
    }

    /// "When .field is specified as .global_address or .global_stride, .type must be .b64.
    /// Otherwise, .type must be .b32."
    pub fn value_type(self) -> Type {
        match self {
            TensormapField::GlobalAddress | TensormapField::GlobalStride => Type::B64,
            _ => Type::B32,
        }
    }
}

/// The selector mode of `prmt` (PTX ISA 9.7.9.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// No mode: four 4-bit selectors with sign replication.
    Default,
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate 8.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate 16.
    Rc16,
}

/// What an `mbarrier` instruction does (PTX ISA 9.7.13.15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MbarrierOp {
    /// `mbarrier.init [addr], count`.
    Init,
    /// `mbarrier.inval [addr]`.
    Inval,
    /// `mbarrier.arrive{.noComplete}{.expect_tx} state, [addr]{, count}` and `arrive_drop`.
    Arrive {
        /// `.arrive_drop`: the expected count of later phases drops by the count too.
        drop: bool,
        /// `.expect_tx`: the count operand is a transaction count added before arriving.
        expect_tx: bool,
        /// `.noComplete` (the arrival must not complete the phase).
        no_complete: bool,
    },
    /// `mbarrier.expect_tx [addr], txCount`.
    ExpectTx,
    /// `mbarrier.complete_tx [addr], txCount`.
    CompleteTx,
    /// `mbarrier.test_wait{.parity}` / `mbarrier.try_wait{.parity}`.
    Wait {
        /// `.try_wait` (may take a `suspendTimeHint`).
        try_wait: bool,
        /// `.parity`: the operand is a phase parity, not a state.
        parity: bool,
    },
    /// `mbarrier.pending_count.b64 count, state`.
    PendingCount,
    /// `cp.async.mbarrier.arrive{.noinc} [addr]` (9.7.9.25.3.5).
    CpAsyncArrive {
        /// `.noinc`: the pending count is not incremented first.
        noinc: bool,
    },
}

/// The primary operation of a SIMD video instruction (9.7.18.2, vadd2.md: `vop2 = { vadd2,
/// vsub2, vavrg2, vabsdiff2, vmin2, vmax2 }`; vset2.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VideoOp {
    /// `vadd2`, `vadd4`.
    Add,
    /// `vsub2`, `vsub4`.
    Sub,
    /// `vavrg2`, `vavrg4`.
    Avrg,
    /// `vabsdiff2`, `vabsdiff4`.
    Absdiff,
    /// `vmin2`, `vmin4`.
    Min,
    /// `vmax2`, `vmax4`.
    Max,
    /// `vset2.cmp`, `vset4.cmp` (`.eq .ne .lt .le .gt .ge`).
    Set(Compare),
}

/// The primary operation of a scalar video instruction (9.7.18.1: vadd.md `vop = { vadd,
/// vsub, vabsdiff, vmin, vmax }`, vshl.md, vmad.md, vset.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VideoScalarOp {
    /// `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax` and `vset.cmp` ([`VideoOp`] without
    /// `Avrg`).
    Arithmetic(VideoOp),
    /// `vshl.mode` (`clamp`: `.clamp` rather than `.wrap`).
    Shl {
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
    /// `vshr.mode`.
    Shr {
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
    /// `vmad{.po}{.scale}`.
    Mad {
        /// `.po`: "(a*b) + c + 1".
        po: bool,
        /// `.shr7` (7), `.shr15` (15) or no scaling (0).
        shift: u8,
    },
}

/// The secondary operation of a scalar video instruction (9.7.18.1, vadd.md: `.op2 = { .add,
/// .min, .max }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VideoSecondary {
    /// `.add`.
    Add,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
}

/// A decoded non-conversion instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpForm {
    /// `add`/`sub`/`mul`/`div`/`rem`/`min`/`max`/`and`/`or`/`xor`/`shl`/`shr` on integer,
    /// bit-size or (for the logic ops) `.pred` types: `d = a op b`.
    IntBinary {
        /// The operation.
        op: IntOp,
        /// The instruction type.
        ty: Type,
        /// `.sat` (`add`/`sub` `.s32`, `mad.hi.sat.s32`): clamp instead of wrapping.
        sat: bool,
        /// `.relu` (`min`/`max` `.s32`): negative results become 0.
        relu: bool,
    },
    /// `abs`/`neg`/`not`/`cnot`/`popc`/`clz`/`brev` on integer, bit-size or `.pred` types.
    IntUnary {
        /// The operation.
        op: IntUnaryOp,
        /// The instruction type.
        ty: Type,
    },
    /// `mad.{lo,hi,wide}{.sat}.type d, a, b, c`.
    Mad {
        /// Which half of the product is added to `c`.
        mode: MulMode,
        /// The instruction type.
        ty: Type,
        /// `.sat` (`mad.hi.sat.s32`).
        sat: bool,
    },
    /// `add`/`sub`/`mul`/`div`/`min`/`max` on `.f32`, `.f64`, `.f16`, `.bf16`, `.f16x2`,
    /// `.bf16x2`.
    FloatBinary {
        /// The operation.
        op: FloatOp,
        /// The instruction type.
        ty: Type,
        /// Rounding and the other modifiers.
        modifiers: FloatModifiers,
    },
    /// `fma.rnd` (and `mad.rnd` on floats): `d = a * b + c` rounded once.
    Fma {
        /// The instruction type.
        ty: Type,
        /// Rounding and the other modifiers.
        modifiers: FloatModifiers,
    },
    /// `abs`/`neg`/`rcp`/`sqrt` on floating-point types.
    FloatUnary {
        /// The operation.
        op: FloatUnaryOp,
        /// The instruction type.
        ty: Type,
        /// Rounding and the other modifiers.
        modifiers: FloatModifiers,
    },
    /// `setp.cmp{.bool}{.ftz}.type p{|q}, a, b{, {!}c}`.
    Setp {
        /// The comparison.
        compare: Compare,
        /// The combination with `c`, if any.
        combine: Option<BoolOp>,
        /// The operand type.
        ty: Type,
        /// `.ftz`.
        ftz: bool,
    },
    /// `selp.type d, a, b, c`: `d = c ? a : b`.
    Selp {
        /// The instruction type.
        ty: Type,
    },
    /// `prmt.b32{.mode} d, a, b, c`.
    Prmt {
        /// The mode.
        mode: PrmtMode,
    },
    /// `lop3.b32 d, a, b, c, immLut` and `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (9.7.8.6:
    /// "Optionally, `.BoolOp` can be specified to compute the predicate result `p`",
    /// `.BoolOp = { .or, .and }`).
    Lop3 {
        /// The `.BoolOp` that combines `d != 0` with `q` into `p`.
        bool_op: Option<BoolOp>,
    },
    /// `bfe.type d, a, b, c`.
    Bfe {
        /// The instruction type.
        ty: Type,
    },
    /// `bfi.type f, a, b, c, d`.
    Bfi {
        /// The instruction type.
        ty: Type,
    },
    /// `shfl.sync.mode.b32 d{|p}, a, b, c, membermask` (9.7.9.6), and the deprecated
    /// `shfl.mode.b32 d{|p}, a, b, c` (9.7.9.5). Decoded and checked; not executed yet.
    Shfl {
        /// `.up`, `.down`, `.bfly` or `.idx`.
        mode: ShflMode,
        /// `.sync` (with the membermask operand).
        sync: bool,
    },
    /// `mad24`, `sad`, `shf`: `d = f(a, b, c)`, every operand of the instruction type (`shf`:
    /// `c` is `.u32`).
    IntTernary {
        /// The operation.
        op: IntTernaryOp,
        /// The instruction type.
        ty: Type,
    },
    /// `slct.dtype.s32 d, a, b, c` / `slct{.ftz}.dtype.f32 d, a, b, c` (9.7.7.5):
    /// `d = (c >= 0) ? a : b`.
    Slct {
        /// The type of `d`, `a` and `b`.
        ty: Type,
        /// `c` is `.f32` (else `.s32`).
        float_selector: bool,
        /// `.ftz` (`.f32` selector only): a subnormal `c` counts as zero.
        ftz: bool,
    },
    /// `ld{.space}{.qualifiers}{.vN}.type` (also `ldu`).
    Ld {
        /// The state space.
        space: Space,
        /// The element type.
        ty: Type,
        /// 1, 2, 4 or 8 elements.
        vector: u8,
        /// `.L2::cache_hint`: a 64-bit cache-policy operand follows the address (a hint, no
        /// effect on the value; PTX ISA 9.0, ld: "cache-policy is a hint to the cache
        /// subsystem ... treated as a performance hint only").
        cache_policy: bool,
    },
    /// `st{.space}{.qualifiers}{.vN}.type`.
    St {
        /// The state space.
        space: Space,
        /// The element type.
        ty: Type,
        /// 1, 2, 4 or 8 elements.
        vector: u8,
        /// `.L2::cache_hint`: a 64-bit cache-policy operand follows the value.
        cache_policy: bool,
    },
    /// `cvta.space.size` (generic from space) or `cvta.to.space.size`.
    Cvta {
        /// `.to`: from generic to the space's own addresses.
        to: bool,
        /// The space (never `Generic` or `Param` in a decoded form... `Param` allowed only
        /// where the spec lists it).
        space: Space,
        /// `.u32` or `.u64`.
        ty: Type,
    },
    /// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}`, or `red` (no destination); with
    /// `.v2`/`.v4`/`.v8` (sm_90), `d` and `b` are vectors and each element is its own atomic
    /// operation on consecutive elements of memory.
    Atom {
        /// `red` rather than `atom`.
        reduction: bool,
        /// The state space (`Generic` when none).
        space: Space,
        /// The operation.
        op: AtomOp,
        /// The operand type.
        ty: Type,
        /// The vector length (1: scalar).
        vector: u8,
        /// `.L2::cache_hint`: a 64-bit cache-policy operand comes last (PTX ISA 9.0, atom:
        /// `atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache-policy}`).
        cache_policy: bool,
    },
    /// `bar{.cta}.{sync,arrive,red}` / `barrier{.cta}.{sync,arrive,red}{.aligned}` (9.7.13.1):
    /// one of the CTA's sixteen barriers.
    Barrier {
        /// What the instruction does at the barrier.
        op: BarrierOp,
    },
    /// `bar.warp.sync membermask` (9.7.13.2): the threads of `membermask` wait for each other.
    BarWarpSync,
    /// `vote.sync.mode.pred d, {!}a, membermask` / `vote.sync.ballot.b32 d, {!}a, membermask`
    /// (9.7.13.9), and the deprecated forms without `.sync` and membermask (9.7.13.8).
    Vote {
        /// `.all`, `.any`, `.uni` or `.ballot`.
        mode: VoteMode,
        /// `.sync` (with the membermask operand).
        sync: bool,
    },
    /// `activemask.b32 d` (9.7.13.11).
    Activemask,
    /// `redux.sync.op.type dst, src, membermask` (9.7.13.12): `.u32`/`.s32` for `.add`,
    /// `.min`, `.max`; `.b32` for `.and`, `.or`, `.xor`; `.f32` `.min`/`.max` with `.abs`
    /// and `.NaN` (sm_100a).
    Redux {
        /// The operation.
        op: ReduxOp,
        /// `.u32`, `.s32`, `.b32` or `.f32`.
        ty: Type,
        /// `.abs` (`.f32` only).
        abs: bool,
        /// `.NaN` (`.f32` only).
        nan: bool,
    },
    /// `match.any.sync.type d, a, membermask` / `match.all.sync.type d{|p}, a, membermask`
    /// (9.7.13.10), `.type = { .b32, .b64 }`.
    Match {
        /// `.all` (else `.any`).
        all: bool,
        /// `.b32` or `.b64`.
        ty: Type,
    },
    /// `elect.sync d|p, membermask` (9.7.13.14).
    Elect,
    /// `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype d, a, b, c`
    /// (9.7.14.5.14): a warp-collective matrix multiply-accumulate.
    Mma(crate::mma::MmaForm),
    /// `ldmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 d, [p]` (9.7.14.5.15): a
    /// warp-collective load of one, two or four 8x8 matrices of 16-bit elements.
    Ldmatrix(crate::matrix::MatrixForm),
    /// `stmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 [p], r` (9.7.14.5.16): the
    /// warp-collective store, the inverse of `ldmatrix`.
    Stmatrix(crate::matrix::MatrixForm),
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (9.7.14.5.17): an 8x8 matrix of 16-bit
    /// elements transposed across the warp's registers.
    Movmatrix,
    /// `wmma.load.{a,b,c}`, `wmma.store.d`, `wmma.mma` (9.7.14.4): the warp-collective matrix
    /// load, store and multiply-accumulate of the WMMA family.
    Wmma(crate::wmma::WmmaForm),
    /// `wgmma.mma_async`, `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`
    /// (9.7.15.5.2, 9.7.15.6-7): warpgroup-collective.
    Wgmma(crate::wgmma::WgmmaOp),
    /// `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}`
    /// (9.7.9.25.3.1), with `.L2::cache_hint` a cache-policy operand last.
    CpAsync {
        /// `.cg` (cp-size 16 only) rather than `.ca`.
        cg: bool,
        /// `.L2::cache_hint`: the last operand is a cache policy.
        cache_hint: bool,
    },
    /// `cp.async.bulk.dst.src.completion_mechanism{.level::cache_hint} [dstMem], [srcMem],
    /// size{, [mbar]}{, cache-policy}` (PTX ISA 9.0, cp.async.bulk): a copy of `size` bytes,
    /// from `.global` to `.shared::cluster` (or `.shared::cta`, PTX ISA 8.6) or from
    /// `.shared::cta` to `.shared::cluster`, completing on the mbarrier `[mbar]`
    /// (`.mbarrier::complete_tx::bytes`), or from `.shared::cta` to `.global` in a bulk async-group
    /// (`.bulk_group`).
    CpAsyncBulk {
        /// The destination's space: `SharedCluster`, `Shared` (`.shared::cta`) or `Global`.
        destination: Space,
        /// The source's space: `Global` or `Shared` (`.shared::cta`).
        source: Space,
        /// `.mbarrier::complete_tx::bytes` (else `.bulk_group`).
        mbarrier: bool,
        /// `.multicast::cluster` (from `.global` to `.shared::cluster`): a `ctaMask` operand
        /// after `[mbar]`.
        multicast: bool,
        /// `.L2::cache_hint`: the last operand is a cache policy.
        cache_hint: bool,
    },
    /// `cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.multicast::cluster}
    /// {.level::cache_hint}` (PTX ISA 9.0, cp.async.bulk.tensor): a box of a tensor described by
    /// a tensor map, from `.global` to `.shared::cluster` (or `.shared::cta`, PTX ISA 8.6)
    /// completing on `[mbar]`, `[dstMem], [tensorMap, tensorCoords], [mbar]{, im2colOffsets}
    /// {, ctaMask}{, cache-policy}`; or from `.shared::cta` to `.global` in a bulk async-group,
    /// `[tensorMap, tensorCoords], [srcMem]{, cache-policy}`.
    CpAsyncBulkTensor {
        /// `.1d` ... `.5d`.
        dims: u8,
        /// `.global` is the source (else the destination).
        load: bool,
        /// The destination of a load is `.shared::cta` (else `.shared::cluster`).
        shared_cta: bool,
        /// `.im2col`, `.im2col::w` or `.im2col::w::128` (a load) or `.im2col_no_offs` (a
        /// store), else `.tile`.
        im2col: bool,
        /// `.im2col::w` / `.im2col::w::128` of a load (PTX ISA 8.6, sm_100): `im2colInfo` is
        /// `{ wHalo, wOffset }`.
        wide: Option<Im2colWide>,
        /// `.tile::gather4` (a load) or `.tile::scatter4` (a store; ptxas 13.5 takes it in
        /// `cp.reduce.async.bulk.tensor` too): "four rows in 2-dimensional source tensor are
        /// combined to form a single 2-dimensional destination tensor", the coordinates
        /// `{col_idx, row_idx0, row_idx1, row_idx2, row_idx3}` (PTX ISA 8.6, sm_100).
        four_rows: bool,
        /// `.cta_group::1` / `::2` of a load (PTX ISA 8.6, sm_100a): "used to signal either the
        /// odd numbered CTA or the even numbered CTA among the CTA-Pair".
        cta_group: Option<u8>,
        /// `.multicast::cluster`: a `ctaMask` operand.
        multicast: bool,
        /// `.L2::cache_hint`: the last operand is a cache policy.
        cache_hint: bool,
        /// `cp.reduce.async.bulk.tensor...redOp` (PTX ISA 9.0, cp.reduce.async.bulk.tensor): a
        /// store whose elements are reduced into the tensor with `.redOp`, of the tensor map's
        /// element type.
        reduce: Option<AtomOp>,
    },
    /// `cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp{.noftz}.type
    /// [dstMem], [srcMem], size{, [mbar]}{, cache-policy}` (PTX ISA 9.0, cp.reduce.async.bulk):
    /// `size` bytes of `[srcMem]` (`.shared::cta`) reduced element by element into `[dstMem]`,
    /// in `.shared::cluster` completing on `[mbar]`, or in `.global` in a bulk async-group.
    CpReduceAsyncBulk {
        /// `.global` is the destination (else `.shared::cluster`).
        global: bool,
        /// `.redOp`.
        op: AtomOp,
        /// `.type`.
        ty: Type,
        /// `.L2::cache_hint`: the last operand is a cache policy.
        cache_hint: bool,
    },
    /// `tensormap.replace.tile.field{.ss}.b1024.type [addr]{, ord}, new_val` (PTX ISA 9.0,
    /// tensormap.replace): one field of the tensor map at `addr` replaced.
    TensormapReplace {
        /// `.field`.
        field: TensormapField,
        /// `.ss`: `Global`, `Shared` (`.shared::cta`) or `Generic` (none).
        space: Space,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
    /// [dst], [src], size` (PTX ISA 9.0, tensormap.cp_fenceproxy): a 128-byte tensor map copied
    /// from shared to global memory, then a release proxy fence.
    TensormapCpFenceproxy,
    /// `cp.async.bulk.prefetch.tensor.dim.L2.global{.load_mode}{.L2::cache_hint}
    /// [tensorMap, tensorCoords]{, im2colOffsets}{, cache-policy}` (PTX ISA 9.0,
    /// cp.async.bulk.prefetch.tensor): a hint.
    CpAsyncBulkPrefetchTensor {
        /// `.1d` ... `.5d`.
        dims: u8,
        /// `.im2col`, `.im2col::w` or `.im2col::w::128`.
        im2col: bool,
        /// `.im2col::w` / `.im2col::w::128` (PTX ISA 8.6, sm_100a): `im2colInfo` is `{ wHalo,
        /// wOffset }`.
        wide: bool,
        /// `.tile::gather4` (PTX ISA 8.6, sm_100a): five coordinates of a 2D map.
        four_rows: bool,
        /// `.L2::cache_hint`.
        cache_hint: bool,
    },
    /// `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group{.read} N` (PTX ISA 9.0,
    /// cp.async.bulk.commit_group, cp.async.bulk.wait_group): nothing to wait for when copies
    /// complete as they are issued.
    CpAsyncBulkGroup {
        /// `.wait_group` (with `N`), else `.commit_group`.
        wait_group: bool,
    },
    /// `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [srcMem], size{, cache-policy}`
    /// (PTX ISA 9.0, cp.async.bulk.prefetch): a hint.
    CpAsyncBulkPrefetch {
        /// `.L2::cache_hint`.
        cache_hint: bool,
    },
    /// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`
    /// (9.7.9.25.3.2-4): nothing to wait for when copies complete as they are issued.
    CpAsyncGroup {
        /// `.wait_group` (with `N`).
        wait_group: bool,
    },
    /// `membar` / `fence` (all variants): an ordering point, nothing to compute for a
    /// sequential simulator.
    Fence,
    /// `prefetch`/`prefetchu` (PTX ISA 9.0, prefetch): a hint to bring `[a]` into a cache,
    /// nothing to compute for a simulator without caches.
    Prefetch,
    /// `discard{.global}.L2 [a], 128` and `applypriority{.global}.L2::evict_normal [a], 128`
    /// (PTX ISA 9.0, discard, applypriority): advice about a 128-byte line of the L2 cache.
    /// `discard` leaves the line's contents "undefined"; ptxsim keeps them (one of the values
    /// an undefined read may give).
    CacheAdvice,
    /// `createpolicy` (PTX ISA 9.0, createpolicy): makes the opaque 64-bit cache policy that
    /// `.L2::cache_hint` operands take.
    CreatePolicy(PolicyKind),
    /// `fence.proxy.tensormap::generic.acquire.scope [addr], size` (PTX ISA 9.0, fence: the
    /// acquire side of the uni-directional proxy fence names the tensor-map it orders, "size"
    /// 128): an ordering point like [`OpForm::Fence`], with two operands.
    FenceProxyAcquire,
    /// `bra{.uni}`.
    Bra,
    /// `call{.uni}`.
    Call,
    /// `ret{.uni}`.
    Ret,
    /// `exit`.
    Exit,
    /// `trap`.
    Trap,
    /// The extended-precision instructions (9.7.2): `add.cc`, `addc{.cc}`, `sub.cc`,
    /// `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`.
    Carry {
        /// The operation.
        op: CarryOp,
        /// The instruction type.
        ty: Type,
        /// `addc`/`subc`/`madc`: the condition code's carry flag is added.
        carry_in: bool,
        /// `.cc`: the carry-out is written to the condition code.
        carry_out: bool,
        /// Accepted by ptxas but outside the ISA's syntax (`addc.u16`, `addc.sat.s32`,
        /// `madc.hi.sat.s32`): checked, not run.
        off_spec: bool,
    },
    /// `bfind{.shiftamt}.type d, a` (9.7.1.16): `d` is `.u32`.
    Bfind {
        /// The instruction type (`.u32 .u64 .s32 .s64`).
        ty: Type,
        /// `.shiftamt`.
        shiftamt: bool,
    },
    /// `fns.b32 d, mask, base, offset` (9.7.1.17).
    Fns,
    /// `bmsk.mode.b32 d, a, b` (9.7.1.22).
    Bmsk {
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
    /// `szext.mode.type d, a, b` (9.7.1.21).
    Szext {
        /// `.u32` or `.s32`.
        ty: Type,
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
    /// The SIMD video instructions (9.7.18.2): `vop2`/`vop4.dtype.atype.btype{.sat}` and
    /// `.add` (vadd2.md, vadd4.md), `vset2`/`vset4.atype.btype.cmp{.add}` (vset2.md,
    /// vset4.md). The selectors and the mask are the operands'.
    VideoSimd {
        /// The operation.
        op: VideoOp,
        /// `vop4` (bytes) rather than `vop2` (half-words).
        quad: bool,
        /// `.dtype` is `.s32` (vset: "The intermediate result of the comparison is always
        /// unsigned").
        d_signed: bool,
        /// `.atype` is `.s32`.
        a_signed: bool,
        /// `.btype` is `.s32`.
        b_signed: bool,
        /// `.sat`.
        sat: bool,
        /// `.add`: the secondary accumulate operation rather than the SIMD merge.
        add: bool,
    },
    /// The scalar video instructions (9.7.18.1): `vop.dtype.atype.btype{.sat}{.op2}` (vadd.md),
    /// `vshl`/`vshr.dtype.atype.u32{.sat}.mode{.op2}` (vshl.md),
    /// `vmad.dtype.atype.btype{.po}{.sat}{.scale}` (vmad.md) and `vset.atype.btype.cmp{.op2}`
    /// (vset.md). The selectors and `vmad`'s negations are the operands'.
    VideoScalar {
        /// The operation.
        op: VideoScalarOp,
        /// `.dtype` is `.s32` (vset: "The intermediate result of the comparison is always
        /// unsigned").
        d_signed: bool,
        /// `.atype` is `.s32`.
        a_signed: bool,
        /// `.btype` is `.s32` (`vshl`/`vshr`: always `.u32`).
        b_signed: bool,
        /// `.sat`.
        sat: bool,
        /// `.op2`.
        secondary: Option<VideoSecondary>,
    },
    /// `dp4a.atype.btype d, a, b, c` (9.7.1.23) and `dp2a.mode.atype.btype` (9.7.1.24).
    Dot {
        /// `None` for `dp4a`; `Some(hi)` for `dp2a.lo` / `dp2a.hi`.
        dp2a: Option<bool>,
        /// `.atype` is `.s32`.
        a_signed: bool,
        /// `.btype` is `.s32`.
        b_signed: bool,
    },
    /// `testp.op.type p, a` (9.7.3.1); `None` for ptxas's `testp.type` without a property
    /// (checked, not run).
    Testp {
        /// The property.
        op: Option<TestpOp>,
        /// `.f32` or `.f64`.
        ty: Type,
    },
    /// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}` (9.7.6.1, and the half-precision
    /// forms of 9.7.4).
    Set {
        /// The comparison.
        compare: Compare,
        /// The combination with `c`, if any.
        combine: Option<BoolOp>,
        /// The destination type.
        dtype: Type,
        /// The operand type.
        stype: Type,
        /// `.ftz`.
        ftz: bool,
    },
    /// `nanosleep.u32 t` (9.7.19.2).
    Nanosleep,
    /// `griddepcontrol.action` (9.7.13.13): `.wait` ("wait until all prerequisite grids in
    /// flight have completed") or `.launch_dependents`.
    Griddepcontrol {
        /// `.wait` (else `.launch_dependents`).
        wait: bool,
    },
    /// `tex` (9.7.10.3) and `tld4` (9.7.10.4, [`crate::texture::TextureForm::gather`]):
    /// `d, [a, c]` with the `.level` operand `lod` or the `.grad` operands `dPdx, dPdy`.
    Tex(crate::texture::TextureForm),
    /// `txq{.level}.query.b32 d, [a]{, lod}` (9.7.10.5).
    Txq {
        /// The attribute asked for.
        query: crate::texture::TextureQuery,
        /// `.level`: the `lod` operand follows.
        level: bool,
    },
    /// `suld.b` (9.7.11.1): `d, [a, b]`.
    Suld(crate::texture::SurfaceForm),
    /// `sust.b` (9.7.11.2): `[a, b], c`.
    Sust(crate::texture::SurfaceForm),
    /// `sured.b` (9.7.11.3): `[a, b], c`.
    Sured(crate::texture::SurfaceReductionForm),
    /// `suq.query.b32 d, [a]` (9.7.11.4).
    Suq(crate::texture::SurfaceQuery),
    /// `mbarrier.*` (9.7.13.15) and `cp.async.mbarrier.arrive` (9.7.9.25.3.5) on a 64-bit
    /// mbarrier object in shared memory.
    Mbarrier {
        /// The operation.
        op: MbarrierOp,
        /// `.shared`/`.shared::cta` (else a generic address).
        shared: bool,
        /// `.shared::cluster` (`expect_tx`, `complete_tx`, `arrive` with a sink): the object
        /// may be in the shared memory of another CTA of the cluster.
        cluster: bool,
    },
    /// `mapa{.shared::cluster}.type d, a, b` (PTX ISA 9.0, mapa): "Get address in the CTA
    /// specified by operand b which corresponds to the address specified by operand a".
    Mapa {
        /// `.shared::cluster` (else generic addresses).
        cluster: bool,
        /// `.u32`, `.s32`, `.u64` or `.s64` (ptxas 13.5 takes the signed types too).
        ty: Type,
    },
    /// `getctarank{.shared::cluster}.type d, a` (PTX ISA 9.0, getctarank): "the rank of the CTA
    /// which contains the address specified in operand a"; `d` is always 32 bits.
    Getctarank {
        /// `.shared::cluster` (else a generic address).
        cluster: bool,
        /// The type of `a`: `.u32`, `.s32`, `.u64` or `.s64`.
        ty: Type,
    },
    /// `barrier.cluster.arrive{.sem}{.aligned}` / `barrier.cluster.wait{.acquire}{.aligned}`
    /// (PTX ISA 9.0, barrier.cluster): the cluster-wide barrier in two halves.
    BarrierCluster {
        /// `.arrive` (else `.wait`).
        arrive: bool,
        /// `.relaxed` on `.arrive` (PTX ISA 8.0): no memory ordering, the same in a
        /// sequential simulator.
        relaxed: bool,
        /// Whether a memory-ordering qualifier (`.release`, `.relaxed`, `.acquire`) is written:
        /// each needs PTX ISA 8.0 (ptxas 13.5: "Modifier '.release' on
        /// 'barrier.cluster.arrive' requires PTX ISA .version 8.0 or later").
        ordered: bool,
    },
    /// `setmaxnreg.action.sync.aligned.u32 imm-reg-count` (PTX ISA 9.0, setmaxnreg): "a hint
    /// to the system to update the maximum number of per-thread registers owned by the
    /// executing warp"; a simulator has no register file to resize.
    Setmaxnreg {
        /// `.inc` (else `.dec`).
        inc: bool,
    },
    /// `isspacep.space p, a` (PTX ISA 9.0, isspacep): whether generic address `a` falls in the
    /// window of `.space` (`.const`, `.global`, `.local`, `.shared{::cta, ::cluster}`,
    /// `.param{::entry}`).
    Isspacep {
        /// The space asked about.
        space: Space,
    },
}

/// Decodes the modifiers (without dots, in source order) of a non-conversion instruction.
///
/// Covers `add sub mul mad div rem abs neg min max` (integer, bit, predicate and floating
/// point), `fma rcp sqrt`, `and or xor not cnot popc clz brev shl shr`, `setp selp prmt lop3
/// bfe bfi`, `ld ldu st cvta atom red`, `bar` (`bar{.cta}.sync{.aligned}` only), `membar` /
/// `fence` (any modifiers), `bra ret call` (`.uni`), `exit` and `trap`. Any other opcode is
/// [`DecodeErrorKind::UnsupportedInstruction`].
///
/// Rules applied here (PTX ISA 9.1 sections of each opcode):
/// * every instruction except the control-flow and barrier ones needs exactly one type
///   ([`DecodeErrorKind::MissingType`], [`DecodeErrorKind::ExtraType`]); a type outside the
///   instruction's syntax block is [`DecodeErrorKind::UnsupportedTypes`];
/// * floating-point `add`/`sub`/`mul`/`fma`/`mad` without a rounding modifier round `.rn`;
///   `div`, `rcp` and `sqrt` on `.f32`/`.f64` need `.approx`, `.full` (div only) or a
///   rounding (9.7.3.8: "`div.f32` and `div.f64` require a rounding modifier"), reported as
///   [`DecodeErrorKind::UnsupportedTypes`] on the type;
/// * integer `mul`/`mad` need `.lo`, `.hi` or `.wide` (9.7.1.3 syntax `mul.mode.type`, "`.mode
///   = { .hi, .lo, .wide }`"; ptxas rejects the bare form), reported the same way;
/// * `.ftz` is not allowed on `.f64` or `.bf16`/`.bf16x2`, `.sat` only on `add`/`sub` `.s32`,
///   `mad.hi.s32` and the `.f32`/`.f16`/`.f16x2` arithmetic;
/// * memory-ordering (`.weak .volatile .relaxed .acquire .release .acq_rel .mmio`), scope
///   (`.cta .cluster .gpu .sys`), cache-operator (`.ca .cg .cs .lu .cv .wb .wt .nc`) and
///   eviction / prefetch hints (`.L1::…`, `.L2::…`) of memory instructions are accepted and
///   ignored: a sequential simulator has nothing to do with them.
///
/// A modifier that does not belong to the instruction is [`DecodeErrorKind::UnknownModifier`]
/// with its index; two of one group (two roundings) [`DecodeErrorKind::ConflictingModifier`];
/// the same one twice [`DecodeErrorKind::DuplicateModifier`].
/// The modifiers an `.f32` instruction of a `.target sm_1x` module has when CUDA compiles it
/// for the device (sm_20 or later), or `None` when they stay as written. Every such instruction
/// flushes: "sm_1x: `add.f32` flushes subnormal inputs and results to sign-preserving zero"
/// (the same note in 9.7.3 for `sub`, `mul`, `mad`, `div`, `abs`, `neg`, `min`, `max`, `setp`,
/// `rcp`, `sqrt`), so `.ftz` is added; and `mad.f32` without a rounding modifier (the `sm_1x`
/// form, `mad{.ftz}{.sat}.f32`) is `mad.rn.ftz.f32`: "When JIT-compiled for SM 2.0 devices,
/// `mad.f32` is implemented as a fused multiply-add (i.e., `fma.rn.ftz.f32`)" (9.7.3.7).
/// ptxas 13.5 agrees: `-arch sm_90` compiles a `.version 1.4`, `.target sm_10` module's
/// `mad.f32`, `mul.f32`, `add.f32`, `min.f32`, `abs.f32`, `setp.lt.f32` to `FFMA.FTZ`,
/// `FMUL.FTZ`, `FADD.FTZ`, `FMNMX.FTZ`, `FADD.FTZ |a|, -RZ`, `FSETP.GEU.FTZ` (nvdisasm), and
/// the same module for `.target sm_50` to the forms without `.FTZ`.
pub fn sm_1x_modifiers<'a>(opcode: &str, modifiers: &[&'a str]) -> Option<Vec<&'a str>> {
    const FLUSHING: [&str; 12] = [
        "add", "sub", "mul", "mad", "div", "abs", "neg", "min", "max", "setp", "rcp", "sqrt",
    ];
    if !FLUSHING.contains(&opcode) || !modifiers.contains(&"f32") {
        return None;
    }
    let mut adjusted = modifiers.to_vec();
    if !adjusted.contains(&"ftz") {
        adjusted.insert(0, "ftz");
    }
    let rounded = adjusted
        .iter()
        .any(|m| matches!(*m, "rn" | "rz" | "rm" | "rp"));
    if opcode == "mad" && !rounded {
        adjusted.insert(0, "rn");
    }
    (adjusted.len() != modifiers.len()).then_some(adjusted)
}

/// The narrow type of a mixed-precision `add`, `sub` or `fma` (PTX ISA 8.6, 9.7.5): the types
/// are `.f32` then `.f16` or `.bf16` (ptxas 13.5 rejects the other order: "Unexpected
/// instruction types specified for 'add'").
#[must_use]
pub fn mixed_precision_type(modifiers: &[&str]) -> Option<Type> {
    let mut types = modifiers.iter().filter(|m| Type::from_name(m).is_some());
    match (types.next(), types.next(), types.next()) {
        (Some(&"f32"), Some(&"f16"), None) => Some(Type::F16),
        (Some(&"f32"), Some(&"bf16"), None) => Some(Type::Bf16),
        _ => None,
    }
}

pub fn decode_op(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    match opcode {
        // `add`/`sub`/`mul`/`fma` `.f32x2` (PTX ISA 8.6, sm_100: "operands d, a and b have
        // .b64 type") are checked by their Syntax-block forms (`crate::syntax::forms`).
        Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma if modifiers.contains(&"f32x2") => {
            Err(DecodeError::new(
                DecodeErrorKind::UnsupportedInstruction(opcode),
                None,
                "checked by its Syntax-block forms",
            ))
        }
        // `add`/`sub{.rnd}{.sat}.f32.atype` and `fma.rnd{.sat}.f32.abtype` with `.atype =
        // { .f16, .bf16 }` (mixed precision, PTX ISA 8.6, sm_100) are checked by their
        // Syntax-block forms too (the program builder makes their instruction kind).
        Opcode::Add | Opcode::Sub | Opcode::Fma if mixed_precision_type(modifiers).is_some() => {
            Err(DecodeError::new(
                DecodeErrorKind::UnsupportedInstruction(opcode),
                None,
                "mixed-precision arithmetic (.f32 with .f16/.bf16) is checked by its Syntax-block \
                 forms",
            ))
        }
        Opcode::Add => decode_add_sub(opcode, IntOp::Add, FloatOp::Add, modifiers),
        Opcode::Sub => decode_add_sub(opcode, IntOp::Sub, FloatOp::Sub, modifiers),
        Opcode::Mul => decode_mul(modifiers),
        Opcode::Mad => decode_mad(modifiers),
        Opcode::Div => decode_div(modifiers),
        Opcode::Rem => {
            let c = collect(opcode, modifiers, |_| None)?;
            let ty = c.single_type(opcode, INTEGER_TYPES)?;
            Ok(int_binary(IntOp::Rem, ty))
        }
        Opcode::Min => decode_min_max(opcode, IntOp::Min, FloatOp::Min, modifiers),
        Opcode::Max => decode_min_max(opcode, IntOp::Max, FloatOp::Max, modifiers),
        Opcode::Abs => decode_abs_neg(opcode, IntUnaryOp::Abs, FloatUnaryOp::Abs, modifiers),
        Opcode::Neg => decode_abs_neg(opcode, IntUnaryOp::Neg, FloatUnaryOp::Neg, modifiers),
        Opcode::Fma => decode_fma(opcode, modifiers),
        Opcode::Rcp => decode_rcp_sqrt(opcode, FloatUnaryOp::Rcp, modifiers),
        Opcode::Sqrt => decode_rcp_sqrt(opcode, FloatUnaryOp::Sqrt, modifiers),
        Opcode::And => logic_binary(opcode, IntOp::And, modifiers, LOGIC_TYPES),
        Opcode::Or => logic_binary(opcode, IntOp::Or, modifiers, LOGIC_TYPES),
        Opcode::Xor => logic_binary(opcode, IntOp::Xor, modifiers, LOGIC_TYPES),
        Opcode::Shl => logic_binary(opcode, IntOp::Shl, modifiers, BIT_TYPES),
        Opcode::Shr => logic_binary(opcode, IntOp::Shr, modifiers, SHR_TYPES),
        Opcode::Not => logic_unary(opcode, IntUnaryOp::Not, modifiers, LOGIC_TYPES),
        Opcode::Cnot => logic_unary(opcode, IntUnaryOp::Cnot, modifiers, BIT_TYPES),
        Opcode::Popc => logic_unary(opcode, IntUnaryOp::Popc, modifiers, B32_B64),
        Opcode::Clz => logic_unary(opcode, IntUnaryOp::Clz, modifiers, B32_B64),
        Opcode::Brev => logic_unary(opcode, IntUnaryOp::Brev, modifiers, B32_B64),
        Opcode::Setp => decode_setp(modifiers),
        Opcode::Selp => {
            let c = collect(opcode, modifiers, |_| None)?;
            let ty = c.single_type(opcode, SELP_TYPES)?;
            Ok(OpForm::Selp { ty })
        }
        Opcode::Prmt => {
            let c = collect(opcode, modifiers, |m| prmt_mode(m).map(Modifier::Prmt))?;
            c.single_type(opcode, &[Type::B32])?;
            Ok(OpForm::Prmt {
                mode: c.prmt.map_or(PrmtMode::Default, |p| p.value),
            })
        }
        Opcode::Lop3 => {
            // `.BoolOp = { .or, .and }` (ptxas 13.5: "Unknown modifier '.xor'").
            let c = collect(opcode, modifiers, |m| match m {
                "or" => Some(Modifier::Bool(BoolOp::Or)),
                "and" => Some(Modifier::Bool(BoolOp::And)),
                _ => None,
            })?;
            c.single_type(opcode, &[Type::B32])?;
            Ok(OpForm::Lop3 {
                bool_op: c.boolop.map(|b| b.value),
            })
        }
        Opcode::Bfe => {
            let c = collect(opcode, modifiers, |_| None)?;
            let ty = c.single_type(opcode, BFE_TYPES)?;
            Ok(OpForm::Bfe { ty })
        }
        Opcode::Bfi => {
            let c = collect(opcode, modifiers, |_| None)?;
            let ty = c.single_type(opcode, B32_B64)?;
            Ok(OpForm::Bfi { ty })
        }
        Opcode::Mul24 => decode_24(opcode, modifiers),
        Opcode::Mad24 => decode_24(opcode, modifiers),
        Opcode::Sad => {
            let c = collect(opcode, modifiers, |_| None)?;
            let ty = c.single_type(opcode, INTEGER_TYPES)?;
            Ok(OpForm::IntTernary {
                op: IntTernaryOp::Sad,
                ty,
            })
        }
        Opcode::Shf => decode_shf(modifiers),
        Opcode::Shfl => decode_shfl(modifiers),
        Opcode::Slct => decode_slct(modifiers),
        // `st.async`, `st.bulk` and `red.async` have Syntax blocks of their own (PTX ISA
        // 9.7.9.12, 9.7.9.13, 9.7.13.7): their forms are checked as data
        // (`crate::syntax::forms`), and the program builder lowers them.
        Opcode::St | Opcode::Red
            if matches!(modifiers.first(), Some(&"async"))
                || (opcode == Opcode::St && modifiers.first() == Some(&"bulk")) =>
        {
            Err(DecodeError::new(
                DecodeErrorKind::UnsupportedInstruction(opcode),
                None,
                "checked by its Syntax-block forms",
            ))
        }
        Opcode::Ld | Opcode::Ldu | Opcode::St => decode_ld_st(opcode, modifiers),
        Opcode::Cvta => decode_cvta(modifiers),
        Opcode::Atom => decode_atom(opcode, false, modifiers),
        Opcode::Red => decode_atom(opcode, true, modifiers),
        Opcode::Bar if modifiers.first() == Some(&"warp") => decode_bar_warp(modifiers),
        Opcode::Barrier if modifiers.first() == Some(&"cluster") => {
            decode_barrier_cluster(modifiers)
        }
        Opcode::Bar | Opcode::Barrier => decode_bar(opcode, modifiers),
        Opcode::Vote => decode_vote(modifiers),
        Opcode::Activemask => {
            let c = collect(opcode, modifiers, |_| None)?;
            c.single_type(opcode, &[Type::B32])?;
            Ok(OpForm::Activemask)
        }
        Opcode::Redux => decode_redux(modifiers),
        Opcode::Mma => crate::mma::decode_mma(modifiers).map(OpForm::Mma),
        Opcode::Ldmatrix => crate::matrix::decode_matrix(opcode, modifiers).map(OpForm::Ldmatrix),
        Opcode::Stmatrix => crate::matrix::decode_matrix(opcode, modifiers).map(OpForm::Stmatrix),
        Opcode::Movmatrix => {
            crate::matrix::decode_matrix(opcode, modifiers).map(|_| OpForm::Movmatrix)
        }
        Opcode::Wmma => crate::wmma::decode_wmma(modifiers).map(OpForm::Wmma),
        Opcode::Cp => decode_cp(modifiers),
        Opcode::Wgmma => crate::wgmma::decode_wgmma(modifiers).map(OpForm::Wgmma),
        Opcode::Match => decode_match(modifiers),
        Opcode::Elect => {
            let c = collect(opcode, modifiers, |m| {
                (m == "sync").then_some(Modifier::Sync)
            })?;
            if let Some(ty) = c.ty {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnknownModifier,
                    Some(ty.index),
                    "elect takes no type",
                ));
            }
            require_sync(opcode, &c)?;
            Ok(OpForm::Elect)
        }
        // 9.7.13.4: every `membar.level` / `fence{.sem}{.scope}` (and the proxy forms) is an
        // ordering point only; a sequential simulator has nothing to order.
        Opcode::Membar => decode_membar(modifiers),
        Opcode::Fence => decode_fence(modifiers),
        Opcode::Prefetch | Opcode::Prefetchu => decode_prefetch(opcode, modifiers),
        Opcode::Discard | Opcode::Applypriority => decode_cache_advice(opcode, modifiers),
        Opcode::Createpolicy => decode_createpolicy(modifiers),
        Opcode::Bra => control(opcode, modifiers, OpForm::Bra, true),
        Opcode::Call => control(opcode, modifiers, OpForm::Call, true),
        Opcode::Ret => control(opcode, modifiers, OpForm::Ret, true),
        Opcode::Exit => control(opcode, modifiers, OpForm::Exit, false),
        Opcode::Trap => control(opcode, modifiers, OpForm::Trap, false),
        Opcode::Rsqrt => decode_approx(opcode, FloatUnaryOp::Rsqrt, modifiers),
        Opcode::Sin => decode_approx(opcode, FloatUnaryOp::Sin, modifiers),
        Opcode::Cos => decode_approx(opcode, FloatUnaryOp::Cos, modifiers),
        Opcode::Lg2 => decode_approx(opcode, FloatUnaryOp::Lg2, modifiers),
        Opcode::Ex2 => decode_approx(opcode, FloatUnaryOp::Ex2, modifiers),
        Opcode::Tanh => decode_approx(opcode, FloatUnaryOp::Tanh, modifiers),
        Opcode::Addc => decode_carry(opcode, CarryOp::Add, modifiers),
        Opcode::Subc => decode_carry(opcode, CarryOp::Sub, modifiers),
        Opcode::Madc => decode_carry(opcode, CarryOp::Mad { hi: false }, modifiers),
        Opcode::Bfind => {
            let c = collect(opcode, modifiers, |m| {
                (m == "shiftamt").then_some(Modifier::Shiftamt)
            })?;
            let ty = c.single_type(opcode, &[Type::U32, Type::U64, Type::S32, Type::S64])?;
            Ok(OpForm::Bfind {
                ty,
                shiftamt: c.shiftamt.is_some(),
            })
        }
        Opcode::Fns => {
            let c = collect(opcode, modifiers, |_| None)?;
            c.single_type(opcode, &[Type::B32])?;
            Ok(OpForm::Fns)
        }
        Opcode::Bmsk => {
            let c = collect(opcode, modifiers, clamp_mode)?;
            c.single_type(opcode, &[Type::B32])?;
            Ok(OpForm::Bmsk {
                clamp: require_clamp_mode(opcode, &c)?,
            })
        }
        Opcode::Szext => {
            let c = collect(opcode, modifiers, clamp_mode)?;
            let ty = c.single_type(opcode, &[Type::U32, Type::S32])?;
            Ok(OpForm::Szext {
                ty,
                clamp: require_clamp_mode(opcode, &c)?,
            })
        }
        Opcode::Dp4a | Opcode::Dp2a => decode_dot(opcode, modifiers),
        Opcode::Vadd2
        | Opcode::Vadd4
        | Opcode::Vsub2
        | Opcode::Vsub4
        | Opcode::Vavrg2
        | Opcode::Vavrg4
        | Opcode::Vabsdiff2
        | Opcode::Vabsdiff4
        | Opcode::Vmin2
        | Opcode::Vmin4
        | Opcode::Vmax2
        | Opcode::Vmax4
        | Opcode::Vset2
        | Opcode::Vset4 => decode_video_simd(opcode, modifiers),
        Opcode::Vadd
        | Opcode::Vsub
        | Opcode::Vabsdiff
        | Opcode::Vmin
        | Opcode::Vmax
        | Opcode::Vshl
        | Opcode::Vshr
        | Opcode::Vmad
        | Opcode::Vset => decode_video_scalar(opcode, modifiers),
        Opcode::Copysign => {
            let c = collect(opcode, modifiers, |_| None)?;
            let ty = c.single_type(opcode, &[Type::F32, Type::F64])?;
            Ok(OpForm::FloatBinary {
                op: FloatOp::Copysign,
                ty,
                modifiers: FloatModifiers::RN,
            })
        }
        Opcode::Testp => {
            let c = collect(opcode, modifiers, |m| testp_op(m).map(Modifier::Testp))?;
            let ty = c.single_type(opcode, &[Type::F32, Type::F64])?;
            Ok(OpForm::Testp {
                op: c.testp.map(|t| t.value),
                ty,
            })
        }
        Opcode::Set => decode_set(modifiers),
        Opcode::Mbarrier => decode_mbarrier(modifiers),
        Opcode::Griddepcontrol => decode_griddepcontrol(modifiers),
        Opcode::Mapa | Opcode::Getctarank => decode_mapa(opcode, modifiers),
        Opcode::Isspacep => decode_isspacep(modifiers),
        Opcode::Setmaxnreg => decode_setmaxnreg(modifiers),
        Opcode::Nanosleep => {
            let c = collect(opcode, modifiers, |_| None)?;
            c.single_type(opcode, &[Type::U32])?;
            Ok(OpForm::Nanosleep)
        }
        Opcode::Tensormap => decode_tensormap(modifiers),
        Opcode::Tex => crate::texture::decode_tex(modifiers).map(OpForm::Tex),
        Opcode::Tld4 => crate::texture::decode_tld4(modifiers).map(OpForm::Tex),
        Opcode::Txq => {
            crate::texture::decode_txq(modifiers).map(|(query, level)| OpForm::Txq { query, level })
        }
        Opcode::Suld => crate::texture::decode_surface(modifiers, false).map(OpForm::Suld),
        Opcode::Sust => crate::texture::decode_surface(modifiers, true).map(OpForm::Sust),
        Opcode::Sured => crate::texture::decode_sured(modifiers).map(OpForm::Sured),
        Opcode::Suq => crate::texture::decode_suq(modifiers).map(OpForm::Suq),
        Opcode::Mov
        | Opcode::Cvt
        | Opcode::Alloca
        | Opcode::Brkpt
        | Opcode::Brx
        | Opcode::Clusterlaunchcontrol
        | Opcode::Istypep
        | Opcode::Multimem
        | Opcode::Pmevent
        | Opcode::Stackrestore
        | Opcode::Stacksave
        | Opcode::Tcgen05 => Err(DecodeError::new(
            DecodeErrorKind::UnsupportedInstruction(opcode),
            None,
            "not supported by ptxsim yet (the instruction table knows its name only)",
        )),
    }
}

const INTEGER_TYPES: &[Type] = &[
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
];
/// `.u16x2`, `.s16x2`: two 16-bit integers in a `.b32` (add, min, max; PTX ISA 8.0).
const HALF_INTEGER_TYPES: &[Type] = &[Type::U16x2, Type::S16x2];
/// The types of add, sub, min and max: integers, floating point, the packed 16-bit integers.
const ARITHMETIC_TYPES: &[Type] = &[
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
    Type::F16,
    Type::F16x2,
    Type::Bf16,
    Type::Bf16x2,
    Type::U16x2,
    Type::S16x2,
];
const FLOAT_TYPES: &[Type] = &[
    Type::F32,
    Type::F64,
    Type::F16,
    Type::F16x2,
    Type::Bf16,
    Type::Bf16x2,
];
const LOGIC_TYPES: &[Type] = &[Type::B16, Type::B32, Type::B64, Type::Pred];
const BIT_TYPES: &[Type] = &[Type::B16, Type::B32, Type::B64];
const B32_B64: &[Type] = &[Type::B32, Type::B64];
const SHR_TYPES: &[Type] = &[
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
];
const BFE_TYPES: &[Type] = &[Type::U32, Type::U64, Type::S32, Type::S64];
const SELP_TYPES: &[Type] = &[
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
];
const SETP_TYPES: &[Type] = &[
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
    Type::F16,
    Type::F16x2,
    Type::Bf16,
    Type::Bf16x2,
];
const MEMORY_TYPES: &[Type] = &[
    Type::B8,
    Type::B16,
    Type::B32,
    Type::B64,
    Type::B128,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::U64,
    Type::S8,
    Type::S16,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
];
const ATOM_TYPES: &[Type] = &[
    Type::B16,
    Type::B32,
    Type::B64,
    Type::U32,
    Type::U64,
    Type::S32,
    Type::S64,
    Type::F32,
    Type::F64,
    Type::F16,
    Type::F16x2,
    Type::Bf16,
    Type::Bf16x2,
    Type::B128,
];

/// What one modifier means for the opcode being decoded.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Modifier {
    Type(Type),
    Rounding(Rounding),
    Ftz,
    Sat,
    Relu,
    Approx,
    Full,
    Nan,
    Noftz,
    Mul(MulMode),
    Compare(Compare),
    Bool(BoolOp),
    Space(Space),
    Vector(u8),
    To,
    Atom(AtomOp),
    Prmt(PrmtMode),
    Sync,
    Cta,
    Aligned,
    Cc,
    Oob,
    Shiftamt,
    Clamp(bool),
    Testp(TestpOp),
    /// A memory-ordering, scope or cache hint without effect in a sequential simulator.
    Ignored,
}

/// The modifiers of one instruction, each with the index it was written at.
#[derive(Debug, Default)]
struct Collected {
    ty: Option<Indexed<Type>>,
    rounding: Option<Indexed<Rounding>>,
    ftz: Option<usize>,
    sat: Option<usize>,
    relu: Option<usize>,
    approx: Option<usize>,
    full: Option<usize>,
    nan: Option<usize>,
    noftz: Option<usize>,
    mul: Option<Indexed<MulMode>>,
    compare: Option<Indexed<Compare>>,
    boolop: Option<Indexed<BoolOp>>,
    space: Option<Indexed<Space>>,
    vector: Option<Indexed<u8>>,
    to: Option<usize>,
    atom: Option<Indexed<AtomOp>>,
    prmt: Option<Indexed<PrmtMode>>,
    sync: Option<usize>,
    cta: Option<usize>,
    aligned: Option<usize>,
    cc: Option<usize>,
    oob: Option<usize>,
    shiftamt: Option<usize>,
    clamp: Option<Indexed<bool>>,
    testp: Option<Indexed<TestpOp>>,
    /// A second type (`dp4a.atype.btype`, `set.dtype.stype`), in source order.
    second_ty: Option<Indexed<Type>>,
}

fn set_flag(slot: &mut Option<usize>, index: usize, name: &str) -> Result<(), DecodeError> {
    if slot.is_some() {
        return Err(DecodeError::new(
            DecodeErrorKind::DuplicateModifier,
            Some(index),
            format!(".{name} is written twice"),
        ));
    }
    *slot = Some(index);
    Ok(())
}

fn set_value<T: PartialEq + Copy>(
    slot: &mut Option<Indexed<T>>,
    value: T,
    index: usize,
    name: &str,
    group: &str,
) -> Result<(), DecodeError> {
    match slot {
        Some(old) if old.value == value => Err(DecodeError::new(
            DecodeErrorKind::DuplicateModifier,
            Some(index),
            format!(".{name} is written twice"),
        )),
        Some(_) => Err(DecodeError::new(
            DecodeErrorKind::ConflictingModifier,
            Some(index),
            format!(".{name} is a second {group}; only one is allowed"),
        )),
        None => {
            *slot = Some(Indexed { value, index });
            Ok(())
        }
    }
}

/// Classifies every modifier with `classify` (types are recognised for every opcode) and
/// gathers them, rejecting unknown, duplicate and conflicting ones.
fn collect(
    opcode: Opcode,
    modifiers: &[&str],
    classify: impl Fn(&str) -> Option<Modifier>,
) -> Result<Collected, DecodeError> {
    collect_with(opcode, modifiers, classify, false)
}

/// [`collect`] for the instructions with two type modifiers (`dp4a.atype.btype`,
/// `set.dtype.stype`): the second lands in [`Collected::second_ty`].
fn collect_two_types(
    opcode: Opcode,
    modifiers: &[&str],
    classify: impl Fn(&str) -> Option<Modifier>,
) -> Result<Collected, DecodeError> {
    collect_with(opcode, modifiers, classify, true)
}

fn collect_with(
    opcode: Opcode,
    modifiers: &[&str],
    classify: impl Fn(&str) -> Option<Modifier>,
    two_types: bool,
) -> Result<Collected, DecodeError> {
    let mut c = Collected::default();
    for (index, &name) in modifiers.iter().enumerate() {
        let Some(modifier) = classify(name).or_else(|| Type::from_name(name).map(Modifier::Type))
        else {
            return Err(not_a_modifier(index, name, opcode));
        };
        match modifier {
            Modifier::Type(ty) => {
                if two_types && c.ty.is_some() && c.second_ty.is_none() {
                    c.second_ty = Some(Indexed { value: ty, index });
                    continue;
                }
                if c.ty.is_some() {
                    return Err(DecodeError::new(
                        DecodeErrorKind::ExtraType,
                        Some(index),
                        format!("{opcode} takes one type; .{name} is a second one"),
                    ));
                }
                c.ty = Some(Indexed { value: ty, index });
            }
            Modifier::Rounding(r) => set_value(&mut c.rounding, r, index, name, "rounding")?,
            Modifier::Ftz => set_flag(&mut c.ftz, index, name)?,
            Modifier::Sat => set_flag(&mut c.sat, index, name)?,
            Modifier::Relu => set_flag(&mut c.relu, index, name)?,
            Modifier::Approx => set_flag(&mut c.approx, index, name)?,
            Modifier::Full => set_flag(&mut c.full, index, name)?,
            Modifier::Nan => set_flag(&mut c.nan, index, name)?,
            Modifier::Noftz => set_flag(&mut c.noftz, index, name)?,
            // `.hi`/`.lo`/`.wide` come first (`mul.mode.type`, `mad24.mode{.sat}.type`,
            // `dp2a.mode.atype.btype`, `madc{.hi,.lo}{.cc}.type`), as ptxas 13.5 reads them:
            // "Unexpected instruction types specified for 'mul'" for `mul.u32.hi`, "Not a name
            // of any known instruction: 'mul24'" for `mul24.u32.lo`, "'.hi/.lo' modifier
            // required for instruction 'dp2a'" for `dp2a.u32.lo.u32`.
            Modifier::Mul(_) if index != 0 => {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnknownModifier,
                    Some(index),
                    format!(".{name} comes first: {opcode}.{name}"),
                ));
            }
            Modifier::Mul(m) => set_value(&mut c.mul, m, index, name, "mode")?,
            Modifier::Compare(m) => set_value(&mut c.compare, m, index, name, "comparison")?,
            Modifier::Bool(m) => set_value(&mut c.boolop, m, index, name, "boolean operation")?,
            Modifier::Space(m) => set_value(&mut c.space, m, index, name, "state space")?,
            Modifier::Vector(m) => set_value(&mut c.vector, m, index, name, "vector size")?,
            Modifier::To => set_flag(&mut c.to, index, name)?,
            Modifier::Atom(m) => set_value(&mut c.atom, m, index, name, "operation")?,
            Modifier::Prmt(m) => set_value(&mut c.prmt, m, index, name, "mode")?,
            Modifier::Sync => set_flag(&mut c.sync, index, name)?,
            Modifier::Cta => set_flag(&mut c.cta, index, name)?,
            Modifier::Aligned => set_flag(&mut c.aligned, index, name)?,
            Modifier::Cc => set_flag(&mut c.cc, index, name)?,
            Modifier::Oob => set_flag(&mut c.oob, index, name)?,
            Modifier::Shiftamt => set_flag(&mut c.shiftamt, index, name)?,
            Modifier::Clamp(m) => set_value(&mut c.clamp, m, index, name, "mode")?,
            Modifier::Testp(m) => set_value(&mut c.testp, m, index, name, "property")?,
            // A repeated hint, scope or ordering (`.ca.ca`, `.gpu.gpu`, `.xorsign.xorsign`):
            // ptxas 13.5 rejects each ("Multiple cache operation modifiers specified",
            // "Multiple scope modifiers specified", "Multiple .xorsign modifiers specified");
            // the repeats it accepts were folded before (`crate::form::REPEATABLE_FLAGS`).
            Modifier::Ignored if modifiers[..index].contains(&name) => {
                return Err(DecodeError::new(
                    DecodeErrorKind::DuplicateModifier,
                    Some(index),
                    format!(".{name} is written twice"),
                ));
            }
            Modifier::Ignored => {}
        }
    }
    Ok(c)
}

impl Collected {
    /// The one type, which must be in `allowed`.
    fn single_type(&self, opcode: Opcode, allowed: &[Type]) -> Result<Type, DecodeError> {
        let Some(ty) = self.ty else {
            return Err(DecodeError::new(
                DecodeErrorKind::MissingType,
                None,
                format!("{opcode} needs a type modifier"),
            ));
        };
        if !allowed.contains(&ty.value) {
            let names: Vec<String> = allowed.iter().map(|t| t.to_string()).collect();
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(ty.index),
                format!(
                    "{opcode} does not take {}; its types are {}",
                    ty.value,
                    names.join(", ")
                ),
            ));
        }
        Ok(ty.value)
    }

    /// The floating-point modifiers (rounding `.rn` when none is written).
    fn float_modifiers(&self) -> FloatModifiers {
        FloatModifiers {
            rounding: self.rounding.map_or(Rounding::Rn, |r| r.value),
            ftz: self.ftz.is_some(),
            sat: self.sat.is_some(),
            relu: self.relu.is_some(),
            approx: self.approx.is_some() || self.full.is_some(),
            full: self.full.is_some(),
            nan: self.nan.is_some(),
            oob: self.oob.is_some(),
            xorsign_abs: false,
        }
    }
}
/// Rejects a modifier that was written but is not allowed with the instruction's type.
fn forbid(
    index: Option<usize>,
    modifiers: &[&str],
    ty: Type,
    opcode: Opcode,
) -> Result<(), DecodeError> {
    match index {
        Some(index) => Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index),
            format!(
                ".{} is not a modifier of {opcode}{ty}",
                modifiers.get(index).copied().unwrap_or("")
            ),
        )),
        None => Ok(()),
    }
}

/// `rn`, `rz`, `rm`, `rp`: the [`Rounding::FLOAT`] modes, the only ones floating-point
/// arithmetic takes (PTX ISA 9.7.3).
fn float_rounding(m: &str) -> Option<Rounding> {
    Rounding::FLOAT.iter().copied().find(|r| r.name() == m)
}

/// The modifiers of floating-point arithmetic: rounding, `.ftz`, `.sat`, `.relu`.
fn float_arith(m: &str) -> Option<Modifier> {
    if let Some(r) = float_rounding(m) {
        return Some(Modifier::Rounding(r));
    }
    Some(match m {
        "ftz" => Modifier::Ftz,
        "sat" => Modifier::Sat,
        _ => return None,
    })
}

fn mul_mode(m: &str) -> Option<MulMode> {
    Some(match m {
        "lo" => MulMode::Lo,
        "hi" => MulMode::Hi,
        "wide" => MulMode::Wide,
        _ => return None,
    })
}

fn prmt_mode(m: &str) -> Option<PrmtMode> {
    Some(match m {
        "f4e" => PrmtMode::F4e,
        "b4e" => PrmtMode::B4e,
        "rc8" => PrmtMode::Rc8,
        "ecl" => PrmtMode::Ecl,
        "ecr" => PrmtMode::Ecr,
        "rc16" => PrmtMode::Rc16,
        _ => return None,
    })
}

fn int_binary(op: IntOp, ty: Type) -> OpForm {
    OpForm::IntBinary {
        op,
        ty,
        sat: false,
        relu: false,
    }
}

/// Whether `.ftz` exists for this floating-point type (9.7.3 `.f32`; 9.7.4 `.f16`/`.f16x2`;
/// `.f64` and the `.bf16` forms have none).
fn ftz_allowed(ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F16 | Type::F16x2)
}

/// Whether `.sat` exists on floating-point arithmetic of this type.
fn sat_allowed(ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F16 | Type::F16x2)
}

/// Checks `.ftz`/`.sat` against a floating-point type.
fn check_float_flags(
    c: &Collected,
    modifiers: &[&str],
    ty: Type,
    opcode: Opcode,
) -> Result<(), DecodeError> {
    if !ftz_allowed(ty) {
        forbid(c.ftz, modifiers, ty, opcode)?;
    }
    if !sat_allowed(ty) {
        forbid(c.sat, modifiers, ty, opcode)?;
    }
    Ok(())
}

/// `add`/`sub` (9.7.1.1, 9.7.1.2, 9.7.3.1, 9.7.3.2, 9.7.4.1, 9.7.4.2): `add{.sat}.s32`,
/// `add.type` on integers, `add{.rnd}{.ftz}{.sat}.f32`, `add{.rnd}.f64`, half forms.
fn decode_add_sub(
    opcode: Opcode,
    int_op: IntOp,
    float_op: FloatOp,
    modifiers: &[&str],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| {
        (m == "cc")
            .then_some(Modifier::Cc)
            .or_else(|| float_arith(m))
    })?;
    let ty = c.single_type(opcode, ARITHMETIC_TYPES)?;
    if HALF_INTEGER_TYPES.contains(&ty) {
        // 9.7.1.1: `add.u16x2`, `add.s16x2` (no `.sat`; sm_90, PTX ISA 8.0); `sub` has none.
        if int_op != IntOp::Add {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                c.ty.map(|t| t.index),
                format!("{opcode} does not take {ty} (only add, min and max do)"),
            ));
        }
        forbid(c.rounding.map(|r| r.index), modifiers, ty, opcode)?;
        forbid(c.ftz.or(c.sat).or(c.cc), modifiers, ty, opcode)?;
        return Ok(int_binary(int_op, ty));
    }
    if ty.is_integer() {
        forbid(c.rounding.map(|r| r.index), modifiers, ty, opcode)?;
        forbid(c.ftz, modifiers, ty, opcode)?;
        if let Some(cc) = c.cc {
            // 9.7.2.1-2: `add.cc.type` / `sub.cc.type`, `.type = { .u32, .s32, .u64, .s64 }`.
            if !matches!(ty, Type::U32 | Type::S32 | Type::U64 | Type::S64) {
                forbid(Some(cc), modifiers, ty, opcode)?;
            }
            forbid(c.sat, modifiers, ty, opcode)?;
            let _ = cc;
            return Ok(OpForm::Carry {
                op: if int_op == IntOp::Add {
                    CarryOp::Add
                } else {
                    CarryOp::Sub
                },
                ty,
                carry_in: false,
                carry_out: true,
                off_spec: false,
            });
        }
        if ty != Type::S32 {
            forbid(c.sat, modifiers, ty, opcode)?;
        }
        return Ok(OpForm::IntBinary {
            op: int_op,
            ty,
            sat: c.sat.is_some(),
            relu: false,
        });
    }
    forbid(c.cc, modifiers, ty, opcode)?;
    check_float_flags(&c, modifiers, ty, opcode)?;
    check_half_rounding(&c, ty)?;
    Ok(OpForm::FloatBinary {
        op: float_op,
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// 9.7.4: the half-precision arithmetic rounds `.rn` only (`.rnd = { .rn }`); ptxas 13.5:
/// "Illegal rounding modifier".
fn check_half_rounding(c: &Collected, ty: Type) -> Result<(), DecodeError> {
    match c.rounding {
        Some(r) if is_half(ty) && r.value != Rounding::Rn => Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(r.index),
            format!("{ty} arithmetic rounds .rn only (PTX ISA 9.7.4: `.rnd = {{ .rn }}`)"),
        )
        .with_fix("write .rn or no rounding")),
        _ => Ok(()),
    }
}

fn is_half(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2)
}

/// `fma` and the floating-point `mad` need a rounding modifier (9.7.3.5 `fma.rnd`; 9.7.3.6: for
/// sm_20 and later targets `mad.f32` needs one too; ptxas 13.5: "Rounding modifier required").
fn require_rounding(c: &Collected, opcode: Opcode, ty: Type) -> Result<(), DecodeError> {
    if c.rounding.is_some() {
        return Ok(());
    }
    Err(DecodeError::new(
        DecodeErrorKind::UnsupportedTypes,
        c.ty.map(|t| t.index),
        format!("{opcode}{ty} needs a rounding modifier"),
    )
    .with_fix(format!("write {opcode}.rn{ty}")))
}

/// An error for an integer `mul`/`mad` without `.lo`/`.hi`/`.wide`.
/// `griddepcontrol.action; .action = { .launch_dependents, .wait }` (9.7.13.13): exactly one
/// action (ptxas 13.5: "'.launch_dependents' or '.wait' modifier required for instruction
/// 'griddepcontrol'", "Modifier '.wait' cannot be combined with modifier
/// '.launch_dependents'").
fn decode_griddepcontrol(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let mut wait = None;
    for (index, &name) in modifiers.iter().enumerate() {
        let this = match name {
            "wait" => true,
            "launch_dependents" => false,
            _ => return Err(not_a_modifier(index, name, Opcode::Griddepcontrol)),
        };
        match wait {
            Some(earlier) if earlier == this => {
                return Err(DecodeError::new(
                    DecodeErrorKind::DuplicateModifier,
                    Some(index),
                    format!(".{name} appears twice"),
                ));
            }
            Some(_) => {
                return Err(DecodeError::new(
                    DecodeErrorKind::ConflictingModifier,
                    Some(index),
                    "griddepcontrol takes one of .wait and .launch_dependents",
                ));
            }
            None => wait = Some(this),
        }
    }
    match wait {
        Some(wait) => Ok(OpForm::Griddepcontrol { wait }),
        None => Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "griddepcontrol needs .wait or .launch_dependents",
        )),
    }
}

fn missing_mode(opcode: Opcode, c: &Collected, ty: Type) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnsupportedTypes,
        c.ty.map(|t| t.index),
        format!(
            "{opcode}{ty} needs .lo, .hi or .wide (PTX ISA 9.7.1.3: `.mode = {{ .hi, .lo, .wide }}`)"
        ),
    )
    .with_fix(format!("write {opcode}.lo{ty}"))
}

/// Checks `.wide`, which exists for 16- and 32-bit integer types only.
fn check_wide(
    c: &Collected,
    modifiers: &[&str],
    ty: Type,
    opcode: Opcode,
) -> Result<(), DecodeError> {
    match c.mul {
        Some(m) if m.value == MulMode::Wide && ty.bits() == 64 => {
            forbid(Some(m.index), modifiers, ty, opcode)
        }
        _ => Ok(()),
    }
}

/// `mul` (9.7.1.3 `mul.mode.type`; 9.7.3.3 `mul{.rnd}{.ftz}{.sat}.f32`; 9.7.4.3 half forms).
fn decode_mul(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Mul;
    let c = collect(opcode, modifiers, |m| {
        mul_mode(m).map(Modifier::Mul).or_else(|| float_arith(m))
    })?;
    let all: Vec<Type> = INTEGER_TYPES.iter().chain(FLOAT_TYPES).copied().collect();
    let ty = c.single_type(opcode, &all)?;
    if ty.is_integer() {
        forbid(c.rounding.map(|r| r.index), modifiers, ty, opcode)?;
        forbid(c.ftz, modifiers, ty, opcode)?;
        forbid(c.sat, modifiers, ty, opcode)?;
        check_wide(&c, modifiers, ty, opcode)?;
        let Some(mode) = c.mul else {
            return Err(missing_mode(opcode, &c, ty));
        };
        return Ok(int_binary(IntOp::Mul(mode.value), ty));
    }
    forbid(c.mul.map(|m| m.index), modifiers, ty, opcode)?;
    check_float_flags(&c, modifiers, ty, opcode)?;
    check_half_rounding(&c, ty)?;
    Ok(OpForm::FloatBinary {
        op: FloatOp::Mul,
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// `mad` (9.7.1.4 `mad.mode.type`, `mad.hi.sat.s32`; 9.7.3.6 `mad{.ftz}{.sat}.f32` and
/// `mad.rnd{.ftz}{.sat}.f32` / `mad.rnd.f64`, which are `fma`).
fn decode_mad(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Mad;
    let c = collect(opcode, modifiers, |m| {
        mul_mode(m)
            .map(Modifier::Mul)
            .or_else(|| (m == "cc").then_some(Modifier::Cc))
            .or_else(|| float_arith(m))
    })?;
    let all: Vec<Type> = INTEGER_TYPES
        .iter()
        .copied()
        .chain([Type::F32, Type::F64])
        .collect();
    let ty = c.single_type(opcode, &all)?;
    if ty.is_integer() {
        forbid(c.rounding.map(|r| r.index), modifiers, ty, opcode)?;
        forbid(c.ftz, modifiers, ty, opcode)?;
        if let Some(cc) = c.cc {
            // 9.7.2.3: `mad{.hi,.lo}.cc.type`, `.type = { .u32, .s32, .u64, .s64 }`.
            let wide = c.mul.is_some_and(|m| m.value == MulMode::Wide);
            if !matches!(ty, Type::U32 | Type::S32 | Type::U64 | Type::S64) || wide {
                forbid(Some(cc), modifiers, ty, opcode)?;
            }
            forbid(c.sat, modifiers, ty, opcode)?;
            let Some(mode) = c.mul else {
                return Err(missing_mode(opcode, &c, ty));
            };
            // 9.7.2.3 `mad{.hi,.lo}.cc.type`: ptxas 13.5 rejects `.cc` before the mode.
            if cc < mode.index {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnsupportedTypes,
                    Some(cc),
                    "write .lo or .hi before .cc (`mad.lo.cc.type`)",
                ));
            }
            return Ok(OpForm::Carry {
                op: CarryOp::Mad {
                    hi: mode.value == MulMode::Hi,
                },
                ty,
                carry_in: false,
                carry_out: true,
                off_spec: false,
            });
        }
        check_wide(&c, modifiers, ty, opcode)?;
        let Some(mode) = c.mul else {
            return Err(missing_mode(opcode, &c, ty));
        };
        // "`.sat`: ... applies only to `.s32` type in `.hi` mode" (9.7.1.4).
        if !(ty == Type::S32 && mode.value == MulMode::Hi) {
            forbid(c.sat, modifiers, ty, opcode)?;
        }
        return Ok(OpForm::Mad {
            mode: mode.value,
            ty,
            sat: c.sat.is_some(),
        });
    }
    forbid(c.mul.map(|m| m.index), modifiers, ty, opcode)?;
    forbid(c.cc, modifiers, ty, opcode)?;
    check_float_flags(&c, modifiers, ty, opcode)?;
    // `mad.f32` without a rounding modifier is taken below PTX ISA 4.0 (ptxas 13.5 on sm_20 at
    // 2.0-3.1; "Rounding modifier required for instruction 'mad'" from 4.0), where it is
    // `mad.rn.f32` on sm_20 and later: [`mad_rounding_rule`] decides by `.version`.
    if ty != Type::F32 {
        require_rounding(&c, opcode, ty)?;
    }
    Ok(OpForm::Fma {
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// The `.version`/`.target` rule of a floating-point `mad` (`OpForm::Fma` decoded from `mad`;
/// `modifiers` as written), measured with ptxas 13.5: `mad.f32` needs a rounding modifier from
/// PTX ISA 4.0 on ("Rounding modifier required for instruction 'mad'"; the ISA's `mad` section:
/// "`mad.f32` requires a rounding modifier for sm_20 and higher targets", which ptxas applies
/// by version), and takes none below sm_20 ("Illegal rounding modifier for instruction 'mad'",
/// where `mad.f32` is the sm_1x multiply-add). The message, or `None`.
pub fn mad_rounding_rule(
    modifiers: &[&str],
    version: crate::PtxVersion,
    target_number: Option<u32>,
) -> Option<&'static str> {
    if !modifiers.contains(&"f32") {
        return None;
    }
    let rounded = modifiers.iter().any(|m| float_rounding(m).is_some());
    if !rounded && version >= crate::PtxVersion::new(4, 0) {
        return Some("mad.f32 needs a rounding modifier from PTX ISA version 4.0 on");
    }
    if rounded && target_number.is_some_and(|n| n < 20) {
        return Some("mad.f32 takes no rounding modifier below sm_20");
    }
    None
}

/// `div` (9.7.1.8 integer; 9.7.3.8 `div.approx{.ftz}.f32`, `div.full{.ftz}.f32`,
/// `div.rnd{.ftz}.f32`, `div.rnd.f64`).
fn decode_div(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Div;
    let c = collect(opcode, modifiers, |m| match m {
        "approx" => Some(Modifier::Approx),
        "full" => Some(Modifier::Full),
        "ftz" => Some(Modifier::Ftz),
        _ => float_rounding(m).map(Modifier::Rounding),
    })?;
    // `.full` comes first, as in the Syntax block's `div.full{.ftz}.f32`: ptxas 13.5 says
    // "Unknown modifier '.full'" for `div.ftz.full.f32` and `div.f32.full`, while it takes
    // `.approx`, `.ftz` and the rounding modifiers in any order.
    if let Some(index) = c.full.filter(|&index| index != 0) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index),
            ".full comes first: div.full{.ftz}.f32",
        ));
    }
    let all: Vec<Type> = INTEGER_TYPES
        .iter()
        .copied()
        .chain([Type::F32, Type::F64])
        .collect();
    let ty = c.single_type(opcode, &all)?;
    if ty.is_integer() {
        forbid(c.rounding.map(|r| r.index), modifiers, ty, opcode)?;
        forbid(c.ftz, modifiers, ty, opcode)?;
        forbid(c.approx, modifiers, ty, opcode)?;
        forbid(c.full, modifiers, ty, opcode)?;
        return Ok(int_binary(IntOp::Div, ty));
    }
    check_float_flags(&c, modifiers, ty, opcode)?;
    let kinds = [c.approx, c.full, c.rounding.map(|r| r.index)];
    let written: Vec<usize> = kinds.iter().flatten().copied().collect();
    if written.len() > 1 {
        return Err(DecodeError::new(
            DecodeErrorKind::ConflictingModifier,
            written.iter().max().copied(),
            "div takes one of .approx, .full or a rounding modifier",
        ));
    }
    if written.is_empty() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.ty.map(|t| t.index),
            format!("div{ty} needs .approx, .full or a rounding modifier (PTX ISA 9.7.3.8)"),
        )
        .with_fix(format!("write div.rn{ty}")));
    }
    if ty == Type::F64 {
        forbid(c.approx, modifiers, ty, opcode)?;
        forbid(c.full, modifiers, ty, opcode)?;
    }
    Ok(OpForm::FloatBinary {
        op: FloatOp::Div,
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// `min`/`max` (9.7.1.12-13 `min{.relu}.s32`; 9.7.3.11-12 `min{.ftz}{.NaN}.f32`, `min.f64`;
/// 9.7.4.7-8 `min{.ftz}{.NaN}{.relu}.f16`, `min{.NaN}{.relu}.bf16`).
fn decode_min_max(
    opcode: Opcode,
    int_op: IntOp,
    float_op: FloatOp,
    modifiers: &[&str],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| match m {
        "ftz" => Some(Modifier::Ftz),
        "NaN" => Some(Modifier::Nan),
        "relu" => Some(Modifier::Relu),
        "xorsign" | "abs" => Some(Modifier::Ignored),
        _ => None,
    })?;
    let xorsign = modifiers.iter().position(|&m| m == "xorsign");
    let abs = modifiers.iter().position(|&m| m == "abs");
    let ty = c.single_type(opcode, ARITHMETIC_TYPES)?;
    if ty.is_integer() || HALF_INTEGER_TYPES.contains(&ty) {
        forbid(c.ftz, modifiers, ty, opcode)?;
        forbid(c.nan, modifiers, ty, opcode)?;
        forbid(xorsign.or(abs), modifiers, ty, opcode)?;
        // 9.7.1.12: `min{.relu}.{s32, s16x2}`.
        if !matches!(ty, Type::S32 | Type::S16x2) {
            forbid(c.relu, modifiers, ty, opcode)?;
        }
        return Ok(OpForm::IntBinary {
            op: int_op,
            ty,
            sat: false,
            relu: c.relu.is_some(),
        });
    }
    if !ftz_allowed(ty) {
        forbid(c.ftz, modifiers, ty, opcode)?;
    }
    // ptxas 13.5 takes `.relu` on no floating-point min/max ("Unexpected instruction types").
    forbid(c.relu, modifiers, ty, opcode)?;
    if ty == Type::F64 {
        forbid(c.nan, modifiers, ty, opcode)?;
        forbid(xorsign.or(abs), modifiers, ty, opcode)?;
    }
    let xorsign_abs = match (xorsign, abs) {
        (Some(_), Some(_)) => true,
        (Some(i), None) | (None, Some(i)) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(i),
                ".xorsign and .abs go together (`.xorsign.abs`)",
            ));
        }
        (None, None) => false,
    };
    Ok(OpForm::FloatBinary {
        op: float_op,
        ty,
        modifiers: FloatModifiers {
            xorsign_abs,
            ..c.float_modifiers()
        },
    })
}

/// `abs`/`neg` (9.7.1.10-11 `.s16 .s32 .s64`; 9.7.3.9-10 `abs{.ftz}.f32`, `abs.f64`; 9.7.4
/// half forms).
fn decode_abs_neg(
    opcode: Opcode,
    int_op: IntUnaryOp,
    float_op: FloatUnaryOp,
    modifiers: &[&str],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| (m == "ftz").then_some(Modifier::Ftz))?;
    let all: Vec<Type> = [Type::S16, Type::S32, Type::S64]
        .iter()
        .chain(FLOAT_TYPES)
        .copied()
        .collect();
    let ty = c.single_type(opcode, &all)?;
    if ty.is_integer() {
        forbid(c.ftz, modifiers, ty, opcode)?;
        return Ok(OpForm::IntUnary { op: int_op, ty });
    }
    if !ftz_allowed(ty) {
        forbid(c.ftz, modifiers, ty, opcode)?;
    }
    Ok(OpForm::FloatUnary {
        op: float_op,
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// `fma` (9.7.3.5 `fma.rnd{.ftz}{.sat}.f32`, `fma.rnd.f64`; 9.7.4.5 `fma.rnd{.ftz}{.sat}.f16`,
/// `fma.rnd{.ftz}.relu.f16`, `fma.rnd{.relu}.bf16` and the x2 forms).
fn decode_fma(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| match m {
        "relu" => Some(Modifier::Relu),
        "oob" => Some(Modifier::Oob),
        _ => float_arith(m),
    })?;
    let ty = c.single_type(opcode, FLOAT_TYPES)?;
    check_float_flags(&c, modifiers, ty, opcode)?;
    if matches!(ty, Type::F32 | Type::F64) {
        forbid(c.relu, modifiers, ty, opcode)?;
        forbid(c.oob, modifiers, ty, opcode)?;
    }
    // "`.relu` … cannot be combined with `.sat`" (ptxas 13.5).
    if let (Some(_), Some(relu)) = (c.sat, c.relu) {
        return Err(DecodeError::new(
            DecodeErrorKind::ConflictingModifier,
            Some(relu),
            ".relu cannot be combined with .sat",
        ));
    }
    // ptxas 13.5 takes `.rz` on the `.bf16` forms of fma (not on `.f16`).
    if !matches!(
        (ty, c.rounding.map(|r| r.value)),
        (Type::Bf16 | Type::Bf16x2, Some(Rounding::Rz))
    ) {
        check_half_rounding(&c, ty)?;
    }
    require_rounding(&c, opcode, ty)?;
    Ok(OpForm::Fma {
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// `rcp`/`sqrt` (9.7.3.8-9 `rcp.approx{.ftz}.f32`, `rcp.rnd{.ftz}.f32`, `rcp.rnd.f64`,
/// `rcp.approx.ftz.f64`; 9.7.3.10 `sqrt.approx{.ftz}.f32`, `sqrt.rnd{.ftz}.f32`,
/// `sqrt.rnd.f64`).
fn decode_rcp_sqrt(
    opcode: Opcode,
    op: FloatUnaryOp,
    modifiers: &[&str],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| match m {
        "approx" => Some(Modifier::Approx),
        "ftz" => Some(Modifier::Ftz),
        _ => float_rounding(m).map(Modifier::Rounding),
    })?;
    let ty = c.single_type(opcode, &[Type::F32, Type::F64])?;
    match (c.approx, c.rounding) {
        (Some(_), Some(r)) => {
            return Err(DecodeError::new(
                DecodeErrorKind::ConflictingModifier,
                Some(r.index),
                format!("{opcode} takes .approx or a rounding modifier, not both"),
            ));
        }
        (None, None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                c.ty.map(|t| t.index),
                format!("{opcode}{ty} needs .approx or a rounding modifier"),
            )
            .with_fix(format!("write {opcode}.rn{ty}")));
        }
        _ => {}
    }
    if ty == Type::F64 {
        // `rcp.approx.ftz.f64` is the one `.f64` form with `.ftz`.
        // `rcp.approx.ftz.f64` is the one `.f64` approximation, and it needs `.ftz`; ptxas
        // 13.5 also takes (and ignores) `.ftz` on `rcp.rnd.f64`.
        let rcp = op == FloatUnaryOp::Rcp;
        if !(rcp && (c.approx.is_some() || c.rounding.is_some())) {
            forbid(c.ftz, modifiers, ty, opcode)?;
        }
        if !rcp {
            forbid(c.approx, modifiers, ty, opcode)?;
        }
        if let (true, Some(approx), None) = (rcp, c.approx, c.ftz) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(approx),
                "rcp.approx.f64 needs .ftz (`rcp.approx.ftz.f64`)",
            )
            .with_fix("write rcp.approx.ftz.f64"));
        }
    }
    Ok(OpForm::FloatUnary {
        op,
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// `and`/`or`/`xor`/`shl`/`shr` (9.7.8): one type, no other modifier.
fn logic_binary(
    opcode: Opcode,
    op: IntOp,
    modifiers: &[&str],
    allowed: &[Type],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |_| None)?;
    let ty = c.single_type(opcode, allowed)?;
    Ok(int_binary(op, ty))
}

/// `not`/`cnot`/`popc`/`clz`/`brev`: one type, no other modifier.
fn logic_unary(
    opcode: Opcode,
    op: IntUnaryOp,
    modifiers: &[&str],
    allowed: &[Type],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |_| None)?;
    let ty = c.single_type(opcode, allowed)?;
    Ok(OpForm::IntUnary { op, ty })
}

fn compare_op(m: &str) -> Option<Compare> {
    Some(match m {
        "eq" => Compare::Eq,
        "ne" => Compare::Ne,
        "lt" => Compare::Lt,
        "le" => Compare::Le,
        "gt" => Compare::Gt,
        "ge" => Compare::Ge,
        "lo" => Compare::Lo,
        "ls" => Compare::Ls,
        "hi" => Compare::Hi,
        "hs" => Compare::Hs,
        "equ" => Compare::Equ,
        "neu" => Compare::Neu,
        "ltu" => Compare::Ltu,
        "leu" => Compare::Leu,
        "gtu" => Compare::Gtu,
        "geu" => Compare::Geu,
        "num" => Compare::Num,
        "nan" => Compare::Nan,
        _ => return None,
    })
}

fn bool_op(m: &str) -> Option<BoolOp> {
    Some(match m {
        "and" => BoolOp::And,
        "or" => BoolOp::Or,
        "xor" => BoolOp::Xor,
        _ => return None,
    })
}

/// `setp.CmpOp{.ftz}.type` / `setp.CmpOp.BoolOp{.ftz}.type` (9.7.7.2; 9.7.4.x half forms).
/// The unsigned comparisons `.lo .ls .hi .hs` belong to integer types, the unordered ones and
/// `.num`/`.nan` to floating-point types (Tables "Operators for signed integer, unsigned integer
/// and bit-size types" and "Floating-point comparison operators").
fn decode_setp(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Setp;
    let c = collect(opcode, modifiers, |m| {
        if m == "ftz" {
            return Some(Modifier::Ftz);
        }
        compare_op(m)
            .map(Modifier::Compare)
            .or_else(|| bool_op(m).map(Modifier::Bool))
    })?;
    let ty = c.single_type(opcode, SETP_TYPES)?;
    let Some(compare) = c.compare else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "setp needs a comparison operator (.eq, .lt, ...)",
        ));
    };
    if ty.is_float() {
        if !ftz_allowed(ty) {
            forbid(c.ftz, modifiers, ty, opcode)?;
        }
    } else {
        forbid(c.ftz, modifiers, ty, opcode)?;
    }
    decode_setp_compare(compare, ty, modifiers)?;
    Ok(OpForm::Setp {
        compare: compare.value,
        combine: c.boolop.map(|b| b.value),
        ty,
        ftz: c.ftz.is_some(),
    })
}

/// Whether `setp`'s or `set`'s comparison suits the operand type: the unsigned comparisons
/// `.lo .ls .hi .hs` belong to integer types, the unordered ones and `.num`/`.nan` to
/// floating-point types, bit-size types compare `.eq`/`.ne` only.
fn decode_setp_compare(
    compare: Indexed<Compare>,
    ty: Type,
    modifiers: &[&str],
) -> Result<(), DecodeError> {
    let opcode = Opcode::Setp;
    if ty.is_float() {
        if matches!(
            compare.value,
            Compare::Lo | Compare::Ls | Compare::Hi | Compare::Hs
        ) {
            forbid(Some(compare.index), modifiers, ty, opcode)?;
        }
    } else {
        let allowed = match ty.kind() {
            crate::types::TypeKind::Bit => matches!(compare.value, Compare::Eq | Compare::Ne),
            crate::types::TypeKind::Signed => matches!(
                compare.value,
                Compare::Eq | Compare::Ne | Compare::Lt | Compare::Le | Compare::Gt | Compare::Ge
            ),
            _ => matches!(
                compare.value,
                Compare::Eq
                    | Compare::Ne
                    | Compare::Lt
                    | Compare::Le
                    | Compare::Gt
                    | Compare::Ge
                    | Compare::Lo
                    | Compare::Ls
                    | Compare::Hi
                    | Compare::Hs
            ),
        };
        if !allowed {
            forbid(Some(compare.index), modifiers, ty, opcode)?;
        }
    }
    Ok(())
}

/// A state-space modifier of a memory instruction (5.1; `.shared::cta` is `.shared`,
/// `.param::entry`/`.param::func` are `.param`).
fn space(m: &str) -> Option<Space> {
    Some(match m {
        "global" => Space::Global,
        "shared" | "shared::cta" => Space::Shared,
        "shared::cluster" => Space::SharedCluster,
        "local" => Space::Local,
        "const" => Space::Const,
        "param" | "param::entry" | "param::func" => Space::Param,
        _ => return None,
    })
}

/// `ld`, `st`, `atom` and `red` name one `.scope` (`.scope = { .cta, .cluster, .gpu, .sys }`
/// in each Syntax block); two different ones are "Multiple scope modifiers specified" (ptxas
/// 13.5, `ld.relaxed.gpu.sys.global.u32`, `atom.gpu.sys.global.inc.u32`). The same one twice
/// is the duplicate rule's.
fn one_scope(modifiers: &[&str]) -> Result<(), DecodeError> {
    let is_scope = |m: &str| matches!(m, "cta" | "cluster" | "gpu" | "sys");
    let Some(first) = modifiers.iter().find(|m| is_scope(m)) else {
        return Ok(());
    };
    match modifiers.iter().position(|m| is_scope(m) && m != first) {
        Some(index) => Err(conflict(index, "two scopes")),
        None => Ok(()),
    }
}

/// `ld`, `st`, `atom` and `red` name one `.sem` (ld.md: "`.weak`, `.volatile`, `.relaxed`,
/// `.acquire`", st.md likewise with `.release`, atom.md: "`.sem = { .relaxed, .acquire,
/// .release, .acq_rel }`", each written once in every Syntax line); ptxas 13.5 calls a second,
/// different one a duplicate of the kind ("Duplicate .relaxed modifier" for
/// `atom.release.relaxed.gpu.add.u32`, "Duplicate .weak modifier" for `ld.volatile.weak.u32`).
/// The same one twice is the duplicate rule's.
fn one_semantics(modifiers: &[&str]) -> Result<(), DecodeError> {
    let is_sem = |m: &str| {
        matches!(
            m,
            "weak" | "volatile" | "relaxed" | "acquire" | "release" | "acq_rel"
        )
    };
    let Some(first) = modifiers.iter().find(|m| is_sem(m)) else {
        return Ok(());
    };
    match modifiers.iter().position(|m| is_sem(m) && m != first) {
        Some(index) => Err(conflict(index, "two memory-order semantics")),
        None => Ok(()),
    }
}

/// Memory-ordering and scope qualifiers (8 "Memory Consistency Model").
fn ordering_or_scope(m: &str) -> bool {
    matches!(
        m,
        "weak"
            | "volatile"
            | "relaxed"
            | "acquire"
            | "release"
            | "acq_rel"
            | "mmio"
            | "cta"
            | "cluster"
            | "gpu"
            | "sys"
    )
}

/// Cache operators (9.7.9.1) and eviction / prefetch / cache-policy hints of `ld`/`st`: the
/// `.L1::` and `.L2::` words the PTX ISA spells (ld.md: `.level::eviction_priority = {
/// .L1::evict_normal, .L1::evict_unchanged, .L1::evict_first, .L1::evict_last,
/// .L1::no_allocate }`, `.L2::evict_*`, `.level::prefetch_size = { .L2::64B, .L2::128B,
/// .L2::256B }`, `.L2::cache_hint`); a misspelled one is unknown (ptxas 13.5: "Unknown
/// modifier '.L1::evict_firsts'").
fn cache_hint(m: &str) -> bool {
    matches!(
        m,
        "ca" | "cg"
            | "cs"
            | "lu"
            | "cv"
            | "wb"
            | "wt"
            | "nc"
            | "unified"
            | "L1::evict_normal"
            | "L1::evict_unchanged"
            | "L1::evict_first"
            | "L1::evict_last"
            | "L1::no_allocate"
            | "L2::evict_normal"
            | "L2::evict_unchanged"
            | "L2::evict_first"
            | "L2::evict_last"
            | "L2::64B"
            | "L2::128B"
            | "L2::256B"
            | "L2::cache_hint"
    )
}

/// `ld{.weak}{.ss}{.cop}{.level::…}{.vec}.type`, `ld.volatile`, `ld.relaxed.scope`,
/// `ld.acquire.scope`, `ld.global.nc`, `ldu`, `st` likewise (9.7.9.8-10).
///
/// The memory-consistency qualifiers are checked as ptxas 13.5 checks them
/// (`tests/conformance/ops-forms.tsv`), and otherwise ignored (a sequential simulator has
/// nothing to order): one semantics of `.weak`, `.volatile`, `.relaxed`, `.acquire` (`ld`),
/// `.release` (`st`); `.relaxed`/`.acquire`/`.release` need a scope (`.cta`, `.cluster`,
/// `.gpu`, `.sys`) and a scope needs one of them; `.mmio` needs `.relaxed` (with `.acquire` for
/// `ld`, `.release` for `st`). Cache operators: `.ca .cg .cs .lu .cv` for `ld`, `.wb .cg .cs
/// .wt` for `st`; `.nc` on `ld.global` only. `st.const` does not exist. A vector is at most
/// 128 bits (256 bits, `.v8.b32`/`.v4.b64`, is an sm_100 feature not modelled here).
fn decode_ld_st(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let store = opcode == Opcode::St;
    let c = collect(opcode, modifiers, |m| {
        if let Some(s) = space(m) {
            return Some(Modifier::Space(s));
        }
        match m {
            "v2" => Some(Modifier::Vector(2)),
            "v4" => Some(Modifier::Vector(4)),
            "v8" => Some(Modifier::Vector(8)),
            _ if ordering_or_scope(m) || cache_hint(m) => Some(Modifier::Ignored),
            _ => None,
        }
    })?;
    one_scope(modifiers)?;
    one_semantics(modifiers)?;
    let ty = c.single_type(opcode, MEMORY_TYPES)?;
    let space = c.space.map_or(Space::Generic, |s| s.value);
    let vector = c.vector.map_or(1, |v| v.value);
    let find = |names: &[&str]| modifiers.iter().position(|m| names.contains(m));
    let illegal = |index: usize| {
        DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index),
            format!(
                ".{} is not a modifier of {opcode}",
                modifiers.get(index).copied().unwrap_or("")
            ),
        )
    };
    let wrong_order = if store { "acquire" } else { "release" };
    if let Some(i) = find(&[wrong_order, "acq_rel"]) {
        return Err(illegal(i));
    }
    // st's `.ss = { .global, .local, .param{::func}, .shared{::cta, ::cluster} }` (9.7.9.10):
    // a store never writes a kernel's parameters (ptxas 13.5: "Illegal modifier '::entry' for
    // instruction 'st'"); `ld` and `ldu` name `.param::entry`.
    if store && let Some(i) = find(&["param::entry"]) {
        return Err(illegal(i));
    }
    let cache_ops: &[&str] = if store {
        &["wb", "cg", "cs", "wt"]
    } else {
        &["ca", "cg", "cs", "lu", "cv", "nc"]
    };
    if let Some(i) = modifiers.iter().position(|m| {
        (matches!(*m, "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "nc") && !cache_ops.contains(m))
            // The prefetch size (`.L2::64B`, `::128B`, `::256B`) is a hint of loads only.
            || (store && m.starts_with("L2::") && m.ends_with('B'))
    }) {
        return Err(illegal(i));
    }
    let ordered = find(&["relaxed", "acquire", "release"]);
    let scope = find(&["cta", "cluster", "gpu", "sys"]);
    let plain = find(&["weak", "volatile"]);
    match (ordered, scope, plain) {
        (Some(_), _, Some(i)) => {
            return Err(conflict(
                i,
                ".weak/.volatile and .relaxed/.acquire/.release",
            ));
        }
        (None, Some(s), Some(_)) => return Err(conflict(s, "a scope and .weak/.volatile")),
        (Some(o), None, None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(o),
                format!(
                    ".{} needs a scope (.cta, .cluster, .gpu or .sys)",
                    modifiers[o]
                ),
            ));
        }
        (None, Some(s), None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(s),
                format!(
                    "the scope .{} needs .relaxed or .{}",
                    modifiers[s],
                    if store { "release" } else { "acquire" }
                ),
            ));
        }
        _ => {}
    }
    // The cache operators belong to the weak forms (9.7.9.8: `ld{.weak}{.ss}{.cop}...`; no
    // `.cop` in the `.volatile`, `.relaxed`, `.acquire` and `.mmio` lines); ptxas 13.5:
    // "Modifier '.acquire' cannot be combined with modifier '.cg'", "Modifier '.volatile'
    // cannot be combined with modifier '.wt'".
    if let (Some(_), Some(c)) = (
        find(&["volatile", "relaxed", "acquire", "release", "mmio"]),
        find(&["ca", "cg", "cs", "lu", "cv", "wb", "wt"]),
    ) {
        return Err(conflict(
            c,
            "a cache operator and .volatile/.relaxed/.acquire/.release",
        ));
    }
    if let (Some(m), None) = (find(&["mmio"]), ordered) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(m),
            ".mmio needs .relaxed with a scope",
        ));
    }
    // PTX ISA 9.0, ld: "The qualifiers .volatile, .relaxed and .acquire may be used only
    // with .global and .shared spaces and with generic addressing ... The qualifier .mmio may
    // be used only with .global space and with generic addressing"; ptxas 13.5: "Modifier
    // '.relaxed' cannot be applied to '.local' space", "Modifier '.volatile' cannot be applied
    // to '.param' space" (it takes `.volatile` on `.local` from PTX ISA 9.1, a gate), and
    // "Modifier '.evict_last' cannot be applied to '.shared' space" for the L1 eviction
    // priorities.
    let space_refuses = |index: usize, allowed: &[Space]| -> Result<(), DecodeError> {
        if allowed.contains(&space) {
            return Ok(());
        }
        Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index),
            format!(
                ".{} cannot be applied to this state space ({opcode})",
                modifiers[index]
            ),
        ))
    };
    // ptxas 13.5: "Duplicate .acquire modifier", "Multiple cache prefetching modifiers
    // specified"; `ldu` reads .global (or generic) memory only, in at most 128 bits ("State
    // space incorrect for instruction 'ldu'", "Illegal modifier '::cta' for instruction
    // 'ldu'"). PTX ISA 9.0, ld: "The .level::prefetch_size qualifier may only be used with
    // .global state space and with generic addressing".
    for (index, &m) in modifiers.iter().enumerate() {
        let again = |other: &&str| {
            *other == m
                || (m.starts_with("L2::")
                    && m.ends_with('B')
                    && other.starts_with("L2::")
                    && other.ends_with('B'))
        };
        let ordering = matches!(
            m,
            "weak" | "volatile" | "relaxed" | "acquire" | "release" | "mmio"
        );
        let prefetch_size = m.starts_with("L2::") && m.ends_with('B');
        if (ordering || prefetch_size) && modifiers[..index].iter().any(again) {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} is written twice (or with another of its kind)"),
            ));
        }
        // `ldu{.ss}.type d, [a];` / `ldu{.ss}.vec.type d, [a];`, `.ss = { .global }`, `.vec
        // = { .v2, .v4 }` (9.7.9.10): nothing of `ld`'s other words (ptxas 13.5: "Illegal
        // modifier '.cs' for instruction 'ldu'", also for `.nc`, `.volatile`, `.weak`, the
        // scopes, `.L2::64B`, "'.level::eviction_priority'"; `.unified` is a syntax error).
        let ldu_space = opcode == Opcode::Ldu
            && !(matches!(m, "global" | "v2" | "v4") || Type::from_name(m).is_some());
        if ldu_space || (prefetch_size && !matches!(space, Space::Global | Space::Generic)) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(".{m} is not a modifier of {opcode} in this state space"),
            ));
        }
    }
    // ptxas 13.5 also takes `.relaxed`, `.acquire` and `.release` on `.shared::cluster`.
    let shared_or_global = [
        Space::Global,
        Space::Shared,
        Space::SharedCluster,
        Space::Generic,
    ];
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "relaxed" | "acquire" | "release" => space_refuses(index, &shared_or_global)?,
            // ptxas 13.5 also takes `st.volatile.shared::cluster`.
            "volatile" => space_refuses(
                index,
                &[
                    Space::Global,
                    Space::Shared,
                    Space::SharedCluster,
                    Space::Generic,
                    Space::Local,
                ],
            )?,
            "mmio" => space_refuses(index, &[Space::Global, Space::Generic])?,
            _ if m.starts_with("L1::") => space_refuses(index, &[Space::Global, Space::Generic])?,
            _ => {}
        }
    }
    // ptxas 13.5: "Modifier '.mmio' cannot be combined with modifier '.v4'".
    if let (Some(mmio), Some(_)) = (find(&["mmio"]), c.vector) {
        return Err(conflict(mmio, ".mmio and a vector"));
    }
    if let Some(nc) = find(&["nc"]) {
        if space != Space::Global {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(nc),
                ".nc needs the .global state space (ld.global.nc)",
            ));
        }
        // `ld.global{.cop}.nc{.level::cache_hint}...`, `.cop = { .ca, .cg, .cs }` (9.7.9.9
        // ld.global.nc): no memory-consistency qualifier, and neither `.lu` nor `.cv`
        // (ptxas 13.5: "Modifier '.volatile' cannot be combined with modifier '.nc'", also
        // for `.weak`, `.relaxed`, `.acquire`; "Illegal cache operation for instruction
        // 'ld.nc'").
        if let Some(semantics) = find(&["weak", "volatile", "relaxed", "acquire", "mmio"]) {
            return Err(conflict(
                semantics,
                "a memory-consistency qualifier and .nc",
            ));
        }
        if let Some(cop) = find(&["lu", "cv"]) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(cop),
                format!(
                    ".{} is no cache operator of ld.global.nc (.ca, .cg, .cs)",
                    modifiers[cop]
                ),
            ));
        }
    }
    if store && space == Space::Const {
        return Err(illegal(c.space.map_or(0, |s| s.index)));
    }
    // PTX ISA 9.0, ld: "The .v8 (.vec) qualifier is supported if: .type is .b32, .s32, .u32
    // or .f32 ... The .v4 (.vec) qualifier with type .b64 or .s64 or .u64 or .f64 is supported
    // if ..." the state space is .global (or generic); ptxas 13.5: "global state space
    // expected for feature '256 bit wide load/store'", and `ldu` stays at 128 bits ("Vector
    // type too large, exceeds 128 bit limit"). The target and version are gated
    // (`OpFeature::Wide256`).
    let bits = u32::from(vector) * ty.bits();
    let wide = bits == 256 && opcode != Opcode::Ldu && ty != Type::B128;
    if bits > 128 && !wide {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.vector.map(|v| v.index),
            format!(".v{vector}{ty} is wider than 128 bits"),
        ));
    }
    // ptxas 13.5: "Instruction 'ld' requires '.v8.b32/.v4.b64' type with '.L2::evict_last'
    // modifier" (the L2 eviction priorities are an sm_100 feature of the 256-bit forms).
    if let Some(index) = modifiers.iter().position(|m| m.starts_with("L2::evict_")) {
        if !wide {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(index),
                format!(
                    ".{} needs a 256-bit vector (.v8.b32, .v4.b64)",
                    modifiers[index]
                ),
            ));
        }
    }
    if wide && !matches!(space, Space::Global | Space::Generic) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.vector.map(|v| v.index),
            format!(
                ".v{vector}{ty} (256 bits) needs the .global state space or generic addressing"
            ),
        ));
    }
    // PTX ISA 9.0, ld: "The qualifiers .unified and .level::cache_hint are only supported for
    // .global state space and for generic addressing"; ptxas 13.5: "Modifier '.L2::cache_hint'
    // cannot be combined with modifier '.volatile'", "Multiple .L2::cache_hint modifiers
    // specified".
    let first_hint = cache_hint_position(modifiers)?;
    let cache_policy = first_hint.is_some();
    if let Some(hint) = first_hint {
        if !matches!(space, Space::Global | Space::Generic) || opcode == Opcode::Ldu {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(hint),
                format!(".L2::cache_hint works on .global or generic addresses only ({opcode})"),
            ));
        }
        if find(&["volatile"]).is_some() {
            return Err(conflict(hint, ".L2::cache_hint and .volatile"));
        }
    }
    // ptxas 13.5: "Modifier '.evict_last' cannot be combined with modifier '.volatile'", for
    // every `.L1::evict_*` priority and `.L1::no_allocate`, on `ld` and `st`.
    if find(&["volatile"]).is_some()
        && let Some(index) = modifiers
            .iter()
            .position(|m| m.starts_with("L1::evict_") || *m == "L1::no_allocate")
    {
        return Err(conflict(index, ".L1 eviction priorities and .volatile"));
    }
    Ok(match opcode {
        Opcode::St => OpForm::St {
            space,
            ty,
            vector,
            cache_policy,
        },
        _ => OpForm::Ld {
            space,
            ty,
            vector,
            cache_policy,
        },
    })
}

/// How `createpolicy` makes its policy (PTX ISA 9.0, createpolicy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// `createpolicy.fractional.L2::primary{.L2::secondary}.b64 cache-policy{, fraction}`.
    Fractional,
    /// `createpolicy.range{.global}.L2::primary{.L2::secondary}.b64 cache-policy, [a],
    /// primary-size, total-size`.
    Range,
    /// `createpolicy.cvt.L2.b64 cache-policy, access-property`.
    Cvt,
}

/// The error for a modifier no form of `opcode` has at this point.
fn illegal_here(opcode: Opcode, modifiers: &[&str], index: usize) -> DecodeError {
    not_a_modifier(index, modifiers[index], format_args!("{opcode} here"))
}

/// `prefetch{.space}.level [a]`, `prefetch.global.level::eviction_priority [a]`,
/// `prefetch{.tensormap_space}.tensormap [a]`, `prefetchu.L1 [a]` (PTX ISA 9.0, prefetch:
/// `.space = { .global, .local }`, `.level = { .L1, .L2 }`, `.level::eviction_priority = {
/// .L2::evict_last, .L2::evict_normal }`, `.tensormap_space = { .const, .param }`). ptxas
/// 13.5: "Cache level modifier required for instruction 'prefetch'", "Multiple cache operation
/// modifiers specified", "State space incorrect for feature 'cache eviction priority'",
/// "Modifier '.tensormap' cannot be applied to '.global' space", "Illegal modifier '.L2' for
/// instruction 'prefetchu'", "State space incorrect for instruction 'prefetchu'".
fn decode_prefetch(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let mut space = None;
    let mut level: Option<(usize, &str)> = None;
    for (index, &m) in modifiers.iter().enumerate() {
        let slot = match m {
            "global" | "local" | "const" | "param" if opcode == Opcode::Prefetch => &mut space,
            "L1" | "L2" | "L2::evict_last" | "L2::evict_normal" | "tensormap"
                if opcode == Opcode::Prefetch =>
            {
                &mut level
            }
            "L1" => &mut level,
            _ => return Err(illegal_here(opcode, modifiers, index)),
        };
        if slot.replace((index, m)).is_some() {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!("{opcode} takes one state space and one cache level"),
            ));
        }
    }
    let Some((_, level)) = level else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs a cache level (.L1, .L2, ...)"),
        ));
    };
    let fits = matches!(
        (level, space.map(|(_, s)| s)),
        ("L1" | "L2", None | Some("global" | "local"))
            | ("L2::evict_last" | "L2::evict_normal", None | Some("global"))
            | ("tensormap", None | Some("const" | "param"))
    );
    match (fits, space) {
        (true, _) => Ok(OpForm::Prefetch),
        (false, Some((index, _))) => Err(illegal_here(opcode, modifiers, index)),
        (false, None) => Err(illegal_here(opcode, modifiers, 0)),
    }
}

/// `discard{.global}.L2 [a], size` and `applypriority{.global}.L2::evict_normal [a], size`
/// (PTX ISA 9.0, discard, applypriority; "size ... must be 128", checked as a value by
/// [`crate::op_layout::line_size_violation`]).
fn decode_cache_advice(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let level = if opcode == Opcode::Discard {
        "L2"
    } else {
        "L2::evict_normal"
    };
    let mut seen = (false, false);
    for (index, &m) in modifiers.iter().enumerate() {
        let slot = match m {
            "global" => &mut seen.0,
            _ if m == level => &mut seen.1,
            _ => return Err(illegal_here(opcode, modifiers, index)),
        };
        if std::mem::replace(slot, true) {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} is written twice"),
            ));
        }
    }
    if !seen.1 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs .{level}"),
        ));
    }
    Ok(OpForm::CacheAdvice)
}

/// `createpolicy` (PTX ISA 9.0, createpolicy):
///
/// ```text
/// createpolicy.range{.global}.level::primary_priority{.level::secondary_priority}.b64
///                                    cache-policy, [a], primary-size, total-size;
/// createpolicy.fractional.level::primary_priority{.level::secondary_priority}.b64
///                                    cache-policy{, fraction};
/// createpolicy.cvt.L2.b64            cache-policy, access-property;
/// .level::primary_priority =   { .L2::evict_last, .L2::evict_normal,
///                                .L2::evict_first, .L2::evict_unchanged };
/// .level::secondary_priority = { .L2::evict_first, .L2::evict_unchanged };
/// ```
///
/// ptxas 13.5 takes the modifiers in any order; the first eviction priority is the primary
/// one ("Unsupported modifier '.evict_last' as secondary_priority").
fn decode_createpolicy(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Createpolicy;
    let mut kind: Option<(usize, PolicyKind)> = None;
    let mut global = None;
    let mut l2 = None;
    let mut b64 = None;
    let mut priorities: Vec<usize> = Vec::new();
    for (index, &m) in modifiers.iter().enumerate() {
        let duplicate = match m {
            "fractional" | "range" | "cvt" => {
                let k = match m {
                    "fractional" => PolicyKind::Fractional,
                    "range" => PolicyKind::Range,
                    _ => PolicyKind::Cvt,
                };
                kind.replace((index, k)).is_some()
            }
            "global" => global.replace(index).is_some(),
            "L2" => l2.replace(index).is_some(),
            "b64" => b64.replace(index).is_some(),
            "L2::evict_last" | "L2::evict_normal" | "L2::evict_first" | "L2::evict_unchanged" => {
                priorities.push(index);
                priorities.len() > 2
            }
            _ => return Err(illegal_here(opcode, modifiers, index)),
        };
        if duplicate {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} is written twice"),
            ));
        }
    }
    let Some((kind_index, kind)) = kind else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "createpolicy needs .fractional, .range or .cvt",
        ));
    };
    // ptxas 13.5 reads `createpolicy.fractional` as the instruction's name: "Unknown modifier
    // '.fractional'" anywhere else.
    if kind_index != 0 {
        return Err(illegal_here(opcode, modifiers, kind_index));
    }
    if b64.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "createpolicy needs the type .b64",
        ));
    }
    match kind {
        PolicyKind::Cvt => {
            if let Some(&index) = priorities.first().or(global.as_ref()) {
                return Err(illegal_here(opcode, modifiers, index));
            }
            if l2.is_none() {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnknownModifier,
                    None,
                    "createpolicy.cvt needs .L2",
                ));
            }
        }
        PolicyKind::Fractional | PolicyKind::Range => {
            if let Some(index) = l2.or(global.filter(|_| kind == PolicyKind::Fractional)) {
                return Err(illegal_here(opcode, modifiers, index));
            }
            if priorities.is_empty() {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnknownModifier,
                    None,
                    "createpolicy needs an eviction priority (.L2::evict_last, ...)",
                ));
            }
            if let Some(&secondary) = priorities.get(1) {
                if !matches!(
                    modifiers[secondary],
                    "L2::evict_first" | "L2::evict_unchanged"
                ) {
                    return Err(illegal_here(opcode, modifiers, secondary));
                }
            }
        }
    }
    Ok(OpForm::CreatePolicy(kind))
}

fn conflict(index: usize, what: &str) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::ConflictingModifier,
        Some(index),
        format!("{what} cannot be combined"),
    )
}

/// `cvta.space.size` / `cvta.to.space.size` (9.7.9.20): `.space = { .const, .global, .local,
/// .shared{::cta, ::cluster}, .param{::entry} }`, `.size = { .u32, .u64 }` (no `.param::func`:
/// ptxas 13.5 "Illegal modifier '::func' for instruction 'cvta'").
fn decode_cvta(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Cvta;
    let c = collect(opcode, modifiers, |m| {
        if m == "to" {
            return Some(Modifier::To);
        }
        if m == "param::func" {
            return None;
        }
        space(m).map(Modifier::Space)
    })?;
    let ty = c.single_type(opcode, &[Type::U32, Type::U64])?;
    // `cvta.to.space.size  p, a;` (9.7.9.20): `.to` comes first (ptxas 13.5: "Unknown modifier '.to'"
    // for `cvta.shared.to.u64`, `cvta.u64.to.shared`); the space and the size in either order.
    if let Some(to) = c.to
        && to != 0
    {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(to),
            ".to comes first: cvta.to.<space>.<size>",
        ));
    }
    let Some(space) = c.space else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "cvta needs a state space (.global, .shared, .local, .const or .param)",
        ));
    };
    Ok(OpForm::Cvta {
        to: c.to.is_some(),
        space: space.value,
        ty,
    })
}

fn atom_op(m: &str) -> Option<AtomOp> {
    Some(match m {
        "add" => AtomOp::Add,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "exch" => AtomOp::Exch,
        "cas" => AtomOp::Cas,
        _ => return None,
    })
}

/// `atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type` and `red` likewise (9.7.13.5-6);
/// `.noftz` on the half-precision `add` forms. Only `.global`, `.shared{::cta, ::cluster}` or no
/// space.
fn decode_atom(opcode: Opcode, reduction: bool, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| {
        if let Some(op) = atom_op(m) {
            return Some(Modifier::Atom(op));
        }
        match m {
            "global" => Some(Modifier::Space(Space::Global)),
            "shared" | "shared::cta" => Some(Modifier::Space(Space::Shared)),
            "shared::cluster" => Some(Modifier::Space(Space::SharedCluster)),
            "noftz" => Some(Modifier::Noftz),
            "L2::cache_hint" => Some(Modifier::Ignored),
            // 9.7.13.5: `.sem = { .relaxed, .acquire, .release, .acq_rel }` for atom; red
            // (9.7.13.6) has `.relaxed` and `.release` only.
            "relaxed" | "release" | "cta" | "cluster" | "gpu" | "sys" => Some(Modifier::Ignored),
            "acquire" | "acq_rel" if !reduction => Some(Modifier::Ignored),
            "v2" => Some(Modifier::Vector(2)),
            "v4" => Some(Modifier::Vector(4)),
            "v8" => Some(Modifier::Vector(8)),
            _ => None,
        }
    })?;
    one_scope(modifiers)?;
    one_semantics(modifiers)?;
    let ty = c.single_type(opcode, ATOM_TYPES)?;
    let vector = c.vector.map_or(1, |v| v.value);
    let half = matches!(ty, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2);
    // "atom.add.f16, atom.add.f16x2, atom.add.bf16 and atom.add.bf16x2 operation requires the
    // .noftz qualifier"; ptxas 13.5 asks for it whatever the operation.
    if half && c.noftz.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.ty.map(|t| t.index),
            format!("{opcode}{ty} needs .noftz"),
        )
        .with_fix(format!("write {opcode}.add.noftz{ty}")));
    }
    let Some(op) = c.atom else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs an operation (.add, .min, .cas, ...)"),
        ));
    };
    let ok = match op.value {
        AtomOp::And | AtomOp::Or | AtomOp::Xor => matches!(ty, Type::B32 | Type::B64),
        AtomOp::Exch => !reduction && matches!(ty, Type::B32 | Type::B64 | Type::B128),
        AtomOp::Cas => !reduction && matches!(ty, Type::B16 | Type::B32 | Type::B64 | Type::B128),
        AtomOp::Add => !matches!(
            ty,
            Type::B16 | Type::B32 | Type::B64 | Type::B128 | Type::S64
        ),
        // 9.7.13.5: half-precision `.min`/`.max` exist in the vector forms only (ptxas 13.5:
        // "Vector modifier required for instruction 'atom.min.f16.global'").
        AtomOp::Min | AtomOp::Max if half => vector > 1,
        AtomOp::Inc | AtomOp::Dec => ty == Type::U32,
        AtomOp::Min | AtomOp::Max => matches!(ty, Type::U32 | Type::U64 | Type::S32 | Type::S64),
    };
    if !ok || (reduction && op.value == AtomOp::Exch) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.ty.map(|t| t.index),
            format!(
                "{opcode}.{}{ty} is not in the syntax block of PTX ISA {}",
                modifiers.get(op.index).copied().unwrap_or(""),
                opcode.section()
            ),
        ));
    }
    if !half {
        forbid(c.noftz, modifiers, ty, opcode)?;
    }
    if let Some(v) = c.vector {
        // 9.7.13.5 (sm_90): `.add` on `.f32` (`.v2`, `.v4`), `.add`/`.min`/`.max` on the half
        // types (`.v2`, `.v4`, and `.v8` for `.f16`/`.bf16`), in `.global` or generic memory.
        let lengths: &[u8] = match ty {
            Type::F32 if op.value == AtomOp::Add => &[2, 4],
            Type::F16 | Type::Bf16 => &[2, 4, 8],
            Type::F16x2 | Type::Bf16x2 => &[2, 4],
            _ => &[],
        };
        if lengths.is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(v.index),
                format!("{opcode} takes a vector modifier only for .add.f32 and the half types"),
            ));
        }
        if !lengths.contains(&v.value) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(v.index),
                format!(
                    "{opcode}{ty} takes .v2 or .v4 (.v8 for .f16 and .bf16), not .v{}",
                    v.value
                ),
            ));
        }
        if c.space.is_some_and(|s| s.value == Space::Shared) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                c.space.map(|s| s.index),
                format!("vector {opcode} works on .global or generic addresses, not .shared"),
            ));
        }
    }
    // ptxas 13.5: "Duplicate .release modifier".
    for (index, &m) in modifiers.iter().enumerate() {
        if matches!(m, "relaxed" | "acquire" | "release" | "acq_rel")
            && modifiers[..index].contains(&m)
        {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} is written twice"),
            ));
        }
    }
    // `atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache-policy}` (PTX
    // ISA 9.0, atom; the `.cas` forms have no `.level::cache_hint`, ptxas 13.5: "Illegal
    // modifier '.L2::cache_hint' for instruction 'atom'"), on .global or generic addresses
    // ("Modifier '.L2::cache_hint' cannot be applied to '.shared' space", and to
    // '.shared::cluster').
    let space = c.space.map_or(Space::Generic, |s| s.value);
    let first_hint = cache_hint_position(modifiers)?;
    if let Some(hint) = first_hint {
        if op.value == AtomOp::Cas || matches!(space, Space::Shared | Space::SharedCluster) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(hint),
                format!(".L2::cache_hint is not a modifier of {opcode} on .shared or with .cas"),
            ));
        }
    }
    Ok(OpForm::Atom {
        reduction,
        space,
        op: op.value,
        ty,
        vector,
        cache_policy: first_hint.is_some(),
    })
}

/// `mul24.mode.type d, a, b` / `mad24.mode.type d, a, b, c` and `mad24.hi.sat.s32` (9.7.1.5-6):
/// `.mode = { .hi, .lo }` (required), `.type = { .u32, .s32 }`; "`.sat` … applies only to
/// `.s32` type in `.hi` mode".
fn decode_24(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let mad = opcode == Opcode::Mad24;
    let c = collect(opcode, modifiers, |m| match m {
        "lo" => Some(Modifier::Mul(MulMode::Lo)),
        "hi" => Some(Modifier::Mul(MulMode::Hi)),
        "sat" if mad => Some(Modifier::Sat),
        _ => None,
    })?;
    let ty = c.single_type(opcode, &[Type::U32, Type::S32])?;
    let Some(mode) = c.mul else {
        return Err(missing_mode_24(opcode, &c, ty));
    };
    let hi = mode.value == MulMode::Hi;
    if !(hi && ty == Type::S32) {
        forbid(c.sat, modifiers, ty, opcode)?;
    }
    Ok(if mad {
        OpForm::IntTernary {
            op: IntTernaryOp::Mad24 {
                hi,
                sat: c.sat.is_some(),
            },
            ty,
        }
    } else {
        int_binary(IntOp::Mul24 { hi }, ty)
    })
}

/// An error for `mul24`/`mad24` without `.lo` or `.hi`.
fn missing_mode_24(opcode: Opcode, c: &Collected, ty: Type) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnsupportedTypes,
        c.ty.map(|t| t.index),
        format!("{opcode}{ty} needs .lo or .hi (`.mode = {{ .hi, .lo }}`)"),
    )
    .with_fix(format!("write {opcode}.lo{ty}"))
}

/// `shf.l.mode.b32 d, a, b, c` / `shf.r.mode.b32` (9.7.8.7): `.mode = { .clamp, .wrap }`; the
/// direction and the mode are both required, and `.b32` is the one type.
fn decode_shf(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Shf;
    let mut direction: Option<Indexed<bool>> = None;
    let mut mode: Option<Indexed<bool>> = None;
    let c = collect(opcode, modifiers, |m| match m {
        "l" | "r" | "wrap" | "clamp" => Some(Modifier::Ignored),
        _ => None,
    })?;
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "l" | "r" => set_value(&mut direction, m == "l", index, m, "direction")?,
            "wrap" | "clamp" => set_value(&mut mode, m == "clamp", index, m, "mode")?,
            _ => {}
        }
    }
    c.single_type(opcode, &[Type::B32])?;
    // `shf.l.mode.b32` (9.7.8.8): the direction comes first (ptxas 13.5: "Unknown modifier
    // '.l'" for `shf.wrap.l.b32`, "Not a name of any known instruction: 'shf'" for
    // `shf.b32.clamp.r`); the mode and the type in either order.
    if let Some(direction) = direction
        && direction.index != 0
    {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(direction.index),
            format!(
                ".{} comes first: shf.{}",
                modifiers[direction.index], modifiers[direction.index]
            ),
        ));
    }
    let (Some(direction), Some(mode)) = (direction, mode) else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "shf needs a direction (.l or .r) and a mode (.wrap or .clamp)",
        )
        .with_fix("write shf.l.wrap.b32 or shf.r.clamp.b32"));
    };
    Ok(OpForm::IntTernary {
        op: IntTernaryOp::Shf {
            left: direction.value,
            clamp: mode.value,
        },
        ty: Type::B32,
    })
}

/// `shfl.sync.mode.b32` / `shfl.mode.b32` (9.7.9.5-6): `.mode = { .up, .down, .bfly, .idx }`
/// (required), `.b32` the one type.
fn decode_shfl(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Shfl;
    let mut mode: Option<Indexed<ShflMode>> = None;
    let c = collect(opcode, modifiers, |m| match m {
        "sync" => Some(Modifier::Sync),
        "up" | "down" | "bfly" | "idx" => Some(Modifier::Ignored),
        _ => None,
    })?;
    for (index, &m) in modifiers.iter().enumerate() {
        let value = match m {
            "up" => ShflMode::Up,
            "down" => ShflMode::Down,
            "bfly" => ShflMode::Bfly,
            "idx" => ShflMode::Idx,
            _ => continue,
        };
        set_value(&mut mode, value, index, m, "mode")?;
    }
    c.single_type(opcode, &[Type::B32])?;
    let Some(mode) = mode else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "shfl needs a mode (.up, .down, .bfly or .idx)",
        )
        .with_fix("write shfl.sync.down.b32"));
    };
    Ok(OpForm::Shfl {
        mode: mode.value,
        sync: c.sync.is_some(),
    })
}

/// `slct.dtype.s32 d, a, b, c` / `slct{.ftz}.dtype.f32 d, a, b, c` (9.7.7.5): `.dtype = { .b16,
/// .b32, .b64, .u16, .u32, .u64, .s16, .s32, .s64, .f32, .f64 }`; two types, the second that
/// of `c`; `.ftz` only with an `.f32` `c`.
fn decode_slct(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Slct;
    let mut ftz: Option<usize> = None;
    let mut types: Vec<Indexed<Type>> = Vec::with_capacity(2);
    for (index, &m) in modifiers.iter().enumerate() {
        if m == "ftz" {
            set_flag(&mut ftz, index, m)?;
        } else if let Some(ty) = Type::from_name(m) {
            if types.len() == 2 {
                return Err(DecodeError::new(
                    DecodeErrorKind::ExtraType,
                    Some(index),
                    format!("slct takes two types; .{m} is a third one"),
                ));
            }
            types.push(Indexed { value: ty, index });
        } else {
            return Err(not_a_modifier(index, m, opcode));
        }
    }
    let [d, c] = types[..] else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "slct needs two types: that of d, a, b and that of c (.s32 or .f32)",
        ));
    };
    if !SELP_TYPES.contains(&d.value) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(d.index),
            format!("slct does not take {} for d, a and b", d.value),
        ));
    }
    if !matches!(c.value, Type::S32 | Type::F32) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(c.index),
            format!("the type of slct's c is .s32 or .f32, not {}", c.value),
        ));
    }
    let float_selector = c.value == Type::F32;
    if !float_selector {
        forbid(ftz, modifiers, c.value, opcode)?;
    }
    Ok(OpForm::Slct {
        ty: d.value,
        float_selector,
        ftz: ftz.is_some(),
    })
}

/// `.sync`, which the warp-level instructions `elect`, `match` and `redux` require.
fn require_sync(opcode: Opcode, c: &Collected) -> Result<(), DecodeError> {
    if c.sync.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs .sync"),
        )
        .with_fix(format!("write {opcode}.sync")));
    }
    Ok(())
}

/// `cp.async` (9.7.9.25.3): the non-bulk copies and their groups. The bulk, tensor and
/// mbarrier forms are known by name only.
/// The bulk copies' modifiers in the order the decoders below read them: ptxas 13.5 takes
/// everything after the operation words (`cp.async.bulk`, `cp.async.bulk.tensor`,
/// `cp.async.bulk.prefetch{.tensor}`, `cp.reduce.async.bulk{.tensor}`, which are positional:
/// "Unknown modifier '.tensor'" for `cp.async.bulk.3d.tensor`) in any order
/// (`cp.async.bulk.prefetch.tensor.L2.3d.global`, `cp.async.bulk.tensor.shared::cluster.global.4d`,
/// `cp.async.bulk.mbarrier::complete_tx::bytes.shared::cluster.global`, as the ninth round's
/// mutations of real inline assembly found), the first state space being the destination
/// ("State space incorrect" for `cp.reduce.async.bulk.shared::cta.global`). `None` where the
/// order is already this one.
fn bulk_order<'a>(modifiers: &[&'a str]) -> Option<Vec<&'a str>> {
    let prefix = match modifiers {
        ["async", "bulk", "prefetch", "tensor", ..] | ["reduce", "async", "bulk", "tensor", ..] => {
            4
        }
        ["async", "bulk", "prefetch" | "tensor", ..] | ["reduce", "async", "bulk", ..] => 3,
        ["async", "bulk", ..] => 2,
        _ => return None,
    };
    let (head, tail) = modifiers.split_at(prefix);
    let mut rest: Vec<&'a str> = tail.to_vec();
    let mut ordered: Vec<&'a str> = head.to_vec();
    let is_dims = |m: &str| matches!(m, "1d" | "2d" | "3d" | "4d" | "5d");
    let is_space = |m: &str| matches!(m, "shared::cluster" | "shared::cta" | "global");
    let is_completion = |m: &str| matches!(m, "mbarrier::complete_tx::bytes" | "bulk_group");
    let mut wanted: Vec<&dyn Fn(&str) -> bool> = Vec::new();
    if head.last() == Some(&"tensor") {
        wanted.push(&is_dims);
    }
    let (level, global) = (|m: &str| m == "L2", |m: &str| m == "global");
    if head.contains(&"prefetch") {
        wanted.extend([&level as &dyn Fn(&str) -> bool, &global]);
    } else {
        wanted.extend([
            &is_space as &dyn Fn(&str) -> bool,
            &is_space,
            &is_completion,
        ]);
    }
    for want in wanted {
        if let Some(i) = rest.iter().position(|m| want(m)) {
            ordered.push(rest.remove(i));
        }
    }
    ordered.extend(rest);
    (ordered != modifiers).then_some(ordered)
}

fn decode_cp(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Cp;
    if let Some(ordered) = bulk_order(modifiers) {
        // An error's modifier index is the written one.
        return decode_cp(&ordered).map_err(|mut error| {
            error.modifier = error
                .modifier
                .and_then(|i| ordered.get(i))
                .and_then(|word| modifiers.iter().position(|m| m == word));
            error
        });
    }
    match modifiers {
        ["async", "commit_group"] | ["async", "wait_all"] => {
            return Ok(OpForm::CpAsyncGroup { wait_group: false });
        }
        ["async", "wait_group"] => return Ok(OpForm::CpAsyncGroup { wait_group: true }),
        // `cp.async.ca.shared.global`: ptxas 13.5 takes the cache operator, the prefetch size
        // and `.L2::cache_hint` anywhere after `.async` (`cp.async.L2::128B.cg.shared.global`,
        // `cp.async.shared::cta.ca.global`), the destination space before the source's
        // ("State space incorrect for instruction 'cp.async'"), each once ("Multiple cache
        // operation modifiers specified", "Multiple cache prefetching modifiers specified").
        ["async", rest @ ..]
            if rest.iter().any(|m| matches!(*m, "ca" | "cg"))
                && rest.first().is_some_and(|m| {
                    matches!(
                        *m,
                        "ca" | "cg"
                            | "shared"
                            | "shared::cta"
                            | "L2::64B"
                            | "L2::128B"
                            | "L2::256B"
                            | "L2::cache_hint"
                    )
                }) => {}
        ["async", "mbarrier", "arrive", rest @ ..] => return decode_cp_mbarrier(rest),
        ["async", "bulk", "commit_group"] => {
            return Ok(OpForm::CpAsyncBulkGroup { wait_group: false });
        }
        ["async", "bulk", "wait_group"] | ["async", "bulk", "wait_group", "read"] => {
            return Ok(OpForm::CpAsyncBulkGroup { wait_group: true });
        }
        ["async", "bulk", "prefetch", "L2", "global"] => {
            return Ok(OpForm::CpAsyncBulkPrefetch { cache_hint: false });
        }
        [
            "async",
            "bulk",
            "prefetch",
            "L2",
            "global",
            "L2::cache_hint",
        ] => {
            return Ok(OpForm::CpAsyncBulkPrefetch { cache_hint: true });
        }
        [
            "async",
            "bulk",
            "prefetch",
            "tensor",
            dims,
            "L2",
            "global",
            rest @ ..,
        ] => {
            return decode_cp_async_bulk_prefetch_tensor(dims, rest);
        }
        ["async", "bulk", "tensor", dims, tail @ ..] => {
            // ptxas 13.5 takes the other modifiers before the state spaces too
            // (`.1d.cta_group::2.shared::cluster.global`, as CUTLASS writes it): the first two
            // state spaces are the destination and the source.
            let spaces: Vec<usize> = (0..tail.len())
                .filter(|&i| matches!(tail[i], "shared::cluster" | "shared::cta" | "global"))
                .take(2)
                .collect();
            // ptxas 13.5: "State space incorrect for instruction 'cp.async.bulk.tensor'" for
            // any other pair of state spaces.
            if let [d, s] = spaces[..]
                && !matches!(
                    (tail[d], tail[s]),
                    ("shared::cluster" | "shared::cta", "global") | ("global", "shared::cta")
                )
            {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnknownModifier,
                    Some(4 + s),
                    format!(
                        "cp.async.bulk.tensor.{}.{}: the copies are .shared::cluster.global, \
                         .shared::cta.global and .global.shared::cta",
                        tail[d], tail[s]
                    ),
                ));
            }
            if let [d, s] = spaces[..]
                && (d, s) != (0, 1)
            {
                let rest: Vec<&str> = (0..tail.len())
                    .filter(|&i| i != d && i != s)
                    .map(|i| tail[i])
                    .collect();
                return decode_cp_async_bulk_tensor(dims, tail[d], tail[s], &rest, false);
            }
            if let ([_, _], [destination, source, rest @ ..]) = (&spaces[..], tail) {
                return decode_cp_async_bulk_tensor(dims, destination, source, rest, false);
            }
            // ptxas 13.5: "State space incorrect for instruction 'cp.async.bulk.tensor'" for
            // `.1d.global.mbarrier...` and `.1d.shared.global...` too.
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                None,
                "cp.async.bulk.tensor needs a destination and a source state space \
                 (.shared::cluster.global, .shared::cta.global or .global.shared::cta)",
            ));
        }
        ["async", "bulk", destination, source, completion, rest @ ..]
            if !matches!(*destination, "tensor" | "prefetch") =>
        {
            return decode_cp_async_bulk(modifiers, destination, source, completion, rest);
        }
        [
            "reduce",
            "async",
            "bulk",
            destination,
            source,
            completion,
            rest @ ..,
        ] if *destination != "tensor" => {
            return decode_cp_reduce_async_bulk(destination, source, completion, rest);
        }
        [
            "reduce",
            "async",
            "bulk",
            "tensor",
            dims,
            destination,
            source,
            rest @ ..,
        ] => {
            return decode_cp_async_bulk_tensor(dims, destination, source, rest, true);
        }
        // No form of the ISA starts so (ptxas 13.5: "Unknown modifier '.reduce'" for
        // `cp.reduce.bulk.async...`, "State space modifier required for instruction
        // 'cp.async.bulk.prefetch'" for `cp.async.bulk.prefetch.L2`, "Unknown modifier
        // '.tensor'" for a misplaced `.tensor`).
        ["async", "bulk", ..] | ["reduce", ..] => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(0),
                format!(
                    "{opcode}.{} is no form of cp.async.bulk, cp.async.bulk.tensor, \
                     cp.async.bulk.prefetch{{.tensor}} or cp.reduce.async.bulk{{.tensor}}",
                    modifiers.join(".")
                ),
            ));
        }
        ["async"] | [] => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                None,
                "cp needs .async and a cache operator (.ca or .cg)",
            )
            .with_fix("write cp.async.ca.shared.global"));
        }
        ["async", other, ..] | [other, ..] => {
            let index = usize::from(modifiers[0] == "async");
            return Err(not_a_modifier(index, other, format_args!("{opcode} here")));
        }
    }
    let (mut shared, mut global, mut hint): (Option<usize>, Option<usize>, Option<usize>) =
        (None, None, None);
    let (mut cache, mut prefetch) = (None, None);
    let mut cg = false;
    for (index, &m) in modifiers.iter().enumerate().skip(1) {
        match m {
            "ca" | "cg" => {
                set_flag(&mut cache, index, m)?;
                cg = m == "cg";
            }
            "shared" | "shared::cta" if global.is_none() => set_flag(&mut shared, index, m)?,
            "global" if shared.is_some() => set_flag(&mut global, index, m)?,
            "L2::64B" | "L2::128B" | "L2::256B" => set_flag(&mut prefetch, index, m)?,
            "L2::cache_hint" => set_flag(&mut hint, index, m)?,
            _ => {
                return Err(not_a_modifier(
                    index,
                    m,
                    "cp.async here (cp.async.ca.shared.global)",
                ));
            }
        }
    }
    if global.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "cp.async copies .shared from .global",
        )
        .with_fix("write cp.async.ca.shared.global"));
    }
    Ok(OpForm::CpAsync {
        cg,
        cache_hint: hint.is_some(),
    })
}

/// `cp.async.bulk.dst.src.completion_mechanism{.multicast::cluster}{.level::cache_hint}`
/// (PTX ISA 9.0, cp.async.bulk): `.shared::cluster.global.mbarrier::complete_tx::bytes` (also
/// `.shared::cta` as the destination, PTX ISA 8.6), `.shared::cluster.shared::cta.mbarrier::
/// complete_tx::bytes`, `.global.shared::cta.bulk_group`; `.L2::cache_hint` on the forms that
/// read or write `.global`; `.multicast::cluster` on the one from `.global` to
/// `.shared::cluster`. `.cp_mask` (sm_100) is not run.
fn decode_cp_async_bulk(
    modifiers: &[&str],
    destination: &str,
    source: &str,
    completion: &str,
    rest: &[&str],
) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Cp;
    // A word that names no state space is not a modifier at all (ptxas 13.5: "Unknown
    // modifier '.shared::ctas'"); the combinations of known ones ptxsim does not run stay
    // unsupported below.
    for (index, word) in [(2, destination), (3, source)] {
        if !matches!(word, "shared::cluster" | "shared::cta" | "global") {
            return Err(not_a_modifier(index, word, "cp.async.bulk"));
        }
    }
    let (destination, source, mbarrier) = match (destination, source, completion) {
        ("shared::cluster", "global", "mbarrier::complete_tx::bytes") => {
            (Space::SharedCluster, Space::Global, true)
        }
        ("shared::cta", "global", "mbarrier::complete_tx::bytes") => {
            (Space::Shared, Space::Global, true)
        }
        ("shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes") => {
            (Space::SharedCluster, Space::Shared, true)
        }
        ("global", "shared::cta", "bulk_group") => (Space::Global, Space::Shared, false),
        // ptxas 13.5: "State space incorrect for instruction 'cp.async.bulk'".
        _ => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(2),
                format!(
                    "{opcode}.{} is not a cp.async.bulk form ptxsim runs (.shared::cluster.global                      or .shared::cluster.shared::cta with .mbarrier::complete_tx::bytes,                      .global.shared::cta.bulk_group)",
                    modifiers.join(".")
                ),
            ));
        }
    };
    let (mut cache_hint, mut multicast) = (false, false);
    for (offset, &m) in rest.iter().enumerate() {
        let index = 5 + offset;
        match m {
            "L2::cache_hint" if source == Space::Global || destination == Space::Global => {
                if cache_hint {
                    return Err(DecodeError::new(
                        DecodeErrorKind::DuplicateModifier,
                        Some(index),
                        ".L2::cache_hint appears twice",
                    ));
                }
                cache_hint = true;
            }
            "multicast::cluster"
                if destination == Space::SharedCluster && source == Space::Global =>
            {
                if std::mem::replace(&mut multicast, true) {
                    return Err(DecodeError::new(
                        DecodeErrorKind::DuplicateModifier,
                        Some(index),
                        ".multicast::cluster appears twice",
                    ));
                }
            }
            "cp_mask" => {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnsupportedInstruction(opcode),
                    Some(index),
                    format!("cp.async.bulk with .{m} is not supported by ptxsim yet"),
                ));
            }
            _ => return Err(not_a_modifier(index, m, "cp.async.bulk here")),
        }
    }
    Ok(OpForm::CpAsyncBulk {
        destination,
        source,
        mbarrier,
        multicast,
        cache_hint,
    })
}

/// `cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.multicast::cluster}
/// {.level::cache_hint}` (PTX ISA 9.0, cp.async.bulk.tensor): `.dim = { .1d, .2d, .3d, .4d, .5d }`;
/// global to shared: `.dst = { .shared::cluster, .shared::cta }`, `.load_mode = { .tile,
/// .im2col }` (im2col needs 3 dimensions or more), `.mbarrier::complete_tx::bytes`; shared to
/// global: `.global.shared::cta`, `.load_mode = { .tile, .im2col_no_offs }`, `.bulk_group`. The
/// modifiers after the spaces come in any order, each once. PTX ISA 8.6 adds `.tile::gather4`
/// to the loads and `.tile::scatter4` to the stores ("these modes work only on 2D tensor data";
/// ptxas 13.5: "Modifier '.3d' cannot be combined with modifier '.tile::gather4'") and
/// `.cta_group::1/2` to the loads ("can only be specified with the mbarrier based completion
/// mechanism"), and `.im2col::w` / `.im2col::w::128` to the loads (im2col modes: "In .im2col
/// and .im2col::* modes, the tensor has to be at least 3-dimensional").
///
/// With `reduce`, `cp.reduce.async.bulk.tensor.dim.dst.src.redOp{.load_mode}
/// .completion_mechanism{.level::cache_hint}` (PTX ISA 9.0, cp.reduce.async.bulk.tensor): `.dst
/// = { .global }`, `.src = { .shared::cta }`, `.completion_mechanism = { .bulk_group }`,
/// `.load_mode = { .tile, .im2col_no_offs }`, `.redOp = { .add, .min, .max, .inc, .dec, .and,
/// .or, .xor }` (the modifiers are one later: `reduce` comes first).
fn decode_cp_async_bulk_tensor(
    dims: &str,
    destination: &str,
    source: &str,
    rest: &[&str],
    reduce: bool,
) -> Result<OpForm, DecodeError> {
    let first = usize::from(reduce);
    let name = if reduce {
        "cp.reduce.async.bulk.tensor"
    } else {
        "cp.async.bulk.tensor"
    };
    let dims = match dims {
        "1d" => 1,
        "2d" => 2,
        "3d" => 3,
        "4d" => 4,
        "5d" => 5,
        other => {
            return Err(not_a_modifier(
                first + 3,
                other,
                format_args!("{name} (.1d ... .5d)"),
            ));
        }
    };
    let (load, shared_cta) = match (destination, source) {
        ("shared::cluster", "global") if !reduce => (true, false),
        ("shared::cta", "global") if !reduce => (true, true),
        ("global", "shared::cta") => (false, false),
        // ptxas 13.5: "State space incorrect for instruction 'cp.reduce.async.bulk.tensor'".
        _ => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(first + 4),
                if reduce {
                    format!("{name}.{destination}.{source}: the reduction is .global.shared::cta")
                } else {
                    format!(
                        "{name}.{destination}.{source}: the copies are .shared::cluster.global, \
                         .shared::cta.global and .global.shared::cta"
                    )
                },
            ));
        }
    };
    let mut seen: Vec<&str> = Vec::new();
    let (mut im2col, mut completion, mut multicast, mut cache_hint) = (false, false, false, false);
    let (mut four_rows, mut cta_group, mut wide) = (false, None, None);
    let mut reduction = None;
    for (offset, &m) in rest.iter().enumerate() {
        let index = first + 6 + offset;
        let op = match m {
            "add" => Some(AtomOp::Add),
            "min" => Some(AtomOp::Min),
            "max" => Some(AtomOp::Max),
            "inc" => Some(AtomOp::Inc),
            "dec" => Some(AtomOp::Dec),
            "and" => Some(AtomOp::And),
            "or" => Some(AtomOp::Or),
            "xor" => Some(AtomOp::Xor),
            _ => None,
        };
        let group = match m {
            _ if reduce && op.is_some() => "reduction",
            "tile" => "mode",
            "im2col" if load => "mode",
            "im2col_no_offs" if !load => "mode",
            "mbarrier::complete_tx::bytes" if load => "completion",
            "bulk_group" if !load => "completion",
            "multicast::cluster" if load => "multicast",
            "L2::cache_hint" => "hint",
            "tile::gather4" if load => "mode",
            "tile::scatter4" if !load => "mode",
            "cta_group::1" | "cta_group::2" if load => "cta group",
            "im2col::w" | "im2col::w::128" if load => "mode",
            _ => return Err(not_a_modifier(index, m, format_args!("{name} here"))),
        };
        if seen.contains(&group) {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!("{name} takes one {group} modifier (.{m} is a second)"),
            ));
        }
        seen.push(group);
        match group {
            "reduction" => reduction = op,
            "mode" if m.starts_with("tile::") => four_rows = true,
            "mode" => {
                im2col = m != "tile";
                wide = match m {
                    "im2col::w" => Some(Im2colWide::W),
                    "im2col::w::128" => Some(Im2colWide::W128),
                    _ => None,
                };
            }
            "cta group" => cta_group = Some(if m == "cta_group::1" { 1 } else { 2 }),
            "completion" => completion = true,
            "multicast" => multicast = true,
            _ => cache_hint = true,
        }
    }
    if !completion {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            if load {
                format!("{name} from .global needs .mbarrier::complete_tx::bytes")
            } else {
                format!("{name} to .global needs .bulk_group")
            },
        ));
    }
    if reduce && reduction.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{name} needs a reduction (.add, .min, .max, .inc, .dec, .and, .or, .xor)"),
        ));
    }
    if im2col && dims < 3 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(3),
            format!("{name} im2col mode needs 3 dimensions or more"),
        ));
    }
    if four_rows && dims != 2 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(first + 3),
            format!(
                "{name} .tile::{} works on 2D tensors only (.2d)",
                if load { "gather4" } else { "scatter4" }
            ),
        ));
    }
    Ok(OpForm::CpAsyncBulkTensor {
        dims,
        load,
        shared_cta,
        im2col,
        wide,
        four_rows,
        cta_group,
        multicast,
        cache_hint,
        reduce: reduction,
    })
}

/// `cp.async.bulk.prefetch.tensor.dim.L2.global{.load_mode}{.L2::cache_hint}` (PTX ISA 9.0,
/// cp.async.bulk.prefetch.tensor): `.load_mode = { .tile, .tile::gather4, .im2col, .im2col::w,
/// .im2col::w::128 }` (im2col from 3 dimensions; `.tile::gather4` on 2: ptxas 13.5, "Modifier
/// '.3d' cannot be combined with modifier '.tile::gather4'").
fn decode_cp_async_bulk_prefetch_tensor(dims: &str, rest: &[&str]) -> Result<OpForm, DecodeError> {
    let dims = match dims {
        "1d" => 1,
        "2d" => 2,
        "3d" => 3,
        "4d" => 4,
        "5d" => 5,
        other => return Err(not_a_modifier(4, other, "cp.async.bulk.prefetch.tensor")),
    };
    let (mut mode, mut cache_hint) = (None, false);
    for (offset, &m) in rest.iter().enumerate() {
        let index = 7 + offset;
        let repeated = match m {
            "tile" | "im2col" | "tile::gather4" | "im2col::w" | "im2col::w::128" => {
                mode.replace(m).is_some()
            }
            "L2::cache_hint" => std::mem::replace(&mut cache_hint, true),
            _ => return Err(not_a_modifier(index, m, "cp.async.bulk.prefetch.tensor")),
        };
        if repeated {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} appears twice or with another load mode"),
            ));
        }
    }
    let mode = mode.unwrap_or("tile");
    let im2col = mode.starts_with("im2col");
    if im2col && dims < 3 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(4),
            "im2col mode needs 3 dimensions or more",
        ));
    }
    let four_rows = mode == "tile::gather4";
    if four_rows && dims != 2 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(4),
            ".tile::gather4 works on 2D tensors only (.2d)",
        ));
    }
    Ok(OpForm::CpAsyncBulkPrefetchTensor {
        dims,
        im2col,
        wide: mode.starts_with("im2col::w"),
        four_rows,
        cache_hint,
    })
}

/// `tensormap.replace.mode.field{.ss}.b1024.type` and `tensormap.cp_fenceproxy.cp_qualifiers.
/// fence_qualifiers.sync.aligned` (PTX ISA 9.0, tensormap.replace, tensormap.cp_fenceproxy):
/// `.mode = { .tile }`, `.ss = { .global, .shared::cta }`, `.type` `.b64` for
/// `.global_address` and `.global_stride`, else `.b32`; `.cp_qualifiers = {
/// .global.shared::cta }`, `.fence_qualifiers = { .tensormap::generic.release.scope }`, `.scope
/// = { .cta, .cluster, .gpu, .sys }`.
fn decode_tensormap(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Tensormap;
    match modifiers {
        // ptxas 13.5 takes these modifiers in any order
        // (`tensormap.cp_fenceproxy.global.sync.shared::cta.tensormap::generic.release.cta.aligned`)
        // but the destination space before the source's ("State space incorrect for
        // instruction 'tensormap.cp_fenceproxy', expected '.global'").
        ["cp_fenceproxy", rest @ ..]
            if rest.len() == 7
                && rest.iter().position(|m| *m == "global")
                    < rest.iter().position(|m| *m == "shared::cta")
                && [
                    "global",
                    "shared::cta",
                    "tensormap::generic",
                    "release",
                    "sync",
                    "aligned",
                ]
                .iter()
                .all(|word| rest.iter().filter(|m| *m == word).count() == 1)
                && rest
                    .iter()
                    .filter(|m| matches!(**m, "cta" | "cluster" | "gpu" | "sys"))
                    .count()
                    == 1 =>
        {
            Ok(OpForm::TensormapCpFenceproxy)
        }
        // ptxas 13.5 takes the modifiers after `.replace` in any order
        // (`tensormap.replace.global_stride.tile.shared::cta.b1024.b64`,
        // `.b1024.b32.tile.elemtype`), each once ("Multiple .load_mode modifiers specified").
        ["replace", rest @ ..] if rest.contains(&"tile") => {
            let (mut tile, mut field, mut space, mut types) = (false, None, None, Vec::new());
            for (offset, &m) in rest.iter().enumerate() {
                let index = 1 + offset;
                let twice = || {
                    DecodeError::new(
                        DecodeErrorKind::DuplicateModifier,
                        Some(index),
                        format!("tensormap.replace takes .{m} once"),
                    )
                };
                let named = match m {
                    "global_address" => Some(TensormapField::GlobalAddress),
                    "rank" => Some(TensormapField::Rank),
                    "box_dim" => Some(TensormapField::BoxDim),
                    "global_dim" => Some(TensormapField::GlobalDim),
                    "global_stride" => Some(TensormapField::GlobalStride),
                    "element_stride" => Some(TensormapField::ElementStride),
                    "elemtype" => Some(TensormapField::ElemType),
                    "interleave_layout" => Some(TensormapField::InterleaveLayout),
                    "swizzle_mode" => Some(TensormapField::SwizzleMode),
                    "swizzle_atomicity" => Some(TensormapField::SwizzleAtomicity),
                    "fill_mode" => Some(TensormapField::FillMode),
                    _ => None,
                };
                match m {
                    "tile" if tile => return Err(twice()),
                    "tile" => tile = true,
                    "global" | "shared::cta" if space.is_some() => return Err(twice()),
                    "global" => space = Some(Space::Global),
                    "shared::cta" => space = Some(Space::Shared),
                    _ if named.is_some() && field.is_some() => return Err(twice()),
                    _ if named.is_some() => field = named,
                    _ if m == "b1024" || Type::from_name(m).is_some() => types.push((index, m)),
                    other => {
                        return Err(not_a_modifier(index, other, "tensormap.replace (a field)"));
                    }
                }
            }
            let Some(field) = field else {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnknownModifier,
                    None,
                    "tensormap.replace.tile needs the field it replaces (.global_address, .rank, \
                     ...)",
                ));
            };
            let value = field.value_type().to_string();
            let value = value.trim_start_matches('.');
            match types[..] {
                [(_, x), (_, y)]
                    if (x == "b1024" && y == value) || (y == "b1024" && x == value) =>
                {
                    Ok(OpForm::TensormapReplace {
                        field,
                        space: space.unwrap_or(Space::Generic),
                    })
                }
                _ => Err(DecodeError::new(
                    DecodeErrorKind::UnsupportedTypes,
                    types.first().map(|&(index, _)| index),
                    format!("tensormap.replace of this field is .b1024.{value}"),
                )),
            }
        }
        _ => Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            (!modifiers.is_empty()).then_some(0),
            format!(
                "{opcode}.{} is no tensormap.replace.tile or \
                 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release form",
                modifiers.join(".")
            ),
        )),
    }
}

/// `cp.reduce.async.bulk` (PTX ISA 9.0, cp.reduce.async.bulk), non-tensor:
/// `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes` or `.global.shared::cta.bulk_group
/// {.L2::cache_hint}`, then `.redOp{.noftz}.type`. The operation and type pairs are those
/// ptxas 13.5 accepts (`-arch sm_90`): into `.shared::cluster`, `.and`/`.or`/`.xor` on `.b32`,
/// `.add` on `.u32 .s32 .u64`, `.inc`/`.dec` on `.u32`, `.min`/`.max` on `.u32 .s32`; into
/// `.global` also `.b64` for the bitwise ones, `.add` on `.f32 .f64` and (with `.noftz`)
/// `.f16 .bf16`, `.min`/`.max` on `.u64 .s64 .f16 .bf16`.
fn decode_cp_reduce_async_bulk(
    destination: &str,
    source: &str,
    completion: &str,
    rest: &[&str],
) -> Result<OpForm, DecodeError> {
    let global = match (destination, source, completion) {
        ("global", "shared::cta", "bulk_group") => true,
        ("shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes") => false,
        // ptxas 13.5: "State space incorrect for instruction 'cp.reduce.async.bulk'".
        _ => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(3),
                format!(
                    "cp.reduce.async.bulk.{destination}.{source}.{completion}: the forms are \
                     .global.shared::cta.bulk_group and \
                     .shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
                ),
            ));
        }
    };
    let (mut cache_hint, mut noftz, mut op, mut ty) = (false, false, None, None);
    for (offset, &m) in rest.iter().enumerate() {
        let index = 6 + offset;
        let duplicate = || {
            DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} appears twice or with another of its kind"),
            )
        };
        let reduction = match m {
            "and" => Some(AtomOp::And),
            "or" => Some(AtomOp::Or),
            "xor" => Some(AtomOp::Xor),
            "add" => Some(AtomOp::Add),
            "inc" => Some(AtomOp::Inc),
            "dec" => Some(AtomOp::Dec),
            "min" => Some(AtomOp::Min),
            "max" => Some(AtomOp::Max),
            _ => None,
        };
        if let Some(reduction) = reduction {
            if op.replace(reduction).is_some() {
                return Err(duplicate());
            }
        } else if m == "L2::cache_hint" && global {
            if std::mem::replace(&mut cache_hint, true) {
                return Err(duplicate());
            }
        } else if m == "noftz" {
            if std::mem::replace(&mut noftz, true) {
                return Err(duplicate());
            }
        } else if let Some(t) = Type::from_name(m) {
            if ty.replace(t).is_some() {
                return Err(DecodeError::new(
                    DecodeErrorKind::ExtraType,
                    Some(index),
                    "one type",
                ));
            }
        } else {
            return Err(not_a_modifier(index, m, "cp.reduce.async.bulk"));
        }
    }
    let (Some(op), Some(ty)) = (op, ty) else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "cp.reduce.async.bulk needs a reduction (.add, .min, ...) and a type",
        ));
    };
    let valid = match op {
        AtomOp::And | AtomOp::Or | AtomOp::Xor => ty == Type::B32 || (global && ty == Type::B64),
        AtomOp::Add => {
            matches!(ty, Type::U32 | Type::S32 | Type::U64)
                || (global && matches!(ty, Type::F32 | Type::F64))
                || (global && noftz && matches!(ty, Type::F16 | Type::Bf16))
        }
        AtomOp::Inc | AtomOp::Dec => ty == Type::U32,
        AtomOp::Min | AtomOp::Max => {
            matches!(ty, Type::U32 | Type::S32)
                || (global && matches!(ty, Type::U64 | Type::S64 | Type::F16 | Type::Bf16))
        }
        AtomOp::Exch | AtomOp::Cas => false,
    };
    let noftz_fits = !noftz || (op == AtomOp::Add && matches!(ty, Type::F16 | Type::Bf16));
    if !valid || !noftz_fits {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            None,
            format!(
                "cp.reduce.async.bulk into {} has no {op:?}{} on .{ty}",
                if global {
                    ".global"
                } else {
                    ".shared::cluster"
                },
                if noftz { ".noftz" } else { "" }
            ),
        ));
    }
    Ok(OpForm::CpReduceAsyncBulk {
        global,
        op,
        ty,
        cache_hint,
    })
}

/// `bar.warp.sync` (9.7.13.2): `.warp` then `.sync` (ptxas 13.5 also takes `.sync` twice).
fn decode_bar_warp(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    if let Some((index, extra)) = modifiers
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, m)| **m != "sync")
    {
        return Err(not_a_modifier(index, extra, "bar.warp.sync"));
    }
    if modifiers.len() < 2 {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "bar.warp needs .sync",
        )
        .with_fix("write bar.warp.sync"));
    }
    Ok(OpForm::BarWarpSync)
}

/// `vote{.sync}.mode.pred` / `vote{.sync}.ballot.b32` (9.7.13.8-9): one mode; `.ballot`
/// takes `.b32` and the others `.pred` (ptxas 13.5: "Instruction 'vote' requires '.b32' type
/// with '.ballot' modifier").
fn decode_vote(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Vote;
    let mut mode: Option<Indexed<VoteMode>> = None;
    let c = collect(opcode, modifiers, |m| match m {
        "sync" => Some(Modifier::Sync),
        "all" | "any" | "uni" | "ballot" => Some(Modifier::Ignored),
        _ => None,
    })?;
    for (index, &m) in modifiers.iter().enumerate() {
        let value = match m {
            "all" => VoteMode::All,
            "any" => VoteMode::Any,
            "uni" => VoteMode::Uni,
            "ballot" => VoteMode::Ballot,
            _ => continue,
        };
        set_value(&mut mode, value, index, m, "mode")?;
    }
    let Some(mode) = mode else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "vote needs a mode (.all, .any, .uni or .ballot)",
        )
        .with_fix("write vote.sync.ballot.b32"));
    };
    let ty = if mode.value == VoteMode::Ballot {
        Type::B32
    } else {
        Type::Pred
    };
    c.single_type(opcode, &[ty])?;
    Ok(OpForm::Vote {
        mode: mode.value,
        sync: c.sync.is_some(),
    })
}

/// `redux.sync.op.type` (9.7.13.12): `.add`/`.min`/`.max` on `.u32`/`.s32`, `.and`/`.or`/
/// `.xor` on `.b32` (ptxas 13.5: "Incorrect type '.b32' for operation '.add'"), `.min`/`.max`
/// `{.abs}{.NaN}.f32`.
fn decode_redux(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Redux;
    let mut op: Option<Indexed<ReduxOp>> = None;
    let mut abs: Option<usize> = None;
    let c = collect(opcode, modifiers, |m| match m {
        "sync" => Some(Modifier::Sync),
        "NaN" => Some(Modifier::Nan),
        "add" | "min" | "max" | "and" | "or" | "xor" | "abs" => Some(Modifier::Ignored),
        _ => None,
    })?;
    for (index, &m) in modifiers.iter().enumerate() {
        let value = match m {
            "add" => ReduxOp::Add,
            "min" => ReduxOp::Min,
            "max" => ReduxOp::Max,
            "and" => ReduxOp::And,
            "or" => ReduxOp::Or,
            "xor" => ReduxOp::Xor,
            "abs" => {
                set_flag(&mut abs, index, m)?;
                continue;
            }
            _ => continue,
        };
        set_value(&mut op, value, index, m, "operation")?;
    }
    require_sync(opcode, &c)?;
    let Some(op) = op else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "redux needs an operation (.add, .min, .max, .and, .or or .xor)",
        )
        .with_fix("write redux.sync.add.u32"));
    };
    let allowed: &[Type] = match op.value {
        ReduxOp::Add => &[Type::U32, Type::S32],
        ReduxOp::Min | ReduxOp::Max => &[Type::U32, Type::S32, Type::F32],
        ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => &[Type::B32],
    };
    let ty = c.single_type(opcode, allowed)?;
    if ty != Type::F32 {
        if let Some(index) = abs.or(c.nan) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(".{} applies to redux.f32 only", modifiers[index]),
            ));
        }
    }
    Ok(OpForm::Redux {
        op: op.value,
        ty,
        abs: abs.is_some(),
        nan: c.nan.is_some(),
    })
}

/// `match.{any,all}.sync.{b32,b64}` (9.7.13.10).
fn decode_match(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Match;
    let mut all: Option<Indexed<bool>> = None;
    let c = collect(opcode, modifiers, |m| match m {
        "sync" => Some(Modifier::Sync),
        "any" | "all" => Some(Modifier::Ignored),
        _ => None,
    })?;
    for (index, &m) in modifiers.iter().enumerate() {
        if matches!(m, "any" | "all") {
            set_value(&mut all, m == "all", index, m, "mode")?;
        }
    }
    require_sync(opcode, &c)?;
    let Some(all) = all else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "match needs a mode (.any or .all)",
        )
        .with_fix("write match.any.sync.b32"));
    };
    let ty = c.single_type(opcode, B32_B64)?;
    Ok(OpForm::Match { all: all.value, ty })
}

/// `bar{.cta}.sync{.aligned}` (9.7.13.1). `bar.arrive` and `bar.red` are not described here;
/// `bar.warp.sync` is [`decode_bar_warp`].
fn decode_bar(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    for (index, &m) in modifiers.iter().enumerate() {
        // `bar.warp.sync` is an instruction of its own (9.7.13.2); `.warp` is no modifier of
        // any other barrier (ptxas 13.5: "Unknown modifier '.warp'" for `bar.sync.warp` and
        // `bar.arrive.warp`, "Not a name of any known instruction: 'barrier.warp.sync'").
        if m == "warp" && (index != 0 || opcode == Opcode::Barrier) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(".warp is no modifier of {opcode} (bar.warp.sync is)"),
            ));
        }
        // `barrier.cluster.arrive`/`.wait` is the only barrier with `.cluster`, written first
        // (9.7.13.3); ptxas 13.5 refuses it anywhere else ("Illegal modifier '.cluster' for
        // instruction 'bar'" for `bar.sync.cluster`, "Arguments mismatch for instruction
        // 'barrier.arrive'" for `barrier.arrive.cluster`, "Unknown modifier '.arrive'" for
        // `barrier.shared.cluster.arrive`).
        if m == "cluster" {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(
                    ".cluster comes right after barrier (barrier.cluster.arrive), not in {opcode}"
                ),
            ));
        }
        if m == "warp" {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedInstruction(opcode),
                Some(index),
                format!("{opcode}.{m} is not supported"),
            ));
        }
    }
    // `.aligned` belongs to `barrier` (`barrier{.cta}.sync{.aligned}`); `bar{.cta}.sync` is
    // already aligned, and ptxas 13.5 rejects `bar.sync.aligned` ("Illegal modifier '.aligned'
    // for instruction 'bar.red'").
    let barrier = opcode == Opcode::Barrier;
    let mut what: Option<Indexed<&str>> = None;
    let mut reduction: Option<Indexed<&str>> = None;
    let c = collect(opcode, modifiers, |m| match m {
        "cta" => Some(Modifier::Cta),
        "aligned" if barrier => Some(Modifier::Aligned),
        "sync" | "arrive" | "red" | "popc" | "and" | "or" => Some(Modifier::Ignored),
        _ => None,
    })?;
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "sync" | "arrive" | "red" => set_value(&mut what, m, index, m, "barrier operation")?,
            "popc" | "and" | "or" => set_value(&mut reduction, m, index, m, "reduction")?,
            _ => {}
        }
    }
    let Some(what) = what else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "a barrier needs .sync, .arrive or .red",
        )
        .with_fix(format!("write {opcode}.sync")));
    };
    // The Syntax block's order, as ptxas 13.5 enforces it: `.cta` comes first
    // (`barrier{.cta}.sync`; "Illegal modifier '.cta' for instruction 'barrier'" for
    // `barrier.sync.cta`) and `.arrive`/`.red` right after it ("Unknown modifier '.arrive'"
    // for `barrier.cta.aligned.arrive`, "Unknown modifier '.red'" for `barrier.u32.red`);
    // `.sync`, the default operation, and the other modifiers may stand anywhere after.
    if let Some(cta) = c.cta
        && cta != 0
    {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(cta),
            format!(".cta comes first: {opcode}.cta.{}", what.value),
        ));
    }
    let operation_at = usize::from(c.cta.is_some());
    if what.value != "sync" && what.index != operation_at {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(what.index),
            format!(
                ".{} comes right after {opcode}{}",
                what.value,
                if c.cta.is_some() { ".cta" } else { "" }
            ),
        ));
    }
    let op = match (what.value, reduction) {
        ("arrive", None) => BarrierOp::Arrive,
        ("red", Some(r)) if r.value == "popc" => BarrierOp::RedPopc,
        ("red", Some(r)) if r.value == "and" => BarrierOp::RedAnd,
        ("red", Some(_)) => BarrierOp::RedOr,
        ("red", None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                None,
                format!("{opcode}.red needs a reduction (.popc, .and or .or)"),
            ));
        }
        (_, Some(r)) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(r.index),
                format!(".{} belongs to {opcode}.red", r.value),
            ));
        }
        // `sync`, the one operation word left.
        (_, None) => BarrierOp::Sync,
    };
    let ty = match op {
        BarrierOp::RedPopc => Some(Type::U32),
        BarrierOp::RedAnd | BarrierOp::RedOr => Some(Type::Pred),
        BarrierOp::Sync | BarrierOp::Arrive => None,
    };
    match (ty, c.ty) {
        (Some(want), Some(got)) if want == got.value => {}
        (Some(want), got) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                got.map(|g| g.index),
                format!("this reduction of {opcode}.red takes {want}"),
            ));
        }
        (None, Some(got)) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(got.index),
                format!("{opcode}.{} takes no type", what.value),
            ));
        }
        (None, None) => {}
    }
    Ok(OpForm::Barrier { op })
}

/// `mapa{.space}.type` and `getctarank{.space}.type` (PTX ISA 9.0, mapa, getctarank):
/// `.space = { .shared::cluster }` (ptxas 13.5: "State space incorrect for instruction 'mapa',
/// expected '::cluster'" for any other), `.type = { .u32, .u64 }`, and ptxas 13.5 also takes
/// `.s32` and `.s64` ("Unexpected instruction types" for `.b32`, `.b64`, `.u16`).
fn decode_mapa(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| space(m).map(Modifier::Space))?;
    let ty = c.single_type(opcode, &[Type::U32, Type::U64, Type::S32, Type::S64])?;
    let cluster = match c.space {
        None => false,
        Some(space) if space.value == Space::SharedCluster => true,
        Some(space) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(space.index),
                format!("{opcode} takes .shared::cluster or no state space"),
            ));
        }
    };
    Ok(match opcode {
        Opcode::Mapa => OpForm::Mapa { cluster, ty },
        _ => OpForm::Getctarank { cluster, ty },
    })
}

/// `setmaxnreg.action.sync.aligned.u32` (PTX ISA 9.0, setmaxnreg): `.action = { .inc, .dec }`,
/// `.sync` and `.aligned` required (ptxas 13.5: ".aligned modifier required for instruction
/// 'setmaxnreg.inc'", ".sync modifier required"), type `.u32`.
fn decode_setmaxnreg(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Setmaxnreg;
    // The action is part of the name: ptxas 13.5 knows `setmaxnreg.inc` and `setmaxnreg.dec`
    // and nothing else ("Not a name of any known instruction: 'setmaxnreg'" for
    // `setmaxnreg.sync.inc.aligned.u32`); `.sync`, `.aligned` and `.u32` follow in any order.
    if let Some(index) = modifiers
        .iter()
        .skip(1)
        .position(|m| matches!(*m, "inc" | "dec"))
        .filter(|_| !matches!(modifiers.first(), Some(&"inc" | &"dec")))
    {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index + 1),
            "the action comes right after setmaxnreg",
        )
        .with_fix("write setmaxnreg.inc.sync.aligned.u32"));
    }
    let mut action: Option<bool> = None;
    let (mut sync, mut aligned, mut ty) = (false, false, false);
    for (index, &m) in modifiers.iter().enumerate() {
        let seen = match m {
            "inc" | "dec" if action.is_none() => {
                action = Some(m == "inc");
                false
            }
            "sync" => std::mem::replace(&mut sync, true),
            "aligned" => std::mem::replace(&mut aligned, true),
            "u32" => std::mem::replace(&mut ty, true),
            _ => return Err(not_a_modifier(index, m, opcode)),
        };
        if seen {
            return Err(DecodeError::new(
                DecodeErrorKind::DuplicateModifier,
                Some(index),
                format!(".{m} appears twice"),
            ));
        }
    }
    let Some(inc) = action else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "setmaxnreg needs .inc or .dec",
        ));
    };
    if !(sync && aligned) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "setmaxnreg needs .sync.aligned",
        )
        .with_fix("write setmaxnreg.inc.sync.aligned.u32"));
    }
    if !ty {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "setmaxnreg needs the type .u32",
        ));
    }
    Ok(OpForm::Setmaxnreg { inc })
}

/// `isspacep.space p, a` (PTX ISA 9.0, isspacep): `.space = { .const, .global, .local,
/// .shared{::cta, ::cluster}, .param{::entry} }`; no type.
fn decode_isspacep(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Isspacep;
    let c = collect(opcode, modifiers, |m| space(m).map(Modifier::Space))?;
    if let Some(ty) = c.ty {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(ty.index),
            "isspacep takes no type",
        ));
    }
    let Some(space) = c.space else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "isspacep needs a state space (.global, .shared, .local, .const or .param)",
        ));
    };
    Ok(OpForm::Isspacep { space: space.value })
}

/// `barrier.cluster.arrive{.sem}{.aligned}` with `.sem = { .release, .relaxed }` (`.relaxed`
/// PTX ISA 8.0) and `barrier.cluster.wait{.acquire}{.aligned}` (PTX ISA 9.0,
/// barrier.cluster); ptxas 13.5: "Illegal modifier '.relaxed' for instruction
/// 'barrier.cluster.wait'", "Duplicate .release modifier" for `.relaxed.release`, and
/// "Not a name of any known instruction: 'barrier.cluster'" for any other operation.
fn decode_barrier_cluster(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Barrier;
    // `barrier.cluster.arrive{.sem}{.aligned}`, `barrier.cluster.wait{.acquire}{.aligned}`: the
    // operation comes right after `.cluster`, the rest in any order (ptxas 13.5: "Not a name of
    // any known instruction: 'barrier.cluster'" for `barrier.cluster.acquire.wait`, "Unknown
    // modifier '.arrive'" for `barrier.cluster.aligned.arrive`).
    if let Some(index) = modifiers
        .iter()
        .skip(2)
        .position(|m| matches!(*m, "arrive" | "wait"))
    {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index + 2),
            "the operation comes right after barrier.cluster",
        )
        .with_fix("write barrier.cluster.arrive or barrier.cluster.wait first"));
    }
    let mut arrive = None;
    let mut sem: Option<(usize, &str)> = None;
    let mut aligned = false;
    for (index, &m) in modifiers.iter().enumerate().skip(1) {
        match m {
            "arrive" | "wait" if arrive.is_none() => arrive = Some(m == "arrive"),
            "release" | "relaxed" | "acquire" if sem.is_none() => sem = Some((index, m)),
            "release" | "relaxed" | "acquire" => {
                return Err(DecodeError::new(
                    DecodeErrorKind::DuplicateModifier,
                    Some(index),
                    "barrier.cluster takes one memory-ordering qualifier",
                ));
            }
            "aligned" if !aligned => aligned = true,
            _ => return Err(not_a_modifier(index, m, opcode)),
        }
    }
    let Some(arrive) = arrive else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "barrier.cluster needs .arrive or .wait",
        )
        .with_fix("write barrier.cluster.arrive or barrier.cluster.wait"));
    };
    let relaxed = match sem {
        None => false,
        Some((_, "release")) if arrive => false,
        Some((_, "relaxed")) if arrive => true,
        Some((_, "acquire")) if !arrive => false,
        Some((index, m)) => return Err(not_a_modifier(index, m, opcode)),
    };
    Ok(OpForm::BarrierCluster {
        arrive,
        relaxed,
        ordered: sem.is_some(),
    })
}

/// `membar.level` (9.7.13.4): `.level = { .cta, .gl, .sys }`, exactly one; the proxy forms
/// (`membar.proxy.…`) are accepted as written.
fn decode_membar(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Membar;
    match modifiers {
        // `membar.proxy.proxykind` (PTX ISA 9.0, membar: the old style of `fence.proxy`);
        // ptxas 13.5 takes no state space after `membar.proxy.async` ("State space incorrect
        // for instruction 'membar.proxy'").
        ["cta" | "gl" | "sys"] | ["proxy", "alias" | "async"] => Ok(OpForm::Fence),
        ["proxy", rest @ ..] => Err(match rest.get(1).or(rest.first()) {
            Some(m) => not_a_modifier(
                1 + usize::from(rest.len() > 1),
                m,
                format_args!("{opcode}.proxy"),
            ),
            None => DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                None,
                "membar.proxy needs a proxy kind (.alias, .async, ...)",
            ),
        }),
        [] => Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "membar needs a level (.cta, .gl or .sys)",
        )
        .with_fix("write membar.gl")),
        [first, ..] => {
            let index = usize::from(matches!(*first, "cta" | "gl" | "sys"));
            let name = modifiers.get(index).copied().unwrap_or("");
            Err(not_a_modifier(index, name, opcode))
        }
    }
}

/// `fence` (PTX ISA 9.0, fence). The Syntax block spells the forms out:
///
/// ```text
/// fence{.sem}.scope;                                     .sem = { .sc, .acq_rel, .acquire, .release }
/// fence.acquire.sync_restrict::shared::cluster.cluster;
/// fence.release.sync_restrict::shared::cta.cluster;
/// fence.op_restrict.release.cluster;                     .op_restrict = { .mbarrier_init }
/// fence.proxy.proxykind;                                 .proxykind = { .alias, .async, .async.global, .async.shared::{cta, cluster} }
/// fence.proxy.to_proxykind::from_proxykind.release.scope;      = { .tensormap::generic }
/// fence.proxy.to_proxykind::from_proxykind.acquire.scope  [addr], size;
/// fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
/// fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;
/// ```
///
/// ptxas 13.5 takes the modifiers in any order and rejects what no form has with messages
/// this decoder follows: "Multiple scope modifiers specified", ".proxykind modifier required
/// for instruction 'fence.proxy'", "Modifier '.release' requires scope with 'fence.proxy'
/// instruction", "Modifier '.mbarrier_init' cannot be combined with modifier '.gpu'", "No
/// state space qualifier expected for instruction 'fence'", "State space incorrect for
/// instruction 'fence.proxy'", "Illegal modifier '.sc' for instruction 'fence.proxy'". It
/// also takes a state space on the tensor-map release fence and on the `async::generic`
/// fences, which the Syntax block does not show.
fn decode_fence(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Fence;
    #[derive(Default)]
    struct Seen {
        proxy: Option<usize>,
        kind: Option<(usize, &'static str)>,
        space: Option<(usize, &'static str)>,
        sem: Option<(usize, &'static str)>,
        scope: Option<(usize, &'static str)>,
        restrict: Option<(usize, &'static str)>,
        mbarrier_init: Option<usize>,
    }
    let mut seen = Seen::default();
    let twice = |index: usize, what: &str| {
        DecodeError::new(
            DecodeErrorKind::DuplicateModifier,
            Some(index),
            format!("fence takes one {what}"),
        )
    };
    for (index, &m) in modifiers.iter().enumerate() {
        let (slot, name): (&mut Option<(usize, &'static str)>, &'static str) = match m {
            "proxy" => {
                if seen.proxy.replace(index).is_some() {
                    return Err(twice(index, ".proxy"));
                }
                continue;
            }
            "mbarrier_init" => {
                if seen.mbarrier_init.replace(index).is_some() {
                    return Err(twice(index, ".mbarrier_init"));
                }
                continue;
            }
            "alias" => (&mut seen.kind, "alias"),
            "async" => (&mut seen.kind, "async"),
            "tensormap::generic" => (&mut seen.kind, "tensormap::generic"),
            "async::generic" => (&mut seen.kind, "async::generic"),
            "global" => (&mut seen.space, "global"),
            "shared" => (&mut seen.space, "shared"),
            "shared::cta" => (&mut seen.space, "shared::cta"),
            "shared::cluster" => (&mut seen.space, "shared::cluster"),
            "sc" => (&mut seen.sem, "sc"),
            "acq_rel" => (&mut seen.sem, "acq_rel"),
            "acquire" => (&mut seen.sem, "acquire"),
            "release" => (&mut seen.sem, "release"),
            "cta" => (&mut seen.scope, "cta"),
            "cluster" => (&mut seen.scope, "cluster"),
            "gpu" => (&mut seen.scope, "gpu"),
            "sys" => (&mut seen.scope, "sys"),
            "sync_restrict::shared::cluster" => {
                (&mut seen.restrict, "sync_restrict::shared::cluster")
            }
            "sync_restrict::shared::cta" => (&mut seen.restrict, "sync_restrict::shared::cta"),
            _ => return Err(not_a_modifier(index, m, format_args!("{opcode}"))),
        };
        if slot.replace((index, name)).is_some() {
            return Err(twice(index, "modifier of this kind"));
        }
    }
    let sem = seen.sem.map(|(_, s)| s);
    let scope = seen.scope.map(|(_, s)| s);
    let restrict = seen.restrict.map(|(_, r)| r);
    // The first modifier of `present` is not allowed here.
    let refuse = |present: &[Option<usize>], why: &str| -> Result<(), DecodeError> {
        match present.iter().flatten().min() {
            Some(&index) => Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(".{} {why}", modifiers[index]),
            )),
            None => Ok(()),
        }
    };
    let at = |o: Option<(usize, &'static str)>| o.map(|(i, _)| i);
    let missing = |what: &str| {
        DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("this fence needs {what}"),
        )
    };
    // A synchronizing fence with `.sync_restrict`: acquire on the cluster's shared memory or
    // release on the CTA's, at cluster scope.
    let restricted = |sem: Option<&str>| -> Result<(), DecodeError> {
        match (sem, restrict, scope) {
            (Some("acquire"), Some("sync_restrict::shared::cluster"), Some("cluster"))
            | (Some("release"), Some("sync_restrict::shared::cta"), Some("cluster")) => Ok(()),
            (_, None, _) => Err(missing(".sync_restrict::shared::cta or ::cluster")),
            (_, _, Some("cluster")) => Err(missing(
                ".acquire with .sync_restrict::shared::cluster or .release with ::shared::cta",
            )),
            _ => Err(missing("the .cluster scope")),
        }
    };
    if let Some(proxy) = seen.proxy {
        // ptxas 13.5 reads `fence.proxy` as the instruction's name: "Unknown modifier
        // '.proxy'" anywhere else.
        if proxy != 0 {
            return Err(not_a_modifier(
                proxy,
                "proxy",
                "fence here (write fence.proxy...)",
            ));
        }
        refuse(&[seen.mbarrier_init], "is not a modifier of fence.proxy")?;
        let Some((kind_index, kind)) = seen.kind else {
            return Err(missing(
                "a proxy kind (.alias, .async, .tensormap::generic, ...)",
            ));
        };
        return match kind {
            "alias" => {
                refuse(
                    &[
                        at(seen.space),
                        at(seen.sem),
                        at(seen.scope),
                        at(seen.restrict),
                    ],
                    "is not a modifier of fence.proxy.alias",
                )?;
                Ok(OpForm::Fence)
            }
            "async" => {
                refuse(
                    &[at(seen.sem), at(seen.scope), at(seen.restrict)],
                    "is not a modifier of fence.proxy.async",
                )?;
                if let Some((index, "shared")) = seen.space {
                    return Err(not_a_modifier(
                        index,
                        "shared",
                        "fence.proxy.async (write .shared::cta or .shared::cluster)",
                    ));
                }
                Ok(OpForm::Fence)
            }
            "tensormap::generic" => {
                refuse(
                    &[at(seen.restrict)],
                    "is not a modifier of this fence.proxy",
                )?;
                if scope.is_none() {
                    return Err(missing("a scope (.cta, .cluster, .gpu or .sys)"));
                }
                match sem {
                    Some("acquire") => {
                        refuse(
                            &[at(seen.space)],
                            "is not a modifier of the acquire fence.proxy",
                        )?;
                        Ok(OpForm::FenceProxyAcquire)
                    }
                    Some("release" | "acq_rel") => Ok(OpForm::Fence),
                    Some(_) => refuse(&[at(seen.sem)], "is not a modifier of fence.proxy")
                        .map(|()| OpForm::Fence),
                    None => Err(DecodeError::new(
                        DecodeErrorKind::UnknownModifier,
                        Some(kind_index),
                        ".tensormap::generic needs .acquire or .release",
                    )),
                }
            }
            _ => {
                restricted(sem)?;
                Ok(OpForm::Fence)
            }
        };
    }
    refuse(&[at(seen.kind)], "needs .proxy (fence.proxy...)")?;
    refuse(
        &[at(seen.space)],
        "is not a modifier of fence: no state space",
    )?;
    if seen.mbarrier_init.is_some() {
        refuse(
            &[at(seen.restrict)],
            "cannot be combined with .mbarrier_init",
        )?;
        return match (sem, scope) {
            (Some("release"), Some("cluster")) => Ok(OpForm::Fence),
            _ => Err(missing(".release and .cluster with .mbarrier_init")),
        };
    }
    if restrict.is_some() {
        restricted(sem)?;
        return Ok(OpForm::Fence);
    }
    if scope.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "fence needs a scope (.cta, .cluster, .gpu or .sys)",
        )
        .with_fix("write fence.acq_rel.gpu"));
    }
    Ok(OpForm::Fence)
}

/// `bra{.uni}`, `call{.uni}`, `ret{.uni}` (9.7.12), `exit`, `trap`: nothing else.
/// `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`: `.approx` is required (ptxas 13.5: "`.approx`
/// modifier required"), no rounding. Types and `.ftz` (ptxas 13.5 and the syntax blocks):
/// `.f32` with optional `.ftz` (not `tanh`); `rsqrt` also `.f64` (`rsqrt.approx{.ftz}.f64`);
/// `ex2` `.f16`/`.f16x2` without `.ftz` and `.bf16`/`.bf16x2` with it (9.7.4.10:
/// `ex2.approx.ftz.atype` for `.bf16`); `tanh` `.f16`, `.f16x2`, `.bf16`, `.bf16x2` without
/// `.ftz`.
fn decode_approx(
    opcode: Opcode,
    op: FloatUnaryOp,
    modifiers: &[&str],
) -> Result<OpForm, DecodeError> {
    let c = collect(opcode, modifiers, |m| match m {
        "approx" => Some(Modifier::Approx),
        "ftz" => Some(Modifier::Ftz),
        _ => float_rounding(m).map(Modifier::Rounding),
    })?;
    let types: &[Type] = match op {
        FloatUnaryOp::Rsqrt => &[Type::F32, Type::F64],
        FloatUnaryOp::Ex2 | FloatUnaryOp::Tanh => {
            &[Type::F32, Type::F16, Type::F16x2, Type::Bf16, Type::Bf16x2]
        }
        _ => &[Type::F32],
    };
    let ty = c.single_type(opcode, types)?;
    if let Some(r) = c.rounding {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(r.index),
            format!("{opcode} takes no rounding modifier; it is .approx only"),
        ));
    }
    if c.approx.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.ty.map(|t| t.index),
            format!("{opcode}{ty} needs .approx"),
        )
        .with_fix(format!("write {opcode}.approx{ty}")));
    }
    let bf16 = matches!(ty, Type::Bf16 | Type::Bf16x2);
    let ftz_allowed = match op {
        FloatUnaryOp::Tanh => false,
        FloatUnaryOp::Ex2 => matches!(ty, Type::F32) || bf16,
        _ => true,
    };
    if !ftz_allowed {
        forbid(c.ftz, modifiers, ty, opcode)?;
    }
    if op == FloatUnaryOp::Ex2 && bf16 && c.ftz.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.ty.map(|t| t.index),
            format!("ex2.approx{ty} needs .ftz (`ex2.approx.ftz{ty}`)"),
        )
        .with_fix(format!("write ex2.approx.ftz{ty}")));
    }
    Ok(OpForm::FloatUnary {
        op,
        ty,
        modifiers: c.float_modifiers(),
    })
}

/// `addc{.cc}.type`, `subc{.cc}.type` (9.7.2.2, 9.7.2.4) and `madc{.hi,.lo}{.cc}.type`
/// (9.7.2.6), `.type = { .u32, .s32, .u64, .s64 }`. ptxas 13.5 also takes the 16-bit types
/// without `.cc`, `.sat` on `addc.s32`/`subc.s32` and `madc.hi.s32` (not with `.cc`: "Modifier
/// '.cc' cannot be combined with modifier '.sat'"): those are checked and not run.
fn decode_carry(opcode: Opcode, op: CarryOp, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let mad = matches!(op, CarryOp::Mad { .. });
    let c = collect(opcode, modifiers, |m| match m {
        "cc" => Some(Modifier::Cc),
        "sat" => Some(Modifier::Sat),
        "lo" if mad => Some(Modifier::Mul(MulMode::Lo)),
        "hi" if mad => Some(Modifier::Mul(MulMode::Hi)),
        _ => None,
    })?;
    let ty = c.single_type(
        opcode,
        &[
            Type::U32,
            Type::S32,
            Type::U64,
            Type::S64,
            Type::U16,
            Type::S16,
        ],
    )?;
    let spec = matches!(ty, Type::U32 | Type::S32 | Type::U64 | Type::S64);
    if !spec {
        forbid(c.cc, modifiers, ty, opcode)?;
    }
    let op = match (op, c.mul) {
        (CarryOp::Mad { .. }, None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                c.ty.map(|t| t.index),
                format!("{opcode}{ty} needs .lo or .hi"),
            ));
        }
        (CarryOp::Mad { .. }, Some(m)) => {
            if c.cc.is_some_and(|cc| cc < m.index) {
                return Err(DecodeError::new(
                    DecodeErrorKind::UnsupportedTypes,
                    c.cc,
                    "write .lo or .hi before .cc (`madc.lo.cc.type`)",
                ));
            }
            CarryOp::Mad {
                hi: m.value == MulMode::Hi,
            }
        }
        (op, _) => op,
    };
    if let Some(sat) = c.sat {
        if ty != Type::S32 || op == (CarryOp::Mad { hi: false }) {
            forbid(Some(sat), modifiers, ty, opcode)?;
        }
        if let Some(cc) = c.cc {
            return Err(DecodeError::new(
                DecodeErrorKind::ConflictingModifier,
                Some(cc),
                ".cc cannot be combined with .sat",
            ));
        }
    }
    Ok(OpForm::Carry {
        op,
        ty,
        carry_in: true,
        carry_out: c.cc.is_some(),
        off_spec: !spec || c.sat.is_some(),
    })
}

/// `.clamp` / `.wrap` of `bmsk` and `szext`.
fn clamp_mode(m: &str) -> Option<Modifier> {
    match m {
        "clamp" => Some(Modifier::Clamp(true)),
        "wrap" => Some(Modifier::Clamp(false)),
        _ => None,
    }
}

/// `bmsk.mode`, `szext.mode`: the mode is required (ptxas 13.5: "Clamp modifier required").
fn require_clamp_mode(opcode: Opcode, c: &Collected) -> Result<bool, DecodeError> {
    c.clamp.map(|m| m.value).ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            c.ty.map(|t| t.index),
            format!("{opcode} needs .clamp or .wrap"),
        )
    })
}

fn testp_op(m: &str) -> Option<TestpOp> {
    Some(match m {
        "finite" => TestpOp::Finite,
        "infinite" => TestpOp::Infinite,
        "number" => TestpOp::Number,
        "notanumber" => TestpOp::NotANumber,
        "normal" => TestpOp::Normal,
        "subnormal" => TestpOp::Subnormal,
        _ => return None,
    })
}

/// The SIMD video instructions (9.7.18.2): `vop2.dtype.atype.btype{.sat}`,
/// `vop2.dtype.atype.btype.add` (vadd2.md; `.dtype = .atype = .btype = { .u32, .s32 }`;
/// "Saturation cannot be used with the secondary accumulate operation") and
/// `vset2.atype.btype.cmp{.add}` (vset2.md: `.cmp = { .eq, .ne, .lt, .le, .gt, .ge }`), the
/// same for the `vop4` forms.
fn decode_video_simd(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    use Opcode as O;
    let (op, quad) = match opcode {
        O::Vadd2 => (VideoOp::Add, false),
        O::Vadd4 => (VideoOp::Add, true),
        O::Vsub2 => (VideoOp::Sub, false),
        O::Vsub4 => (VideoOp::Sub, true),
        O::Vavrg2 => (VideoOp::Avrg, false),
        O::Vavrg4 => (VideoOp::Avrg, true),
        O::Vabsdiff2 => (VideoOp::Absdiff, false),
        O::Vabsdiff4 => (VideoOp::Absdiff, true),
        O::Vmin2 => (VideoOp::Min, false),
        O::Vmin4 => (VideoOp::Min, true),
        O::Vmax2 => (VideoOp::Max, false),
        O::Vmax4 => (VideoOp::Max, true),
        _ => (VideoOp::Set(Compare::Eq), opcode == O::Vset4),
    };
    let set = matches!(op, VideoOp::Set(_));
    let invalid = |index: Option<usize>, message: String| {
        Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            index,
            message,
        ))
    };
    let mut signed = Vec::new();
    let (mut sat, mut add, mut compare) = (false, false, None);
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "u32" => signed.push(false),
            "s32" => signed.push(true),
            "sat" if !set => sat = true,
            // ptxas 13.5: "Multiple instruction post-operation flags set" for `.add.add`.
            "add" if add => {
                return invalid(Some(index), format!("{opcode} takes one .add"));
            }
            "add" => add = true,
            _ => match compare_op(m) {
                Some(
                    c @ (Compare::Eq
                    | Compare::Ne
                    | Compare::Lt
                    | Compare::Le
                    | Compare::Gt
                    | Compare::Ge),
                ) if set && compare.is_none() => compare = Some(c),
                _ => return invalid(Some(index), format!("{opcode} does not take .{m}")),
            },
        }
    }
    let types = if set { 2 } else { 3 };
    if signed.len() != types {
        return invalid(
            None,
            format!("{opcode} needs {types} types, each .u32 or .s32"),
        );
    }
    if sat && add {
        return invalid(None, format!("{opcode} takes .sat or .add, not both"));
    }
    let op = match (op, compare) {
        (VideoOp::Set(_), Some(c)) => VideoOp::Set(c),
        (VideoOp::Set(_), None) => {
            return invalid(None, format!("{opcode} needs a comparison (.eq, .lt, ...)"));
        }
        (op, _) => op,
    };
    let [d_signed, a_signed, b_signed] = if set {
        [false, signed[0], signed[1]]
    } else {
        [signed[0], signed[1], signed[2]]
    };
    Ok(OpForm::VideoSimd {
        op,
        quad,
        d_signed,
        a_signed,
        b_signed,
        sat,
        add,
    })
}

/// The scalar video instructions (9.7.18.1): `vop.dtype.atype.btype{.sat}{.op2}` (vadd.md:
/// `.dtype = .atype = .btype = { .u32, .s32 }`, `.op2 = { .add, .min, .max }`),
/// `vop.dtype.atype.u32{.sat}.mode{.op2}` (vshl.md: `.mode = { .clamp, .wrap }`),
/// `vmad.dtype.atype.btype{.po}{.sat}{.scale}` (vmad.md: `.scale = { .shr7, .shr15 }`) and
/// `vset.atype.btype.cmp{.op2}` (vset.md). The syntax table has checked the order and the
/// combinations; this reads them.
fn decode_video_scalar(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    use Opcode as O;
    let invalid = |index: Option<usize>, message: String| {
        Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            index,
            message,
        ))
    };
    let mut signed = Vec::new();
    let (mut sat, mut secondary, mut compare, mut clamp) = (false, None, None, None);
    let (mut po, mut shift) = (false, 0);
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "u32" => signed.push(false),
            "s32" => signed.push(true),
            "sat" if opcode != O::Vset => sat = true,
            "add" | "min" | "max" if opcode != O::Vmad && secondary.is_none() => {
                secondary = Some(match m {
                    "add" => VideoSecondary::Add,
                    "min" => VideoSecondary::Min,
                    _ => VideoSecondary::Max,
                });
            }
            "clamp" | "wrap" if matches!(opcode, O::Vshl | O::Vshr) && clamp.is_none() => {
                clamp = Some(m == "clamp");
            }
            "po" if opcode == O::Vmad => po = true,
            "shr7" if opcode == O::Vmad && shift == 0 => shift = 7,
            "shr15" if opcode == O::Vmad && shift == 0 => shift = 15,
            _ => match compare_op(m) {
                Some(
                    c @ (Compare::Eq
                    | Compare::Ne
                    | Compare::Lt
                    | Compare::Le
                    | Compare::Gt
                    | Compare::Ge),
                ) if opcode == O::Vset && compare.is_none() => compare = Some(c),
                _ => return invalid(Some(index), format!("{opcode} does not take .{m}")),
            },
        }
    }
    let types = if opcode == O::Vset { 2 } else { 3 };
    if signed.len() != types {
        return invalid(
            None,
            format!("{opcode} needs {types} types, each .u32 or .s32"),
        );
    }
    let [d_signed, a_signed, b_signed] = if opcode == O::Vset {
        [false, signed[0], signed[1]]
    } else {
        [signed[0], signed[1], signed[2]]
    };
    let op = match opcode {
        O::Vadd => VideoScalarOp::Arithmetic(VideoOp::Add),
        O::Vsub => VideoScalarOp::Arithmetic(VideoOp::Sub),
        O::Vabsdiff => VideoScalarOp::Arithmetic(VideoOp::Absdiff),
        O::Vmin => VideoScalarOp::Arithmetic(VideoOp::Min),
        O::Vmax => VideoScalarOp::Arithmetic(VideoOp::Max),
        O::Vshl | O::Vshr => {
            let Some(clamp) = clamp else {
                return invalid(None, format!("{opcode} needs .clamp or .wrap"));
            };
            // vshl.md: `vop.dtype.atype.u32`.
            if b_signed {
                return invalid(None, format!("{opcode} takes a .u32 shift amount"));
            }
            if opcode == O::Vshl {
                VideoScalarOp::Shl { clamp }
            } else {
                VideoScalarOp::Shr { clamp }
            }
        }
        O::Vmad => {
            // vmad.md: "Source operands may not be negated in .po mode" (checked with the
            // operands).
            VideoScalarOp::Mad { po, shift }
        }
        _ => match compare {
            Some(c) => VideoScalarOp::Arithmetic(VideoOp::Set(c)),
            None => return invalid(None, format!("{opcode} needs a comparison (.eq, .lt, ...)")),
        },
    };
    Ok(OpForm::VideoScalar {
        op,
        d_signed,
        a_signed,
        b_signed,
        sat,
        secondary,
    })
}

/// `dp4a.atype.btype`, `dp2a.mode.atype.btype` (9.7.1.23-24): `.atype = .btype = { .u32,
/// .s32 }`; `dp2a` needs `.lo` or `.hi` (ptxas 13.5: "'.hi/.lo' modifier required").
fn decode_dot(opcode: Opcode, modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let dp2a = opcode == Opcode::Dp2a;
    let c = collect_two_types(opcode, modifiers, |m| match m {
        "lo" if dp2a => Some(Modifier::Mul(MulMode::Lo)),
        "hi" if dp2a => Some(Modifier::Mul(MulMode::Hi)),
        _ => None,
    })?;
    let a = c.single_type(opcode, &[Type::U32, Type::S32])?;
    let Some(b) = c.second_ty else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            format!("{opcode} needs two types (.atype.btype)"),
        ));
    };
    if !matches!(b.value, Type::U32 | Type::S32) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(b.index),
            format!(
                "{opcode} does not take {} as .btype; it is .u32 or .s32",
                b.value
            ),
        ));
    }
    let mode = match (dp2a, c.mul) {
        (false, _) => None,
        (true, Some(m)) => Some(m.value == MulMode::Hi),
        (true, None) => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                c.ty.map(|t| t.index),
                "dp2a needs .lo or .hi",
            ));
        }
    };
    Ok(OpForm::Dot {
        dp2a: mode,
        a_signed: a == Type::S32,
        b_signed: b.value == Type::S32,
    })
}

/// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype` (9.7.6.1: `.dtype = { .u32, .s32, .f32 }`, `.stype`
/// the integer, bit and `.f32`/`.f64` types) and the half-precision forms, as ptxas 13.5 takes
/// them: with those source types the destination may also be `.f16` or `.bf16`; an `.f16`
/// or `.bf16` source takes a `.u16 .s16 .u32 .s32 .f16` destination (`.bf16` too for an
/// `.f16` source; `.bf16` for a `.bf16` source); `.f16x2`/`.bf16x2` sources take `.u32`,
/// `.s32` or their own type. `.ftz` goes with `.f32`, `.f16` and `.f16x2` sources, and not
/// with a `.bf16` destination. The comparisons are setp's.
fn decode_set(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Set;
    let c = collect_two_types(opcode, modifiers, |m| {
        if m == "ftz" {
            return Some(Modifier::Ftz);
        }
        compare_op(m)
            .map(Modifier::Compare)
            .or_else(|| bool_op(m).map(Modifier::Bool))
    })?;
    let Some(dtype) = c.ty else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "set needs two types (.dtype.stype)",
        ));
    };
    let Some(stype) = c.second_ty else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "set needs two types (.dtype.stype)",
        ));
    };
    let Some(compare) = c.compare else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "set needs a comparison operator (.eq, .lt, ...)",
        ));
    };
    use Type as T;
    let destinations: &[Type] = match stype.value {
        T::F16 => &[T::U16, T::S16, T::U32, T::S32, T::F16, T::Bf16],
        T::Bf16 => &[T::U16, T::S16, T::U32, T::S32, T::Bf16],
        T::F16x2 => &[T::U32, T::S32, T::F16x2],
        T::Bf16x2 => &[T::U32, T::S32, T::Bf16x2],
        t if SETP_TYPES.contains(&t) && !is_half(t) => &[T::U32, T::S32, T::F32, T::F16, T::Bf16],
        _ => &[],
    };
    if !destinations.contains(&dtype.value) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(stype.index),
            format!(
                "set does not take .dtype {} with .stype {}",
                dtype.value, stype.value
            ),
        ));
    }
    let ftz_ok = matches!(stype.value, T::F32 | T::F16 | T::F16x2) && dtype.value != T::Bf16;
    if !ftz_ok {
        forbid(c.ftz, modifiers, stype.value, opcode)?;
    }
    // The comparison must suit the source type, as for setp.
    decode_setp_compare(compare, stype.value, modifiers)?;
    Ok(OpForm::Set {
        compare: compare.value,
        combine: c.boolop.map(|b| b.value),
        dtype: dtype.value,
        stype: stype.value,
        ftz: c.ftz.is_some(),
    })
}

/// The state-space modifiers of `mbarrier`: `.shared`, `.shared::cta`, `.shared::cluster`
/// (`Some(true)` for the cluster), none for a generic address; `.global` is "State space
/// incorrect" for ptxas 13.5.
fn mbarrier_space(m: &str) -> Option<bool> {
    match m {
        "shared" | "shared::cta" => Some(false),
        "shared::cluster" => Some(true),
        _ => None,
    }
}

/// `mbarrier.init/inval/arrive/arrive_drop/expect_tx/complete_tx/test_wait/try_wait/
/// pending_count` (9.7.13.15.x), as ptxas 13.5 takes them: `.b64` only; `.sem` (`.release`
/// for arrive, `.acquire` for the waits, `.relaxed` for both and for expect_tx/complete_tx)
/// and `.scope` (`.cta`, `.cluster`) accepted and without effect in a sequential simulator;
/// `.shared::cluster` only on arrive (with a sink destination), expect_tx and complete_tx.
fn decode_mbarrier(modifiers: &[&str]) -> Result<OpForm, DecodeError> {
    let opcode = Opcode::Mbarrier;
    let Some((&first, rest)) = modifiers.split_first() else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            None,
            "mbarrier needs an operation (.init, .arrive, .test_wait, ...)",
        ));
    };
    let (mut op, mut rest) = match first {
        "init" => (MbarrierOp::Init, rest),
        "inval" => (MbarrierOp::Inval, rest),
        "arrive" | "arrive_drop" => (
            MbarrierOp::Arrive {
                drop: first == "arrive_drop",
                expect_tx: false,
                no_complete: false,
            },
            rest,
        ),
        "expect_tx" => (MbarrierOp::ExpectTx, rest),
        "complete_tx" => (MbarrierOp::CompleteTx, rest),
        "test_wait" | "try_wait" => (
            MbarrierOp::Wait {
                try_wait: first == "try_wait",
                parity: false,
            },
            rest,
        ),
        "pending_count" => (MbarrierOp::PendingCount, rest),
        other => {
            return Err(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(0),
                format!(".{other} is not an operation of mbarrier"),
            ));
        }
    };
    // The second word of the operation: `.noComplete`/`.expect_tx` after arrive, `.parity`
    // after a wait.
    let mut offset = 1;
    match (&mut op, rest.first().copied()) {
        (MbarrierOp::Arrive { no_complete, .. }, Some("noComplete")) => {
            *no_complete = true;
            rest = &rest[1..];
            offset += 1;
        }
        (MbarrierOp::Arrive { expect_tx, .. }, Some("expect_tx")) => {
            *expect_tx = true;
            rest = &rest[1..];
            offset += 1;
        }
        (MbarrierOp::Wait { parity, .. }, Some("parity")) => {
            *parity = true;
            rest = &rest[1..];
            offset += 1;
        }
        _ => {}
    }
    let (mut space, mut ty, mut sem): (Option<(usize, bool)>, Option<usize>, Option<usize>) =
        (None, None, None);
    let mut scope = None;
    for (i, &m) in rest.iter().enumerate() {
        let index = i + offset;
        let allowed_sem = match op {
            MbarrierOp::Arrive { .. } => matches!(m, "release" | "relaxed"),
            MbarrierOp::Wait { .. } => matches!(m, "acquire" | "relaxed"),
            MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => m == "relaxed",
            _ => false,
        };
        if allowed_sem {
            set_flag(&mut sem, index, m)?;
        } else if matches!(m, "cta" | "cluster") {
            // In either order: ptxas 13.5 takes `mbarrier.arrive.cluster.relaxed` as the ISA's
            // example `mbarrier.arrive.expect_tx.cluster.relaxed.shared::cta.b64` writes it.
            set_flag(&mut scope, index, m)?;
        } else if let Some(cluster) = mbarrier_space(m) {
            if space.is_some() {
                return Err(conflict(index, "state space"));
            }
            space = Some((index, cluster));
        } else if m == "b64" {
            set_flag(&mut ty, index, m)?;
        } else if Type::from_name(m).is_some() {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(index),
                format!("mbarrier takes .b64, not .{m}"),
            ));
        } else {
            return Err(not_a_modifier(
                index,
                m,
                format_args!("{opcode}.{first} here"),
            ));
        }
    }
    if ty.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "mbarrier needs .b64",
        ));
    }
    if sem.is_some() != scope.is_some() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            sem.or(scope),
            "mbarrier's .sem and .scope go together (`.release.cta`)",
        ));
    }
    let cluster = space.is_some_and(|(_, c)| c);
    if let (Some((index, true)), false) = (
        space,
        matches!(
            op,
            MbarrierOp::Arrive { .. } | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx
        ),
    ) {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            Some(index),
            format!("{opcode}.{first} takes no .shared::cluster"),
        ));
    }
    if op == MbarrierOp::PendingCount && space.is_some() {
        return Err(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            space.map(|(i, _)| i),
            "mbarrier.pending_count reads a state, not memory",
        ));
    }
    Ok(OpForm::Mbarrier {
        op,
        shared: space.is_some(),
        cluster,
    })
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]` (9.7.9.25.3.5); the modifiers
/// after `arrive`.
fn decode_cp_mbarrier(rest: &[&str]) -> Result<OpForm, DecodeError> {
    let (mut noinc, mut shared, mut ty) = (None, None, None);
    for (i, &m) in rest.iter().enumerate() {
        let index = i + 3;
        match m {
            "noinc" => set_flag(&mut noinc, index, m)?,
            "shared" | "shared::cta" => set_flag(&mut shared, index, m)?,
            "b64" => set_flag(&mut ty, index, m)?,
            _ => {
                return Err(not_a_modifier(index, m, "cp.async.mbarrier.arrive"));
            }
        }
    }
    if ty.is_none() {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "cp.async.mbarrier.arrive needs .b64",
        ));
    }
    Ok(OpForm::Mbarrier {
        op: MbarrierOp::CpAsyncArrive {
            noinc: noinc.is_some(),
        },
        shared: shared.is_some(),
        cluster: false,
    })
}

fn control(
    opcode: Opcode,
    modifiers: &[&str],
    form: OpForm,
    uni: bool,
) -> Result<OpForm, DecodeError> {
    for (index, &m) in modifiers.iter().enumerate() {
        if !(uni && m == "uni") || modifiers[..index].contains(&"uni") {
            let kind = if m == "uni" && uni {
                DecodeErrorKind::DuplicateModifier
            } else {
                DecodeErrorKind::UnknownModifier
            };
            return Err(DecodeError::new(
                kind,
                Some(index),
                format!(".{m} is not a modifier of {opcode}"),
            ));
        }
    }
    Ok(form)
}

/// "`.modifier` is not a modifier of `of`", for the modifier at `index`.
fn not_a_modifier(index: usize, modifier: &str, of: impl std::fmt::Display) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnknownModifier,
        Some(index),
        format!(".{modifier} is not a modifier of {of}"),
    )
}

/// Where `.L2::cache_hint` is among `modifiers`, if it is; twice is an error (ptxas 13.5:
/// "Multiple .L2::cache_hint modifiers specified").
fn cache_hint_position(modifiers: &[&str]) -> Result<Option<usize>, DecodeError> {
    let mut positions = modifiers
        .iter()
        .enumerate()
        .filter(|(_, m)| **m == "L2::cache_hint")
        .map(|(i, _)| i);
    let first = positions.next();
    if let Some(second) = positions.next() {
        return Err(DecodeError::new(
            DecodeErrorKind::DuplicateModifier,
            Some(second),
            ".L2::cache_hint is written twice",
        ));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(opcode: Opcode, modifiers: &[&str]) -> OpForm {
        match decode_op(opcode, modifiers) {
            Ok(form) => form,
            Err(e) => panic!("{opcode}.{}: {e}", modifiers.join(".")),
        }
    }

    fn err(opcode: Opcode, modifiers: &[&str]) -> DecodeError {
        match decode_op(opcode, modifiers) {
            Ok(form) => panic!("{opcode}.{} decoded to {form:?}", modifiers.join(".")),
            Err(e) => e,
        }
    }

    const RN: FloatModifiers = FloatModifiers::RN;

    #[test]
    fn tensor_reductions_decode_as_reducing_stores() {
        // PTX ISA 9.0, cp.reduce.async.bulk.tensor: ".dst = { .global }", ".src = {
        // .shared::cta }", ".load_mode = { .tile, .im2col_no_offs }", a .redOp, .bulk_group.
        let form = |modifiers: &[&str]| {
            let mut all = vec!["reduce", "async", "bulk", "tensor"];
            all.extend_from_slice(modifiers);
            decode_op(Opcode::Cp, &all)
        };
        assert_eq!(
            form(&[
                "3d",
                "global",
                "shared::cta",
                "xor",
                "im2col_no_offs",
                "bulk_group"
            ]),
            Ok(OpForm::CpAsyncBulkTensor {
                dims: 3,
                load: false,
                shared_cta: false,
                im2col: true,
                wide: None,
                four_rows: false,
                cta_group: None,
                multicast: false,
                cache_hint: false,
                reduce: Some(AtomOp::Xor),
            })
        );
        let refused = [
            &["2d", "global", "shared::cta", "tile", "bulk_group"][..],
            &["2d", "global", "shared::cta", "add", "min", "bulk_group"],
            &[
                "2d",
                "shared::cluster",
                "global",
                "add",
                "mbarrier::complete_tx::bytes",
            ],
            &["2d", "global", "shared::cta", "add", "im2col", "bulk_group"],
            &["2d", "global", "shared::cta", "add", "tile"],
        ];
        for modifiers in refused {
            assert!(form(modifiers).is_err(), "{modifiers:?}");
        }
    }

    #[test]
    fn spellings_from_the_brief() {
        assert_eq!(
            ok(Opcode::Ld, &["global", "nc", "v4", "f32"]),
            OpForm::Ld {
                space: Space::Global,
                ty: Type::F32,
                vector: 4,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Atom, &["relaxed", "gpu", "global", "add", "u32"]),
            OpForm::Atom {
                reduction: false,
                space: Space::Global,
                op: AtomOp::Add,
                ty: Type::U32,
                vector: 1,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Setp, &["gt", "and", "ftz", "f32"]),
            OpForm::Setp {
                compare: Compare::Gt,
                combine: Some(BoolOp::And),
                ty: Type::F32,
                ftz: true
            }
        );
        assert_eq!(
            ok(Opcode::Mul, &["wide", "s32"]),
            int_binary(IntOp::Mul(MulMode::Wide), Type::S32)
        );
        assert_eq!(
            ok(Opcode::Div, &["rn", "ftz", "f32"]),
            OpForm::FloatBinary {
                op: FloatOp::Div,
                ty: Type::F32,
                modifiers: FloatModifiers { ftz: true, ..RN }
            }
        );
        assert_eq!(
            ok(Opcode::Div, &["full", "f32"]),
            OpForm::FloatBinary {
                op: FloatOp::Div,
                ty: Type::F32,
                modifiers: FloatModifiers {
                    approx: true,
                    full: true,
                    ..RN
                }
            }
        );
        assert_eq!(
            ok(Opcode::Div, &["approx", "ftz", "f32"]),
            OpForm::FloatBinary {
                op: FloatOp::Div,
                ty: Type::F32,
                modifiers: FloatModifiers {
                    approx: true,
                    ftz: true,
                    ..RN
                }
            }
        );
        assert_eq!(
            ok(Opcode::Mad, &["lo", "s32"]),
            OpForm::Mad {
                mode: MulMode::Lo,
                ty: Type::S32,
                sat: false
            }
        );
        assert_eq!(
            ok(Opcode::Mad, &["hi", "sat", "s32"]),
            OpForm::Mad {
                mode: MulMode::Hi,
                ty: Type::S32,
                sat: true
            }
        );
        assert_eq!(
            ok(Opcode::Mad, &["rn", "f32"]),
            OpForm::Fma {
                ty: Type::F32,
                modifiers: RN
            }
        );
        assert_eq!(
            ok(Opcode::Max, &["NaN", "f32"]),
            OpForm::FloatBinary {
                op: FloatOp::Max,
                ty: Type::F32,
                modifiers: FloatModifiers { nan: true, ..RN }
            }
        );
        assert_eq!(
            ok(Opcode::Cvta, &["to", "global", "u64"]),
            OpForm::Cvta {
                to: true,
                space: Space::Global,
                ty: Type::U64
            }
        );
        assert_eq!(
            ok(Opcode::Cvta, &["shared", "u64"]),
            OpForm::Cvta {
                to: false,
                space: Space::Shared,
                ty: Type::U64
            }
        );
        assert_eq!(
            ok(Opcode::Ld, &["param", "u64"]),
            OpForm::Ld {
                space: Space::Param,
                ty: Type::U64,
                vector: 1,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::St, &["param", "b32"]),
            OpForm::St {
                space: Space::Param,
                ty: Type::B32,
                vector: 1,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Ld, &["shared::cta", "u32"]),
            OpForm::Ld {
                space: Space::Shared,
                ty: Type::U32,
                vector: 1,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Ld, &["global", "L1::no_allocate", "v2", "u32"]),
            OpForm::Ld {
                space: Space::Global,
                ty: Type::U32,
                vector: 2,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Ld, &["volatile", "shared", "b32"]),
            OpForm::Ld {
                space: Space::Shared,
                ty: Type::B32,
                vector: 1,
                cache_policy: false,
            }
        );
        // ptxas 13.5 takes `.L2::evict_last` on the 256-bit forms only ("Instruction 'ld'
        // requires '.v8.b32/.v4.b64' type with '.L2::evict_last' modifier").
        assert_eq!(
            ok(
                Opcode::Ld,
                &["acquire", "gpu", "global", "L2::evict_last", "v4", "b64"]
            ),
            OpForm::Ld {
                space: Space::Global,
                ty: Type::B64,
                vector: 4,
                cache_policy: false,
            }
        );
        assert_eq!(
            err(
                Opcode::Ld,
                &["acquire", "gpu", "global", "L2::evict_last", "b64"]
            )
            .kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            ok(Opcode::St, &["release", "sys", "b32"]),
            OpForm::St {
                space: Space::Generic,
                ty: Type::B32,
                vector: 1,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Ldu, &["global", "f32"]),
            OpForm::Ld {
                space: Space::Global,
                ty: Type::F32,
                vector: 1,
                cache_policy: false,
            }
        );
        let sync = OpForm::Barrier {
            op: BarrierOp::Sync,
        };
        assert_eq!(ok(Opcode::Bar, &["sync"]), sync);
        assert_eq!(ok(Opcode::Bar, &["cta", "sync"]), sync);
        assert_eq!(ok(Opcode::Barrier, &["sync", "aligned"]), sync);
        assert_eq!(
            ok(Opcode::Bar, &["red", "popc", "u32"]),
            OpForm::Barrier {
                op: BarrierOp::RedPopc
            }
        );
        assert_eq!(
            ok(Opcode::Barrier, &["cta", "red", "or", "aligned", "pred"]),
            OpForm::Barrier {
                op: BarrierOp::RedOr
            }
        );
        assert!(decode_op(Opcode::Bar, &["red", "popc", "b32"]).is_err());
        assert!(decode_op(Opcode::Bar, &["arrive", "aligned"]).is_err());
        // ptxas 13.5: "Illegal modifier '.aligned' for instruction 'bar'".
        assert_eq!(
            err(Opcode::Bar, &["sync", "aligned"]).kind,
            DecodeErrorKind::UnknownModifier
        );
        assert_eq!(ok(Opcode::Membar, &["gl"]), OpForm::Fence);
        assert_eq!(ok(Opcode::Fence, &["acq_rel", "gpu"]), OpForm::Fence);
        assert_eq!(
            ok(Opcode::Fence, &["proxy", "async", "shared::cta"]),
            OpForm::Fence
        );
        assert_eq!(ok(Opcode::Bra, &["uni"]), OpForm::Bra);
        assert_eq!(ok(Opcode::Bra, &[]), OpForm::Bra);
        assert_eq!(ok(Opcode::Call, &["uni"]), OpForm::Call);
        assert_eq!(ok(Opcode::Ret, &["uni"]), OpForm::Ret);
        assert_eq!(ok(Opcode::Exit, &[]), OpForm::Exit);
        assert_eq!(ok(Opcode::Trap, &[]), OpForm::Trap);
    }

    #[test]
    fn float_defaults_and_modifiers() {
        for op in [Opcode::Add, Opcode::Sub, Opcode::Mul] {
            let OpForm::FloatBinary { modifiers, .. } = ok(op, &["f32"]) else {
                panic!("{op}")
            };
            assert_eq!(modifiers, RN);
        }
        // 9.7.3.5 `fma.rnd.f64`: the rounding is required (ptxas 13.5: "Rounding modifier
        // required for instruction 'fma'").
        assert_eq!(
            err(Opcode::Fma, &["f64"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            ok(Opcode::Fma, &["rn", "f64"]),
            OpForm::Fma {
                ty: Type::F64,
                modifiers: RN
            }
        );
        assert_eq!(
            ok(Opcode::Fma, &["rm", "ftz", "sat", "f32"]),
            OpForm::Fma {
                ty: Type::F32,
                modifiers: FloatModifiers {
                    rounding: Rounding::Rm,
                    ftz: true,
                    sat: true,
                    ..RN
                }
            }
        );
        assert_eq!(
            ok(Opcode::Fma, &["rn", "relu", "bf16x2"]),
            OpForm::Fma {
                ty: Type::Bf16x2,
                modifiers: FloatModifiers { relu: true, ..RN }
            }
        );
        assert_eq!(
            ok(Opcode::Add, &["rz", "f64"]),
            OpForm::FloatBinary {
                op: FloatOp::Add,
                ty: Type::F64,
                modifiers: FloatModifiers {
                    rounding: Rounding::Rz,
                    ..RN
                }
            }
        );
        assert_eq!(
            ok(Opcode::Sqrt, &["rp", "f64"]),
            OpForm::FloatUnary {
                op: FloatUnaryOp::Sqrt,
                ty: Type::F64,
                modifiers: FloatModifiers {
                    rounding: Rounding::Rp,
                    ..RN
                }
            }
        );
        assert!(matches!(
            ok(Opcode::Rcp, &["approx", "ftz", "f64"]),
            OpForm::FloatUnary { .. }
        ));
        assert!(matches!(
            ok(Opcode::Abs, &["ftz", "f32"]),
            OpForm::FloatUnary {
                op: FloatUnaryOp::Abs,
                ..
            }
        ));
        assert!(matches!(
            ok(Opcode::Neg, &["bf16x2"]),
            OpForm::FloatUnary {
                op: FloatUnaryOp::Neg,
                ..
            }
        ));
        // `.relu` is an integer modifier of min/max (`min{.relu}.{s16x2, s32}`); ptxas 13.5
        // rejects it on every floating-point type.
        assert_eq!(
            err(Opcode::Min, &["relu", "f16x2"]).kind,
            DecodeErrorKind::UnknownModifier
        );
        assert!(matches!(
            ok(Opcode::Min, &["xorsign", "abs", "f16x2"]),
            OpForm::FloatBinary { .. }
        ));
    }

    #[test]
    fn integer_forms() {
        assert_eq!(
            ok(Opcode::Add, &["sat", "s32"]),
            OpForm::IntBinary {
                op: IntOp::Add,
                ty: Type::S32,
                sat: true,
                relu: false
            }
        );
        assert_eq!(
            ok(Opcode::Max, &["relu", "s32"]),
            OpForm::IntBinary {
                op: IntOp::Max,
                ty: Type::S32,
                sat: false,
                relu: true
            }
        );
        assert_eq!(
            ok(Opcode::Mul, &["hi", "u64"]),
            int_binary(IntOp::Mul(MulMode::Hi), Type::U64)
        );
        assert_eq!(ok(Opcode::Rem, &["s64"]), int_binary(IntOp::Rem, Type::S64));
        assert_eq!(ok(Opcode::Shr, &["s16"]), int_binary(IntOp::Shr, Type::S16));
        assert_eq!(
            ok(Opcode::And, &["pred"]),
            int_binary(IntOp::And, Type::Pred)
        );
        assert_eq!(
            ok(Opcode::Not, &["pred"]),
            OpForm::IntUnary {
                op: IntUnaryOp::Not,
                ty: Type::Pred
            }
        );
        assert_eq!(
            ok(Opcode::Popc, &["b64"]),
            OpForm::IntUnary {
                op: IntUnaryOp::Popc,
                ty: Type::B64
            }
        );
        assert_eq!(
            ok(Opcode::Abs, &["s32"]),
            OpForm::IntUnary {
                op: IntUnaryOp::Abs,
                ty: Type::S32
            }
        );
        assert_eq!(
            ok(Opcode::Prmt, &["b32", "rc16"]),
            OpForm::Prmt {
                mode: PrmtMode::Rc16
            }
        );
        assert_eq!(
            ok(Opcode::Prmt, &["b32"]),
            OpForm::Prmt {
                mode: PrmtMode::Default
            }
        );
        assert_eq!(ok(Opcode::Lop3, &["b32"]), OpForm::Lop3 { bool_op: None });
        assert_eq!(
            ok(Opcode::Lop3, &["b32", "or"]),
            OpForm::Lop3 {
                bool_op: Some(BoolOp::Or)
            }
        );
        assert_eq!(ok(Opcode::Bfe, &["s64"]), OpForm::Bfe { ty: Type::S64 });
        assert_eq!(ok(Opcode::Bfi, &["b32"]), OpForm::Bfi { ty: Type::B32 });
        assert_eq!(ok(Opcode::Selp, &["f64"]), OpForm::Selp { ty: Type::F64 });
        assert_eq!(
            ok(Opcode::Setp, &["hs", "u32"]),
            OpForm::Setp {
                compare: Compare::Hs,
                combine: None,
                ty: Type::U32,
                ftz: false
            }
        );
        assert_eq!(
            ok(Opcode::Red, &["shared", "add", "f32"]),
            OpForm::Atom {
                reduction: true,
                space: Space::Shared,
                op: AtomOp::Add,
                ty: Type::F32,
                vector: 1,
                cache_policy: false,
            }
        );
        assert_eq!(
            ok(Opcode::Atom, &["cas", "b32"]),
            OpForm::Atom {
                reduction: false,
                space: Space::Generic,
                op: AtomOp::Cas,
                ty: Type::B32,
                vector: 1,
                cache_policy: false,
            }
        );
        assert!(matches!(
            ok(Opcode::Atom, &["global", "add", "noftz", "f16x2"]),
            OpForm::Atom { .. }
        ));
        assert_eq!(
            ok(Opcode::Atom, &["global", "v8", "min", "noftz", "bf16"]),
            OpForm::Atom {
                reduction: false,
                space: Space::Global,
                op: AtomOp::Min,
                ty: Type::Bf16,
                vector: 8,
                cache_policy: false,
            }
        );
        assert!(decode_op(Opcode::Atom, &["global", "min", "noftz", "f16"]).is_err());
        assert!(decode_op(Opcode::Atom, &["shared", "v2", "add", "f32"]).is_err());
        assert!(decode_op(Opcode::Atom, &["global", "v8", "add", "f32"]).is_err());
    }

    #[test]
    fn errors() {
        // Integer mul/mad need a mode.
        let e = err(Opcode::Mul, &["s32"]);
        assert_eq!(
            (e.kind, e.modifier),
            (DecodeErrorKind::UnsupportedTypes, Some(0))
        );
        let e = err(Opcode::Mad, &["u64"]);
        assert_eq!(e.kind, DecodeErrorKind::UnsupportedTypes);
        assert_eq!(err(Opcode::Mul, &["wide", "s64"]).modifier, Some(0));
        // Unknown modifiers point at themselves.
        let e = err(Opcode::Add, &["rn", "bogus", "f32"]);
        assert_eq!(
            (e.kind, e.modifier),
            (DecodeErrorKind::UnknownModifier, Some(1))
        );
        assert_eq!(err(Opcode::Add, &["ftz", "f64"]).modifier, Some(0));
        assert_eq!(err(Opcode::Add, &["rn", "s32"]).modifier, Some(0));
        assert_eq!(err(Opcode::Add, &["sat", "u32"]).modifier, Some(0));
        assert_eq!(err(Opcode::Setp, &["lt", "ftz", "s32"]).modifier, Some(1));
        assert_eq!(err(Opcode::Setp, &["lt", "b32"]).modifier, Some(0));
        assert_eq!(err(Opcode::Setp, &["lo", "f32"]).modifier, Some(0));
        assert_eq!(
            err(Opcode::Ld, &["global", "shared::cluster", "u32"]).modifier,
            Some(1)
        );
        // Missing, extra and unsupported types.
        assert_eq!(err(Opcode::Add, &["rn"]).kind, DecodeErrorKind::MissingType);
        assert_eq!(
            err(Opcode::Ld, &["global"]).kind,
            DecodeErrorKind::MissingType
        );
        let e = err(Opcode::Add, &["s32", "s32"]);
        assert_eq!((e.kind, e.modifier), (DecodeErrorKind::ExtraType, Some(1)));
        let e = err(Opcode::Popc, &["b16"]);
        assert_eq!(
            (e.kind, e.modifier),
            (DecodeErrorKind::UnsupportedTypes, Some(0))
        );
        // Groups.
        let e = err(Opcode::Add, &["rn", "rz", "f32"]);
        assert_eq!(
            (e.kind, e.modifier),
            (DecodeErrorKind::ConflictingModifier, Some(1))
        );
        let e = err(Opcode::Add, &["ftz", "ftz", "f32"]);
        assert_eq!(
            (e.kind, e.modifier),
            (DecodeErrorKind::DuplicateModifier, Some(1))
        );
        // div/rcp/sqrt on floats need a mode.
        assert_eq!(
            err(Opcode::Div, &["f32"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            err(Opcode::Sqrt, &["f64"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(err(Opcode::Div, &["approx", "f64"]).modifier, Some(0));
        // bar.cluster is no instruction (ptxas 13.5: "Unknown modifier '.arrive'" for
        // `bar.cluster.arrive`); bar.red needs its reduction and type.
        let e = err(Opcode::Bar, &["cluster", "arrive"]);
        assert_eq!(
            (e.kind, e.modifier),
            (DecodeErrorKind::UnknownModifier, Some(0))
        );
        // barrier.cluster (ptxas 13.5): `.relaxed`/`.release` on arrive, `.acquire` on wait,
        // one of them; no `.sync`.
        assert_eq!(
            ok(
                Opcode::Barrier,
                &["cluster", "arrive", "relaxed", "aligned"]
            ),
            OpForm::BarrierCluster {
                arrive: true,
                relaxed: true,
                ordered: true
            }
        );
        assert_eq!(
            ok(Opcode::Barrier, &["cluster", "wait", "acquire"]),
            OpForm::BarrierCluster {
                arrive: false,
                relaxed: false,
                ordered: true
            }
        );
        for bad in [
            &["cluster", "wait", "relaxed"][..],
            &["cluster", "arrive", "acquire"],
            &["cluster", "wait", "release"],
            &["cluster", "sync"],
            &["cluster", "arrive", "cta"],
            &["cluster"],
        ] {
            err(Opcode::Barrier, bad);
        }
        assert_eq!(
            err(
                Opcode::Barrier,
                &["cluster", "arrive", "relaxed", "release"]
            )
            .kind,
            DecodeErrorKind::DuplicateModifier
        );
        // mapa / getctarank: `.shared::cluster` or no space; `.u32 .u64 .s32 .s64`.
        assert_eq!(
            ok(Opcode::Mapa, &["s32"]),
            OpForm::Mapa {
                cluster: false,
                ty: Type::S32
            }
        );
        assert_eq!(
            ok(Opcode::Getctarank, &["shared::cluster", "u64"]),
            OpForm::Getctarank {
                cluster: true,
                ty: Type::U64
            }
        );
        err(Opcode::Mapa, &["shared::cta", "u32"]);
        err(Opcode::Mapa, &["b32"]);
        err(Opcode::Getctarank, &["b64"]);
        assert_eq!(
            ok(Opcode::Isspacep, &["shared::cluster"]),
            OpForm::Isspacep {
                space: Space::SharedCluster
            }
        );
        err(Opcode::Isspacep, &["shared::cluster", "u64"]);
        // setmaxnreg (ptxas 13.5): `.inc`/`.dec` with `.sync.aligned.u32`.
        assert_eq!(
            ok(Opcode::Setmaxnreg, &["dec", "sync", "aligned", "u32"]),
            OpForm::Setmaxnreg { inc: false }
        );
        err(Opcode::Setmaxnreg, &["inc", "u32"]);
        err(Opcode::Setmaxnreg, &["inc", "sync", "aligned"]);
        err(
            Opcode::Setmaxnreg,
            &["inc", "dec", "sync", "aligned", "u32"],
        );
        let form = OpForm::Setmaxnreg { inc: true };
        for (value, fine) in [
            (24, true),
            (256, true),
            (64, true),
            (65, false),
            (20, false),
        ] {
            assert_eq!(
                crate::op_layout::setmaxnreg_count_violation(&form, Some(value)).is_none(),
                fine,
                "{value}"
            );
        }
        assert_eq!(
            err(Opcode::Bar, &["red", "u32"]).kind,
            DecodeErrorKind::UnknownModifier
        );
        assert_eq!(
            err(Opcode::Bar, &["red", "and", "u32"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            err(Opcode::Bar, &["sync", "arrive"]).kind,
            DecodeErrorKind::ConflictingModifier
        );
        assert_eq!(err(Opcode::Bar, &[]).kind, DecodeErrorKind::UnknownModifier);
        assert_eq!(err(Opcode::Exit, &["uni"]).modifier, Some(0));
        assert_eq!(
            err(Opcode::Bra, &["uni", "uni"]).kind,
            DecodeErrorKind::DuplicateModifier
        );
        assert_eq!(
            err(Opcode::Atom, &["global", "u32"]).kind,
            DecodeErrorKind::UnknownModifier
        );
        assert_eq!(
            err(Opcode::Red, &["cas", "b32"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            err(Opcode::Atom, &["inc", "s32"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            err(Opcode::Cvta, &["u64"]).kind,
            DecodeErrorKind::UnknownModifier
        );
        assert_eq!(
            err(Opcode::Stacksave, &["u64"]).kind,
            DecodeErrorKind::UnsupportedInstruction(Opcode::Stacksave)
        );
        // vshl.md: `vop.dtype.atype.u32{.sat}.mode`.
        assert_eq!(
            err(Opcode::Vshl, &["u32", "u32", "s32", "clamp"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        assert_eq!(
            err(Opcode::Vshr, &["u32", "u32", "u32"]).kind,
            DecodeErrorKind::UnsupportedTypes
        );
        // ptxas 13.5: ".approx modifier required for instruction 'sin'", ".ftz modifier
        // required for instruction 'ex2.bf16'", "Modifier '.cc' applies only to addc integer
        // types", "'.hi/.lo' modifier required for instruction 'dp2a'".
        assert!(err(Opcode::Sin, &["f32"]).to_string().contains(".approx"));
        assert!(
            err(Opcode::Ex2, &["approx", "bf16"])
                .to_string()
                .contains(".ftz")
        );
        assert!(err(Opcode::Addc, &["cc", "u16"]).to_string().contains("cc"));
        assert!(
            err(Opcode::Dp2a, &["u32", "u32"])
                .to_string()
                .contains(".lo or .hi")
        );
        assert!(
            err(Opcode::Mad, &["cc", "lo", "u32"])
                .to_string()
                .contains(".lo comes first")
        );
    }

    #[test]
    fn scalar_extras() {
        assert_eq!(
            ok(Opcode::Madc, &["hi", "cc", "u64"]),
            OpForm::Carry {
                op: CarryOp::Mad { hi: true },
                ty: Type::U64,
                carry_in: true,
                carry_out: true,
                off_spec: false
            }
        );
        assert_eq!(
            ok(Opcode::Add, &["cc", "s32"]),
            OpForm::Carry {
                op: CarryOp::Add,
                ty: Type::S32,
                carry_in: false,
                carry_out: true,
                off_spec: false
            }
        );
        assert_eq!(
            ok(Opcode::Dp2a, &["hi", "s32", "u32"]),
            OpForm::Dot {
                dp2a: Some(true),
                a_signed: true,
                b_signed: false
            }
        );
        assert_eq!(
            ok(Opcode::Set, &["lt", "and", "f32", "s32"]),
            OpForm::Set {
                compare: Compare::Lt,
                combine: Some(BoolOp::And),
                dtype: Type::F32,
                stype: Type::S32,
                ftz: false
            }
        );
    }

    /// Whether `decode_op` describes this opcode (the others answer UnsupportedInstruction).
    fn covered(opcode: Opcode) -> bool {
        !matches!(
            decode_op(opcode, &[]),
            Err(DecodeError { kind: DecodeErrorKind::UnsupportedInstruction(o), modifier: None, .. }) if o == opcode
        )
    }

    /// Every instruction with a covered opcode in the real PTX of `ptx-samples/nvcc` and
    /// `ptx-samples/triton` decodes. A plain line scan, independent of the parser.
    #[test]
    fn every_sample_instruction_decodes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx-samples");
        let mut seen = std::collections::BTreeSet::new();
        let mut files = 0;
        for dir in ["nvcc", "triton"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                panic!("missing {}", root.join(dir).display())
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_none_or(|e| e != "ptx") {
                    continue;
                }
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for line in text.lines() {
                    let line = line.split("//").next().unwrap_or("").trim();
                    let line = line.trim_start_matches('{').trim();
                    // A predicate guard `@p` / `@!p`.
                    let line = match line.strip_prefix('@') {
                        Some(rest) => rest
                            .split_once(char::is_whitespace)
                            .map_or("", |(_, r)| r)
                            .trim(),
                        None => line,
                    };
                    let word = line
                        .split(|c: char| c.is_whitespace() || c == ';')
                        .next()
                        .unwrap_or("");
                    let mut parts = word.split('.');
                    let Some(opcode) = parts.next().and_then(Opcode::from_name) else {
                        continue;
                    };
                    if !covered(opcode) {
                        continue;
                    }
                    let modifiers: Vec<&str> = parts.collect();
                    if let Err(e) = decode_op(opcode, &modifiers) {
                        panic!("{}: `{word}` does not decode: {e}", path.display());
                    }
                    seen.insert(word.to_string());
                }
            }
        }
        assert!(files > 10, "only {files} sample files");
        // The scan found the spellings it should have (a guard against a broken scan).
        for word in [
            "mul.wide.s32",
            "cvta.to.global.u64",
            "atom.relaxed.gpu.global.add.u32",
            "bar.sync",
            "fma.rn.bf16x2",
        ] {
            assert!(seen.contains(word), "{word} not seen; saw {seen:?}");
        }
    }

    /// The word orders and the one-semantics rule of the sixteenth round, with ptxas 13.5's
    /// verdicts (scripts/conformance/campaign16-probes.txt, tests/conformance/
    /// campaign16-probes.tsv).
    #[test]
    fn word_orders_and_semantics_follow_ptxas() {
        // Accepted by ptxas: the operation right after `barrier.cluster`, the rest in any order.
        ok(
            Opcode::Barrier,
            &["cluster", "arrive", "aligned", "release"],
        );
        ok(Opcode::Barrier, &["cluster", "wait", "aligned", "acquire"]);
        // "Unknown modifier '.arrive'", "Not a name of any known instruction:
        // 'barrier.cluster'", "Arguments mismatch for instruction 'barrier.arrive'",
        // "Illegal modifier '.cluster' for instruction 'bar'".
        err(Opcode::Barrier, &["cluster", "aligned", "arrive"]);
        err(Opcode::Barrier, &["cluster", "acquire", "wait"]);
        err(Opcode::Barrier, &["arrive", "cluster"]);
        err(Opcode::Barrier, &["shared", "cluster", "arrive"]);
        err(Opcode::Bar, &["sync", "cluster"]);
        // `setmaxnreg.dec.u32.sync.aligned` is taken, `setmaxnreg.sync.inc.aligned.u32` is "Not a
        // name of any known instruction: 'setmaxnreg'".
        ok(Opcode::Setmaxnreg, &["dec", "u32", "sync", "aligned"]);
        err(Opcode::Setmaxnreg, &["sync", "inc", "aligned", "u32"]);
        err(Opcode::Setmaxnreg, &["u32", "dec", "sync", "aligned"]);
        // "Duplicate .relaxed modifier", "Duplicate .weak modifier", "Duplicate .acq_rel
        // modifier"; one semantics is taken.
        ok(Opcode::Atom, &["relaxed", "gpu", "add", "u32"]);
        err(Opcode::Atom, &["release", "relaxed", "gpu", "add", "u32"]);
        err(Opcode::Red, &["release", "relaxed", "gpu", "add", "u32"]);
        err(Opcode::Ld, &["volatile", "weak", "u32"]);
        err(Opcode::Ld, &["relaxed", "acquire", "gpu", "u32"]);
        err(Opcode::St, &["relaxed", "release", "gpu", "u32"]);
        err(Opcode::Atom, &["acquire", "acq_rel", "gpu", "add", "u32"]);
    }
}
