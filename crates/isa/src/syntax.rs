//! The forms of instructions ptxsim checks but does not run, written as data the way the PTX
//! ISA's Syntax blocks are: per form, the sub-operation words, the modifier groups (`.dtype =
//! { .u32, .s32 }`, `{.sat}`), the operand list, and the target / version gates.
//!
//! [`check`] matches a mnemonic and its operands against the forms of its opcode and returns
//! what is wrong with the nearest form. Opcodes (and sub-operations) that have no form here
//! are only gated ([`OPCODE_GATES`]): the checker stays silent on their modifiers and operands
//! rather than reject valid code.
//!
//! Sources: `shared/spec/isa/*.md` (PTX ISA 9.0 Syntax blocks, cited per form); where the text
//! is silent (which registers an operand takes, which gates apply), ptxas 13.5 decided, probed
//! with small modules (`tests/conformance/fuzz-forms.tsv.xz` holds the lines).

use crate::form::{DecodeError, DecodeErrorKind, Location, Operand, RuleCode, Violation};
use crate::gating::{Applies, BLACKWELL_SPECIFIC, Gate, SM120_SPECIFIC, Support, TargetSet};
use crate::layout::{OperandSlot, RegisterRule, SlotShape, check_slots};
use crate::opcode::Opcode;
use crate::target::PtxVersion;
use crate::types::Type;

/// One modifier group of a Syntax block: at most one of `values` (a repeated value is accepted,
/// as ptxas 13.5 accepts `vadd.u32.u32.u32.sat.sat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The name the Syntax block gives it (`.dtype`, `.sat`).
    pub name: &'static str,
    /// The modifiers without their dot.
    pub values: &'static [&'static str],
    /// Whether one must be present.
    pub required: bool,
    /// Whether it is an instruction type: a second value is an extra type (ptxas: "Unexpected
    /// instruction types specified"), and groups with the same values are filled in order
    /// (`.dtype.atype.btype`).
    pub is_type: bool,
    /// Another group (by index) that must be present with this one (ptxas: "Modifier
    /// '.relaxed' requires scope", "Modifier '.gpu' requires order").
    pub needs: Option<usize>,
}

/// How an operand of a form is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A fixed slot shape.
    Fixed(SlotShape),
    /// A register of the type chosen from this group ([`register_rule`]), or a constant that
    /// type takes.
    Typed(usize),
    /// Like [`Kind::Typed`] (first field), a brace vector when the vector group (second field)
    /// is present (`.v2` -> two elements).
    TypedVector(usize, usize),
    /// A matrix fragment: a brace vector of 32-bit registers ([`crate::layout::FRAGMENT`]), as
    /// many as the `.num` group (first field: `.x1`, `.x2`, `.x4`) says times the second field.
    Fragment(usize, usize),
}

/// One operand of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The name the Syntax block uses.
    pub name: &'static str,
    /// Whether it is written.
    pub is_destination: bool,
    /// What it takes.
    pub kind: Kind,
    /// Whether it may be left off (only trailing operands: `alloca.type ptr, size{, immAlign}`).
    pub optional: bool,
}

/// "If this modifier is present, the type group must be one of these" (ptxas: "Incorrect type
/// '.f32' for operation '.min'", "Illegal modifier '.acc::f16' ... with type '.f16x2'").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Restriction {
    /// The modifier.
    pub modifier: &'static str,
    /// The type group it restricts.
    pub group: usize,
    /// The values allowed with it.
    pub allowed: &'static [&'static str],
}

/// One form: a line of a Syntax block with its definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxForm {
    /// The opcode.
    pub opcode: Opcode,
    /// The section of the PTX ISA and its file under `shared/spec/isa/`.
    pub section: &'static str,
    /// The sub-operation word(s) that select this form (`ld_reduce`, `replace`), if any: the
    /// first must be the first modifier.
    pub words: &'static [&'static str],
    /// The modifier groups.
    pub groups: &'static [Group],
    /// The operands.
    pub operands: &'static [Slot],
    /// Type restrictions by modifier.
    pub restrictions: &'static [Restriction],
    /// `(vector group, type group, allowed total bits)`: "the size of the specified type along
    /// with .vec must equal either 32-bits or 64-bits or 128-bits" (multimem).
    pub vector_bits: Option<(usize, usize, &'static [u32])>,
    /// Gates of modifiers: `(modifier, gate)`.
    pub modifier_gates: &'static [(&'static str, Gate)],
}

/// A gate of a whole opcode family (or of one sub-operation: `words`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeGate {
    /// The opcode.
    pub opcode: Opcode,
    /// The first modifier, where the gate is of a sub-operation.
    pub word: Option<&'static str>,
    /// The gate.
    pub gate: Gate,
}

const fn group(name: &'static str, values: &'static [&'static str], required: bool) -> Group {
    Group {
        name,
        values,
        required,
        is_type: false,
        needs: None,
    }
}

const fn types(name: &'static str, values: &'static [&'static str]) -> Group {
    Group {
        name,
        values,
        required: true,
        is_type: true,
        needs: None,
    }
}

const fn needing(group: Group, needs: usize) -> Group {
    Group {
        needs: Some(needs),
        ..group
    }
}

const fn slot(name: &'static str, is_destination: bool, kind: Kind) -> Slot {
    Slot {
        name,
        is_destination,
        kind,
        optional: false,
    }
}

const fn optional(slot: Slot) -> Slot {
    Slot {
        optional: true,
        ..slot
    }
}

const fn fixed(rule: RegisterRule) -> Kind {
    Kind::Fixed(SlotShape::Scalar(rule))
}

const ADDRESS: Kind = Kind::Fixed(SlotShape::Address);

const fn gate(feature: &'static str, support: &'static [Support]) -> Gate {
    Gate {
        feature,
        applies: Applies::Syntax,
        support,
    }
}

const fn since(major: u8, minor: u8, targets: TargetSet) -> Support {
    Support {
        since: PtxVersion::new(major, minor),
        targets,
    }
}

const fn form(opcode: Opcode, section: &'static str) -> SyntaxForm {
    SyntaxForm {
        opcode,
        section,
        words: &[],
        groups: &[],
        operands: &[],
        restrictions: &[],
        vector_bits: None,
        modifier_gates: &[],
    }
}

/// The 32-bit operands of the video instructions: ptxas 13.5 takes `.b32`, `.u32`, `.s32` and
/// `.f16x2` registers and integer constants, never `.f32`, 16-bit or 64-bit registers
/// ("Arguments mismatch for instruction 'vadd'").
const VIDEO: RegisterRule = RegisterRule::OneOf(&[Type::U32, Type::B32, Type::S32, Type::F16x2]);
const VIDEO_TYPES: &[&str] = &["u32", "s32"];
/// `.op2 = { .add, .min, .max }`
const OP2: &[&str] = &["add", "min", "max"];
const CMP: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];

const fn video_slot(name: &'static str, is_destination: bool) -> Slot {
    slot(name, is_destination, fixed(VIDEO))
}

/// `d, a{.asel}, b{.bsel}{, c}`.
const VIDEO_3_OR_4: &[Slot] = &[
    video_slot("d", true),
    video_slot("a", false),
    video_slot("b", false),
    optional(video_slot("c", false)),
];
/// `d, a{.asel}, b{.bsel}, c`.
const VIDEO_4: &[Slot] = &[
    video_slot("d", true),
    video_slot("a", false),
    video_slot("b", false),
    video_slot("c", false),
];

const VIDEO_SAT: [Group; 4] = [
    types(".dtype", VIDEO_TYPES),
    types(".atype", VIDEO_TYPES),
    types(".btype", VIDEO_TYPES),
    group(".sat", &["sat"], false),
];
const VIDEO_SAT_OP2: [Group; 5] = [
    types(".dtype", VIDEO_TYPES),
    types(".atype", VIDEO_TYPES),
    types(".btype", VIDEO_TYPES),
    group(".sat", &["sat"], false),
    group(".op2", OP2, true),
];
const VIDEO_SHIFT: [Group; 5] = [
    types(".dtype", VIDEO_TYPES),
    types(".atype", VIDEO_TYPES),
    types(".btype", &["u32"]),
    group(".sat", &["sat"], false),
    group(".mode", &["clamp", "wrap"], true),
];
const VIDEO_SHIFT_OP2: [Group; 6] = [
    types(".dtype", VIDEO_TYPES),
    types(".atype", VIDEO_TYPES),
    types(".btype", &["u32"]),
    group(".sat", &["sat"], false),
    group(".mode", &["clamp", "wrap"], true),
    group(".op2", OP2, true),
];
const VIDEO_ADD: [Group; 4] = [
    types(".dtype", VIDEO_TYPES),
    types(".atype", VIDEO_TYPES),
    types(".btype", VIDEO_TYPES),
    group(".add", &["add"], true),
];
const VIDEO_SET_SIMD: [Group; 4] = [
    types(".atype", VIDEO_TYPES),
    types(".btype", VIDEO_TYPES),
    group(".cmp", CMP, true),
    group(".add", &["add"], false),
];

/// `d, a{.asel}, b{.bsel}, c` of the SIMD video instructions: ptxas 13.5 takes no constant as
/// a source ("Incorrect video selector for operand 1", and for operands 2 and 3).
const VIDEO_SIMD_4: &[Slot] = &{
    const REGISTER: Kind = fixed(RegisterRule::OneOf(&[
        Type::B32,
        Type::U32,
        Type::S32,
        Type::F16x2,
    ]));
    [
        video_slot("d", true),
        slot("a", false, REGISTER),
        slot("b", false, REGISTER),
        slot("c", false, REGISTER),
    ]
};

/// The scalar video instructions (9.7.18.1.1, vadd.md): `vop.dtype.atype.btype{.sat} d, a, b;`,
/// `vop.dtype.atype.btype{.sat}.op2 d, a, b, c;` and the data-merge form `d.dsel, a, b, c`.
const fn video_scalar(opcode: Opcode) -> [SyntaxForm; 2] {
    [
        SyntaxForm {
            groups: &VIDEO_SAT,
            operands: VIDEO_3_OR_4,
            ..form(opcode, "9.7.18.1.1 (vadd.md)")
        },
        SyntaxForm {
            groups: &VIDEO_SAT_OP2,
            operands: VIDEO_4,
            ..form(opcode, "9.7.18.1.1 (vadd.md)")
        },
    ]
}

/// `vshl`/`vshr` (9.7.18.1.2, vshl.md): `vop.dtype.atype.u32{.sat}.mode{.op2} d, a, b{, c};`
/// (ptxas 13.5: "Clamp modifier required", "Operation requires .u32 type").
const fn video_shift(opcode: Opcode) -> [SyntaxForm; 2] {
    [
        SyntaxForm {
            groups: &VIDEO_SHIFT,
            operands: VIDEO_3_OR_4,
            ..form(opcode, "9.7.18.1.2 (vshl.md)")
        },
        SyntaxForm {
            groups: &VIDEO_SHIFT_OP2,
            operands: VIDEO_4,
            ..form(opcode, "9.7.18.1.2 (vshl.md)")
        },
    ]
}

/// The SIMD video instructions (9.7.18.2.1/3, vadd2.md, vadd4.md):
/// `vop2.dtype.atype.btype{.sat} d, a, b, c;` and `vop2.dtype.atype.btype.add d, a, b, c;`
/// (ptxas 13.5: "Illegal combination of .sat and .add modifiers", "Illegal secondary operation").
const fn video_simd(opcode: Opcode, section: &'static str) -> [SyntaxForm; 2] {
    [
        SyntaxForm {
            groups: &VIDEO_SAT,
            operands: VIDEO_SIMD_4,
            ..form(opcode, section)
        },
        SyntaxForm {
            groups: &VIDEO_ADD,
            operands: VIDEO_SIMD_4,
            ..form(opcode, section)
        },
    ]
}

/// `vset`'s `d` and `c`: 32-bit integer and bit registers, no `.f16x2` (ptxas 13.5:
/// "Arguments mismatch for instruction 'vset'" for `vset.u32.u32.ne %hh0, a, b` and with an
/// `.f16x2` `c`; `a` and `b` take one; tests/conformance/vset-operands.tsv).
const VIDEO_SET_OUTER: RegisterRule = RegisterRule::OneOf(&[Type::U32, Type::B32, Type::S32]);
/// `vset`'s `d, a{.asel}, b{.bsel}{, c}`.
const VSET_3_OR_4: &[Slot] = &[
    slot("d", true, fixed(VIDEO_SET_OUTER)),
    video_slot("a", false),
    video_slot("b", false),
    optional(slot("c", false, fixed(VIDEO_SET_OUTER))),
];
/// `vset`'s `d, a{.asel}, b{.bsel}, c`.
const VSET_4: &[Slot] = &[
    slot("d", true, fixed(VIDEO_SET_OUTER)),
    video_slot("a", false),
    video_slot("b", false),
    slot("c", false, fixed(VIDEO_SET_OUTER)),
];

/// `vset` (9.7.18.1.4, vset.md): `vset.atype.btype.cmp{.op2} d, a, b{, c};`.
const VSET: [SyntaxForm; 2] = [
    SyntaxForm {
        groups: &[
            types(".atype", VIDEO_TYPES),
            types(".btype", VIDEO_TYPES),
            group(".cmp", CMP, true),
        ],
        operands: VSET_3_OR_4,
        ..form(Opcode::Vset, "9.7.18.1.4 (vset.md)")
    },
    SyntaxForm {
        groups: &[
            types(".atype", VIDEO_TYPES),
            types(".btype", VIDEO_TYPES),
            group(".cmp", CMP, true),
            group(".op2", OP2, true),
        ],
        operands: VSET_4,
        ..form(Opcode::Vset, "9.7.18.1.4 (vset.md)")
    },
];

/// `vset2`/`vset4` (9.7.18.2.2/4): `vset2.atype.btype.cmp{.add} d, a, b, c;`.
const fn video_simd_set(opcode: Opcode, section: &'static str) -> SyntaxForm {
    SyntaxForm {
        groups: &VIDEO_SET_SIMD,
        operands: VIDEO_SIMD_4,
        ..form(opcode, section)
    }
}

/// `vmad` (9.7.18.1.3, vmad.md): `vmad.dtype.atype.btype{.po}{.sat}{.scale} d, a, b, c;`
/// (ptxas 13.5: "Multiple shift-right modifiers specified").
const VMAD: SyntaxForm = SyntaxForm {
    groups: &[
        types(".dtype", VIDEO_TYPES),
        types(".atype", VIDEO_TYPES),
        types(".btype", VIDEO_TYPES),
        group(".po", &["po"], false),
        group(".sat", &["sat"], false),
        group(".scale", &["shr7", "shr15"], false),
    ],
    operands: VIDEO_4,
    ..form(Opcode::Vmad, "9.7.18.1.3 (vmad.md)")
};

const MULTIMEM_INTEGER: &[&str] = &["b32", "b64", "u32", "u64", "s32", "s64"];
const MULTIMEM_FLOAT: &[&str] = &[
    "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2",
    "e4m3x4",
];
const MULTIMEM_RED_FLOAT: &[&str] = &["f16", "f16x2", "bf16", "bf16x2", "f32", "f64"];
const MULTIMEM_VEC: &[&str] = &["v2", "v4", "v8"];
const SCOPES: &[&str] = &["cta", "cluster", "gpu", "sys"];
/// "the size of the specified type along with .vec must equal either 32-bits or 64-bits or
/// 128-bits ... Type .f64 cannot be used with .vec qualifier."
const MULTIMEM_BITS: &[u32] = &[32, 64, 128];
const NOT_F64: &[&str] = &[
    "f16", "f16x2", "bf16", "bf16x2", "f32", "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4",
];
/// ptxas 13.5: "Incorrect type '.f32' for operation '.min' in instruction
/// 'multimem.ld_reduce'", "Illegal modifier '.acc::f32' ... with type '.f32'".
const MULTIMEM_NARROW_FLOAT: &[&str] = &[
    "f16", "f16x2", "bf16", "bf16x2", "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4",
];
const MULTIMEM_VECTOR_RESTRICTIONS: [Restriction; 3] = [
    Restriction {
        modifier: "v2",
        group: 6,
        allowed: NOT_F64,
    },
    Restriction {
        modifier: "v4",
        group: 6,
        allowed: NOT_F64,
    },
    Restriction {
        modifier: "v8",
        group: 6,
        allowed: NOT_F64,
    },
];

/// The memory-ordering groups of a multimem form: `{.sem}{.scope}` (each needs the other,
/// ptxas 13.5: "Modifier '.relaxed' requires scope", "Modifier '.gpu' requires order") or
/// `.weak` alone ("Modifier '.weak' cannot be combined with modifier '.gpu'").
const fn sem(values: &'static [&'static str]) -> Group {
    needing(group(".sem", values, false), 1)
}
const SCOPE: Group = needing(group(".scope", SCOPES, false), 0);
const GLOBAL: Group = group(".ss", &["global"], false);
const NO_SCOPE: Group = group(".scope", &[], false);

const MULTIMEM_ACC_GATE: Gate = gate(".acc::f32", &[since(8, 2, TargetSet::AtLeast(90))]);

const LD_SLOTS: [Slot; 2] = [
    slot("d", true, Kind::TypedVector(6, 5)),
    slot("[a]", false, ADDRESS),
];
const ST_SLOTS: [Slot; 2] = [
    slot("[a]", false, ADDRESS),
    slot("b", false, Kind::TypedVector(6, 5)),
];
/// `.acc::f32`/`.acc::f16` (PTX ISA 8.2) and the 8-bit float types, which ptxas 13.5 accepts
/// on sm_100a and sm_120a and rejects on sm_90a ("Feature '.e4m3' not supported on .target
/// 'sm_90a'").
const ACC_GATES: [(&str, Gate); 8] = [
    ("acc::f32", MULTIMEM_ACC_GATE),
    ("acc::f16", MULTIMEM_ACC_GATE),
    ("e4m3", MULTIMEM_FP8_GATE),
    ("e5m2", MULTIMEM_FP8_GATE),
    ("e4m3x2", MULTIMEM_FP8_GATE),
    ("e5m2x2", MULTIMEM_FP8_GATE),
    ("e4m3x4", MULTIMEM_FP8_GATE),
    ("e5m2x4", MULTIMEM_FP8_GATE),
];
/// ptxas 13.5 takes the 8-bit float types on the arch-specific sm_100a ... sm_121a and the
/// sm_100f/sm_110f families, not on sm_120f/sm_121f ("Feature '.e5m2x4' not supported on
/// .target 'sm_120f'").
const MULTIMEM_FP8_GATE: Gate = gate(
    "multimem with an 8-bit float type",
    &[since(
        8,
        6,
        TargetSet::Specific {
            arch: &[100, 101, 103, 110, 120, 121],
            families: &[100, 110],
        },
    )],
);

/// The multimem forms; group indices: 0 `.sem`, 1 `.scope`, 2 `.ss`, 3 `.op`, 4 `.acc_prec`,
/// 5 `.vec`, 6 `.type`.
const MULTIMEM: &[SyntaxForm] = &{
    const fn m(
        words: &'static [&'static str],
        groups: &'static [Group],
        ld: bool,
        restrictions: &'static [Restriction],
        vector_bits: bool,
    ) -> SyntaxForm {
        SyntaxForm {
            words,
            groups,
            operands: if ld { &LD_SLOTS } else { &ST_SLOTS },
            restrictions,
            vector_bits: if vector_bits {
                Some((5, 6, MULTIMEM_BITS))
            } else {
                None
            },
            modifier_gates: &ACC_GATES,
            ..form(Opcode::Multimem, "9.7.9.14 (multimem.md)")
        }
    }
    const NONE: Group = group("", &[], false);
    const INT_OPS: &[&str] = &["min", "max", "add", "and", "or", "xor"];
    // ptxas 13.5: "Incorrect type '.s64' for operation '.add' in instruction
    // 'multimem.ld_reduce'", "Incorrect type '.b32' for operation '.min'" (the same for
    // `multimem.red`).
    const INT_RESTRICTIONS: &[Restriction] = &[
        Restriction {
            modifier: "add",
            group: 6,
            allowed: &["u32", "u64", "s32"],
        },
        Restriction {
            modifier: "min",
            group: 6,
            allowed: &["u32", "u64", "s32", "s64"],
        },
        Restriction {
            modifier: "max",
            group: 6,
            allowed: &["u32", "u64", "s32", "s64"],
        },
        Restriction {
            modifier: "and",
            group: 6,
            allowed: &["b32", "b64"],
        },
        Restriction {
            modifier: "or",
            group: 6,
            allowed: &["b32", "b64"],
        },
        Restriction {
            modifier: "xor",
            group: 6,
            allowed: &["b32", "b64"],
        },
    ];
    const LD_FLOAT_RESTRICTIONS: &[Restriction] = &[
        MULTIMEM_VECTOR_RESTRICTIONS[0],
        MULTIMEM_VECTOR_RESTRICTIONS[1],
        MULTIMEM_VECTOR_RESTRICTIONS[2],
        Restriction {
            modifier: "min",
            group: 6,
            allowed: MULTIMEM_NARROW_FLOAT,
        },
        Restriction {
            modifier: "max",
            group: 6,
            allowed: MULTIMEM_NARROW_FLOAT,
        },
        // "Optionally, .acc_prec qualifier can be specified to change the precision of
        // intermediate accumulation" (the ISA's examples: `.add.acc::f32.v2.f16x2`,
        // `.add.acc::f16.v4.e5m2`). ptxas 13.5 takes it with `.add` only ("Illegal reduction
        // operation for instruction 'multimem.ld_reduce.acc::f32'") and `.acc::f32` with the
        // 16-bit float types only ("Illegal modifier '.acc::f32' for instruction
        // 'multimem.ld_reduce' with type '.e5m2x4'").
        Restriction {
            modifier: "acc::f32",
            group: 6,
            allowed: &["f16", "f16x2", "bf16", "bf16x2"],
        },
        Restriction {
            modifier: "acc::f32",
            group: 3,
            allowed: &["add"],
        },
        Restriction {
            modifier: "acc::f16",
            group: 6,
            allowed: &["e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4"],
        },
        Restriction {
            modifier: "acc::f16",
            group: 3,
            allowed: &["add"],
        },
    ];
    [
        // Integer types.
        m(
            &["ld_reduce"],
            &[
                sem(&["relaxed", "acquire"]),
                SCOPE,
                GLOBAL,
                group(".op", INT_OPS, true),
                NONE,
                NONE,
                types(".type", MULTIMEM_INTEGER),
            ],
            true,
            INT_RESTRICTIONS,
            false,
        ),
        m(
            &["ld_reduce"],
            &[
                group(".weak", &["weak"], true),
                NO_SCOPE,
                GLOBAL,
                group(".op", INT_OPS, true),
                NONE,
                NONE,
                types(".type", MULTIMEM_INTEGER),
            ],
            true,
            INT_RESTRICTIONS,
            false,
        ),
        m(
            &["st"],
            &[
                sem(&["relaxed", "release"]),
                SCOPE,
                GLOBAL,
                NONE,
                NONE,
                NONE,
                types(".type", MULTIMEM_INTEGER),
            ],
            false,
            &[],
            false,
        ),
        m(
            &["st"],
            &[
                group(".weak", &["weak"], true),
                NO_SCOPE,
                GLOBAL,
                NONE,
                NONE,
                NONE,
                types(".type", MULTIMEM_INTEGER),
            ],
            false,
            &[],
            false,
        ),
        m(
            &["red"],
            &[
                sem(&["relaxed", "release"]),
                SCOPE,
                GLOBAL,
                group(".op", INT_OPS, true),
                NONE,
                NONE,
                types(".type", MULTIMEM_INTEGER),
            ],
            false,
            INT_RESTRICTIONS,
            false,
        ),
        // Floating-point types.
        m(
            &["ld_reduce"],
            &[
                sem(&["relaxed", "acquire"]),
                SCOPE,
                GLOBAL,
                group(".op", &["min", "max", "add"], true),
                group(".acc_prec", &["acc::f32", "acc::f16"], false),
                group(".vec", MULTIMEM_VEC, false),
                types(".type", MULTIMEM_FLOAT),
            ],
            true,
            LD_FLOAT_RESTRICTIONS,
            true,
        ),
        m(
            &["ld_reduce"],
            &[
                group(".weak", &["weak"], true),
                NO_SCOPE,
                GLOBAL,
                group(".op", &["min", "max", "add"], true),
                group(".acc_prec", &["acc::f32", "acc::f16"], false),
                group(".vec", MULTIMEM_VEC, false),
                types(".type", MULTIMEM_FLOAT),
            ],
            true,
            LD_FLOAT_RESTRICTIONS,
            true,
        ),
        m(
            &["st"],
            &[
                sem(&["relaxed", "release"]),
                SCOPE,
                GLOBAL,
                NONE,
                NONE,
                group(".vec", MULTIMEM_VEC, false),
                types(".type", MULTIMEM_FLOAT),
            ],
            false,
            &MULTIMEM_VECTOR_RESTRICTIONS,
            true,
        ),
        m(
            &["st"],
            &[
                group(".weak", &["weak"], true),
                NO_SCOPE,
                GLOBAL,
                NONE,
                NONE,
                group(".vec", MULTIMEM_VEC, false),
                types(".type", MULTIMEM_FLOAT),
            ],
            false,
            &MULTIMEM_VECTOR_RESTRICTIONS,
            true,
        ),
        m(
            &["red"],
            &[
                sem(&["relaxed", "release"]),
                SCOPE,
                GLOBAL,
                group(".redop", &["add"], true),
                NONE,
                group(".vec", MULTIMEM_VEC, false),
                types(".redtype", MULTIMEM_RED_FLOAT),
            ],
            false,
            &MULTIMEM_VECTOR_RESTRICTIONS,
            true,
        ),
    ]
};

/// `alloca.type ptr, size{, immAlign};` (9.7.17.3, alloca.md): ptxas 13.5 takes `ptr` in an
/// integer register of the type's size (`.b64`, `.u64`, `.s64` for `.u64`; "Arguments mismatch
/// for instruction 'alloca'" for any other), `size` in a register of the type's size or as a
/// constant, and `immAlign` as a constant only ("immAlign is a 32-bit value ... It is an
/// integer constant"; a register is "Arguments mismatch"); its value is checked by
/// [`value_violation`] ("must be a power of 2 and must not exceed 2^23").
const ALLOCA: [SyntaxForm; 2] = [
    SyntaxForm {
        groups: &TYPE_U64,
        operands: &[
            slot(
                "ptr",
                true,
                fixed(RegisterRule::OneOf(&[Type::B64, Type::U64, Type::S64])),
            ),
            slot("size", false, fixed(RegisterRule::SameSize(Type::U64))),
            optional(slot("immAlign", false, fixed(RegisterRule::Constant))),
        ],
        ..form(Opcode::Alloca, "9.7.17.3 (alloca.md)")
    },
    SyntaxForm {
        groups: &TYPE_U32,
        operands: &[
            slot(
                "ptr",
                true,
                fixed(RegisterRule::OneOf(&[
                    Type::B32,
                    Type::U32,
                    Type::S32,
                    Type::F16x2,
                ])),
            ),
            slot("size", false, fixed(RegisterRule::SameSize(Type::U32))),
            optional(slot("immAlign", false, fixed(RegisterRule::Constant))),
        ],
        ..form(Opcode::Alloca, "9.7.17.3 (alloca.md)")
    },
];

/// The pointer of `stacksave.type d;` / `stackrestore.type a;` (9.7.17.1-2): ptxas 13.5 takes
/// an integer register of the type's size, or for `.u32` an `.f16x2` one (`stacksave.u32 %s32`,
/// `stackrestore.u32 %hh1`, as `alloca.u32`'s `ptr`: tests/conformance/isagen-probes.tsv;
/// "Arguments mismatch" for
/// any other, "Result register required for instruction 'stackrestore'" for a constant).
const U64_POINTER: [Slot; 1] = [slot(
    "d",
    true,
    fixed(RegisterRule::OneOf(&[Type::B64, Type::U64, Type::S64])),
)];
const U32_POINTER: [Slot; 1] = [slot(
    "d",
    true,
    fixed(RegisterRule::OneOf(&[
        Type::B32,
        Type::U32,
        Type::S32,
        Type::F16x2,
    ])),
)];
const U64_SOURCE: [Slot; 1] = [slot(
    "a",
    true,
    fixed(RegisterRule::OneOf(&[Type::B64, Type::U64, Type::S64])),
)];
const U32_SOURCE: [Slot; 1] = [slot(
    "a",
    true,
    fixed(RegisterRule::OneOf(&[
        Type::B32,
        Type::U32,
        Type::S32,
        Type::F16x2,
    ])),
)];
const TYPE_U64: [Group; 1] = [types(".type", &["u64"])];
const TYPE_U32: [Group; 1] = [types(".type", &["u32"])];

const fn stack(opcode: Opcode, section: &'static str, is_destination: bool) -> [SyntaxForm; 2] {
    [
        SyntaxForm {
            groups: &TYPE_U64,
            operands: if is_destination {
                &U64_POINTER
            } else {
                &U64_SOURCE
            },
            ..form(opcode, section)
        },
        SyntaxForm {
            groups: &TYPE_U32,
            operands: if is_destination {
                &U32_POINTER
            } else {
                &U32_SOURCE
            },
            ..form(opcode, section)
        },
    ]
}

/// `istypep.type p, a;` (9.7.10.6, istypep.md): `a` is a 64-bit handle; ptxas 13.5 takes
/// `.u64` and `.b64` registers (and a variable's name), no 32-bit ones.
const ISTYPEP: SyntaxForm = SyntaxForm {
    groups: &[types(".type", &["texref", "samplerref", "surfref"])],
    operands: &[
        slot("p", true, fixed(RegisterRule::OneOf(&[Type::Pred]))),
        slot(
            "a",
            false,
            Kind::Fixed(SlotShape::ScalarOrSymbol(RegisterRule::OneOf(&[
                Type::U64,
                Type::B64,
                Type::S64,
            ]))),
        ),
    ],
    ..form(Opcode::Istypep, "9.7.10.6 (istypep.md)")
};

/// `pmevent a;` and `pmevent.mask a;` (9.7.19.3, pmevent.md): `a` is a constant (ptxas 13.5:
/// "Arguments mismatch for instruction 'pmevent'" for any register).
const PMEVENT: SyntaxForm = SyntaxForm {
    groups: &[group(".mask", &["mask"], false)],
    operands: &[slot("a", false, fixed(RegisterRule::Constant))],
    ..form(Opcode::Pmevent, "9.7.19.3 (pmevent.md)")
};

/// `brx.idx{.uni} index, tlist;` (9.7.12.4, brx.md): `index` a 32-bit integer register or a
/// constant (ptxas 13.5: "Arguments mismatch for instruction 'brx.idx'" for 16- and 64-bit,
/// `.f32` and `.pred` registers and for a variable; "Result discard mode is not allowed" for
/// the sink), `tlist` the `.branchtargets` list the checker resolves by name; `.idx` comes
/// first ("Not a name of any known instruction: 'brx'" for `brx.uni.idx`), and any other word
/// is "Illegal modifier '.sync' for instruction 'brx.idx'" or an extra type ("Unexpected
/// instruction types specified for 'brx.idx'").
const BRX: SyntaxForm = SyntaxForm {
    words: &["idx"],
    groups: &[group(".uni", &["uni"], false)],
    operands: &[
        slot(
            "index",
            false,
            fixed(RegisterRule::OneOf(&[Type::U32, Type::B32, Type::S32])),
        ),
        slot("tlist", false, Kind::Fixed(SlotShape::Label)),
    ],
    ..form(Opcode::Brx, "9.7.12.4 (brx.md)")
};

/// `brkpt;` (9.7.19.1, brkpt.md).
const BRKPT: SyntaxForm = form(Opcode::Brkpt, "9.7.19.1 (brkpt.md)");

/// tcgen05's `.cta_group = { .cta_group::1, .cta_group::2 }` and `.sync.aligned` (ptxas 13.5:
/// ".cta_group modifier required", ".sync modifier required").
const CTA_GROUP: Group = group(".cta_group", &["cta_group::1", "cta_group::2"], true);
const SYNC: Group = group(".sync", &["sync"], true);
const ALIGNED: Group = group(".aligned", &["aligned"], true);
/// The 32-bit operands of tcgen05 (`taddr`, `nCols`): `.b32`, `.u32`, `.s32` registers (ptxas
/// 13.5 rejects `.f32`, `.f16x2` and 64-bit ones), `nCols` also a constant.
const TCGEN05_32: RegisterRule = RegisterRule::OneOf(&[Type::U32, Type::B32, Type::S32]);

/// `.num` of `tcgen05.ld`/`st` (9.7.16.8.3, Table 49).
const TCGEN05_NUM: &[&str] = &["x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128"];

/// `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff};`
/// (9.7.16.8.3): `r` a vector of `.num` times 1 (`.32x32b`, `.16x64b`, `.16x32bx2`), 2
/// (`.16x128b`) or 4 (`.16x256b`) 32-bit registers (ptxas 13.5: "Argument vector size
/// mismatch", "Use a 32-bit register type only", "Vector expected for argument 0");
/// `immHalfSplitoff` with `.16x32bx2` only ("Unexpected number of arguments specified for
/// tcgen05.ld with shape '.32x32b'").
const TCGEN05_LD: [SyntaxForm; 4] = [
    SyntaxForm {
        words: &["ld"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["32x32b", "16x64b"], true),
            group(".num", TCGEN05_NUM, true),
            group(".pack", &["pack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("r", true, Kind::Fragment(3, 1)),
            slot("[taddr]", false, ADDRESS),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.ld)")
    },
    SyntaxForm {
        words: &["ld"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["16x128b"], true),
            group(".num", TCGEN05_NUM, true),
            group(".pack", &["pack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("r", true, Kind::Fragment(3, 2)),
            slot("[taddr]", false, ADDRESS),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.ld)")
    },
    SyntaxForm {
        words: &["ld"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["16x256b"], true),
            group(".num", TCGEN05_NUM, true),
            group(".pack", &["pack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("r", true, Kind::Fragment(3, 4)),
            slot("[taddr]", false, ADDRESS),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.ld)")
    },
    SyntaxForm {
        words: &["ld"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["16x32bx2"], true),
            group(".num", TCGEN05_NUM, true),
            group(".pack", &["pack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("r", true, Kind::Fragment(3, 1)),
            slot("[taddr]", false, ADDRESS),
            slot("immHalfSplitoff", false, fixed(RegisterRule::Constant)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.ld)")
    },
];

/// The gate of `tcgen05.ld.red` (PTX ISA 8.8; libcu++'s wrappers: "PTX ISA 88, SM_103a,
/// SM_103f, SM_110a, SM_110f"; ptxas 13.5: "Instruction 'tcgen05.ld.red' not supported on
/// .target 'sm_100a'", "Feature 'tcgen05.ld.red' requires PTX ISA .version 8.8 or later", and
/// it takes sm_101a, the earlier name of sm_110a).
const TCGEN05_LD_RED_GATE: Gate = gate(
    "tcgen05.ld.red",
    &[since(
        8,
        8,
        TargetSet::Specific {
            arch: &[101, 103, 110],
            families: &[103, 110],
        },
    )],
);

/// `.abs` takes `.f32` only (ptxas 13.5: "Illegal modifier '.abs' for instruction
/// 'tcgen05.ld.red'" with `.u32`; `.NaN` the same).
const TCGEN05_LD_RED_F32: &[Restriction] = &[
    Restriction {
        modifier: "abs",
        group: 5,
        allowed: &["f32"],
    },
    Restriction {
        modifier: "NaN",
        group: 5,
        allowed: &["f32"],
    },
];

/// `tcgen05.ld.red.sync.aligned.shape.num.type.redOp{.abs}{.NaN} r, redval, [taddr]
/// {, immHalfSplitoff};` (PTX ISA 8.8, beyond the 9.0 excerpt's tcgen05.md; the forms are
/// libcu++'s generated wrappers' and ptxas 13.5's): `.shape = { .32x32b, .16x32bx2 }`
/// ("Illegal matrix shape '.16x64b'"), `.num` from `.x2` ("Illegal modifier '.x1'"), `.type
/// = { .f32, .u32, .s32 }` ("Unexpected instruction types specified" for `.b32`), `.redOp =
/// { .min, .max }` ("Illegal operation '.add'"); `r` as many 32-bit registers as `.num`,
/// `redval` a written 32-bit register ("Result register required"), and `immHalfSplitoff`
/// with `.16x32bx2` only. ptxsim checks it and does not run it.
const TCGEN05_LD_RED: [SyntaxForm; 2] = [
    tcgen05_ld_red(&TCGEN05_LD_RED_32X32B, TCGEN05_LD_RED_SLOTS),
    tcgen05_ld_red(&TCGEN05_LD_RED_16X32BX2, &TCGEN05_LD_RED_SPLIT_SLOTS),
];
const fn tcgen05_ld_red_groups(shape: &'static [&'static str]) -> [Group; 8] {
    [
        SYNC,
        ALIGNED,
        group(".shape", shape, true),
        group(".num", TCGEN05_LD_RED_NUM, true),
        group(".redOp", &["min", "max"], true),
        types(".type", &["f32", "u32", "s32"]),
        group(".abs", &["abs"], false),
        group(".NaN", &["NaN"], false),
    ]
}
const TCGEN05_LD_RED_32X32B: [Group; 8] = tcgen05_ld_red_groups(&["32x32b"]);
const TCGEN05_LD_RED_16X32BX2: [Group; 8] = tcgen05_ld_red_groups(&["16x32bx2"]);
const TCGEN05_LD_RED_SPLIT_SLOTS: [Slot; 4] = [
    slot("r", true, Kind::Fragment(3, 1)),
    slot("redval", true, fixed(TCGEN05_32_ANY)),
    slot("[taddr]", false, ADDRESS),
    slot("immHalfSplitoff", false, fixed(RegisterRule::Constant)),
];
const TCGEN05_LD_RED_SLOTS: &[Slot] = TCGEN05_LD_RED_SPLIT_SLOTS.split_at(3).0;
const fn tcgen05_ld_red(groups: &'static [Group], operands: &'static [Slot]) -> SyntaxForm {
    SyntaxForm {
        words: &["ld", "red"],
        groups,
        operands,
        restrictions: TCGEN05_LD_RED_F32,
        modifier_gates: &[("red", TCGEN05_LD_RED_GATE)],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.ld.red)")
    }
}

/// `.num` of `tcgen05.ld.red`: `.x2` to `.x128`.
const TCGEN05_LD_RED_NUM: &[&str] = &["x2", "x4", "x8", "x16", "x32", "x64", "x128"];

/// Any 32-bit register (ptxas 13.5 takes `.f32` and `.b32` ones for every `tcgen05.ld.red`
/// type, and no 64-bit one: "Arguments mismatch").
const TCGEN05_32_ANY: RegisterRule = RegisterRule::OneOf(crate::layout::FRAGMENT);

/// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r;`
/// (9.7.16.8.3), the registers as [`TCGEN05_LD`]'s.
const TCGEN05_ST: [SyntaxForm; 4] = [
    SyntaxForm {
        words: &["st"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["32x32b", "16x64b"], true),
            group(".num", TCGEN05_NUM, true),
            group(".unpack", &["unpack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("[taddr]", false, ADDRESS),
            slot("r", false, Kind::Fragment(3, 1)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.st)")
    },
    SyntaxForm {
        words: &["st"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["16x128b"], true),
            group(".num", TCGEN05_NUM, true),
            group(".unpack", &["unpack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("[taddr]", false, ADDRESS),
            slot("r", false, Kind::Fragment(3, 2)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.st)")
    },
    SyntaxForm {
        words: &["st"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["16x256b"], true),
            group(".num", TCGEN05_NUM, true),
            group(".unpack", &["unpack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("[taddr]", false, ADDRESS),
            slot("r", false, Kind::Fragment(3, 4)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.st)")
    },
    SyntaxForm {
        words: &["st"],
        groups: &[
            SYNC,
            ALIGNED,
            group(".shape", &["16x32bx2"], true),
            group(".num", TCGEN05_NUM, true),
            group(".unpack", &["unpack::16b"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("[taddr]", false, ADDRESS),
            slot("immHalfSplitoff", false, fixed(RegisterRule::Constant)),
            slot("r", false, Kind::Fragment(3, 1)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.8.3 (tcgen05.st)")
    },
];

/// `.dst_fmt.src_fmt` of `tcgen05.cp`: both or neither.
const CP_FORMATS: [Group; 2] = [
    Group {
        needs: Some(4),
        ..group(".dst_fmt", &["b8x16"], false)
    },
    Group {
        needs: Some(3),
        ..group(".src_fmt", &["b6x16_p32", "b4x16_p64"], false)
    },
];

/// `[taddr], s-desc` of `tcgen05.cp`: `s-desc` a 64-bit register.
const CP_OPERANDS: [Slot; 2] = [
    slot("[taddr]", false, ADDRESS),
    slot(
        "s-desc",
        false,
        fixed(RegisterRule::OneOf(&[Type::B64, Type::U64, Type::S64])),
    ),
];

/// `tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;` (9.7.16.8.1):
/// `.64x128b` with `.warpx2::02_13` or `.warpx2::01_23`, `.32x128b` with `.warpx4`, the other
/// shapes with none (ptxas 13.5: "Modifier '.warptype' require ...", "Modifier .warptype not
/// allowed ..."); `.b8x16` and a source format together ("Unexpected number of 'format
/// conversion' modifiers").
const TCGEN05_CP: [SyntaxForm; 3] = [
    SyntaxForm {
        words: &["cp"],
        groups: &[
            CTA_GROUP,
            group(".shape", &["128x256b", "4x256b", "128x128b"], true),
            group(".multicast", &[], false),
            CP_FORMATS[0],
            CP_FORMATS[1],
        ],
        operands: &CP_OPERANDS,
        ..form(Opcode::Tcgen05, "9.7.16.8.1 (tcgen05.cp)")
    },
    SyntaxForm {
        words: &["cp"],
        groups: &[
            CTA_GROUP,
            group(".shape", &["64x128b"], true),
            group(".multicast", &["warpx2::02_13", "warpx2::01_23"], true),
            CP_FORMATS[0],
            CP_FORMATS[1],
        ],
        operands: &CP_OPERANDS,
        ..form(Opcode::Tcgen05, "9.7.16.8.1 (tcgen05.cp)")
    },
    SyntaxForm {
        words: &["cp"],
        groups: &[
            CTA_GROUP,
            group(".shape", &["32x128b"], true),
            group(".multicast", &["warpx4"], true),
            CP_FORMATS[0],
            CP_FORMATS[1],
        ],
        operands: &CP_OPERANDS,
        ..form(Opcode::Tcgen05, "9.7.16.8.1 (tcgen05.cp)")
    },
];

/// tcgen05.alloc, .dealloc, .relinquish_alloc_permit (9.7.16.7.1, tcgen05.md):
/// `tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols;`,
/// `tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols;`,
/// `tcgen05.relinquish_alloc_permit.cta_group.sync.aligned;`; and the data-movement,
/// commit, wait and fence forms below ([`TCGEN05_LD`], [`TCGEN05_ST`], [`TCGEN05_CP`]; their
/// verdicts are ptxas 13.5's in `tests/conformance/tcgen05.tsv`). `tcgen05.mma` has no row
/// here (its operand list has a middle optional vector): it is checked when it runs.
const TCGEN05: [SyntaxForm; 23] = [
    SyntaxForm {
        words: &["alloc"],
        groups: &[
            CTA_GROUP,
            SYNC,
            ALIGNED,
            group(".shared::cta", &["shared::cta"], false),
            types(".b32", &["b32"]),
        ],
        operands: &[
            slot("[dst]", false, ADDRESS),
            slot("nCols", false, fixed(TCGEN05_32)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.7.1 (tcgen05.md)")
    },
    SyntaxForm {
        words: &["dealloc"],
        groups: &[CTA_GROUP, SYNC, ALIGNED, types(".b32", &["b32"])],
        operands: &[
            slot("taddr", false, fixed(TCGEN05_32)),
            slot("nCols", false, fixed(TCGEN05_32)),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.7.1 (tcgen05.md)")
    },
    SyntaxForm {
        words: &["relinquish_alloc_permit"],
        groups: &[CTA_GROUP, SYNC, ALIGNED],
        ..form(Opcode::Tcgen05, "9.7.16.7.1 (tcgen05.md)")
    },
    TCGEN05_LD[0],
    TCGEN05_LD[1],
    TCGEN05_LD[2],
    TCGEN05_LD[3],
    TCGEN05_LD_RED[0],
    TCGEN05_LD_RED[1],
    TCGEN05_ST[0],
    TCGEN05_ST[1],
    TCGEN05_ST[2],
    TCGEN05_ST[3],
    TCGEN05_CP[0],
    TCGEN05_CP[1],
    TCGEN05_CP[2],
    SyntaxForm {
        words: &["shift"],
        groups: &[CTA_GROUP, group(".down", &["down"], true)],
        operands: &[slot("[taddr]", false, ADDRESS)],
        // ptxas 13.5: "Instruction 'tcgen05.shift' not supported on .target 'sm_100f'" (and
        // sm_101f, sm_103f, sm_110f, every sm_12x target); sm_100a, sm_101a, sm_103a and
        // sm_110a take it.
        modifier_gates: &[(
            "shift",
            gate(
                "tcgen05.shift",
                &[since(
                    8,
                    6,
                    TargetSet::Specific {
                        arch: &[100, 101, 103, 110],
                        families: &[],
                    },
                )],
            ),
        )],
        ..form(Opcode::Tcgen05, "9.7.16.8.4 (tcgen05.shift)")
    },
    SyntaxForm {
        words: &["commit"],
        groups: &[
            CTA_GROUP,
            group(".completion_mechanism", &["mbarrier::arrive::one"], true),
            group(".shared::cluster", &["shared::cluster"], false),
            types(".b64", &["b64"]),
        ],
        operands: &[slot("[mbar]", false, ADDRESS)],
        ..form(Opcode::Tcgen05, "9.7.16.12.1 (tcgen05.commit)")
    },
    SyntaxForm {
        words: &["commit"],
        groups: &[
            CTA_GROUP,
            group(".completion_mechanism", &["mbarrier::arrive::one"], true),
            group(".shared::cluster", &["shared::cluster"], false),
            group(".multicast", &["multicast::cluster"], true),
            types(".b64", &["b64"]),
        ],
        operands: &[
            slot("[mbar]", false, ADDRESS),
            slot("ctaMask", false, fixed(RegisterRule::SameSize(Type::B16))),
        ],
        ..form(Opcode::Tcgen05, "9.7.16.12.1 (tcgen05.commit)")
    },
    SyntaxForm {
        words: &["wait::ld"],
        groups: &[SYNC, ALIGNED],
        ..form(Opcode::Tcgen05, "9.7.16.8.5 (tcgen05.wait)")
    },
    SyntaxForm {
        words: &["wait::st"],
        groups: &[SYNC, ALIGNED],
        ..form(Opcode::Tcgen05, "9.7.16.8.5 (tcgen05.wait)")
    },
    SyntaxForm {
        words: &["fence::before_thread_sync"],
        ..form(Opcode::Tcgen05, "9.7.16.6.4 (tcgen05.fence)")
    },
    SyntaxForm {
        words: &["fence::after_thread_sync"],
        ..form(Opcode::Tcgen05, "9.7.16.6.4 (tcgen05.fence)")
    },
];

/// `tensormap.replace` (9.7.9.28, tensormap.md): `.field1`/`.field3` take `[addr], new_val`,
/// `.field2` takes `[addr], ord, new_val` with `ord` a constant. ptxas 13.5 takes
/// `.global_address` and `.global_stride` with `.b64` only and every other field with `.b32`
/// only ("Illegal modifier '.rank' for instruction 'tensormap.replace' with type '.b64'"),
/// and `new_val` in a register of the type's size or as a constant.
const TENSORMAP: [SyntaxForm; 4] = {
    const MODE: Group = group(".mode", &["tile"], true);
    const SPACE: Group = group(".ss", &["global", "shared::cta"], false);
    const B1024: Group = group(".b1024", &["b1024"], true);
    const fn new_val(ty: Type) -> Slot {
        slot("new_val", false, fixed(RegisterRule::SameSize(ty)))
    }
    const ORD: Slot = slot("ord", false, fixed(RegisterRule::Constant));
    [
        SyntaxForm {
            words: &["replace"],
            groups: &[
                MODE,
                group(".field1", &["global_address"], true),
                SPACE,
                B1024,
                types(".type", &["b64"]),
            ],
            operands: &[slot("[addr]", false, ADDRESS), new_val(Type::B64)],
            ..form(Opcode::Tensormap, "9.7.9.28 (tensormap.md)")
        },
        SyntaxForm {
            words: &["replace"],
            groups: &[
                MODE,
                group(".field2", &["global_stride"], true),
                SPACE,
                B1024,
                types(".type", &["b64"]),
            ],
            operands: &[slot("[addr]", false, ADDRESS), ORD, new_val(Type::B64)],
            ..form(Opcode::Tensormap, "9.7.9.28 (tensormap.md)")
        },
        SyntaxForm {
            words: &["replace"],
            groups: &[
                MODE,
                group(
                    ".field1",
                    &[
                        "rank",
                        "elemtype",
                        "interleave_layout",
                        "swizzle_mode",
                        "swizzle_atomicity",
                        "fill_mode",
                    ],
                    true,
                ),
                SPACE,
                B1024,
                types(".type", &["b32"]),
            ],
            operands: &[slot("[addr]", false, ADDRESS), new_val(Type::B32)],
            ..form(Opcode::Tensormap, "9.7.9.28 (tensormap.md)")
        },
        SyntaxForm {
            words: &["replace"],
            groups: &[
                MODE,
                group(
                    ".field2",
                    &["box_dim", "global_dim", "element_stride"],
                    true,
                ),
                SPACE,
                B1024,
                types(".type", &["b32"]),
            ],
            operands: &[slot("[addr]", false, ADDRESS), ORD, new_val(Type::B32)],
            ..form(Opcode::Tensormap, "9.7.9.28 (tensormap.md)")
        },
    ]
};

/// `clusterlaunchcontrol.try_cancel.async{.space}.completion_mechanism{.multicast::cluster::all}.b128
/// [addr], [mbar];` (9.7.13.17, clusterlaunchcontrol.md; ptxas 13.5: "Unknown modifier
/// '.try_cancel'" without `.async`).
const TRY_CANCEL: SyntaxForm = SyntaxForm {
    words: &["try_cancel"],
    groups: &[
        group(".async", &["async"], true),
        group(".space", &["shared::cta"], false),
        group(
            ".completion_mechanism",
            &["mbarrier::complete_tx::bytes"],
            true,
        ),
        group(".multicast", &["multicast::cluster::all"], false),
        types(".b128", &["b128"]),
    ],
    operands: &[
        slot("[addr]", false, ADDRESS),
        slot("[mbar]", false, ADDRESS),
    ],
    // ptxas 13.5: "Feature '.multicast::cluster::all' not supported on .target 'sm_100'" (and
    // 'sm_120'); the `a` and `f` targets take it.
    modifier_gates: &[(
        "multicast::cluster::all",
        gate(".multicast::cluster::all", &[since(8, 6, NEWER_ARCH)]),
    )],
    ..form(
        Opcode::Clusterlaunchcontrol,
        "9.7.13.17 (clusterlaunchcontrol.md)",
    )
};

/// `clusterlaunchcontrol.query_cancel` (9.7.13.17, clusterlaunchcontrol.md, and ptxas 13.5):
/// `.is_canceled.pred.b128 pred, try_cancel_response;`,
/// `.get_first_ctaid.v4.b32.b128 {xdim, ydim, zdim, _}, try_cancel_response;` and
/// `{.get_first_ctaid::dimension}.b32.b128 reg, try_cancel_response;` with
/// `.get_first_ctaid::dimension = { .get_first_ctaid::x, ::y, ::z }`; the response is a
/// `.b128` register ("After loading this response into 16-byte register").
const QUERY_CANCEL: [SyntaxForm; 3] = {
    const RESPONSE: Slot = slot(
        "try_cancel_response",
        false,
        fixed(RegisterRule::OneOf(&[Type::B128])),
    );
    const SECTION: &str = "9.7.13.17 (clusterlaunchcontrol.md)";
    [
        SyntaxForm {
            words: &["query_cancel"],
            groups: &[
                group(".is_canceled", &["is_canceled"], true),
                types(".pred", &["pred"]),
                types(".b128", &["b128"]),
            ],
            operands: &[
                slot("pred", true, fixed(RegisterRule::OneOf(&[Type::Pred]))),
                RESPONSE,
            ],
            ..form(Opcode::Clusterlaunchcontrol, SECTION)
        },
        SyntaxForm {
            words: &["query_cancel"],
            groups: &[
                group(".get_first_ctaid", &["get_first_ctaid"], true),
                group(".v4", &["v4"], true),
                types(".b32", &["b32"]),
                types(".b128", &["b128"]),
            ],
            operands: &[
                slot("{xdim, ydim, zdim, _}", true, Kind::TypedVector(2, 1)),
                RESPONSE,
            ],
            ..form(Opcode::Clusterlaunchcontrol, SECTION)
        },
        SyntaxForm {
            words: &["query_cancel"],
            groups: &[
                group(
                    ".get_first_ctaid::dimension",
                    &[
                        "get_first_ctaid::x",
                        "get_first_ctaid::y",
                        "get_first_ctaid::z",
                    ],
                    true,
                ),
                types(".b32", &["b32"]),
                types(".b128", &["b128"]),
            ],
            operands: &[slot("reg", true, Kind::Typed(1)), RESPONSE],
            ..form(Opcode::Clusterlaunchcontrol, SECTION)
        },
    ]
};

/// `clusterlaunchcontrol`'s forms: `try_cancel`, then the three of `query_cancel`.
const CLUSTERLAUNCHCONTROL: [SyntaxForm; 4] = [
    TRY_CANCEL,
    QUERY_CANCEL[0],
    QUERY_CANCEL[1],
    QUERY_CANCEL[2],
];

/// `.mbarrier::complete_tx::bytes`, the completion mechanism of `st.async` and `red.async`.
const COMPLETE_TX: &str = "mbarrier::complete_tx::bytes";
/// The release forms of `st.async`/`red.async` (`.global`, `.release`, `.mmio`): PTX ISA 8.7
/// and sm_100 ("Support for `.mmio` qualifier, `.release` semantics, `.global` state space,
/// and `.scope` qualifier introduced in PTX ISA version 8.7 ... require sm_100 or higher";
/// ptxas 13.5 gates `.global`, `.release` and `.mmio`, and takes `.sys`/`.gpu` alone on sm_90).
const ASYNC_RELEASE_GATE: Gate = gate(
    "st.async/red.async with .global, .release or .mmio",
    &[since(8, 7, TargetSet::AtLeast(100))],
);
const ASYNC_RELEASE_GATES: [(&str, Gate); 3] = [
    ("global", ASYNC_RELEASE_GATE),
    ("release", ASYNC_RELEASE_GATE),
    ("mmio", ASYNC_RELEASE_GATE),
];
/// "Support for `.b128` type introduced in PTX ISA version 9.2" (st.async).
const ST_ASYNC_B128_GATE: [(&str, Gate); 1] = [(
    "b128",
    gate("st.async.b128", &[since(9, 2, TargetSet::AtLeast(90))]),
)];
/// `st.async`'s mbarrier forms: "`.v2` is supported with `.b32`, `.b64`, `.s32`, `.s64`,
/// `.u32`, `.u64`, `.f32` and `.f64` types. `.v4` qualifier is supported with `.b32`, `.s32`,
/// `.u32` and `.f32` types" (ptxas 13.5: "Vector type too large, exceeds 128 bit limit").
const ST_ASYNC_BITS: &[u32] = &[32, 64, 128];
const ST_ASYNC_TYPES: &[&str] = &[
    "b32", "b64", "b128", "u32", "u64", "s32", "s64", "f32", "f64",
];

/// `st.async` (9.7.9.12; the ISA text of PTX ISA 9.2, which has the release form, and ptxas
/// 13.5, `tests/conformance/async-stores.tsv.xz`):
/// `st.async{.weak}{.ss}.completion_mechanism{.vec}.type [a], b, [mbar];`,
/// `st.async{.scope}{.ss}.completion_mechanism{.vec}.type [a], b, [mbar];` and
/// `st.async{.mmio}.sem.scope{.ss}.type [a], b;`. Where ptxas 13.5 is wider than the text it
/// decides: the mbarrier forms take `.shared::cta` too and `[mbar]` may be left off; the
/// release form takes `.weak`, a scope without `.sem` and neither (`st.async.u32 [a], b`),
/// but `.release` needs a scope ("Modifier '.release' requires scope") and `.mmio` needs
/// `.release` and `.sys`; its types are the text's, an 8-bit type with an 8-bit register only.
/// Group indices of the mbarrier forms: 0 `.sem`/`.scope`, 1 `.ss`, 2
/// `.completion_mechanism`, 3 `.vec`, 4 `.type`.
const ST_ASYNC: [SyntaxForm; 3] = {
    const SECTION: &str = "9.7.9.12 (st.async)";
    const OPERANDS: [Slot; 3] = [
        slot("[a]", false, ADDRESS),
        slot("b", false, Kind::TypedVector(4, 3)),
        optional(slot("[mbar]", false, ADDRESS)),
    ];
    const SS: Group = group(".ss", &["shared::cluster", "shared::cta"], false);
    const MECHANISM: Group = group(".completion_mechanism", &[COMPLETE_TX], true);
    const VEC: Group = group(".vec", &["v2", "v4"], false);
    const TYPE: Group = types(".type", ST_ASYNC_TYPES);
    const MBARRIER: SyntaxForm = SyntaxForm {
        words: &["async"],
        operands: &OPERANDS,
        vector_bits: Some((3, 4, ST_ASYNC_BITS)),
        modifier_gates: &ST_ASYNC_B128_GATE,
        ..form(Opcode::St, SECTION)
    };
    [
        SyntaxForm {
            groups: &[group(".sem", &["weak"], false), SS, MECHANISM, VEC, TYPE],
            ..MBARRIER
        },
        SyntaxForm {
            groups: &[
                group(".scope", &["cluster"], false),
                SS,
                MECHANISM,
                VEC,
                TYPE,
            ],
            ..MBARRIER
        },
        SyntaxForm {
            words: &["async"],
            groups: &[
                needing(group(".mmio", &["mmio"], false), 1),
                needing(group(".sem", &["release"], false), 2),
                group(".scope", &["gpu", "sys"], false),
                group(".ss", &["global"], false),
                types(
                    ".type",
                    &[
                        "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
                        "s64", "f32", "f64",
                    ],
                ),
                group(".weak", &["weak"], false),
            ],
            operands: &[
                slot("[a]", false, ADDRESS),
                slot("b", false, Kind::Typed(4)),
            ],
            restrictions: &[Restriction {
                modifier: "mmio",
                group: 2,
                allowed: &["sys"],
            }],
            modifier_gates: &ASYNC_RELEASE_GATES,
            ..form(Opcode::St, SECTION)
        },
    ]
};

/// `red.async`'s operations and the types each takes (9.7.13.7: `.inc`/`.dec` `.u32`;
/// `.min`/`.max` `.u32`, `.s32`; `.and`/`.or`/`.xor` `.b32`; `.add` `.u32`, `.s32`, `.u64`,
/// and `.s64`, which ptxas 13.5 takes too: "Incorrect type '.b32' for operation '.add' in
/// instruction 'red.async'"). Group 4 is `.op`, 5 `.type` in both forms.
const RED_ASYNC_OPS: &[&str] = &["add", "inc", "dec", "min", "max", "and", "or", "xor"];
const RED_ASYNC_TYPES: &[&str] = &["u32", "s32", "u64", "s64", "b32"];
const RED_ASYNC_RESTRICTIONS: [Restriction; 8] = {
    const fn r(modifier: &'static str, allowed: &'static [&'static str]) -> Restriction {
        Restriction {
            modifier,
            group: 5,
            allowed,
        }
    }
    [
        r("add", &["u32", "s32", "u64", "s64"]),
        r("inc", &["u32"]),
        r("dec", &["u32"]),
        r("min", &["u32", "s32"]),
        r("max", &["u32", "s32"]),
        r("and", &["b32"]),
        r("or", &["b32"]),
        r("xor", &["b32"]),
    ]
};

/// `red.async` (9.7.13.7, the PTX ISA 9.2 text, and ptxas 13.5):
/// `red.async.sem.scope{.ss}.completion_mechanism.op.type [a], b, [mbar];` with `.relaxed`,
/// `.cluster` and `.shared::cluster`, and `red.async{.mmio}.sem.scope{.ss}.add.type [a], b;`
/// with `.release`, `.gpu`/`.sys` and `.global`. ptxas 13.5 requires the completion mechanism
/// ("Modifier '.cluster' requires modifier '.completion_mechanism'"; the text says it defaults)
/// and lets `[mbar]` be left off; the release form takes `.relaxed` too and every operation of
/// the mbarrier forms, with their types; `.mmio` needs `.sys`.
const RED_ASYNC: [SyntaxForm; 2] = {
    const SECTION: &str = "9.7.13.7 (red.async)";
    [
        SyntaxForm {
            words: &["async"],
            groups: &[
                group(".sem", &["relaxed"], true),
                group(".scope", &["cluster"], true),
                group(".ss", &["shared::cluster"], false),
                group(".completion_mechanism", &[COMPLETE_TX], true),
                group(".op", RED_ASYNC_OPS, true),
                types(".type", RED_ASYNC_TYPES),
            ],
            operands: &[
                slot("[a]", false, ADDRESS),
                slot("b", false, Kind::Typed(5)),
                optional(slot("[mbar]", false, ADDRESS)),
            ],
            restrictions: &RED_ASYNC_RESTRICTIONS,
            ..form(Opcode::Red, SECTION)
        },
        SyntaxForm {
            words: &["async"],
            groups: &[
                needing(group(".mmio", &["mmio"], false), 1),
                group(".sem", &["release", "relaxed"], true),
                group(".scope", &["gpu", "sys"], true),
                group(".ss", &["global"], false),
                group(".op", RED_ASYNC_OPS, true),
                types(".type", RED_ASYNC_TYPES),
            ],
            operands: &[
                slot("[a]", false, ADDRESS),
                slot("b", false, Kind::Typed(5)),
            ],
            restrictions: &{
                let mut all = [Restriction {
                    modifier: "mmio",
                    group: 2,
                    allowed: &["sys"],
                }; 9];
                let mut i = 0;
                while i < 8 {
                    all[i + 1] = RED_ASYNC_RESTRICTIONS[i];
                    i += 1;
                }
                all
            },
            modifier_gates: &ASYNC_RELEASE_GATES,
            ..form(Opcode::Red, SECTION)
        },
    ]
};

/// `st.bulk{.weak}{.shared::cta} [a], size, initval;` (9.7.9.13): "The 32-bit or 64-bit
/// integer operand size", "initval ... The only numeric value allowed ... is 0"; a constant
/// size must be a multiple of 8 and at most 16777216 ([`value_violation`]); a 32-bit size
/// register needs PTX ISA 9.0 ([`operand_gates`]).
const ST_BULK: SyntaxForm = SyntaxForm {
    words: &["bulk"],
    groups: &[
        group(".weak", &["weak"], false),
        group(".ss", &["shared::cta"], false),
    ],
    operands: &[
        slot("[a]", false, ADDRESS),
        slot(
            "size",
            false,
            fixed(RegisterRule::OneOf(&[
                Type::U32,
                Type::B32,
                Type::S32,
                Type::U64,
                Type::B64,
                Type::S64,
            ])),
        ),
        slot("initval", false, fixed(RegisterRule::Constant)),
    ],
    ..form(Opcode::St, "9.7.9.13 (st.bulk)")
};

/// `.f32x2` arithmetic (9.7.3.3-5, 9.7.3.6 fma, PTX ISA 8.6, sm_100):
/// `add{.rnd}{.ftz}.f32x2 d, a, b;` (and `sub`, `mul`), `fma.rnd{.ftz}.f32x2 d, a, b, c;` with
/// `.rnd = { .rn, .rz, .rm, .rp }`: "For .f32x2 instruction type, operands d, a and b have .b64
/// type" (ptxas 13.5: "Arguments mismatch" for `.u64`, `.s64`, `.f64` registers and for
/// constants; "Illegal modifier '.sat'", "Rounding modifier required for instruction 'fma'").
const F32X2_REGISTER: Kind = fixed(RegisterRule::OneOf(&[Type::B64]));
const F32X2_RND: &[&str] = &["rn", "rz", "rm", "rp"];
const F32X2_GATE: [(&str, Gate); 1] = [(
    "f32x2",
    gate(".f32x2 arithmetic", &[since(8, 6, TargetSet::AtLeast(100))]),
)];
const F32X2_OPTIONAL_RND: [Group; 3] = [
    group(".rnd", F32X2_RND, false),
    group(".ftz", &["ftz"], false),
    types(".f32x2", &["f32x2"]),
];
const F32X2_REQUIRED_RND: [Group; 3] = [
    group(".rnd", F32X2_RND, true),
    group(".ftz", &["ftz"], false),
    types(".f32x2", &["f32x2"]),
];
const F32X2_FOUR: [Slot; 4] = [
    slot("d", true, F32X2_REGISTER),
    slot("a", false, F32X2_REGISTER),
    slot("b", false, F32X2_REGISTER),
    slot("c", false, F32X2_REGISTER),
];
const fn f32x2_form(opcode: Opcode, section: &'static str, fused: bool) -> SyntaxForm {
    SyntaxForm {
        groups: if fused {
            &F32X2_REQUIRED_RND
        } else {
            &F32X2_OPTIONAL_RND
        },
        operands: if fused { &F32X2_FOUR } else { F32X2_THREE },
        modifier_gates: &F32X2_GATE,
        ..form(opcode, section)
    }
}
const F32X2_THREE: &[Slot] = F32X2_FOUR.split_at(3).0;
const ADD_F32X2: SyntaxForm = f32x2_form(Opcode::Add, "9.7.3.3 (add)", false);

/// The mixed-precision forms (PTX ISA 8.6, beyond the 9.0 excerpt's add.md; ptxas 13.5 and
/// CUTLASS's inline assembly): `add{.rnd}{.sat}.f32.atype d, a, c;`, `sub{.rnd}{.sat}.f32.atype
/// d, a, c;` and `fma.rnd{.sat}.f32.abtype d, a, b, c;` with `.atype = .abtype = { .f16, .bf16 }`
/// and `.rnd = { .rn, .rz, .rm, .rp }`, no `.ftz` ("Illegal modifier '.ftz' for instruction
/// 'add'"); `d` and `c` `.f32` (32-bit registers), `a` and `b` `.b16` registers ("Arguments
/// mismatch" for an `.f16` register); "Feature 'add.f32.bf16' requires .target sm_100 or
/// higher" and "... requires PTX ISA .version 8.6 or later".
const MIXED_GATE: [(&str, Gate); 1] = [(
    "f32",
    gate(
        "mixed-precision add, sub and fma",
        &[since(8, 6, TargetSet::AtLeast(100))],
    ),
)];
const MIXED_RND: &[&str] = &["rn", "rz", "rm", "rp"];
const MIXED_HALF: Kind = fixed(RegisterRule::OneOf(&[Type::B16]));
const MIXED_SINGLE: Kind = fixed(RegisterRule::SameSize(Type::F32));
const MIXED_OPTIONAL_RND: [Group; 4] = [
    group(".rnd", MIXED_RND, false),
    group(".sat", &["sat"], false),
    types(".f32", &["f32"]),
    types(".atype", &["f16", "bf16"]),
];
const MIXED_REQUIRED_RND: [Group; 4] = [
    group(".rnd", MIXED_RND, true),
    group(".sat", &["sat"], false),
    types(".f32", &["f32"]),
    types(".abtype", &["f16", "bf16"]),
];
const MIXED_THREE: [Slot; 3] = [
    slot("d", true, MIXED_SINGLE),
    slot("a", false, MIXED_HALF),
    slot("c", false, MIXED_SINGLE),
];
const MIXED_FOUR: [Slot; 4] = [
    slot("d", true, MIXED_SINGLE),
    slot("a", false, MIXED_HALF),
    slot("b", false, MIXED_HALF),
    slot("c", false, MIXED_SINGLE),
];
const fn mixed_form(opcode: Opcode, section: &'static str) -> SyntaxForm {
    SyntaxForm {
        groups: &MIXED_OPTIONAL_RND,
        operands: &MIXED_THREE,
        modifier_gates: &MIXED_GATE,
        ..form(opcode, section)
    }
}
const ADD_MIXED: SyntaxForm = mixed_form(Opcode::Add, "9.7.3.3 (add)");
const SUB_MIXED: SyntaxForm = mixed_form(Opcode::Sub, "9.7.3.4 (sub)");
const FMA_MIXED: SyntaxForm = SyntaxForm {
    groups: &MIXED_REQUIRED_RND,
    operands: &MIXED_FOUR,
    modifier_gates: &MIXED_GATE,
    ..form(Opcode::Fma, "9.7.3.6 (fma)")
};
const ADD_FORMS: [SyntaxForm; 2] = [ADD_F32X2, ADD_MIXED];
const SUB_FORMS: [SyntaxForm; 2] = [SUB_F32X2, SUB_MIXED];
const FMA_FORMS: [SyntaxForm; 2] = [FMA_F32X2, FMA_MIXED];
const SUB_F32X2: SyntaxForm = f32x2_form(Opcode::Sub, "9.7.3.4 (sub)", false);
const MUL_F32X2: SyntaxForm = f32x2_form(Opcode::Mul, "9.7.3.5 (mul)", false);
const FMA_F32X2: SyntaxForm = f32x2_form(Opcode::Fma, "9.7.3.6 (fma)", true);

/// `min`/`max` with three inputs (9.7.3.11-12 in the PTX ISA 8.8 text: `min{.ftz}{.NaN}{.abs}.f32
/// d, a, b, c;` "Store the minimum of a, b and optionally c in d"; "The .xorsign qualifier
/// cannot be specified for three inputs operation"; "min with three input arguments requires
/// sm_100 or higher", PTX ISA 8.8). ptxas 13.5: "Feature 'min.f32 with 3 input operands'
/// requires PTX ISA .version 8.8", "Illegal modifier '.xorsign'", "Arguments mismatch" for
/// `.f64`/`.f16` ones. Checked for the four-operand lines only (`rules::check_instruction`).
const MIN_MAX_3_GATE: [(&str, Gate); 1] = [(
    "f32",
    gate(
        "min/max.f32 with three inputs",
        &[since(8, 8, TargetSet::AtLeast(100))],
    ),
)];
const fn min_max_3(opcode: Opcode, section: &'static str) -> SyntaxForm {
    SyntaxForm {
        groups: &MIN_MAX_3_GROUPS,
        operands: &MIN_MAX_3_SLOTS,
        modifier_gates: &MIN_MAX_3_GATE,
        ..form(opcode, section)
    }
}
const MIN_MAX_3_GROUPS: [Group; 4] = [
    group(".ftz", &["ftz"], false),
    group(".NaN", &["NaN"], false),
    group(".abs", &["abs"], false),
    types(".f32", &["f32"]),
];
const MIN_MAX_3_SLOTS: [Slot; 4] = [
    slot("d", true, Kind::Typed(3)),
    slot("a", false, Kind::Typed(3)),
    slot("b", false, Kind::Typed(3)),
    slot("c", false, Kind::Typed(3)),
];
const MIN_3: SyntaxForm = min_max_3(Opcode::Min, "9.7.3.11 (min, three inputs)");
const MAX_3: SyntaxForm = min_max_3(Opcode::Max, "9.7.3.12 (max, three inputs)");

/// `st`'s forms checked here: `st.async`, then `st.bulk`.
const ST: [SyntaxForm; 4] = [ST_ASYNC[0], ST_ASYNC[1], ST_ASYNC[2], ST_BULK];

/// "Support for size operand with 32-bit length is introduced in PTX ISA version 9.0"
/// (st.bulk; ptxas 13.5: "Feature 'st.bulk with 32-bit size argument' requires PTX ISA
/// .version 9.0 or later").
const ST_BULK_32_GATE: Gate = gate(
    "st.bulk with a 32-bit size",
    &[since(9, 0, TargetSet::AtLeast(100))],
);

/// The gates an operand brings in (not a modifier): `st.bulk`'s 32-bit size register.
pub fn operand_gates(
    opcode: Opcode,
    modifiers: &[&str],
    operands: &[Operand],
) -> Vec<&'static Gate> {
    match (opcode, modifiers.first(), operands.get(1)) {
        (Opcode::St, Some(&"bulk"), Some(Operand::Register(ty))) if ty.bits() == 32 => {
            vec![&ST_BULK_32_GATE]
        }
        _ => Vec::new(),
    }
}

/// The sm_100a shapes of ldmatrix/stmatrix: ptxas 13.5 accepts them on sm_100a and sm_120a and
/// rejects them on sm_90a and older ("Feature '.m16n16' not supported on .target 'sm_90a'",
/// "Modifier '.m8n16' on 'ldmatrix' requires PTX ISA .version 8.6 or later").
const NEWER_ARCH: TargetSet = BLACKWELL_SPECIFIC;
const MATRIX_SHAPE_GATES: [(&str, Gate); 3] = [
    ("m16n16", gate(".m16n16", &[since(8, 6, NEWER_ARCH)])),
    ("m8n16", gate(".m8n16", &[since(8, 6, NEWER_ARCH)])),
    ("m16n8", gate(".m16n8", &[since(8, 6, NEWER_ARCH)])),
];

const SYNC_ALIGNED: [Group; 2] = [group(".sync", &["sync"], true), ALIGNED];
const MATRIX_SPACE: Group = group(".ss", &["shared", "shared::cta"], false);
const NUM: &[&str] = &["x1", "x2", "x4"];
const LDMATRIX_SLOTS_1: [Slot; 2] = [
    slot("r", true, Kind::Fragment(3, 1)),
    slot("[p]", false, ADDRESS),
];
const LDMATRIX_SLOTS_2: [Slot; 2] = [
    slot("r", true, Kind::Fragment(3, 2)),
    slot("[p]", false, ADDRESS),
];

/// The sm_100a `ldmatrix` forms (9.7.14.5.15, ldmatrix.md), which check by this table and run
/// from their decoded [`crate::matrix::MatrixForm`]: `.m16n16.b8` and the `.m8n16`/`.m16n16`
/// forms with `.dst_fmt.src_fmt`. `.m16n16` takes `.trans` ("for 16x16 matrices, .trans is
/// mandatory"; ptxas 13.5: "Modifier '.trans' require for instruction ldmatrix with shape
/// '.m16n16'"). The group indices are 0 `.sync`,
/// 1 `.aligned`, 2 `.shape`, 3 `.num`, 4 `.trans`, 5 `.ss`, 6 `.type` / `.dst_fmt`, 7
/// `.src_fmt`. `r` holds one 32-bit register per 8x8 matrix of 16-bit elements: one per
/// `.num` for `.m8n8`/`.m8n16`, two for `.m16n16` (ptxas 13.5: "Vector of size 4 is expected
/// for argument 0" for `.m16n16.x2`, "Incorrect no. of matrix: 4 for ldmatrix with shape
/// '.m16n16'").
const LDMATRIX: [SyntaxForm; 3] = [
    SyntaxForm {
        groups: &[
            SYNC_ALIGNED[0],
            SYNC_ALIGNED[1],
            group(".shape", &["m16n16"], true),
            group(".num", &["x1", "x2"], true),
            group(".trans", &["trans"], true),
            MATRIX_SPACE,
            types(".type", &["b8"]),
        ],
        operands: &LDMATRIX_SLOTS_2,
        modifier_gates: &MATRIX_SHAPE_GATES,
        ..form(Opcode::Ldmatrix, "9.7.14.5.15 (ldmatrix.md)")
    },
    SyntaxForm {
        groups: &[
            SYNC_ALIGNED[0],
            SYNC_ALIGNED[1],
            group(".shape", &["m8n16"], true),
            group(".num", NUM, true),
            group(".trans", &[], false),
            MATRIX_SPACE,
            types(".dst_fmt", &["b8x16"]),
            types(".src_fmt", &["b6x16_p32", "b4x16_p64"]),
        ],
        operands: &LDMATRIX_SLOTS_1,
        modifier_gates: &MATRIX_SHAPE_GATES,
        ..form(Opcode::Ldmatrix, "9.7.14.5.15 (ldmatrix.md)")
    },
    SyntaxForm {
        groups: &[
            SYNC_ALIGNED[0],
            SYNC_ALIGNED[1],
            group(".shape", &["m16n16"], true),
            group(".num", &["x1", "x2"], true),
            group(".trans", &["trans"], true),
            MATRIX_SPACE,
            types(".dst_fmt", &["b8x16"]),
            types(".src_fmt", &["b6x16_p32", "b4x16_p64"]),
        ],
        operands: &LDMATRIX_SLOTS_2,
        modifier_gates: &MATRIX_SHAPE_GATES,
        ..form(Opcode::Ldmatrix, "9.7.14.5.15 (ldmatrix.md)")
    },
];

/// The sm_100a `stmatrix` form (9.7.14.5.16, stmatrix.md), checked by this table and run from
/// its decoded form: `.m16n8.trans.b8` (ptxas 13.5 rejects `.m8n8.b8`: "Incorrect instruction
/// type", and `.m16n8` without `.trans`: "Modifier '.trans' require for instruction stmatrix
/// with shape '.m16n8'"; the ISA: "for 16x8 matrices, .trans is mandatory"); group indices as
/// [`LDMATRIX`].
const STMATRIX: [SyntaxForm; 1] = [SyntaxForm {
    groups: &[
        SYNC_ALIGNED[0],
        SYNC_ALIGNED[1],
        group(".shape", &["m16n8"], true),
        group(".num", NUM, true),
        group(".trans", &["trans"], true),
        MATRIX_SPACE,
        types(".type", &["b8"]),
    ],
    operands: &[
        slot("[p]", false, ADDRESS),
        slot("r", false, Kind::Fragment(3, 1)),
    ],
    modifier_gates: &MATRIX_SHAPE_GATES,
    ..form(Opcode::Stmatrix, "9.7.14.5.16 (stmatrix.md)")
}];

const VADD: [SyntaxForm; 2] = video_scalar(Opcode::Vadd);
const VSUB: [SyntaxForm; 2] = video_scalar(Opcode::Vsub);
const VABSDIFF: [SyntaxForm; 2] = video_scalar(Opcode::Vabsdiff);
const VMIN: [SyntaxForm; 2] = video_scalar(Opcode::Vmin);
const VMAX: [SyntaxForm; 2] = video_scalar(Opcode::Vmax);
const VSHL: [SyntaxForm; 2] = video_shift(Opcode::Vshl);
const VSHR: [SyntaxForm; 2] = video_shift(Opcode::Vshr);
const VADD2: [SyntaxForm; 2] = video_simd(Opcode::Vadd2, "9.7.18.2.1 (vadd2.md)");
const VSUB2: [SyntaxForm; 2] = video_simd(Opcode::Vsub2, "9.7.18.2.1 (vsub2.md)");
const VAVRG2: [SyntaxForm; 2] = video_simd(Opcode::Vavrg2, "9.7.18.2.1 (vavrg2.md)");
const VABSDIFF2: [SyntaxForm; 2] = video_simd(Opcode::Vabsdiff2, "9.7.18.2.1 (vabsdiff2.md)");
const VMIN2: [SyntaxForm; 2] = video_simd(Opcode::Vmin2, "9.7.18.2.1 (vmin2.md)");
const VMAX2: [SyntaxForm; 2] = video_simd(Opcode::Vmax2, "9.7.18.2.1 (vmax2.md)");
const VADD4: [SyntaxForm; 2] = video_simd(Opcode::Vadd4, "9.7.18.2.3 (vadd4.md)");
const VSUB4: [SyntaxForm; 2] = video_simd(Opcode::Vsub4, "9.7.18.2.3 (vsub4.md)");
const VAVRG4: [SyntaxForm; 2] = video_simd(Opcode::Vavrg4, "9.7.18.2.3 (vavrg4.md)");
const VABSDIFF4: [SyntaxForm; 2] = video_simd(Opcode::Vabsdiff4, "9.7.18.2.3 (vabsdiff4.md)");
const VMIN4: [SyntaxForm; 2] = video_simd(Opcode::Vmin4, "9.7.18.2.3 (vmin4.md)");
const VMAX4: [SyntaxForm; 2] = video_simd(Opcode::Vmax4, "9.7.18.2.3 (vmax4.md)");
const VSET2: [SyntaxForm; 1] = [video_simd_set(Opcode::Vset2, "9.7.18.2.2 (vset2.md)")];
const VSET4: [SyntaxForm; 1] = [video_simd_set(Opcode::Vset4, "9.7.18.2.4 (vset4.md)")];
const STACKSAVE: [SyntaxForm; 2] = stack(Opcode::Stacksave, "9.7.17.1 (stacksave.md)", true);
const STACKRESTORE: [SyntaxForm; 2] =
    stack(Opcode::Stackrestore, "9.7.17.2 (stackrestore.md)", false);

/// Whether the opcode is a video instruction (PTX ISA 9.7.18), whose operands take byte and
/// half-word selectors.
pub fn is_video(opcode: Opcode) -> bool {
    use Opcode as O;
    matches!(
        opcode,
        O::Vadd
            | O::Vsub
            | O::Vabsdiff
            | O::Vmin
            | O::Vmax
            | O::Vshl
            | O::Vshr
            | O::Vmad
            | O::Vset
            | O::Vadd2
            | O::Vsub2
            | O::Vavrg2
            | O::Vabsdiff2
            | O::Vmin2
            | O::Vmax2
            | O::Vset2
            | O::Vadd4
            | O::Vsub4
            | O::Vavrg4
            | O::Vabsdiff4
            | O::Vmin4
            | O::Vmax4
            | O::Vset4
    )
}

/// The forms of an opcode this table describes (empty: not described, only gated).
pub fn forms(opcode: Opcode) -> &'static [SyntaxForm] {
    match opcode {
        Opcode::Vadd => &VADD,
        Opcode::Vsub => &VSUB,
        Opcode::Vabsdiff => &VABSDIFF,
        Opcode::Vmin => &VMIN,
        Opcode::Vmax => &VMAX,
        Opcode::Vshl => &VSHL,
        Opcode::Vshr => &VSHR,
        Opcode::Vmad => std::slice::from_ref(&VMAD),
        Opcode::Vset => &VSET,
        Opcode::Vadd2 => &VADD2,
        Opcode::Vsub2 => &VSUB2,
        Opcode::Vavrg2 => &VAVRG2,
        Opcode::Vabsdiff2 => &VABSDIFF2,
        Opcode::Vmin2 => &VMIN2,
        Opcode::Vmax2 => &VMAX2,
        Opcode::Vset2 => &VSET2,
        Opcode::Vadd4 => &VADD4,
        Opcode::Vsub4 => &VSUB4,
        Opcode::Vavrg4 => &VAVRG4,
        Opcode::Vabsdiff4 => &VABSDIFF4,
        Opcode::Vmin4 => &VMIN4,
        Opcode::Vmax4 => &VMAX4,
        Opcode::Vset4 => &VSET4,
        Opcode::Multimem => MULTIMEM,
        Opcode::Alloca => &ALLOCA,
        Opcode::Stacksave => &STACKSAVE,
        Opcode::Stackrestore => &STACKRESTORE,
        Opcode::Istypep => std::slice::from_ref(&ISTYPEP),
        Opcode::Pmevent => std::slice::from_ref(&PMEVENT),
        Opcode::Brkpt => std::slice::from_ref(&BRKPT),
        Opcode::Brx => std::slice::from_ref(&BRX),
        Opcode::Tcgen05 => &TCGEN05,
        Opcode::Tensormap => &TENSORMAP,
        Opcode::Clusterlaunchcontrol => &CLUSTERLAUNCHCONTROL,
        Opcode::St => &ST,
        Opcode::Add => &ADD_FORMS,
        Opcode::Sub => &SUB_FORMS,
        Opcode::Mul => std::slice::from_ref(&MUL_F32X2),
        Opcode::Fma => &FMA_FORMS,
        Opcode::Min => std::slice::from_ref(&MIN_3),
        Opcode::Max => std::slice::from_ref(&MAX_3),
        Opcode::Red => &RED_ASYNC,
        Opcode::Ldmatrix => &LDMATRIX,
        Opcode::Stmatrix => &STMATRIX,
        _ => &[],
    }
}

/// tcgen05's targets: ptxas 13.5 accepts tcgen05.alloc on sm_100a, sm_100f, sm_101a, sm_103a,
/// sm_103f, sm_110a, sm_110f and rejects it on sm_90a, sm_100, sm_120a, sm_120f, sm_121a
/// ("Instruction 'tcgen05.alloc' not supported on .target 'sm_120a'").
const TCGEN05_TARGETS: TargetSet = TargetSet::Specific {
    arch: &[100, 101, 103, 110],
    families: &[100, 110],
};

/// The gates of whole opcodes (or sub-operations) known by name, as ptxas 13.5 reports them
/// ("Feature 'multimem.st' requires .target sm_90 or higher", "Feature 'alloca' requires PTX
/// ISA .version 7.3 or later", "Instruction 'tensormap.replace' not supported on .target
/// 'sm_90'").
pub const OPCODE_GATES: &[OpcodeGate] = &[
    // brkpt on the first targets (the PTX ISA's Target ISA notes, "brkpt requires sm_11 or
    // higher", which the stored brkpt.md leaves out; ptxas 13.5: "Instruction 'brkpt' requires
    // .target sm_11 or higher"; tests/conformance/operand-vectors.tsv).
    OpcodeGate {
        opcode: Opcode::Brkpt,
        word: None,
        gate: gate("brkpt", &[since(1, 0, TargetSet::AtLeast(11))]),
    },
    // st.async, red.async: "Introduced in PTX ISA version 8.1 ... Requires sm_90 or higher";
    // st.bulk: "Introduced in PTX ISA version 8.6 ... Requires sm_100 or higher".
    OpcodeGate {
        opcode: Opcode::St,
        word: Some("async"),
        gate: gate("st.async", &[since(8, 1, TargetSet::AtLeast(90))]),
    },
    OpcodeGate {
        opcode: Opcode::Red,
        word: Some("async"),
        gate: gate("red.async", &[since(8, 1, TargetSet::AtLeast(90))]),
    },
    OpcodeGate {
        opcode: Opcode::St,
        word: Some("bulk"),
        gate: gate("st.bulk", &[since(8, 6, TargetSet::AtLeast(100))]),
    },
    OpcodeGate {
        opcode: Opcode::Multimem,
        word: None,
        gate: gate("multimem", &[since(8, 1, TargetSet::AtLeast(90))]),
    },
    OpcodeGate {
        opcode: Opcode::Alloca,
        word: None,
        gate: gate("alloca", &[since(7, 3, TargetSet::AtLeast(52))]),
    },
    OpcodeGate {
        opcode: Opcode::Stacksave,
        word: None,
        gate: gate("stacksave", &[since(7, 3, TargetSet::AtLeast(52))]),
    },
    OpcodeGate {
        opcode: Opcode::Stackrestore,
        word: None,
        gate: gate("stackrestore", &[since(7, 3, TargetSet::AtLeast(52))]),
    },
    OpcodeGate {
        opcode: Opcode::Tcgen05,
        word: None,
        gate: gate("tcgen05", &[since(8, 6, TCGEN05_TARGETS)]),
    },
    OpcodeGate {
        opcode: Opcode::Tensormap,
        word: None,
        gate: gate(
            "tensormap.replace",
            &[since(
                8,
                3,
                TargetSet::Specific {
                    arch: &[90, 100, 101, 103, 110, 120, 121],
                    families: &[100, 110, 120],
                },
            )],
        ),
    },
    OpcodeGate {
        opcode: Opcode::Clusterlaunchcontrol,
        word: None,
        gate: gate(
            "clusterlaunchcontrol",
            &[since(8, 6, TargetSet::AtLeast(100))],
        ),
    },
];

/// The gates of modifiers (each applies where all its modifiers are written) of the forms the
/// decoder does not model (checked by their fragments only, or known by name only), as ptxas
/// 13.5 reports them:
///
/// * `mma`/`wmma`: the sub-byte and single-bit types need sm_75 ("Feature '.s4' requires
///   .target sm_75 or higher"), the integer `wmma` types sm_72 ("Feature 'WMMA with integer
///   types' requires .target sm_72 or higher"); PTX ISA 6.3 (wmma.md, mma.md);
/// * the sparse `mma.sp::ordered_metadata` with `.kind::f8f6f4` or `.block_scale` (mma.md,
///   9.7.14.6.3), the same gates as the dense forms (`crate::op_gating`'s `MmaKindF8f6f4`,
///   `MmaFp6Fp4`, `MmaBlockScale`, `MmaOrderedMetadata`, `MmaFp8`);
/// * `cp.async.bulk...cp_mask` (PTX ISA 8.6, "Feature '.cp_mask' requires .target sm_100 or
///   higher") on top of `cp.async.bulk`'s own (PTX ISA 8.0, sm_90);
/// * the sparse `.kind::f8f6f4` forms with an `.f16` accumulator ("Instruction 'mma with with F16
///   accumulator and F8 floating point type' not supported on .target 'sm_100a'", where the
///   dense ones are taken) and `.scale_vec::4X` with `.ue8m0` factors ("Feature 'mma with
///   .scale_vec::4X and .ue8m0 scale type' requires PTX ISA .version 9.1 or later"), on sm_120;
/// * `tcgen05.mma`'s `.kind::mxf4nvf4` ("Feature '.kind::mxf4nvf4' requires PTX ISA .version
///   8.7 or later"), `.block16`/`.block32` ("Feature '.block16' requires PTX ISA .version 8.8
///   or later") and `.kind::i8` ("Feature '.kind::i8' not supported on .target 'sm_103a'": on
///   sm_100a, sm_101a and sm_110a only, no family target).
const MODIFIER_GATES: &[(Opcode, &[&str], Gate)] = &{
    const SUB_BYTE: Gate = gate(
        "sub-byte and single-bit matrix types",
        &[since(6, 3, TargetSet::AtLeast(75))],
    );
    const INTEGER: Gate = gate(
        "wmma with integer types",
        &[since(6, 3, TargetSet::AtLeast(72))],
    );
    const KIND_F8F6F4: Gate = gate("mma with .kind::f8f6f4", &[since(8, 6, BLACKWELL_SPECIFIC)]);
    const FP6_FP4: Gate = gate("mma with FP6/FP4 types", &[since(8, 7, SM120_SPECIFIC)]);
    const BLOCK_SCALE: Gate = gate("mma with block scale", &[since(8, 7, SM120_SPECIFIC)]);
    const ORDERED_METADATA: Gate = gate(
        "mma.sp::ordered_metadata",
        &[since(8, 5, TargetSet::AtLeast(80))],
    );
    const FP8: Gate = gate("mma with FP8", &[since(8, 4, TargetSet::AtLeast(89))]);
    const BULK: Gate = gate("cp.async.bulk", &[since(8, 0, TargetSet::AtLeast(90))]);
    const CP_MASK: Gate = gate(".cp_mask", &[since(8, 6, TargetSet::AtLeast(100))]);
    const MXF4NVF4: Gate = gate(
        "tcgen05.mma .kind::mxf4nvf4",
        &[since(8, 7, TCGEN05_TARGETS)],
    );
    const BLOCK_SIZE: Gate = gate(
        "tcgen05.mma .block16 and .block32",
        &[since(8, 8, TCGEN05_TARGETS)],
    );
    const KIND_I8: Gate = gate(
        "tcgen05.mma .kind::i8",
        &[since(
            8,
            6,
            TargetSet::Specific {
                arch: &[100, 101, 110],
                families: &[],
            },
        )],
    );
    const SPARSE_F16_F8: Gate = gate(
        "sparse mma with .kind::f8f6f4 and an .f16 accumulator",
        &[since(8, 7, SM120_SPECIFIC)],
    );
    const SCALE_4X_UE8M0: Gate = gate(
        "mma with .scale_vec::4X and .ue8m0 scale factors",
        &[since(9, 1, SM120_SPECIFIC)],
    );
    [
        (Opcode::Mma, &["sp::ordered_metadata"], ORDERED_METADATA),
        (
            Opcode::Mma,
            &["sp::ordered_metadata", "kind::f8f6f4", "f16"],
            SPARSE_F16_F8,
        ),
        (Opcode::Mma, &["sp", "kind::f8f6f4", "f16"], SPARSE_F16_F8),
        (Opcode::Mma, &["scale_vec::4X", "ue8m0"], SCALE_4X_UE8M0),
        (Opcode::Mma, &["kind::f8f6f4"], KIND_F8F6F4),
        (Opcode::Mma, &["block_scale"], BLOCK_SCALE),
        (Opcode::Mma, &["e4m3"], FP8),
        (Opcode::Mma, &["e5m2"], FP8),
        (Opcode::Mma, &["e3m2"], FP6_FP4),
        (Opcode::Mma, &["e2m3"], FP6_FP4),
        (Opcode::Mma, &["e2m1"], FP6_FP4),
        (Opcode::Cp, &["bulk"], BULK),
        (Opcode::Cp, &["cp_mask"], CP_MASK),
        (Opcode::Tcgen05, &["kind::mxf4nvf4"], MXF4NVF4),
        (Opcode::Tcgen05, &["block16"], BLOCK_SIZE),
        (Opcode::Tcgen05, &["block32"], BLOCK_SIZE),
        (Opcode::Tcgen05, &["kind::i8"], KIND_I8),
        (Opcode::Mma, &["s4"], SUB_BYTE),
        (Opcode::Mma, &["u4"], SUB_BYTE),
        (Opcode::Mma, &["b1"], SUB_BYTE),
        (Opcode::Wmma, &["s4"], SUB_BYTE),
        (Opcode::Wmma, &["u4"], SUB_BYTE),
        (Opcode::Wmma, &["b1"], SUB_BYTE),
        (Opcode::Wmma, &["s32"], INTEGER),
    ]
};

/// The registers an operand of type `ty` takes (the syntax sections' "in `.b16` registers"
/// sentences; ptxas 13.5 for the 8-bit float formats: `.e4m3` in `.b8`, `.e4m3x2` in `.b16`,
/// `.e4m3x4` in `.b32`, as `multimem.st.v4.e4m3 [a], {%b8, ...}` shows).
fn register_rule(name: &str) -> Option<RegisterRule> {
    if matches!(name, "e4m3" | "e5m2") {
        return Some(RegisterRule::SameSize(Type::B8));
    }
    Some(match Type::from_name(name)? {
        Type::F16 => RegisterRule::OneOf(&[Type::F16, Type::B16]),
        Type::Bf16 => RegisterRule::OneOf(&[Type::B16]),
        Type::F16x2 => RegisterRule::OneOf(&[Type::F16x2, Type::B32]),
        Type::Bf16x2 => RegisterRule::OneOf(&[Type::B32]),
        // ptxas 13.5 takes an integer constant for them too (`multimem.st.e5m2x4 [a], 1`).
        Type::E4m3x2 | Type::E5m2x2 => RegisterRule::SameSize(Type::B16),
        Type::E4m3x4 | Type::E5m2x4 => RegisterRule::SameSize(Type::B32),
        ty => RegisterRule::SameSize(ty),
    })
}

/// The width of a type named by a modifier (the scalar 8-bit float formats have no [`Type`]).
fn bits(name: &str) -> Option<u32> {
    if matches!(name, "e4m3" | "e5m2") {
        return Some(8);
    }
    Type::from_name(name).map(Type::bits)
}

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A modifier problem (unknown, conflicting, missing).
    Modifier(DecodeError),
    /// An operand problem.
    Operand(Violation),
}

/// The gates that apply to an instruction of this opcode with these modifiers: the opcode's
/// ([`OPCODE_GATES`]) and those of its modifiers in the form's table, each with the index of
/// the modifier that brings it in.
pub fn gates(opcode: Opcode, modifiers: &[&str]) -> Vec<(&'static Gate, Option<usize>)> {
    let mut out: Vec<(&'static Gate, Option<usize>)> = OPCODE_GATES
        .iter()
        .filter(|g| {
            g.opcode == opcode && g.word.is_none_or(|word| modifiers.first() == Some(&word))
        })
        .map(|g| (&g.gate, None))
        .collect();
    for (op, all, gate) in MODIFIER_GATES {
        if *op == opcode
            && all.iter().all(|modifier| modifiers.contains(modifier))
            && let Some(index) = modifiers.iter().position(|m| Some(m) == all.first())
        {
            out.push((gate, Some(index)));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for form in forms(opcode) {
        for (modifier, gate) in form.modifier_gates {
            if seen.contains(modifier) {
                continue;
            }
            seen.push(modifier);
            if let Some(index) = modifiers.iter().position(|m| m == modifier) {
                out.push((gate, Some(index)));
            }
        }
    }
    out
}

/// The value rules of constants that the operand kinds do not show, for the instructions
/// known by name only; `values` holds each operand's integer value (`None`: no integer
/// constant). Each range is ptxas 13.5's:
///
/// * `pmevent a`: "a is a constant in the range 0..15" (pmevent.md; ptxas: "value '16' out of
///   range, expected to be in range [0..15]"); `pmevent.mask a`: "a 16-bit mask" (0..=0xffff);
/// * `tcgen05.alloc`/`.dealloc`'s `nCols`: "must be a power of 2 ... in the range [32, 512]"
///   (tcgen05.md; ptxas: "expected to be multiple of 32", "value must be power of 2",
///   "expected to be in range [32..512]").
pub fn value_violation(
    opcode: Opcode,
    modifiers: &[&str],
    values: &[Option<i128>],
) -> Option<Violation> {
    let has = |word: &str| modifiers.contains(&word);
    let (index, ok, rule): (usize, fn(i128) -> bool, &str) = match (opcode, modifiers.first()) {
        (Opcode::Pmevent, _) if has("mask") => (
            0,
            |v| (0..=0xffff).contains(&v),
            "a 16-bit mask, 0..=0xffff",
        ),
        (Opcode::Pmevent, _) => (0, |v| (0..=15).contains(&v), "an event number in 0..=15"),
        // alloca.md: "immAlign ... must be a power of 2 and must not exceed 2^23" (ptxas
        // 13.5: "Alignment must be a power of two", "Alignment value too large, exceeds 2^23").
        (Opcode::Alloca, _) => (
            2,
            |v| (1..=1 << 23).contains(&v) && v.count_ones() == 1,
            "immAlign, a power of 2 not above 2^23",
        ),
        (Opcode::Tcgen05, Some(&("alloc" | "dealloc"))) => (
            1,
            |v| (32..=512).contains(&v) && v.count_ones() == 1,
            "nCols, a power of 2 in 32..=512",
        ),
        // st.bulk: "initval ... The only numeric value allowed for operand initval is 0";
        // "size must be a multiple of 8 ... The maximum value of size operand can be
        // 16777216" (ptxas 13.5: "unexpected value '1', expected to be zero", "expected to be
        // multiple of 8").
        (Opcode::St, Some(&"bulk")) if values.get(2).copied().flatten().is_some_and(|v| v != 0) => {
            (2, |v| v == 0, "initval, which must be 0")
        }
        (Opcode::St, Some(&"bulk")) => (
            1,
            |v| (0..=16_777_216).contains(&v) && v % 8 == 0,
            "size, a multiple of 8 in 0..=16777216",
        ),
        _ => return None,
    };
    let value = (*values.get(index)?)?;
    (!ok(value)).then(|| {
        Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(index),
            format!("{value} is out of range: this operand is {rule}"),
        )
    })
}

/// Checks an instruction known by name only against its Syntax-block forms: `None` when the
/// table has no form for its opcode (or sub-operation), else the problems of the nearest form
/// (empty: it matches).
pub fn check(opcode: Opcode, modifiers: &[&str], operands: &[Operand]) -> Option<Vec<Problem>> {
    // ptxas's repeated flags (`vadd.sat.sat`, `wmma.load.a.sync.sync`): see
    // [`crate::form::REPEATABLE_FLAGS`].
    let Some((folded, written_at)) = crate::form::fold_repeats(modifiers) else {
        return check_folded(opcode, modifiers, operands);
    };
    let mut problems = check_folded(opcode, &folded, operands)?;
    for problem in &mut problems {
        if let Problem::Modifier(error) = problem {
            error.modifier = error.modifier.map(|i| written_at[i]);
        }
    }
    Some(problems)
}

fn check_folded(opcode: Opcode, modifiers: &[&str], operands: &[Operand]) -> Option<Vec<Problem>> {
    let all = forms(opcode);
    if all.is_empty() {
        return fragments(opcode, modifiers, operands);
    }
    let candidates: Vec<&SyntaxForm> = all
        .iter()
        .filter(|f| match f.words.first() {
            Some(word) => modifiers.first() == Some(word),
            None => true,
        })
        .collect();
    if candidates.is_empty() {
        // A sub-operation word this table knows, but not first (`multimem.x.st`): ptxas 13.5
        // reports the first modifier ("Unknown modifier '.x'").
        let misplaced = modifiers
            .iter()
            .skip(1)
            .any(|m| all.iter().any(|f| f.words.first() == Some(m)));
        if misplaced {
            return Some(vec![Problem::Modifier(DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(0),
                format!(
                    "`.{}` is not a modifier of `{}`; the operation comes first",
                    modifiers.first().copied().unwrap_or_default(),
                    opcode.name()
                ),
            ))]);
        }
        // No sub-operation ptxas knows (`multimem.cta.global.s32`, bare `tcgen05`; ptxas 13.5:
        // "Not a name of any known instruction: 'multimem'", "Unknown modifier '.cta'").
        let known = sub_operations(opcode)?;
        if modifiers.first().is_some_and(|m| known.contains(m)) {
            return None;
        }
        return Some(vec![Problem::Modifier(DecodeError::new(
            DecodeErrorKind::UnknownModifier,
            modifiers.first().map(|_| 0),
            format!(
                "`{}` needs its operation first ({})",
                opcode.name(),
                known
                    .iter()
                    .map(|word| format!(".{word}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))]);
    }
    candidates
        .into_iter()
        .map(|form| check_form(form, modifiers, operands))
        .min_by_key(|problems| {
            (
                problems
                    .iter()
                    .filter(|p| matches!(p, Problem::Modifier(_)))
                    .count(),
                problems.len(),
            )
        })
}

/// Every sub-operation ptxas 13.5 knows of the opcodes whose every form starts with one
/// (those the table describes and those it does not yet: `tcgen05.ld`, `tcgen05.mma`, ...);
/// `None` for the other opcodes.
fn sub_operations(opcode: Opcode) -> Option<&'static [&'static str]> {
    Some(match opcode {
        Opcode::Multimem => &["ld_reduce", "st", "red", "cp"],
        Opcode::Tcgen05 => &[
            "alloc",
            "dealloc",
            "relinquish_alloc_permit",
            "ld",
            "st",
            "mma",
            "cp",
            "shift",
            "commit",
            "wait",
            "fence::before_thread_sync",
            "fence::after_thread_sync",
        ],
        Opcode::Clusterlaunchcontrol => &["try_cancel", "query_cancel"],
        Opcode::Tensormap => &["replace", "cp_fenceproxy"],
        Opcode::Brx => &["idx"],
        _ => return None,
    })
}

/// The forms of `mma` and `wmma` that are not described here (sparse, sub-byte, single-bit,
/// `.kind`, `.block_scale`) still write their matrix fragments as brace vectors (9.7.14.4.3,
/// wmma.md: "`r` is a vector expression"; 9.7.14.5.14, mma.md: `d, a, b, c` are vector
/// expressions): ptxas 13.5 reports "Vector expected for argument 0" for a register there.
/// `None` for other opcodes.
fn fragments(opcode: Opcode, modifiers: &[&str], operands: &[Operand]) -> Option<Vec<Problem>> {
    let (positions, counts): (&[usize], &[usize]) = match (opcode, modifiers.first()) {
        (Opcode::Mma, _)
            if modifiers.contains(&"block_scale")
                && modifiers.iter().any(|m| m.starts_with("sp")) =>
        {
            (&[0, 1, 2, 3], &[10])
        }
        (Opcode::Mma, _) if modifiers.contains(&"block_scale") => (&[0, 1, 2, 3], &[8]),
        (Opcode::Mma, _) if modifiers.iter().any(|m| m.starts_with("sp")) => {
            (&[0, 1, 2, 3], &[6, 7])
        }
        (Opcode::Mma, _) => (&[0, 1, 2, 3], &[4]),
        (Opcode::Wmma, Some(&"load")) => (&[0], &[2, 3]),
        (Opcode::Wmma, Some(&"store")) => (&[1], &[2, 3]),
        (Opcode::Wmma, Some(&"mma")) => (&[0, 1, 2, 3], &[4]),
        _ => return None,
    };
    let mut problems = Vec::new();
    if !counts.contains(&operands.len()) {
        let counts: Vec<String> = counts.iter().map(usize::to_string).collect();
        problems.push(Problem::Operand(Violation::new(
            RuleCode::OperandCount,
            Location::Instruction,
            format!(
                "this form of `{}` takes {} operands, not {}",
                opcode.name(),
                counts.join(" or "),
                operands.len()
            ),
        )));
    }
    for &position in positions {
        if let Some(operand) = operands.get(position)
            && !matches!(operand, Operand::Vector(_) | Operand::Other)
        {
            problems.push(Problem::Operand(Violation::new(
                RuleCode::OperandShape,
                Location::Operand(position),
                "a matrix fragment is a brace vector of registers, `{...}`",
            )));
        }
    }
    Some(problems)
}

fn check_form(form: &SyntaxForm, modifiers: &[&str], operands: &[Operand]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let skip = form.words.len().min(modifiers.len());
    // The chosen value of each group, with the modifier's index.
    let mut chosen: Vec<Option<(usize, &str)>> = vec![None; form.groups.len()];
    for (index, &modifier) in modifiers.iter().enumerate().skip(skip) {
        if form.words.get(1..).unwrap_or(&[]).contains(&modifier) {
            continue;
        }
        let free = form
            .groups
            .iter()
            .enumerate()
            .find(|(g, group)| group.values.contains(&modifier) && chosen[*g].is_none());
        if let Some((g, _)) = free {
            chosen[g] = Some((index, modifier));
            continue;
        }
        let taken = form
            .groups
            .iter()
            .enumerate()
            .find(|(_, group)| group.values.contains(&modifier));
        let error = match taken {
            None => DecodeError::new(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(
                    "`.{modifier}` is not a modifier of this form of `{}` ({})",
                    form.opcode.name(),
                    form.section
                ),
            ),
            Some((_, group)) if group.is_type => DecodeError::new(
                DecodeErrorKind::ExtraType,
                Some(index),
                format!(
                    "`.{modifier}`: one type too many for `{}` ({})",
                    form.opcode.name(),
                    form.section
                ),
            ),
            // A repeat: ptxas 13.5 rejects each ("Multiple .aligned modifiers specified",
            // "Duplicate .weak modifier", "Multiple instruction post-operation flags set")
            // but those of `crate::form::REPEATABLE_FLAGS`, folded before.
            Some((g, _)) if chosen[g].is_some_and(|(_, value)| value == modifier) => {
                DecodeError::new(
                    DecodeErrorKind::DuplicateModifier,
                    Some(index),
                    format!("`.{modifier}` is written twice"),
                )
            }
            Some((g, group)) => DecodeError::new(
                DecodeErrorKind::ConflictingModifier,
                Some(index),
                format!(
                    "`.{modifier}` conflicts with `.{}`: `{}` takes one of `{}`",
                    chosen[g].map_or("", |(_, value)| value),
                    form.opcode.name(),
                    group.name
                ),
            ),
        };
        problems.push(Problem::Modifier(error));
    }
    for (g, group) in form.groups.iter().enumerate() {
        if group.required && chosen[g].is_none() {
            let values: Vec<String> = group.values.iter().map(|v| format!("`.{v}`")).collect();
            problems.push(Problem::Modifier(DecodeError::new(
                DecodeErrorKind::MissingType,
                None,
                format!(
                    "`{}` needs {} {} ({})",
                    form.opcode.name(),
                    if values.len() == 1 { "" } else { "one of" },
                    values.join(", "),
                    form.section
                ),
            )));
        }
        if let (Some((index, value)), Some(needed)) = (chosen[g], group.needs)
            && chosen.get(needed).is_some_and(Option::is_none)
        {
            let other = form.groups.get(needed).map_or("", |group| group.name);
            problems.push(Problem::Modifier(DecodeError::new(
                DecodeErrorKind::MissingType,
                Some(index),
                format!(
                    "`.{value}` needs a `{other}` modifier too ({})",
                    form.section
                ),
            )));
        }
    }
    for restriction in form.restrictions {
        let Some(index) = modifiers.iter().position(|m| *m == restriction.modifier) else {
            continue;
        };
        if let Some(Some((_, value))) = chosen.get(restriction.group)
            && !restriction.allowed.contains(value)
        {
            problems.push(Problem::Modifier(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                Some(index),
                format!(
                    "`.{}` does not go with `.{value}` in `{}` ({})",
                    restriction.modifier,
                    form.opcode.name(),
                    form.section
                ),
            )));
        }
    }
    let ty_of =
        |g: usize| -> Option<&str> { chosen.get(g).copied().flatten().map(|(_, value)| value) };
    let length_of = |g: usize| -> usize {
        chosen
            .get(g)
            .copied()
            .flatten()
            .and_then(|(_, value)| value.strip_prefix('v'))
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
    };
    if let Some((vector, ty, allowed)) = form.vector_bits
        && let Some(width) = ty_of(ty).and_then(bits)
    {
        let total = width * length_of(vector) as u32;
        if !allowed.contains(&total) {
            let index = chosen.get(ty).copied().flatten().map(|(index, _)| index);
            problems.push(Problem::Modifier(DecodeError::new(
                DecodeErrorKind::UnsupportedTypes,
                index,
                format!(
                    "the type with its vector is {total} bits; `{}` takes 32, 64 or 128 ({})",
                    form.opcode.name(),
                    form.section
                ),
            )));
        }
    }
    // The operands, with as many optional trailing ones as are given.
    let required = form.operands.iter().filter(|s| !s.optional).count();
    let take = operands.len().clamp(required, form.operands.len());
    let mut slots = Vec::with_capacity(take);
    for s in &form.operands[..take] {
        let shape = match s.kind {
            Kind::Fixed(shape) => shape,
            Kind::Typed(g) => match ty_of(g).and_then(register_rule) {
                Some(rule) => SlotShape::Scalar(rule),
                None => continue_shape(),
            },
            Kind::TypedVector(g, v) => match (ty_of(g).and_then(register_rule), length_of(v)) {
                (Some(rule), 1) => SlotShape::Scalar(rule),
                (Some(rule), length) => SlotShape::Vector {
                    length,
                    element: rule,
                },
                (None, _) => continue_shape(),
            },
            Kind::Fragment(g, per) => SlotShape::Vector {
                length: ty_of(g)
                    .and_then(|num| num.strip_prefix('x'))
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(1)
                    * per,
                element: RegisterRule::OneOf(crate::layout::FRAGMENT),
            },
        };
        slots.push(OperandSlot {
            name: s.name,
            is_destination: s.is_destination,
            shape,
        });
    }
    for violation in check_slots(&slots, operands) {
        // Only trailing optional operands may be absent: a count problem names the whole form.
        let violation =
            if violation.code == RuleCode::OperandCount && required != form.operands.len() {
                Violation::new(
                    RuleCode::OperandCount,
                    violation.location,
                    format!(
                        "this form takes {required} to {} operands, not {} ({})",
                        form.operands.len(),
                        operands.len(),
                        form.section
                    ),
                )
            } else {
                violation
            };
        problems.push(Problem::Operand(violation));
    }
    let _ = Location::Instruction;
    problems
}

/// The shape of a typed slot whose type is missing (the missing type is reported already): any
/// register.
fn continue_shape() -> SlotShape {
    SlotShape::Scalar(RegisterRule::OneOf(&[
        Type::B8,
        Type::B16,
        Type::B32,
        Type::B64,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::F16x2,
        Type::F32,
        Type::F64,
        Type::B128,
    ]))
}
