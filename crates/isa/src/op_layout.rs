//! Operand layouts of the instructions decoded by [`crate::ops::decode_op`]: how many operands
//! each form takes, which are written, and which registers and literals each accepts.
//!
//! Register types follow the relaxed type-checking rules (PTX ISA 9.4.1, Tables 27 and 28)
//! where the instruction type is a row of those tables. The half types are no row: their
//! operands are the registers the syntax sections name ("`.f16` … in `.f16` or `.b16`
//! registers", "`.bf16` … in `.b16` registers", "`.f16x2`, `.bf16x2`, `.u16x2`, `.s16x2` … in
//! `.b32` registers"). Where the text is silent, ptxas 13.5 decided
//! (`tests/conformance/ops-operands.tsv`).

use crate::form::{Element, Location, Operand, RuleCode, Violation};
use crate::layout::{CACHE_POLICY, OperandSlot, RegisterRule, SlotShape, check_slots};
use crate::opcode::Opcode;
use crate::ops::{
    AtomOp, BarrierOp, CarryOp, IntOp, IntTernaryOp, IntUnaryOp, MbarrierOp, MulMode, OpForm,
    PolicyKind, TensormapField, VoteMode,
};
use crate::target::PtxVersion;
use crate::types::Type;

/// The registers an operand of instruction type `ty` takes, as a source or a destination.
///
/// Outside `cvt`, ptxas 13.5 applies Tables 27 and 28 without their widening and narrowing
/// cells: a register of exactly the instruction type's size whose cell is "no conversion"
/// (`add.u16` takes `.u16`, `.s16`, `.b16`; `add.f32` takes `.f32`, `.b32`), for destinations
/// as for sources (`tests/conformance/ops-operands.tsv`).
fn rule(ty: Type) -> RegisterRule {
    match ty {
        Type::F16 => RegisterRule::OneOf(&[Type::F16, Type::B16]),
        Type::Bf16 => RegisterRule::OneOf(&[Type::B16]),
        Type::F16x2 => RegisterRule::OneOf(&[Type::F16x2, Type::B32]),
        Type::Bf16x2 => RegisterRule::OneOf(&[Type::B32]),
        // ptxas 13.5 takes a `.b32` or `.f16x2` register for `.u16x2`/`.s16x2`.
        Type::U16x2 | Type::S16x2 => RegisterRule::OneOf(&[Type::B32, Type::F16x2]),
        Type::Pred => RegisterRule::OneOf(&[Type::Pred]),
        _ => RegisterRule::SameSize(ty),
    }
}

/// A fixed `.u32` operand (a shift amount, a bit position or length): a 32-bit integer or bit
/// register; unlike the instruction type's own 32-bit operands, ptxas 13.5 takes no `.f16x2`
/// register here.
const FIXED_U32: RegisterRule = RegisterRule::OneOf(&[Type::U32, Type::S32, Type::B32]);
/// The result of `txq` and `suq`: a 32-bit register of any kind.
const QUERY_RESULT: RegisterRule =
    RegisterRule::OneOf(&[Type::B32, Type::U32, Type::S32, Type::F32, Type::F16x2]);

/// A `.pred` operand of `and`, `or`, `xor`, `not` and `vote`: ptxas 13.5 also takes an `.f16x2`
/// register there.
const LOGIC_PREDICATE: RegisterRule = RegisterRule::OneOf(&[Type::Pred, Type::F16x2]);

fn scalar(name: &'static str, is_destination: bool, rule: RegisterRule) -> OperandSlot {
    OperandSlot {
        name,
        is_destination,
        shape: SlotShape::Scalar(rule),
    }
}

fn fixed_u32(name: &'static str) -> OperandSlot {
    scalar(name, false, FIXED_U32)
}

/// `ld`/`st` take wider registers than the instruction type (Tables 27 and 28 whole).
fn memory_value(name: &'static str, ty: Type, is_destination: bool) -> OperandSlot {
    OperandSlot {
        name,
        is_destination,
        shape: SlotShape::ScalarOrSingle(memory_rule(ty, is_destination)),
    }
}

/// The registers a value of `ld`/`st` takes, also each element of a vector: ptxas 13.5 accepts
/// `st.v4.u8 [a], {%rs1, ...}` with `.b16` registers (what nvcc emits for a `char4`) and
/// `ld.v2.u32 {%rd1, %rd2}, [a]`, as for the scalar forms.
fn memory_rule(ty: Type, is_destination: bool) -> RegisterRule {
    match ty {
        Type::B128 => RegisterRule::OneOf(&[Type::B128]),
        _ if is_destination => RegisterRule::RelaxedDestination(ty),
        _ => RegisterRule::RelaxedSource(ty),
    }
}

/// A vector value of `ld`/`st` ([`memory_rule`] for each element).
fn memory_vector(name: &'static str, ty: Type, length: usize, is_destination: bool) -> OperandSlot {
    OperandSlot {
        name,
        is_destination,
        shape: SlotShape::Vector {
            length,
            element: memory_rule(ty, is_destination),
        },
    }
}

/// `slot` with the sink `_` allowed in place of its register.
fn sinkable(slot: OperandSlot) -> OperandSlot {
    match slot.shape {
        SlotShape::Scalar(rule) => OperandSlot {
            shape: SlotShape::ScalarOrSink(rule),
            ..slot
        },
        _ => slot,
    }
}

fn destination(name: &'static str, ty: Type) -> OperandSlot {
    OperandSlot {
        name,
        is_destination: true,
        shape: SlotShape::Scalar(rule(ty)),
    }
}

fn source(name: &'static str, ty: Type) -> OperandSlot {
    OperandSlot {
        name,
        is_destination: false,
        shape: SlotShape::Scalar(rule(ty)),
    }
}

fn vector(name: &'static str, ty: Type, length: usize, is_destination: bool) -> OperandSlot {
    OperandSlot {
        name,
        is_destination,
        shape: SlotShape::Vector {
            length,
            element: rule(ty),
        },
    }
}

fn address(name: &'static str) -> OperandSlot {
    OperandSlot {
        name,
        is_destination: false,
        shape: SlotShape::Address,
    }
}

/// The type twice as wide (`mul.wide`, `mad.wide`: "`d` is twice the width of `a`").
fn doubled(ty: Type) -> Type {
    match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        other => other,
    }
}

/// The operand slots of a decoded form, or `None` where the count varies (`call`, `bar`).
pub fn slots(form: &OpForm) -> Option<Vec<OperandSlot>> {
    Some(match *form {
        OpForm::IntBinary { ty: Type::Pred, .. } => vec![
            scalar("d", true, LOGIC_PREDICATE),
            scalar("a", false, LOGIC_PREDICATE),
            scalar("b", false, LOGIC_PREDICATE),
        ],
        OpForm::IntUnary { ty: Type::Pred, .. } => vec![
            scalar("d", true, LOGIC_PREDICATE),
            scalar("a", false, LOGIC_PREDICATE),
        ],
        OpForm::IntBinary {
            op: IntOp::Shl | IntOp::Shr,
            ty,
            ..
        } => vec![destination("d", ty), source("a", ty), fixed_u32("b")],
        OpForm::IntBinary { op, ty, .. } => {
            let (d, b) = match op {
                IntOp::Mul(MulMode::Wide) => (doubled(ty), ty),
                _ => (ty, ty),
            };
            vec![destination("d", d), source("a", ty), source("b", b)]
        }
        OpForm::IntUnary { op, ty } => {
            // 9.7.1.14-15: popc and clz write a `.u32` count.
            match op {
                IntUnaryOp::Popc | IntUnaryOp::Clz => {
                    vec![scalar("d", true, FIXED_U32), source("a", ty)]
                }
                _ => vec![destination("d", ty), source("a", ty)],
            }
        }
        OpForm::Mad { mode, ty, .. } => {
            let wide = if mode == MulMode::Wide {
                doubled(ty)
            } else {
                ty
            };
            vec![
                destination("d", wide),
                source("a", ty),
                source("b", ty),
                source("c", wide),
            ]
        }
        OpForm::FloatBinary { ty, .. } => {
            vec![destination("d", ty), source("a", ty), source("b", ty)]
        }
        OpForm::Fma { ty, .. } => vec![
            destination("d", ty),
            source("a", ty),
            source("b", ty),
            source("c", ty),
        ],
        OpForm::FloatUnary { ty, .. } => vec![destination("d", ty), source("a", ty)],
        OpForm::Setp { ty, combine, .. } => {
            // ptxas 13.5 takes the sink as `p` (`setp.eq.s32 _, a, b`, `_|q`).
            let mut slots = vec![
                sinkable(destination("p", Type::Pred)),
                source("a", ty),
                source("b", ty),
            ];
            if combine.is_some() {
                slots.push(source("c", Type::Pred));
            }
            slots
        }
        OpForm::Selp { ty } => vec![
            destination("d", ty),
            source("a", ty),
            source("b", ty),
            source("c", Type::Pred),
        ],
        OpForm::Prmt { .. } => vec![
            destination("d", Type::B32),
            source("a", Type::B32),
            source("b", Type::B32),
            source("c", Type::B32),
        ],
        OpForm::Lop3 { bool_op } => {
            // ptxas 13.5 takes the sink as `d` (`lop3.b32 _, a, b, c, 0x80`, `_|p`).
            let mut slots = vec![
                sinkable(destination("d", Type::B32)),
                source("a", Type::B32),
                source("b", Type::B32),
                source("c", Type::B32),
                source("immLut", Type::B32),
            ];
            if bool_op.is_some() {
                // `lop3.BoolOp.b32 d|p, a, b, c, immLut, q;` with `q` a predicate (ptxas
                // 13.5 also takes an integer constant there).
                slots.push(source("q", Type::Pred));
            }
            slots
        }
        OpForm::Bfe { ty } => vec![
            destination("d", ty),
            source("a", ty),
            fixed_u32("b"),
            fixed_u32("c"),
        ],
        OpForm::Bfi { ty } => vec![
            destination("f", ty),
            source("a", ty),
            source("b", ty),
            fixed_u32("c"),
            fixed_u32("d"),
        ],
        OpForm::IntTernary { op, ty } => {
            let c = match op {
                IntTernaryOp::Shf { .. } => fixed_u32("c"),
                IntTernaryOp::Mad24 { .. } | IntTernaryOp::Sad => source("c", ty),
            };
            vec![destination("d", ty), source("a", ty), source("b", ty), c]
        }
        // `d` may be `d|p` (the pair is a name to the table); `b`, `c` and the membermask are
        // `.b32` values or immediates.
        OpForm::Shfl { sync, .. } => {
            let mut slots = vec![
                destination("d", Type::B32),
                source("a", Type::B32),
                source("b", Type::B32),
                source("c", Type::B32),
            ];
            if sync {
                slots.push(fixed_u32("membermask"));
            }
            slots
        }
        OpForm::Slct {
            ty, float_selector, ..
        } => vec![
            destination("d", ty),
            source("a", ty),
            source("b", ty),
            source("c", if float_selector { Type::F32 } else { Type::S32 }),
        ],
        // `ld... d, [a]{, cache-policy}` and `st... [a], b{, cache-policy}` (PTX ISA 9.0, ld,
        // st: "When the optional argument cache-policy is specified, the qualifier
        // .level::cache_hint is required. The 64-bit operand cache-policy ..."; ptxas 13.5
        // takes a .b64/.u64/.s64 register or an integer constant there).
        OpForm::Ld {
            ty,
            vector: n,
            cache_policy,
            ..
        } => {
            let d = if n == 1 {
                memory_value("d", ty, true)
            } else {
                memory_vector("d", ty, usize::from(n), true)
            };
            let mut slots = vec![d, address("a")];
            if cache_policy {
                slots.push(scalar(
                    "cache-policy",
                    false,
                    RegisterRule::OneOf(CACHE_POLICY),
                ));
            }
            slots
        }
        OpForm::St {
            ty,
            vector: n,
            cache_policy,
            ..
        } => {
            let b = if n == 1 {
                memory_value("b", ty, false)
            } else {
                memory_vector("b", ty, usize::from(n), false)
            };
            let mut slots = vec![address("a"), b];
            if cache_policy {
                slots.push(scalar(
                    "cache-policy",
                    false,
                    RegisterRule::OneOf(CACHE_POLICY),
                ));
            }
            slots
        }
        OpForm::Cvta { ty, .. } => vec![
            destination("p", ty),
            OperandSlot {
                name: "a",
                is_destination: false,
                shape: SlotShape::ScalarOrSymbol(rule(ty)),
            },
        ],
        OpForm::Atom {
            reduction,
            ty,
            vector: n,
            cache_policy,
            ..
        } if n > 1 => {
            let n = usize::from(n);
            let mut slots = Vec::with_capacity(4);
            if !reduction {
                slots.push(vector("d", ty, n, true));
            }
            slots.push(address("a"));
            slots.push(vector("b", ty, n, false));
            if cache_policy {
                slots.push(scalar(
                    "cache-policy",
                    false,
                    RegisterRule::OneOf(CACHE_POLICY),
                ));
            }
            slots
        }
        // `atom... d, [a], b{, cache-policy}` (PTX ISA 9.0, atom, red). ptxas 13.5 takes the
        // sink `_` as `d` (`atom.global.add.u32 _, [a], b`, `atom.cas.b64 _, [a], b, c`),
        // which then works as `red` does: the old value is not written anywhere.
        OpForm::Atom {
            reduction,
            op,
            ty,
            cache_policy,
            ..
        } => {
            let mut slots = Vec::with_capacity(4);
            if !reduction {
                slots.push(OperandSlot {
                    shape: SlotShape::ScalarOrSink(rule(ty)),
                    ..destination("d", ty)
                });
            }
            slots.push(address("a"));
            slots.push(source("b", ty));
            if op == AtomOp::Cas {
                slots.push(source("c", ty));
            }
            if cache_policy {
                slots.push(scalar(
                    "cache-policy",
                    false,
                    RegisterRule::OneOf(CACHE_POLICY),
                ));
            }
            slots
        }
        OpForm::Carry { op, ty, .. } => {
            let mut slots = vec![destination("d", ty), source("a", ty), source("b", ty)];
            if matches!(op, CarryOp::Mad { .. }) {
                slots.push(source("c", ty));
            }
            slots
        }
        // 9.7.1.16: "destination d has type .u32".
        // 9.7.18.2 (vadd2.md, vadd4.md): `d{.mask}, a{.asel}, b{.bsel}, c`, 32-bit registers
        // (ptxas 13.5 takes `.b32`, `.u32`, `.s32` and `.f16x2`, and no constant: "Incorrect
        // video selector for operand 1"; a list without `.u32` first takes no literal).
        // `vset2`/`vset4` take no `.f16x2` register in `d` or `c` ("Arguments mismatch for
        // instruction 'vset2'"; tests/conformance/isagen-probes.tsv).
        OpForm::VideoSimd { op, .. } => {
            const VIDEO: RegisterRule =
                RegisterRule::OneOf(&[Type::B32, Type::U32, Type::S32, Type::F16x2]);
            const VIDEO_SET: RegisterRule = RegisterRule::OneOf(&[Type::B32, Type::U32, Type::S32]);
            let outer = if matches!(op, crate::ops::VideoOp::Set(_)) {
                VIDEO_SET
            } else {
                VIDEO
            };
            vec![
                scalar("d", true, outer),
                scalar("a", false, VIDEO),
                scalar("b", false, VIDEO),
                scalar("c", false, outer),
            ]
        }
        // 9.7.18.1: `d, a, b` or `d, a, b, c` by the operands (the syntax table checks the
        // count and the selectors).
        OpForm::VideoScalar { .. } => return None,
        OpForm::Bfind { ty, .. } => vec![scalar("d", true, FIXED_U32), source("a", ty)],
        // 9.7.1.17: "Operand mask has a 32-bit type. Operand base has .b32, .u32 or .s32 type.
        // Operand offset has .s32 type. Destination d has type .b32."
        // ptxas 13.5 takes any 32-bit register or literal for `base` and `offset`.
        OpForm::Fns => vec![
            destination("d", Type::B32),
            source("mask", Type::B32),
            source("base", Type::B32),
            source("offset", Type::B32),
        ],
        OpForm::Bmsk { .. } => vec![scalar("d", true, FIXED_U32), fixed_u32("a"), fixed_u32("b")],
        // 9.7.1.21: "Operand b is an unsigned 32-bit value."
        OpForm::Szext { ty, .. } => vec![destination("d", ty), source("a", ty), fixed_u32("b")],
        // 9.7.1.23-24: "Operand c has type .u32 if both .atype and .btype are .u32 else operand
        // c has type .s32."
        OpForm::Dot {
            a_signed, b_signed, ..
        } => {
            // ptxas 13.5 takes any 32-bit integer or bit register for `d` and `c`, and an
            // `.f16x2` register too for the packed `a` and `b`.
            let _ = (a_signed, b_signed);
            vec![
                scalar("d", true, FIXED_U32),
                source("a", Type::U32),
                source("b", Type::U32),
                fixed_u32("c"),
            ]
        }
        OpForm::Testp { ty, .. } => vec![destination("p", Type::Pred), source("a", ty)],
        OpForm::Set {
            dtype,
            stype,
            combine,
            ..
        } => {
            let mut slots = vec![
                destination("d", dtype),
                source("a", stype),
                source("b", stype),
            ];
            if combine.is_some() {
                slots.push(source("c", Type::Pred));
            }
            slots
        }
        OpForm::Nanosleep => vec![fixed_u32("t")],
        OpForm::Griddepcontrol { .. } => vec![],
        OpForm::Tex(form) => {
            // The texture handle and the coordinates are the bracketed list `[a, c]`, whose
            // elements the program builder reads.
            let mut slots = vec![vector("d", form.dtype, 4, true), address("[a, c]")];
            match form.mipmap {
                crate::texture::Mipmap::Base => {}
                crate::texture::Mipmap::Level => slots.push(source("lod", Type::F32)),
                crate::texture::Mipmap::Grad => {
                    let length = form.geometry.gradients();
                    slots.push(vector("dPdx", Type::F32, length, false));
                    slots.push(vector("dPdy", Type::F32, length, false));
                }
            }
            slots
        }
        // `txq`/`suq` write `d` into any 32-bit register but a 16-bit pair's (ptxas 13.5 takes
        // `.f32` and `.f16x2` ones too, refuses 16- and 64-bit and `.pred` registers:
        // "Arguments mismatch for instruction 'suq'"; tests/conformance/isagen-probes.tsv).
        OpForm::Txq { level, .. } => {
            let mut slots = vec![scalar("d", true, QUERY_RESULT), address("[a]")];
            if level {
                slots.push(fixed_u32("lod"));
            }
            slots
        }
        OpForm::Suq(_) => vec![scalar("d", true, QUERY_RESULT), address("[a]")],
        OpForm::Suld(form) => vec![surface_values("d", form, true), address("[a, b]")],
        OpForm::Sust(form) => vec![address("[a, b]"), surface_values("c", form, false)],
        OpForm::Sured(form) => vec![address("[a, b]"), source("c", form.ty)],
        OpForm::Fence | OpForm::Ret | OpForm::Exit | OpForm::Trap => Vec::new(),
        // `prefetch{...} [a]` (PTX ISA 9.0, prefetch).
        OpForm::Prefetch => vec![address("a")],
        // `discard... [a], size`, `applypriority... [a], size`: size is the constant 128
        // (ptxas 13.5: "Arguments mismatch" for a register; [`line_size_violation`]).
        OpForm::CacheAdvice => vec![address("a"), scalar("size", false, RegisterRule::Constant)],
        // PTX ISA 9.0, createpolicy: "cache-policy ... 64-bit opaque"; ptxas 13.5 takes the
        // 64-bit integer registers for it and for access-property (an integer constant too),
        // 32-bit ones for the sizes, and an `.f32` register or a floating-point constant for
        // the fraction ("Arguments mismatch for instruction 'createpolicy.fractional'" for
        // `1`).
        OpForm::CreatePolicy(kind) => {
            let d = scalar("cache-policy", true, RegisterRule::OneOf(CACHE_POLICY));
            match kind {
                PolicyKind::Fractional => vec![d, scalar("fraction", false, FRACTION)],
                PolicyKind::Range => vec![
                    d,
                    address("a"),
                    fixed_u32("primary-size"),
                    fixed_u32("total-size"),
                ],
                PolicyKind::Cvt => vec![
                    d,
                    scalar("access-property", false, RegisterRule::OneOf(CACHE_POLICY)),
                ],
            }
        }
        // `fence.proxy.tensormap::generic.acquire.scope [addr], size` (PTX ISA 9.0, fence;
        // ptxas 13.5: "Arguments mismatch" for a register size).
        OpForm::FenceProxyAcquire => vec![
            address("addr"),
            scalar("size", false, RegisterRule::Constant),
        ],
        OpForm::Bra => vec![OperandSlot {
            name: "target",
            is_destination: false,
            shape: SlotShape::Label,
        }],
        OpForm::Barrier { .. }
        | OpForm::Call
        | OpForm::CpAsync { .. }
        | OpForm::Mbarrier { .. } => return None,
        OpForm::CpAsyncBulk {
            mbarrier,
            multicast,
            cache_hint,
            ..
        } => {
            let mut slots = vec![address("[dstMem]"), address("[srcMem]"), fixed_u32("size")];
            if mbarrier {
                slots.push(address("[mbar]"));
            }
            if multicast {
                slots.push(source("ctaMask", Type::B16));
            }
            if cache_hint {
                slots.push(scalar("cache-policy", false, B64));
            }
            slots
        }
        OpForm::CpAsyncBulkTensor {
            dims,
            load,
            im2col,
            wide,
            multicast,
            cache_hint,
            ..
        } => {
            let mut slots = if load {
                vec![
                    address("[dstMem]"),
                    address("[tensorMap, tensorCoords]"),
                    address("[mbar]"),
                ]
            } else {
                vec![address("[tensorMap, tensorCoords]"), address("[srcMem]")]
            };
            // PTX ISA 9.0, cp.async.bulk.tensor: "im2colOffsets ... a vector of 16-bit
            // integers", one per spatial dimension (dims - 2); "ctaMask is a 16-bit mask".
            // `.im2col::w{::128}`: "{ wHalo, wOffset } | A vector of 2 arguments" ("a 16bit
            // unsigned integer" each).
            if load && wide.is_some() {
                slots.push(vector("im2colInfo", Type::B16, 2, false));
            } else if load && im2col {
                slots.push(vector(
                    "im2colOffsets",
                    Type::B16,
                    usize::from(dims) - 2,
                    false,
                ));
            }
            if multicast {
                slots.push(source("ctaMask", Type::B16));
            }
            if cache_hint {
                slots.push(scalar("cache-policy", false, B64));
            }
            slots
        }
        OpForm::CpReduceAsyncBulk {
            global, cache_hint, ..
        } => {
            let mut slots = vec![address("[dstMem]"), address("[srcMem]"), fixed_u32("size")];
            if !global {
                slots.push(address("[mbar]"));
            }
            if cache_hint {
                slots.push(scalar("cache-policy", false, B64));
            }
            slots
        }
        OpForm::TensormapReplace { field, .. } => {
            let mut slots = vec![address("[addr]")];
            if field.has_ordinal() {
                slots.push(scalar("ord", false, RegisterRule::Constant));
            }
            slots.push(if field.immediate() {
                scalar("new_val", false, RegisterRule::Constant)
            } else {
                source("new_val", field.value_type())
            });
            slots
        }
        // ptxas 13.5: the size is the constant 128.
        OpForm::TensormapCpFenceproxy => vec![
            address("[dst]"),
            address("[src]"),
            scalar("size", false, RegisterRule::Constant),
        ],
        OpForm::CpAsyncBulkPrefetchTensor {
            dims,
            im2col,
            wide,
            cache_hint,
            ..
        } => {
            let mut slots = vec![address("[tensorMap, tensorCoords]")];
            // `.im2col::w{::128}`: "{ wHalo, wOffset } | A vector of 2 arguments" ("a 16bit
            // unsigned integer" each).
            if wide {
                slots.push(vector("im2colInfo", Type::B16, 2, false));
            } else if im2col {
                slots.push(vector(
                    "im2colOffsets",
                    Type::B16,
                    usize::from(dims) - 2,
                    false,
                ));
            }
            if cache_hint {
                slots.push(scalar("cache-policy", false, B64));
            }
            slots
        }
        OpForm::CpAsyncBulkPrefetch { cache_hint } => {
            let mut slots = vec![address("[srcMem]"), fixed_u32("size")];
            if cache_hint {
                slots.push(scalar("cache-policy", false, B64));
            }
            slots
        }
        OpForm::CpAsyncBulkGroup { wait_group: false } => Vec::new(),
        OpForm::CpAsyncBulkGroup { wait_group: true } => vec![OperandSlot {
            name: "N",
            is_destination: false,
            shape: SlotShape::Scalar(RegisterRule::Constant),
        }],
        OpForm::CpAsyncGroup { wait_group: false } => Vec::new(),
        OpForm::CpAsyncGroup { wait_group: true } => vec![OperandSlot {
            name: "N",
            is_destination: false,
            shape: SlotShape::Scalar(RegisterRule::Constant),
        }],
        OpForm::BarWarpSync => vec![fixed_u32("membermask")],
        // `a` may be `!a` (a name to the table).
        OpForm::Vote { mode, sync } => {
            let d = if mode == VoteMode::Ballot {
                Type::B32
            } else {
                Type::Pred
            };
            // ptxas 13.5 takes an `.f16x2` register for a predicate here too, except for the
            // source of `.ballot`.
            let slots = if d == Type::Pred {
                [
                    scalar("d", true, LOGIC_PREDICATE),
                    scalar("a", false, LOGIC_PREDICATE),
                ]
            } else {
                [destination("d", d), source("a", Type::Pred)]
            };
            let mut slots = slots.to_vec();
            if sync {
                slots.push(fixed_u32("membermask"));
            }
            slots
        }
        OpForm::Activemask => vec![destination("d", Type::B32)],
        // ptxas 13.5 takes integer and bit registers only here ("Arguments mismatch" for an
        // `.f32` or `.f16x2` register).
        OpForm::Redux { ty: Type::F32, .. } => vec![
            destination("dst", Type::F32),
            source("src", Type::F32),
            fixed_u32("membermask"),
        ],
        OpForm::Redux { .. } => vec![
            scalar("dst", true, FIXED_U32),
            scalar("src", false, FIXED_U32),
            fixed_u32("membermask"),
        ],
        // ptxas 13.5 takes the sink as `match.all`'s `d` ("Result discard mode is not allowed
        // for instruction 'match'" for `match.any`).
        OpForm::Match { ty, all: true } => vec![
            sinkable(scalar("d", true, FIXED_U32)),
            source("a", ty),
            fixed_u32("membermask"),
        ],
        OpForm::Match { ty, .. } => vec![
            scalar("d", true, FIXED_U32),
            source("a", ty),
            fixed_u32("membermask"),
        ],
        OpForm::Elect => vec![scalar("d", true, FIXED_U32), fixed_u32("membermask")],
        // PTX ISA 9.0, mapa: `d, a, b` with `a` a register or a shared variable (`sh + imm`);
        // `b` "is a 32-bit integer operand representing the rank of the target CTA".
        OpForm::Mapa { ty, .. } => vec![
            destination("d", ty),
            OperandSlot {
                name: "a",
                is_destination: false,
                shape: SlotShape::ScalarOrSymbol(rule(ty)),
            },
            fixed_u32("b"),
        ],
        // PTX ISA 9.0, getctarank: "Destination d is always a 32-bit register".
        OpForm::Getctarank { ty, .. } => vec![
            scalar("d", true, FIXED_U32),
            OperandSlot {
                name: "a",
                is_destination: false,
                shape: SlotShape::ScalarOrSymbol(rule(ty)),
            },
        ],
        OpForm::BarrierCluster { .. } => Vec::new(),
        OpForm::Setmaxnreg { .. } => vec![OperandSlot {
            name: "imm-reg-count",
            is_destination: false,
            shape: SlotShape::Scalar(RegisterRule::Constant),
        }],
        // PTX ISA 9.0, isspacep: "isspacep.space p, a; // result is .pred"; ptxas 13.5 takes a
        // 32-bit or a 64-bit address register.
        OpForm::Isspacep { .. } => vec![
            destination("p", Type::Pred),
            scalar(
                "a",
                false,
                RegisterRule::OneOf(&[
                    Type::U32,
                    Type::S32,
                    Type::B32,
                    Type::U64,
                    Type::S64,
                    Type::B64,
                ]),
            ),
        ],
        OpForm::Mma(form) => {
            use crate::mma::MmaOperand;
            let slot = |name, operand, is_destination| OperandSlot {
                name,
                is_destination,
                shape: SlotShape::Vector {
                    length: form.registers(operand),
                    element: match operand {
                        MmaOperand::A | MmaOperand::B => mma_multiplicand(form.element(operand)),
                        _ => mma_register(form.element(operand)),
                    },
                },
            };
            let mut slots = vec![
                slot("d", MmaOperand::D, true),
                slot("a", MmaOperand::A, false),
                slot("b", MmaOperand::B, false),
                slot("c", MmaOperand::C, false),
            ];
            if form.sparse.is_some() {
                // `e, f` (9.7.14.6.3): "Operand e is a 32-bit integer and operand f is a 32-bit
                // integer constant with values in the range 0..3" (ptxas 13.5 takes any 32-bit
                // register for `e`, no `.b16` one, and no register for `f`).
                slots.extend([
                    scalar("e", false, RegisterRule::OneOf(crate::layout::FRAGMENT)),
                    scalar("f", false, RegisterRule::Constant),
                ]);
            }
            if form.block_scale.is_some() {
                // `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b,
                // thread-id-b}`: "of type .b32" (ptxas 13.5 takes any 32-bit register; it
                // also rejects an immediate, which this rule lets through) and "unsigned
                // 16-bit integer values" (16-bit registers or immediates; "Arguments mismatch"
                // for a 32-bit register). ptxas 13.5 also takes the data as a brace vector of
                // one (`{%r1}`, as libcu++'s and CUTLASS's inline assembly write it).
                let data = |name| OperandSlot {
                    name,
                    is_destination: false,
                    shape: SlotShape::ScalarOrSingle(RegisterRule::OneOf(crate::layout::FRAGMENT)),
                };
                let selectors = |name| OperandSlot {
                    name,
                    is_destination: false,
                    shape: SlotShape::Vector {
                        length: 2,
                        element: RegisterRule::SameSize(Type::U16),
                    },
                };
                slots.extend([
                    data("scale-a-data"),
                    selectors("{byte-id-a, thread-id-a}"),
                    data("scale-b-data"),
                    selectors("{byte-id-b, thread-id-b}"),
                ]);
            }
            slots
        }
        OpForm::Ldmatrix(form) => vec![
            OperandSlot {
                name: "d",
                is_destination: true,
                shape: SlotShape::Vector {
                    length: form.registers(),
                    element: MATRIX_REGISTER,
                },
            },
            address("p"),
        ],
        OpForm::Stmatrix(form) => vec![
            address("p"),
            OperandSlot {
                name: "r",
                is_destination: false,
                shape: SlotShape::Vector {
                    length: form.registers(),
                    element: MATRIX_REGISTER,
                },
            },
        ],
        OpForm::Wmma(form) => wmma_slots(form, false),
        OpForm::Wgmma(op) => wgmma_slots(op, false),
        OpForm::Movmatrix => vec![
            OperandSlot {
                name: "d",
                is_destination: true,
                shape: SlotShape::ScalarOrSink(RegisterRule::OneOf(
                    crate::layout::FRAGMENT_OR_PREDICATE,
                )),
            },
            scalar(
                "a",
                false,
                RegisterRule::OneOf(crate::layout::FRAGMENT_OR_PREDICATE),
            ),
        ],
    })
}

/// The registers of an `mma`/`wmma` fragment vector: ptxas 13.5 takes `.f32`/`.b32` for
/// `.f32`, `.s32`/`.u32`/`.b32` for `.s32` (the integer accumulators, as Table 27 relaxes a
/// `.s32` operand to any 32-bit integer register), the 64-bit `.f64`/`.b64`/`.u64`/`.s64`
/// for `.f64`, and `.b32`/`.f16x2` for the packed narrow types ("Arguments mismatch for
/// instruction 'mma'" otherwise; `tests/conformance/ops-forms.tsv`, fuzz-forms.tsv).
fn mma_register(ty: crate::mma::MmaType) -> RegisterRule {
    use crate::mma::MmaType;
    match ty {
        MmaType::F32 => RegisterRule::OneOf(&[Type::F32, Type::B32]),
        MmaType::S32 => RegisterRule::OneOf(&[Type::S32, Type::U32, Type::B32]),
        MmaType::F64 => RegisterRule::OneOf(&[Type::F64, Type::B64, Type::U64, Type::S64]),
        _ => RegisterRule::OneOf(&[Type::B32, Type::F16x2]),
    }
}

/// The registers of `mma`'s `a` and `b`: as [`mma_register`], except that ptxas 13.5 takes
/// any 32-bit register (`.b32`, `.u32`, `.s32`, `.f32`, `.f16x2`) for the byte-sized integer
/// and FP8 types (`.s8`, `.u8`, `.e4m3`, `.e5m2`: four elements packed in a register, no
/// register type of their own) and the sub-byte `.s4`/`.u4`/`.b1` (probed: `.f32` and
/// `.f16x2` vectors accepted, a `.b64` one "Arguments mismatch"), where `.f16`/`.bf16`/`.tf32`
/// fragments stay `.b32`/`.f16x2`.
fn mma_multiplicand(ty: crate::mma::MmaType) -> RegisterRule {
    use crate::mma::MmaType;
    match ty {
        MmaType::S8
        | MmaType::U8
        | MmaType::S4
        | MmaType::U4
        | MmaType::B1
        | MmaType::E4m3
        | MmaType::E5m2
        | MmaType::E3m2
        | MmaType::E2m3
        | MmaType::E2m1 => RegisterRule::OneOf(crate::layout::FRAGMENT),
        other => mma_register(other),
    }
}

/// The slots of `wmma` (9.7.14.4): `load d, [p]{, stride}`, `store [p], r{, stride}`, `mma d,
/// a, b, c`. The fragments are brace vectors of [`crate::wmma::WmmaForm::registers`] registers
/// (ptxas 13.5: "Argument vector size mismatch for instruction 'wmma.load.a'"), typed like
/// `mma`'s ("Arguments mismatch" for an `.f32` register in an `.f16` fragment); the stride is a
/// 32-bit integer ("stride is an optional 32-bit integer operand").
///
/// `wmma.load`/`wmma.store` of the packed integer types take more: any 32-bit register for
/// `.s4`/`.u4`/`.b1` and any 32-bit integer register for `.s8`/`.u8` (ptxas 13.5 takes
/// `wmma.load.a...m8n8k32.s4 {%f1}` and `...m16n16k16.u8 {%u1, %u2}`, and refuses `.u8` in an
/// `.f32` or `.f16x2` register and any `.b64`: "Arguments mismatch for instruction
/// 'wmma.load.a'"; `wmma.mma` keeps `mma`'s registers).
fn wmma_slots(form: crate::wmma::WmmaForm, stride: bool) -> Vec<OperandSlot> {
    use crate::mma::MmaType;
    use crate::wmma::{WmmaMatrix, WmmaOp};
    let register = |ty: MmaType| match (form.op, ty) {
        (WmmaOp::Mma, _) => mma_register(ty),
        (_, MmaType::S4 | MmaType::U4 | MmaType::B1) => {
            RegisterRule::OneOf(crate::layout::FRAGMENT)
        }
        (_, MmaType::S8 | MmaType::U8) => mma_register(MmaType::S32),
        _ => mma_register(ty),
    };
    let fragment = |name, matrix: WmmaMatrix, is_destination| OperandSlot {
        name,
        is_destination,
        shape: SlotShape::Vector {
            length: form.registers(matrix),
            element: register(form.element(matrix)),
        },
    };
    let mut slots = match form.op {
        WmmaOp::Load(matrix) => vec![fragment("r", matrix, true), address("p")],
        WmmaOp::Store => vec![address("p"), fragment("r", WmmaMatrix::D, false)],
        WmmaOp::Mma => {
            return vec![
                fragment("d", WmmaMatrix::D, true),
                fragment("a", WmmaMatrix::A, false),
                fragment("b", WmmaMatrix::B, false),
                fragment("c", WmmaMatrix::C, false),
            ];
        }
    };
    if stride {
        slots.push(fixed_u32("stride"));
    }
    slots
}

/// The slots of a `wgmma` instruction; for `wgmma.mma_async` (and `.sp`, 9.7.15.6.3), with A
/// from a descriptor or (`a_from_registers`) from a brace vector of four registers (9.7.15.5.2,
/// "Syntax").
/// `scale-d` is a predicate or an integer constant, the `imm-*` operands integer constants
/// (ptxas 13.5 takes `1` for `scale-d` and rejects a register for `imm-trans-a`: "Arguments
/// mismatch for instruction 'wgmma.mma_async'").
fn wgmma_slots(op: crate::wgmma::WgmmaOp, a_from_registers: bool) -> Vec<OperandSlot> {
    use crate::wgmma::WgmmaOp;
    let form = match op {
        WgmmaOp::Fence | WgmmaOp::CommitGroup => return Vec::new(),
        WgmmaOp::WaitGroup => return vec![scalar("N", false, RegisterRule::Constant)],
        WgmmaOp::Mma(form) => form,
    };
    let a = if a_from_registers {
        OperandSlot {
            name: "a",
            is_destination: false,
            shape: SlotShape::Vector {
                length: 4,
                element: mma_register(form.a),
            },
        }
    } else {
        scalar("a-desc", false, B64)
    };
    let mut slots = vec![
        OperandSlot {
            name: "d",
            is_destination: true,
            shape: SlotShape::Vector {
                length: form.d_registers(),
                element: mma_register(form.d),
            },
        },
        a,
        scalar("b-desc", false, B64),
    ];
    for &name in form.tail(a_from_registers) {
        let rule = match name {
            "scale-d" => RegisterRule::OneOf(&[Type::Pred]),
            "sp-meta" => RegisterRule::OneOf(crate::layout::METADATA_REGISTER),
            _ => RegisterRule::Constant,
        };
        slots.push(scalar(name, false, rule));
    }
    slots
}

/// The values of `suld.b` / `sust.b`: one register (or a brace vector of one) without `.vec`,
/// else a brace vector; registers as wide as `ld`/`st` take for the type (Tables 27 and 28).
fn surface_values(
    name: &'static str,
    form: crate::texture::SurfaceForm,
    is_destination: bool,
) -> OperandSlot {
    let rule = if is_destination {
        RegisterRule::RelaxedDestination(form.ty)
    } else {
        RegisterRule::RelaxedSource(form.ty)
    };
    let shape = if form.vector == 1 {
        SlotShape::ScalarOrSingle(rule)
    } else {
        SlotShape::Vector {
            length: usize::from(form.vector),
            element: rule,
        }
    };
    OperandSlot {
        name,
        is_destination,
        shape,
    }
}

/// A register of an `ldmatrix`/`stmatrix` fragment ([`crate::layout::FRAGMENT`]).
const MATRIX_REGISTER: RegisterRule = RegisterRule::OneOf(crate::layout::FRAGMENT);

/// Whether the first operand of a form may be (`Some(false)`) or must be (`Some(true)`) a pair
/// `d|p` with a predicate output; `None` where it may not (ptxas 13.5: "Predicate output not
/// allowed for instruction 'match.any'", "Predicate output expected for instruction 'elect'").
fn predicate_output(form: &OpForm) -> Option<bool> {
    match form {
        // `tex.geom.v4.dtype.ctype d[|p], [a, b, c]` (9.7.10.3; `tld4` likewise): "an
        // optional predicate p is set to True if data from texture memory is fully resident".
        OpForm::Setp { .. }
        | OpForm::Shfl { .. }
        | OpForm::Match { all: true, .. }
        | OpForm::Tex(_) => Some(false),
        OpForm::Elect
        | OpForm::Lop3 {
            bool_op: Some(_), ..
        } => Some(true),
        _ => None,
    }
}

/// The slots of a barrier instruction with `count` operands (9.7.13.1: `.sync a{, b}`,
/// `.arrive a, b`, `.red.popc.u32 d, a{, b}, {!}c`, `.red.{and,or}.pred p, a{, b}, {!}c`),
/// or the violation when no form has that many.
fn barrier_slots(op: BarrierOp, count: usize) -> Result<Vec<OperandSlot>, Violation> {
    let (reduction, fewest, most, shape) = match op {
        BarrierOp::Sync => (None, 1, 2, "a{, b}"),
        BarrierOp::Arrive => (None, 2, 2, "a, b"),
        BarrierOp::RedPopc => (Some(FIXED_U32), 3, 4, "d, a{, b}, {!}c"),
        BarrierOp::RedAnd | BarrierOp::RedOr => (
            Some(RegisterRule::OneOf(&[Type::Pred])),
            3,
            4,
            "p, a{, b}, {!}c",
        ),
    };
    if count < fewest || count > most {
        return Err(Violation::new(
            RuleCode::OperandCount,
            Location::Instruction,
            format!("this barrier instruction takes {shape}, not {count} operand(s)"),
        ));
    }
    let mut slots = Vec::new();
    if let Some(rule) = reduction {
        slots.push(scalar("d", true, rule));
    }
    slots.push(fixed_u32("a"));
    if count == most {
        slots.push(fixed_u32("b"));
    }
    if reduction.is_some() {
        // `c` may be `!c` (a name to the table).
        slots.push(source("c", Type::Pred));
    }
    Ok(slots)
}

/// The slots of an `mbarrier` instruction with `count` operands (9.7.13.15): `init [addr],
/// count`; `inval [addr]`; `arrive state, [addr]{, count}` (the count required with
/// `.noComplete` and `.expect_tx`; with `.shared::cluster` the state must be the sink `_`);
/// `expect_tx`/`complete_tx [addr], txCount`; `test_wait`/`try_wait waitComplete, [addr],
/// state` (a `.b64` state, or a `.u32` phase parity with `.parity`; `try_wait` may add a
/// `suspendTimeHint`); `pending_count count, state`; `cp.async.mbarrier.arrive [addr]`.
fn mbarrier_slots(
    op: MbarrierOp,
    cluster: bool,
    count: usize,
) -> Result<Vec<OperandSlot>, Violation> {
    let state = || OperandSlot {
        name: "state",
        is_destination: true,
        shape: SlotShape::ScalarOrSink(if cluster { NO_REGISTER } else { B64 }),
    };
    let (slots, optional): (Vec<OperandSlot>, Option<OperandSlot>) = match op {
        MbarrierOp::Init => (vec![address("addr"), fixed_u32("count")], None),
        MbarrierOp::Inval | MbarrierOp::CpAsyncArrive { .. } => (vec![address("addr")], None),
        MbarrierOp::Arrive {
            expect_tx,
            no_complete,
            ..
        } if expect_tx || no_complete => (vec![state(), address("addr"), fixed_u32("count")], None),
        MbarrierOp::Arrive { .. } => (vec![state(), address("addr")], Some(fixed_u32("count"))),
        MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => {
            (vec![address("addr"), fixed_u32("txCount")], None)
        }
        MbarrierOp::Wait { try_wait, parity } => {
            let operand = if parity {
                fixed_u32("phaseParity")
            } else {
                scalar("state", false, B64)
            };
            (
                vec![
                    scalar("waitComplete", true, RegisterRule::OneOf(&[Type::Pred])),
                    address("addr"),
                    operand,
                ],
                try_wait.then(|| fixed_u32("suspendTimeHint")),
            )
        }
        MbarrierOp::PendingCount => (
            vec![
                scalar("count", true, FIXED_U32),
                scalar("state", false, B64),
            ],
            None,
        ),
    };
    let most = slots.len() + usize::from(optional.is_some());
    if count < slots.len() || count > most {
        return Err(Violation::new(
            RuleCode::OperandCount,
            Location::Instruction,
            format!(
                "this mbarrier instruction takes {} operand(s), not {count}",
                if most > slots.len() {
                    format!("{} or {most}", slots.len())
                } else {
                    most.to_string()
                }
            ),
        ));
    }
    let mut slots = slots;
    if count == most {
        slots.extend(optional);
    }
    Ok(slots)
}

/// A 64-bit bit or integer register (an mbarrier state).
const B64: RegisterRule = RegisterRule::OneOf(&[Type::B64, Type::U64, Type::S64]);

/// No register at all: only the sink `_` fits.
const NO_REGISTER: RegisterRule = RegisterRule::OneOf(&[]);

/// The slots of `cp.async` with `count` operands: `[dst], [src], cp-size` then `src-size`
/// (`.u32`) or `ignore-src` (`.pred`), and with `.L2::cache_hint` a `.b64` cache policy last
/// (ptxas 13.5: ".L2::cache_hint modifier required for instruction 'cp.async' with 5
/// arguments").
fn cp_async_slots(cache_hint: bool, operands: &[Operand]) -> Result<Vec<OperandSlot>, Violation> {
    let most = if cache_hint { 5 } else { 4 };
    if operands.len() < 3 || operands.len() > most {
        return Err(Violation::new(
            RuleCode::OperandCount,
            Location::Instruction,
            format!(
                "cp.async takes [dst], [src], cp-size{{, src-size}}{}, not {} operand(s)",
                if cache_hint { ", cache-policy" } else { "" },
                operands.len()
            ),
        ));
    }
    // cp-size is an immediate ("Arguments mismatch" for a register).
    let mut slots = vec![
        address("dst"),
        address("src"),
        scalar("cp-size", false, RegisterRule::Constant),
    ];
    // `cp.async...L2::cache_hint [d], [s], 16` lacks its policy: no src-size then.
    let extra = operands.len().saturating_sub(3 + usize::from(cache_hint));
    if extra == 1 {
        let rule = match operands[3] {
            Operand::Register(Type::Pred) => RegisterRule::OneOf(&[Type::Pred]),
            _ => FIXED_U32,
        };
        slots.push(scalar("src-size", false, rule));
    }
    if cache_hint {
        slots.push(scalar(
            "cache-policy",
            false,
            RegisterRule::OneOf(CACHE_POLICY),
        ));
    }
    Ok(slots)
}

/// `cp.async`'s cp-size, an integer constant "4, 8 and 16" (`.cg`: 16 only; PTX ISA
/// 9.7.9.25.3.1) — a rule on the value, which operand kinds do not show: the front end passes
/// the value of the constant (`None` when it is not a non-negative integer). ptxas 13.5:
/// "Argument 2 of instruction 'cp.async': unexpected value '12', expected to be 4 or 8 or 16".
pub fn cp_size_violation(form: &OpForm, value: Option<u64>) -> Option<Violation> {
    let OpForm::CpAsync { cg, .. } = *form else {
        return None;
    };
    let allowed: &[u64] = if cg { &[16] } else { &[4, 8, 16] };
    if value.is_some_and(|value| allowed.contains(&value)) {
        return None;
    }
    let expected = if cg {
        "16 for cp.async.cg"
    } else {
        "4, 8 or 16"
    };
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(2),
        format!("cp.async copies {expected} bytes; cp-size cannot be this value"),
    ))
}

/// `bfe`'s `b` and `c` (operands 2 and 3) and `bfi`'s `c` and `d` (operands 3 and 4) when they
/// are immediates (`values[i]`: operand `i`'s value, `None` for a register): "Operands b and c
/// are type .u32, but are restricted to the 8-bit value range 0..255" (9.7.1.19 bfe,
/// 9.7.1.20 bfi; ptxas 13.5: "Argument 2 of instruction 'bfe': value '256' out of range,
/// expected to be in range [0..255]"). The first operand out of range is the violation.
pub fn bit_field_violation(form: &OpForm, values: &[Option<i128>]) -> Option<Violation> {
    let (name, operands) = match form {
        OpForm::Bfe { .. } => ("bfe", [2, 3]),
        OpForm::Bfi { .. } => ("bfi", [3, 4]),
        _ => return None,
    };
    operands.into_iter().find_map(|index| {
        let value = values.get(index).copied().flatten()?;
        (!(0..=255).contains(&value)).then(|| {
            Violation::new(
                RuleCode::ConstantValue,
                Location::Operand(index),
                format!("{name}'s position and length are in 0..=255, not {value}"),
            )
        })
    })
}

/// The immediates of `mbarrier` that ptxas 13.5 checks beyond `init`'s count (`values[i]`:
/// operand `i`'s value, `None` for a register): the phase parity of `test_wait.parity` /
/// `try_wait.parity` is 0 or 1 ("Argument 2 of instruction 'mbarrier.test_wait.parity':
/// unexpected value '2', expected to be 0 or 1"), and `arrive`'s (and `arrive_drop`'s) count,
/// without `.expect_tx`, is at least 1 ("value '0' expected to be a non-zero positive value";
/// a transaction count may be any value).
pub fn mbarrier_value_violation(form: &OpForm, values: &[Option<i128>]) -> Option<Violation> {
    let OpForm::Mbarrier { op, .. } = *form else {
        return None;
    };
    let value = values.get(2).copied().flatten()?;
    let message = match op {
        MbarrierOp::Wait { parity: true, .. } if !(0..=1).contains(&value) => {
            format!("the phase parity is 0 or 1, not {value}")
        }
        MbarrierOp::Arrive {
            expect_tx: false, ..
        } if value < 1 => format!("the arrival count must be positive, not {value}"),
        _ => return None,
    };
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(2),
        message,
    ))
}

/// `cp.async`'s `src-size` when it and `cp-size` are immediates (`values[2]`, `values[3]`):
/// "must be less than cp-size ... Specifying src-size larger than cp-size results in undefined
/// behavior" (9.7.9.25.3.1); ptxas 13.5 takes 0 up to cp-size ("Argument 3 of instruction
/// 'cp.async': value '17' out of range, expected to be in range [0..16]"). With
/// `.L2::cache_hint` and four operands the fourth is the cache policy ("The 64-bit operand
/// cache-policy specifies the cache eviction policy"), which ptxas 13.5 takes with any value
/// (`cp.async.cg.shared.global.L2::cache_hint [a], [b], 16, -1`).
pub fn src_size_violation(form: &OpForm, values: &[Option<i128>]) -> Option<Violation> {
    let OpForm::CpAsync { cache_hint, .. } = *form else {
        return None;
    };
    if cache_hint && values.len() == 4 {
        return None;
    }
    let cp_size = values.get(2).copied().flatten()?;
    let src_size = values.get(3).copied().flatten()?;
    (!(0..=cp_size).contains(&src_size)).then(|| {
        Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(3),
            format!("src-size is 0 to cp-size ({cp_size}), not {src_size}"),
        )
    })
}

/// `mbarrier.init`'s count when it is an immediate (`Some(value)`; `None` for a register):
/// "The valid range of values for the operand count is [1, …, 2^20 - 1]" (9.7.13.15.9; ptxas
/// 13.5: "value '-7' out of range, expected to be in range [1..1048575]").
pub fn mbarrier_count_violation(form: &OpForm, value: Option<i128>) -> Option<Violation> {
    let OpForm::Mbarrier {
        op: MbarrierOp::Init,
        ..
    } = *form
    else {
        return None;
    };
    let value = value?;
    if (1..1 << 20).contains(&value) {
        return None;
    }
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(1),
        format!("mbarrier.init's count must be in 1..=1048575 (2^20 - 1), not {value}"),
    ))
}

/// The requirements of `mbarrier.arrive{_drop}` that depend on its operands, not its
/// modifiers, as `(what, sm, PTX ISA version)` for the gate check: a count without
/// `.noComplete` or `.expect_tx` (`mbarrier.arrive.b64 state, [addr], count`) needs sm_90, and
/// the sink as the state needs PTX ISA 7.1. The spec excerpt is silent; ptxas 13.5 says
/// "Feature '(null)' requires .target sm_90 or higher" on sm_80/sm_89 and "Result discard
/// mode is not allowed for instruction 'mbarrier.arrive'" at 7.0 (docs/divergences.md D10).
pub fn mbarrier_arrive_requirements(
    form: &OpForm,
    operands: usize,
    sink_state: bool,
) -> Vec<(&'static str, u32, PtxVersion)> {
    let OpForm::Mbarrier {
        op:
            MbarrierOp::Arrive {
                expect_tx,
                no_complete,
                ..
            },
        ..
    } = *form
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if sink_state {
        out.push((
            "the sink as mbarrier.arrive's state",
            0,
            PtxVersion::new(7, 1),
        ));
    }
    if operands == 3 && !expect_tx && !no_complete {
        out.push(("mbarrier.arrive with a count", 90, PtxVersion::new(7, 0)));
    }
    out
}

/// Where the tensor operand `[tensorMap, tensorCoords]` of a tensor copy stands and how many
/// coordinates it takes: "tensorCoords ... specifies the starting coordinates in the tensor
/// ... as a vector" of `.dim` elements (PTX ISA 9.0, cp.async.bulk.tensor,
/// cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor), and for `.tile::gather4`/
/// `.tile::scatter4` "{col_idx, row_idx0, row_idx1, row_idx2, row_idx3} | Fixed length vector
/// of size 5". `None` for other forms.
pub fn tensor_coordinates(form: &OpForm) -> Option<(usize, usize)> {
    match *form {
        OpForm::CpAsyncBulkTensor {
            dims,
            load,
            four_rows,
            ..
        } => Some((
            usize::from(load),
            if four_rows { 5 } else { usize::from(dims) },
        )),
        OpForm::CpAsyncBulkPrefetchTensor {
            dims, four_rows, ..
        } => Some((0, if four_rows { 5 } else { usize::from(dims) })),
        _ => None,
    }
}

/// The coordinate vector of a tensor copy ([`tensor_coordinates`]): `length` is its number of
/// elements, `None` where the coordinates are not a brace vector (ptxas 13.5: "Argument
/// vector size mismatch", "Vector expected for argument 2", also for `.1d`).
pub fn tensor_coordinates_violation(form: &OpForm, length: Option<usize>) -> Option<Violation> {
    let (operand, count) = tensor_coordinates(form)?;
    match length {
        Some(length) if length == count => None,
        Some(length) => Some(Violation::new(
            RuleCode::VectorLength,
            Location::Operand(operand),
            format!("this tensor copy takes {count} coordinates, not {length}"),
        )),
        None => Some(Violation::new(
            RuleCode::OperandShape,
            Location::Operand(operand),
            format!("the tensor coordinates are a brace vector of {count}, `{{c0, ...}}`"),
        )),
    }
}

/// `setmaxnreg`'s register count when it is an integer (`Some(value)`): "The value of
/// imm-reg-count must be in the range 24 to 256 (both inclusive) and must be a multiple of 8"
/// (PTX ISA 9.0, setmaxnreg; ptxas 13.5: "unexpected value '65', expected to be multiple of
/// 8", "value '20' out of range, expected to be in range [24..256]").
pub fn setmaxnreg_count_violation(form: &OpForm, value: Option<i128>) -> Option<Violation> {
    let OpForm::Setmaxnreg { .. } = *form else {
        return None;
    };
    let value = value?;
    if (24..=256).contains(&value) && value % 8 == 0 {
        return None;
    }
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(0),
        format!("setmaxnreg's register count must be a multiple of 8 in 24..=256, not {value}"),
    ))
}

/// `mma.sp`'s sparsity selector `f` when it is an integer: "operand f is a 32-bit integer
/// constant with values in the range 0..3" (9.7.14.6.3; ptxas 13.5: "Argument 6 of instruction
/// 'Sparse mma': value '4' out of range, expected to be in range [0..3]"). The narrower range
/// of some shapes (0..1, 0) is left to run time, as ptxas 13.5 does not check it.
pub fn sparsity_selector_violation(form: &OpForm, value: Option<i128>) -> Option<Violation> {
    let OpForm::Mma(mma) = form else {
        return None;
    };
    let value = value?;
    // ptxas 13.5 on the sparse `.kind::f8f6f4`: "Argument 5 of instruction 'mma': unexpected
    // value '1', expected to be 0" (the ISA: "sparsity selector ... must be 0" for its types).
    if mma.sparse.is_some() && mma.kind_f8f6f4 && value != 0 {
        return Some(Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(5),
            format!("the sparsity selector of the sparse .kind::f8f6f4 mma is 0, not {value}"),
        ));
    }
    if mma.sparse.is_none() || (0..=3).contains(&value) {
        return None;
    }
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(5),
        format!("the sparsity selector of mma.sp is 0..3, not {value}"),
    ))
}

/// `tensormap.replace`'s constants (`values`: each operand's integer value): `ord` with
/// `.box_dim`, `.global_dim` and `.element_stride` in 0..=4 (ptxas 13.5: "value '5' expected
/// to be in range [0..4] when .box_dim modifier is used"; tensormap.md: "ord ... the
/// dimension", of a tensor of rank 1..5) and the `.field3` new values in the ranges of the
/// ISA's Table 33: `.elemtype` 0..=15 (ptxas 13.5: "value '16' expected to be in range
/// [0..15] when .elemtype modifier is used"), `.interleave_layout` 0..=2, `.swizzle_mode`
/// 0..=4, `.swizzle_atomicity` 0..=3, `.fill_mode` 0..=1 (ptxas 13.5: "value '2' expected to
/// be in range [0..1] when .fill_mode modifier is used"). The swizzle mode 4 (96B) only for
/// `target` sm_103a (ptxas 13.5 refuses it on every other target, sm_100a, sm_103f, sm_110a and
/// sm_120a included: "value '4' expected to be in range [0..3] when .swizzle_mode modifier is
/// used"), or a module without a target. The element types 13-15 (Table 33's sub-byte
/// types) need PTX ISA 8.7 (ptxas 13.5: "Instruction 'tensormap.replace.elemtype with input
/// value >= 13' requires PTX ISA .version 8.7 or later") and a target from sm_100 on (on sm_90a:
/// "value '13' expected to be in range [0..12] when .elemtype modifier is used").
pub fn tensormap_value_violation(
    form: &OpForm,
    values: &[Option<i128>],
    target: Option<crate::Target>,
    version: Option<crate::PtxVersion>,
) -> Option<Violation> {
    let OpForm::TensormapReplace { field, .. } = *form else {
        return None;
    };
    let swizzle_96b = target.is_none_or(|target| {
        target.variant == crate::TargetVariant::ArchSpecific && target.canonical_number() == 103
    });
    let sub_byte_types = target.is_none_or(|target| target.canonical_number() >= 100);
    if field == TensormapField::ElemType
        && let Some(value @ 13..=15) = values.get(1).copied().flatten()
        && sub_byte_types
        && version.is_some_and(|version| version < crate::PtxVersion::new(8, 7))
    {
        return Some(Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(1),
            format!("the element type codes 13 to 15 need PTX ISA 8.7 or later, not {value}"),
        ));
    }
    let (max, what) = match field {
        TensormapField::BoxDim | TensormapField::GlobalDim | TensormapField::ElementStride => {
            (4, "the dimension `ord`")
        }
        TensormapField::ElemType if !sub_byte_types => {
            (12, "the element type code (13 to 15 from sm_100 on)")
        }
        TensormapField::ElemType => (15, "the element type code"),
        TensormapField::InterleaveLayout => (2, "the interleave layout code"),
        TensormapField::SwizzleMode if swizzle_96b => (4, "the swizzle mode code"),
        TensormapField::SwizzleMode => (3, "the swizzle mode code (4, 96B, on sm_103a only)"),
        TensormapField::SwizzleAtomicity => (3, "the swizzle atomicity code"),
        TensormapField::FillMode => (1, "the fill mode code"),
        _ => return None,
    };
    let value = (*values.get(1)?)?;
    if (0..=max).contains(&value) {
        return None;
    }
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(1),
        format!("{what} must be in 0..={max}, not {value}"),
    ))
}

/// The constants of `bar`/`barrier` (`values`: each operand's integer value). The barrier
/// number `a`: "Operand `a` ... specify a logical barrier resource as an immediate constant or
/// register with value 0 through 15" (9.7.13.1; ptxas 13.5: "Barrier number '16' out of
/// range, expected to be in range [0..15]"). The thread count `b`: "Operand `b` specifies the
/// number of threads participating in the barrier ... must be a multiple of the warp size"
/// (ptxas 13.5: "Number of threads participating in barrier must be in multiple of warp
/// size"), and not 0 for `.arrive` ("Instruction 'barrier.arrive' requires a non-zero thread
/// count argument"; `bar.sync 0, 0` passes). ptxas 13.5 reads both as 32-bit values, the
/// constant truncated: `bar.sync 4294967311` is barrier 15 and passes, `bar.sync 4294967312`
/// and `bar.sync -1` are out of range, `bar.sync 0, 4294967328` counts 32 threads.
pub fn barrier_number_violation(form: &OpForm, values: &[Option<i128>]) -> Option<Violation> {
    let OpForm::Barrier { op } = *form else {
        return None;
    };
    let truncated = |value: i128| value.rem_euclid(1 << 32);
    let (a, b) = match op {
        BarrierOp::Sync | BarrierOp::Arrive => (0, (values.len() == 2).then_some(1)),
        BarrierOp::RedPopc | BarrierOp::RedAnd | BarrierOp::RedOr => {
            (1, (values.len() == 4).then_some(2))
        }
    };
    if let Some(value) = values.get(a).copied().flatten()
        && !(0..=15).contains(&truncated(value))
    {
        return Some(Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(a),
            format!("the barrier number must be in 0..=15, not {value}"),
        ));
    }
    let b = b?;
    let written = values.get(b).copied().flatten()?;
    let count = truncated(written);
    let arrive = op == BarrierOp::Arrive;
    (count % 32 != 0 || (arrive && count == 0)).then(|| {
        Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(b),
            format!(
                "the thread count must be a multiple of the warp size (32){}, not {written}",
                if arrive { " and not 0" } else { "" }
            ),
        )
    })
}

/// The fraction of `createpolicy.fractional`: an `.f32` register or a floating-point
/// constant (ptxas 13.5 also takes a `.b32` register there, not `.u32` or `.f64`).
const FRACTION: RegisterRule = RegisterRule::OneOf(&[Type::F32, Type::B32]);

/// The size operand of `discard`, `applypriority` and
/// `fence.proxy.tensormap::generic.acquire`: the constant 128 (PTX ISA 9.0, discard: "operand
/// size is an integer constant that specifies the amount of data ... The only supported value
/// for the size operand is 128"; fence: "The operand size ... must be 128"; ptxas 13.5:
/// "Argument 2 of instruction 'discard': unexpected value '64', expected to be 128").
pub fn line_size_violation(form: &OpForm, value: Option<u64>) -> Option<Violation> {
    if !matches!(form, OpForm::CacheAdvice | OpForm::FenceProxyAcquire) || value == Some(128) {
        return None;
    }
    Some(Violation::new(
        RuleCode::ConstantValue,
        Location::Operand(1),
        "the size must be 128 (bytes)",
    ))
}

/// Checks the operands of a decoded non-conversion form against its slots.
pub(crate) fn validate_op(form: &OpForm, operands: &[Operand]) -> Vec<Violation> {
    // lop3.md: "immLut is an integer constant that can take values from 0 to 255" (ptxas
    // 13.5: "Arguments mismatch for instruction 'lop3'" for a register there, and for a
    // floating-point constant, `0f3F800000` or `1.0`: tests/conformance/isagen-probes.tsv).
    if let OpForm::Lop3 { .. } = *form
        && let Some(lut) = operands.get(4)
        && !matches!(lut, Operand::Immediate(crate::form::Literal::Integer))
    {
        return vec![Violation::new(
            RuleCode::OperandShape,
            Location::Operand(4),
            "immLut is an integer constant",
        )];
    }
    if let OpForm::CpAsync { cache_hint, .. } = *form {
        return match cp_async_slots(cache_hint, operands) {
            Ok(slots) => check_slots(&slots, operands),
            Err(violation) => vec![violation],
        };
    }
    // `createpolicy.fractional... cache-policy{, fraction}`: the fraction is optional
    // ("default value of fraction is 1.0").
    if let OpForm::CreatePolicy(PolicyKind::Fractional) = *form {
        let mut slots = vec![scalar(
            "cache-policy",
            true,
            RegisterRule::OneOf(CACHE_POLICY),
        )];
        if operands.len() != 1 {
            slots.push(scalar("fraction", false, FRACTION));
        }
        return check_slots(&slots, operands);
    }
    // st: "Optionally, sink symbol '_' can be used in vector expression b when" the store is
    // 256 bits wide (`.v8` of 32-bit, `.v4` of 64-bit types), "which indicates that no data is
    // being written at the corresponding destination address" (ptxas 13.5 takes it there only,
    // "Sink '_' not allowed as a source operand" elsewhere, and "Unable to infer type of vector
    // elements" when every element is a sink).
    if let OpForm::St { ty, vector, .. } = *form
        && ty.bits() * u32::from(vector) == 256
        && let Some(Operand::Vector(elements)) = operands.get(1)
        && elements
            .iter()
            .any(|e| !matches!(e, crate::form::Element::Sink))
    {
        let slots = slots(form).unwrap_or_default();
        return check_slots(&slots, operands)
            .into_iter()
            .filter(|v| {
                !(v.code == RuleCode::SinkIllegal
                    && matches!(v.location, Location::Element { operand: 1, .. }))
            })
            .collect();
    }
    // A vector `atom`'s `d` may be the sink as a whole (ptxas 13.5 takes `atom.global.add.v2.f32
    // _, [a], {b0, b1}`, as it takes the scalar forms' "atom... _, [a], b"), though not a
    // vector of sinks only ("Unable to infer type of vector elements").
    if let OpForm::Atom {
        reduction: false,
        vector,
        ..
    } = *form
        && vector > 1
        && let Some(Operand::Sink) = operands.first()
    {
        let slots = slots(form).unwrap_or_default();
        return check_slots(&slots, operands)
            .into_iter()
            .filter(|v| v.location != Location::Operand(0))
            .collect();
    }
    // tex/tld4 `d[|p], [a, c] {, e} {, f}` (9.7.10.3-4): "e ... a vector of .s32 values"
    // (the offsets, one per spatial dimension of the geometry, a 3d one padded to four) and
    // "f ... an .f32 scalar value" (the depth compare). ptxas 13.5: "Operand vector size
    // doesn't match geometry". The program builder does not run them (docs/executor.md).
    if let OpForm::Tex(tex) = *form
        && let Some(mut slots) = slots(form)
        && operands.len() > slots.len()
    {
        let extra = &operands[slots.len()..];
        // ptxas 13.5 takes a vector of 1, 2 or 4 offsets, at least one per spatial dimension
        // (a 3d one padded to four), and refuses offsets and the depth compare on cubemaps
        // and the depth compare on 3d textures ("Illegal modifier '.cube' for instruction
        // 'tex'", "Operand vector size doesn't match geometry", "Illegal vector size: 3").
        use crate::texture::Geometry;
        let cube = matches!(tex.geometry, Geometry::Cube | Geometry::ACube);
        let offsets = matches!(extra.first(), Some(Operand::Vector(_)));
        let compare = extra.len() == 2 || !offsets;
        if (cube && offsets) || (compare && tex.geometry == Geometry::D3) {
            return vec![Violation::new(
                RuleCode::OperandCount,
                Location::Operand(slots.len()),
                "no offsets for a cubemap, no depth compare for a 3d texture",
            )];
        }
        let given = match extra.first() {
            Some(Operand::Vector(elements)) => elements.len(),
            _ => 0,
        };
        let length = if matches!(given, 1 | 2 | 4) && given >= tex.geometry.gradients() {
            given
        } else {
            tex.geometry.gradients()
        };
        let offsets = vector("e", Type::S32, length, false);
        match extra {
            [Operand::Vector(_)] => slots.push(offsets),
            [Operand::Vector(_), _] => {
                slots.push(offsets);
                slots.push(source("f", Type::F32));
            }
            [_] => slots.push(source("f", Type::F32)),
            _ => {}
        }
        return check_slots(&slots, operands);
    }
    if let OpForm::Barrier { op } = *form {
        return match barrier_slots(op, operands.len()) {
            Ok(slots) => check_slots(&slots, operands),
            Err(violation) => vec![violation],
        };
    }
    if let OpForm::Mbarrier { op, cluster, .. } = *form {
        return match mbarrier_slots(op, cluster, operands.len()) {
            Ok(slots) => check_slots(&slots, operands),
            Err(violation) => vec![violation],
        };
    }
    if let OpForm::Wmma(wmma) = *form
        && wmma.op != crate::wmma::WmmaOp::Mma
    {
        if !(2..=3).contains(&operands.len()) {
            return vec![Violation::new(
                RuleCode::OperandCount,
                Location::Instruction,
                format!(
                    "wmma.{} takes 2 or 3 operands (the stride is optional), not {}",
                    if matches!(wmma.op, crate::wmma::WmmaOp::Store) {
                        "store"
                    } else {
                        "load"
                    },
                    operands.len()
                ),
            )];
        }
        return check_slots(&wmma_slots(wmma, operands.len() == 3), operands);
    }
    if let OpForm::Wgmma(op) = *form {
        let a_from_registers = matches!(operands.get(1), Some(Operand::Vector(_)));
        return check_slots(&wgmma_slots(op, a_from_registers), operands);
    }
    let Some(slots) = slots(form) else {
        return Vec::new();
    };
    let pair = matches!(operands.first(), Some(Operand::PredicatePair(..)));
    let rule = match (predicate_output(form), pair) {
        (None, true) => Some("this instruction has no predicate output `d|p`"),
        (Some(true), false) => Some("this instruction needs a predicate output: write `d|p`"),
        _ => None,
    };
    if let Some(rule) = rule {
        return vec![Violation::new(
            RuleCode::OperandShape,
            Location::Operand(0),
            rule,
        )];
    }
    if let Some(&Operand::PredicatePair(d, p)) = operands.first() {
        // `d` is checked as the destination slot (a sink where that slot takes one), `p` must
        // be a `.pred` register or, but for `lop3`, the sink (ptxas 13.5: "Arguments mismatch
        // for instruction 'shfl'" for `%rd|%p`, "Predicate output expected for instruction
        // 'lop3'" for `%r|_` and `%r|%r2`).
        // The sink as `d` of a pair is fine but for `shfl` (`elect.sync _|p`, `setp.eq.s32 _|p`;
        // "Result discard mode is not allowed for instruction 'shfl'").
        let mut operands = operands.to_vec();
        operands[0] = match d {
            Element::Register(ty) => Operand::Register(ty),
            Element::Sink if !matches!(form, OpForm::Shfl { .. }) => Operand::Other,
            Element::Sink => Operand::Sink,
            Element::Immediate(literal) => Operand::Immediate(literal),
            Element::Other => Operand::Other,
        };
        let mut out = check_slots(&slots, &operands);
        // `tex`'s `{...}|_` is a syntax error to ptxas 13.5 ("Parsing error near '_'").
        let sink_p = !matches!(form, OpForm::Lop3 { .. } | OpForm::Tex(_));
        let p_fits = match p {
            Element::Register(ty) => ty == Type::Pred,
            Element::Sink => sink_p,
            Element::Other => true,
            Element::Immediate(_) => false,
        };
        if !p_fits {
            out.push(Violation::new(
                RuleCode::OperandShape,
                Location::Operand(0),
                "the predicate output `p` of `d|p` must be a `.pred` register",
            ));
        }
        return out;
    }
    check_slots(&slots, operands)
}

/// Whether a video selector (`.b0`, `.h10`, `.b3210`: `half` says `.h`, `digits` as written)
/// fits operand `operand` of `opcode`; the reason when it does not.
///
/// PTX ISA 9.0: the scalar video instructions (vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr,
/// vmad, vset) take `.dsel`/`.asel`/`.bsel` = `{ .b0, .b1, .b2, .b3, .h0, .h1 }` on `d`, `a` and
/// `b`; the dual half-word ones (vadd2 …) `.asel = .bsel = { .hxy, where x,y are from { 0, 1, 2,
/// 3 } }` and on `d` `.mask = { .h0, .h1, .h10 }`; the quad byte ones (vadd4 …) `.asel = .bsel
/// = { .bxyzw, where x,y,z,w are from { 0, ..., 7 } }` and on `d` the masks `.b0` … `.b3210`
/// (the bytes named from high to low). No other instruction takes one (ptxas 13.5: "Video
/// selector is not allowed on source operand for instruction 'add'", "Incorrect video selector
/// for operand 1").
pub fn video_selector_violation(
    opcode: Opcode,
    operand: usize,
    half: bool,
    digits: &[u8],
) -> Option<String> {
    use Opcode as O;
    let scalar = matches!(
        opcode,
        O::Vadd | O::Vsub | O::Vabsdiff | O::Vmin | O::Vmax | O::Vshl | O::Vshr | O::Vmad | O::Vset
    );
    let dual = matches!(
        opcode,
        O::Vadd2 | O::Vsub2 | O::Vavrg2 | O::Vabsdiff2 | O::Vmin2 | O::Vmax2 | O::Vset2
    );
    let quad = matches!(
        opcode,
        O::Vadd4 | O::Vsub4 | O::Vavrg4 | O::Vabsdiff4 | O::Vmin4 | O::Vmax4 | O::Vset4
    );
    if !(scalar || dual || quad) {
        return Some(format!("{opcode} takes no video selector"));
    }
    // The mask of `d`: distinct lanes from high to low.
    let mask =
        |lanes: u8| digits.iter().all(|&d| d < lanes) && digits.windows(2).all(|w| w[0] > w[1]);
    let fits = match (operand, scalar, dual) {
        (0..=2, true, _) => digits.len() == 1 && digits[0] < if half { 2 } else { 4 },
        (0, _, true) => half && mask(2),
        (1 | 2, _, true) => half && digits.len() == 2,
        (0, _, _) => !half && mask(4),
        (1 | 2, _, _) => !half && digits.len() == 4,
        _ => false,
    };
    (!fits).then(|| format!("this video selector does not fit operand {operand} of {opcode}"))
}
