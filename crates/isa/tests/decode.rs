//! Decoding and validation: error kinds, modifier/operand indices, fixes, layouts, and that no
//! input panics.

use ptxsim_isa::cvt::CvtOperands;
use ptxsim_isa::{
    DecodeErrorKind, Element, Form, Literal, Location, Opcode, Operand, RegisterRule, Rounding,
    RuleCode, SlotShape, Type, decode, validate,
};

fn reg(t: Type) -> Operand {
    Operand::Register(t)
}

fn cvt(modifiers: &[&str]) -> ptxsim_isa::CvtForm {
    match decode("cvt", modifiers) {
        Ok(Form::Cvt(form)) => form,
        other => panic!("expected a cvt form, got {other:?}"),
    }
}

#[test]
fn unknown_and_unsupported_opcodes_are_named_errors() {
    let e = decode("frobnicate", &[]).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::UnknownOpcode);
    // A known instruction the table describes by name only.
    let e = decode("istypep", &["texref"]).unwrap_err();
    assert_eq!(
        e.kind,
        DecodeErrorKind::UnsupportedInstruction(Opcode::Istypep)
    );
    // Every name round-trips, and an opcode is decoded exactly when decode gives something
    // other than UnsupportedInstruction for it.
    for &op in Opcode::ALL {
        assert_eq!(Opcode::from_name(op.name()), Some(op));
        let unsupported = matches!(
            decode(op.name(), &["b32"]),
            Err(ptxsim_isa::DecodeError {
                kind: DecodeErrorKind::UnsupportedInstruction(_),
                ..
            })
        );
        assert_eq!(op.is_decoded(), !unsupported, "{op}");
    }
}

/// The PTX ISA names every instruction of the spec's `isa/` folder (one file a name): the
/// table knows each of them, so `check` never calls a real instruction unknown.
#[test]
fn every_instruction_name_of_the_isa_is_known() {
    let names = [
        "abs",
        "activemask",
        "add",
        "addc",
        "alloca",
        "and",
        "applypriority",
        "atom",
        "bar",
        "barrier",
        "bfe",
        "bfi",
        "bfind",
        "bmsk",
        "bra",
        "brev",
        "brkpt",
        "brx",
        "call",
        "clusterlaunchcontrol",
        "clz",
        "cnot",
        "copysign",
        "cos",
        "cp",
        "createpolicy",
        "cvt",
        "cvta",
        "discard",
        "div",
        "dp2a",
        "dp4a",
        "elect",
        "ex2",
        "exit",
        "fence",
        "fma",
        "fns",
        "getctarank",
        "griddepcontrol",
        "isspacep",
        "istypep",
        "ld",
        "ldmatrix",
        "ldu",
        "lg2",
        "lop3",
        "mad",
        "mad24",
        "madc",
        "mapa",
        "match",
        "max",
        "mbarrier",
        "membar",
        "min",
        "mma",
        "mov",
        "movmatrix",
        "mul",
        "mul24",
        "multimem",
        "nanosleep",
        "neg",
        "not",
        "or",
        "pmevent",
        "popc",
        "prefetch",
        "prefetchu",
        "prmt",
        "rcp",
        "red",
        "redux",
        "rem",
        "ret",
        "rsqrt",
        "sad",
        "selp",
        "set",
        "setmaxnreg",
        "setp",
        "shf",
        "shfl",
        "shl",
        "shr",
        "sin",
        "slct",
        "sqrt",
        "st",
        "stackrestore",
        "stacksave",
        "stmatrix",
        "sub",
        "subc",
        "suld",
        "suq",
        "sured",
        "sust",
        "szext",
        "tanh",
        "tcgen05",
        "tensormap",
        "testp",
        "tex",
        "tld4",
        "trap",
        "txq",
        "vabsdiff",
        "vabsdiff2",
        "vabsdiff4",
        "vadd",
        "vadd2",
        "vadd4",
        "vavrg2",
        "vavrg4",
        "vmad",
        "vmax",
        "vmax2",
        "vmax4",
        "vmin",
        "vmin2",
        "vmin4",
        "vote",
        "vset",
        "vset2",
        "vset4",
        "vshl",
        "vshr",
        "vsub",
        "vsub2",
        "vsub4",
        "wgmma",
        "wmma",
        "xor",
    ];
    for name in names {
        let op = Opcode::from_name(name).unwrap_or_else(|| panic!("`{name}` is not known"));
        assert!(op.section().starts_with("9.7."), "{name}: {}", op.section());
    }
    assert_eq!(Opcode::ALL.len(), names.len());
    // The spec folder, where the checkout has it beside the repository.
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/isa");
    if let Ok(entries) = std::fs::read_dir(&spec) {
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().to_string();
            if let Some(name) = file.strip_suffix(".md") {
                assert!(Opcode::from_name(name).is_some(), "{name} of {file}");
            }
        }
    }
}

/// Some opcodes the table decodes (and checks), and some it knows by name only.
#[test]
fn the_decoded_opcodes_are_the_executed_ones() {
    let decoded: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|op| op.is_decoded())
        .map(|op| op.name())
        .collect();
    for name in [
        "add",
        "cvt",
        "mov",
        "ld",
        "atom",
        "shf",
        "slct",
        "mul24",
        "mad24",
        "sad",
        "shfl",
        "vote",
        "activemask",
        "redux",
        "match",
        "elect",
        "ex2",
        "addc",
        "dp4a",
        "set",
        "testp",
        "mma",
        "mbarrier",
        "ldmatrix",
        "stmatrix",
        "movmatrix",
        "wmma",
        "wgmma",
    ] {
        assert!(decoded.contains(&name), "{name}");
    }
}

#[test]
fn decode_errors_point_at_the_modifier() {
    let e = decode("cvt", &["rn", "bogus", "f16", "f32"]).unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::UnknownModifier, Some(1))
    );
    let e = decode("cvt", &["rn", "rz", "f16", "f32"]).unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::ConflictingModifier, Some(1))
    );
    let e = decode("cvt", &["ftz", "ftz", "f32", "f16"]).unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::DuplicateModifier, Some(1))
    );
    let e = decode("cvt", &["f32"]).unwrap_err();
    assert_eq!((e.kind, e.modifier), (DecodeErrorKind::MissingType, None));
    let e = decode("cvt", &["f32", "f16", "f16"]).unwrap_err();
    assert_eq!((e.kind, e.modifier), (DecodeErrorKind::ExtraType, Some(2)));
    let e = decode("cvt", &["b32", "u32"]).unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::UnsupportedTypes, Some(1))
    );
    assert!(e.fix.as_deref().is_some_and(|f| f.contains(".bX")));
    let e = decode(
        "cvt",
        &["rn", "satfinite", "scaled::n4::ue8m0", "s2f6x2", "f32"],
    )
    .unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::UnknownModifier, Some(2))
    );
    assert!(
        e.fix
            .as_deref()
            .is_some_and(|f| f.contains("scaled::n2::ue8m0"))
    );
    let e = decode("mov", &["f16"]).unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::UnsupportedTypes, Some(0))
    );
}

#[test]
fn modifiers_decode_in_any_order() {
    let form = cvt(&["f64", "bf16", "rp"]);
    assert_eq!(form.destination.value, Type::F64);
    assert_eq!(form.source.value, Type::Bf16);
    assert_eq!(
        form.rounding.map(|r| (r.value, r.index)),
        Some((Rounding::Rp, 2))
    );
    assert_eq!(form.text(), "cvt.rp.f64.bf16");
    assert!(validate(&Form::Cvt(form), &[reg(Type::F64), reg(Type::B16)]).is_empty());
}

#[test]
fn rounding_rules_of_scalar_conversions() {
    let check =
        |mods: &[&str], d: Type, a: Type| validate(&Form::Cvt(cvt(mods)), &[reg(d), reg(a)]);
    // int-to-float needs a float rounding (the spec's own example `cvt.f32.s32 f,i;` lacks one;
    // ptxas rejects it too).
    let v = check(&["f32", "s32"], Type::F32, Type::S32);
    assert_eq!(v[0].code, RuleCode::RoundingRequired);
    assert_eq!(v[0].location, Location::Instruction);
    assert!(v[0].fix.as_deref().is_some_and(|f| f.contains(".rn")));
    // float-to-int needs an integer rounding; a float rounding is illegal and points at it.
    let v = check(&["rn", "s32", "f32"], Type::S32, Type::F32);
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::RoundingIllegal, Location::Modifier(0))
    );
    // same type: integer rounding optional, float rounding illegal.
    assert!(check(&["f32", "f32"], Type::F32, Type::F32).is_empty());
    assert!(check(&["rmi", "f32", "f32"], Type::F32, Type::F32).is_empty());
    assert_eq!(
        check(&["rn", "f32", "f32"], Type::F32, Type::F32)[0].code,
        RuleCode::RoundingIllegal
    );
    // widening takes none; int-to-int takes none.
    assert_eq!(
        check(&["rn", "f64", "f32"], Type::F64, Type::F32)[0].code,
        RuleCode::RoundingIllegal
    );
    assert_eq!(
        check(&["rzi", "s32", "s16"], Type::S32, Type::S16)[0].code,
        RuleCode::RoundingIllegal
    );
    // .rna only for tf32.f32.
    assert_eq!(
        check(&["rna", "f16", "f32"], Type::F16, Type::F32)[0].code,
        RuleCode::RoundingIllegal
    );
}

#[test]
fn ftz_sat_relu_satfinite_rules() {
    let check = |mods: &[&str], ops: &[Operand]| validate(&Form::Cvt(cvt(mods)), ops);
    let v = check(
        &["rn", "ftz", "f16", "f64"],
        &[reg(Type::F16), reg(Type::F64)],
    );
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::FtzIllegal, Location::Modifier(1))
    );
    let v = check(&["sat", "s32", "s16"], &[reg(Type::S32), reg(Type::S16)]);
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::SatIllegal, Location::Modifier(0))
    );
    assert!(check(&["sat", "u32", "s16"], &[reg(Type::U32), reg(Type::S16)]).is_empty());
    let v = check(
        &["rn", "relu", "f32", "f64"],
        &[reg(Type::F32), reg(Type::F64)],
    );
    assert_eq!(v[0].code, RuleCode::ReluIllegal);
    let v = check(
        &["rn", "e4m3x2", "f32"],
        &[reg(Type::B16), reg(Type::F32), reg(Type::F32)],
    );
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::SatfiniteRequired, Location::Instruction)
    );
    assert_eq!(v[0].fix.as_deref(), Some("add `.satfinite`"));
}

#[test]
fn packed_layouts_name_their_registers() {
    let e2m1x2 = cvt(&["rn", "satfinite", "e2m1x2", "f32"]);
    let layout = e2m1x2.layout();
    assert_eq!(layout.len(), 3);
    assert_eq!(
        layout[0].shape,
        SlotShape::Scalar(RegisterRule::OneOf(&[Type::B8]))
    );
    let v = validate(
        &Form::Cvt(e2m1x2),
        &[reg(Type::B16), reg(Type::F32), reg(Type::F32)],
    );
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::RegisterType, Location::Operand(0))
    );

    let x4 = cvt(&["rs", "relu", "satfinite", "e2m1x4", "f32"]);
    assert_eq!(x4.syntax.operands, CvtOperands::FourWithRandomBits);
    let names: Vec<&str> = x4.layout().iter().map(|s| s.name).collect();
    assert_eq!(names, ["d", "{a, b, e, f}", "rbits"]);
    let four = Operand::Vector(vec![Element::Register(Type::F32); 4]);
    assert!(
        validate(
            &Form::Cvt(x4.clone()),
            &[reg(Type::B16), four, reg(Type::B32)]
        )
        .is_empty()
    );
    let three = Operand::Vector(vec![Element::Register(Type::F32); 3]);
    let v = validate(
        &Form::Cvt(x4.clone()),
        &[reg(Type::B16), three, reg(Type::B32)],
    );
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::VectorLength, Location::Operand(1))
    );
    let v = validate(
        &Form::Cvt(x4),
        &[
            reg(Type::B16),
            Operand::Vector(vec![Element::Register(Type::F32); 4]),
        ],
    );
    assert_eq!(v[0].code, RuleCode::OperandCount);

    let f16x2 = cvt(&["rn", "f16x2", "e4m3x2"]);
    let layout = f16x2.layout();
    assert_eq!(
        layout[1].shape,
        SlotShape::Scalar(RegisterRule::OneOf(&[Type::B16]))
    );
    let bf16x2 = cvt(&["rn", "satfinite", "e4m3x2", "bf16x2"]);
    assert_eq!(
        bf16x2.layout()[1].shape,
        SlotShape::Scalar(RegisterRule::OneOf(&[Type::B32]))
    );
}

#[test]
fn scale_factor_and_qualifier_go_together() {
    let plain = cvt(&["rn", "satfinite", "s2f6x2", "f32"]);
    let ops = [
        reg(Type::B16),
        reg(Type::F32),
        reg(Type::F32),
        reg(Type::B16),
    ];
    let v = validate(&Form::Cvt(plain), &ops);
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::OperandCount, Location::Operand(3))
    );
    assert!(v[0].rule.contains("must be used together"));
    let scaled = cvt(&["rn", "satfinite", "scaled::n2::ue8m0", "s2f6x2", "f32"]);
    assert_eq!(scaled.scaled, Some(2));
    assert!(validate(&Form::Cvt(scaled.clone()), &ops).is_empty());
    let v = validate(&Form::Cvt(scaled), &ops[..3]);
    assert_eq!(v[0].code, RuleCode::OperandCount);
    let wrong = cvt(&["rn", "satfinite", "scaled::n2::ue8m0", "e4m3x2", "f32"]);
    let v = validate(&Form::Cvt(wrong), &ops);
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::ScaledIllegal, Location::Modifier(2))
    );
}

#[test]
fn cvt_pack_rules() {
    let Ok(Form::CvtPack(form)) = decode("cvt", &["pack", "u8", "s32", "b32"]) else {
        panic!("cvt.pack decodes");
    };
    let ops = [
        reg(Type::B32),
        reg(Type::B32),
        reg(Type::B32),
        reg(Type::B32),
    ];
    let v = validate(&Form::CvtPack(form), &ops);
    assert_eq!(
        v.iter().map(|v| v.code).collect::<Vec<_>>(),
        [RuleCode::SatRequired]
    );
    let Ok(Form::CvtPack(form)) = decode("cvt", &["pack", "sat", "u16", "s32", "b32"]) else {
        panic!("cvt.pack decodes");
    };
    let v = validate(&Form::CvtPack(form), &ops);
    assert_eq!(
        (v[0].code, v[0].location),
        (RuleCode::TypeModifier, Location::Modifier(4))
    );
    let e = decode("cvt", &["pack", "sat", "u32", "s32"]).unwrap_err();
    assert_eq!(
        (e.kind, e.modifier),
        (DecodeErrorKind::UnsupportedTypes, Some(2))
    );
}

#[test]
fn mov_pack_unpack_and_sinks() {
    let Ok(form) = decode("mov", &["b64"]) else {
        panic!("mov decodes")
    };
    let pair = |a: Element, b: Element| Operand::Vector(vec![a, b]);
    let b32 = Element::Register(Type::B32);
    assert!(validate(&form, &[pair(b32, Element::Sink), reg(Type::B64)]).is_empty());
    let v = validate(&form, &[pair(Element::Sink, Element::Sink), reg(Type::B64)]);
    assert_eq!(v[0].code, RuleCode::SinkIllegal);
    let v = validate(&form, &[reg(Type::B64), pair(b32, Element::Sink)]);
    assert_eq!(
        (v[0].code, v[0].location),
        (
            RuleCode::SinkIllegal,
            Location::Element {
                operand: 1,
                element: 1
            }
        )
    );
    let v = validate(
        &form,
        &[pair(Element::Register(Type::B16), b32), reg(Type::B64)],
    );
    assert_eq!(
        (v[0].code, v[0].location),
        (
            RuleCode::RegisterType,
            Location::Element {
                operand: 0,
                element: 0
            }
        )
    );
    let Ok(form) = decode("mov", &["u32"]) else {
        panic!("mov decodes")
    };
    let v = validate(
        &form,
        &[
            pair(Element::Register(Type::B16), Element::Register(Type::B16)),
            reg(Type::U32),
        ],
    );
    assert_eq!(v[0].code, RuleCode::TypeModifier);
    assert!(
        validate(
            &form,
            &[reg(Type::S32), Operand::Immediate(Literal::Integer)]
        )
        .is_empty()
    );
}

/// A small deterministic generator: every combination it produces must decode or fail without
/// panicking, and validation of whatever decodes must not panic either.
#[test]
fn no_input_panics() {
    let vocabulary = [
        "pack",
        "sat",
        "ftz",
        "relu",
        "satfinite",
        "scaled::n2::ue8m0",
        "rn",
        "rna",
        "rs",
        "rzi",
        "f32",
        "f16",
        "bf16",
        "bf16x2",
        "f16x2",
        "e4m3x2",
        "e2m1x4",
        "s2f6x2",
        "ue8m0x2",
        "u8",
        "s32",
        "b32",
        "b128",
        "pred",
        "u2",
        "",
        "::",
        "x",
    ];
    let operands = [
        reg(Type::B32),
        Operand::Sink,
        Operand::Immediate(Literal::Integer),
        Operand::Vector(vec![]),
        Operand::Vector(vec![Element::Sink; 4]),
        Operand::Vector(vec![Element::Register(Type::Pred); 8]),
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..20_000 {
        let opcode = ["cvt", "mov", "ld", "nope", ""][next(5)];
        let count = next(7);
        let modifiers: Vec<&str> = (0..count)
            .map(|_| vocabulary[next(vocabulary.len())])
            .collect();
        if let Ok(form) = decode(opcode, &modifiers) {
            let n = next(7);
            let ops: Vec<Operand> = (0..n)
                .map(|_| operands[next(operands.len())].clone())
                .collect();
            let _ = validate(&form, &ops);
            let _ = ptxsim_isa::requirements(&form);
        }
    }
}

/// `griddepcontrol.action; .action = { .launch_dependents, .wait }` (9.7.13.13): exactly one
/// action, as ptxas 13.5 requires ("'.launch_dependents' or '.wait' modifier required",
/// "Modifier '.wait' cannot be combined with modifier '.launch_dependents'").
#[test]
fn griddepcontrol_takes_exactly_one_action() {
    assert!(decode("griddepcontrol", &["wait"]).is_ok());
    assert!(decode("griddepcontrol", &["launch_dependents"]).is_ok());
    for (modifiers, kind) in [
        (&[][..], DecodeErrorKind::UnknownModifier),
        (
            &["wait", "launch_dependents"][..],
            DecodeErrorKind::ConflictingModifier,
        ),
        (&["wait", "wait"][..], DecodeErrorKind::DuplicateModifier),
        (&["sync"][..], DecodeErrorKind::UnknownModifier),
    ] {
        let error = decode("griddepcontrol", modifiers).unwrap_err();
        assert_eq!(error.kind, kind, "{modifiers:?}");
    }
}

/// The sub-byte, single-bit and sparse `mma` forms, with ptxas 13.5's verdicts on each
/// (`ptxas -arch sm_90a`, PTX 8.6; sm_89 for FP8): accepted forms decode with the ISA's operand
/// counts, rejected ones do not, and a sparsity selector outside 0..3 is a constant-value error
/// ("Argument 6 of instruction 'Sparse mma': value '4' out of range, expected to be in range
/// [0..3]").
#[test]
fn sub_byte_single_bit_and_sparse_mma_forms() {
    use ptxsim_isa::mma::{BitOp, MmaOperand, Sparsity, decode_mma};
    let form = |text: &str| decode_mma(&text.split('.').collect::<Vec<_>>());
    // (modifiers after `mma.`, registers of d, a, b, c)
    for (text, counts) in [
        ("sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", [2, 1, 1, 2]),
        (
            "sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32",
            [4, 4, 2, 4],
        ),
        (
            "sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc",
            [4, 4, 2, 4],
        ),
        (
            "sync.aligned.m16n8k128.xor.popc.row.col.s32.b1.b1.s32",
            [4, 2, 1, 4],
        ),
        (
            "sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            [4, 2, 2, 4],
        ),
        (
            "sync.sp.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            [2, 2, 2, 2],
        ),
        (
            "sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            [4, 2, 2, 4],
        ),
        (
            "sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32",
            [4, 4, 4, 4],
        ),
        (
            "sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
            [4, 2, 2, 4],
        ),
        (
            "sp.sync.aligned.m16n8k128.row.col.s32.s4.u4.s32",
            [4, 4, 4, 4],
        ),
    ] {
        let f = form(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let got = [MmaOperand::D, MmaOperand::A, MmaOperand::B, MmaOperand::C]
            .map(|operand| f.registers(operand));
        assert_eq!(got, counts, "{text}");
    }
    let f = form("sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc").unwrap();
    assert_eq!(f.bit_op, Some(BitOp::And));
    let f = form("sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32").unwrap();
    assert_eq!(f.sparse, Some(Sparsity::OrderedMetadata));
    for text in [
        // "Illegal modifier '.satfinite' for instruction 'mma'".
        "sync.aligned.m16n8k256.row.col.satfinite.s32.b1.b1.s32.xor.popc",
        // "Unexpected number of operations specified for mma with shape '.m16n8k256'".
        "sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor",
        "sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.and.popc",
        // "Illegal reduction operation for instruction 'mma.s32.s32'".
        "sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.popc.xor",
        // "Unexpected instruction types specified for 'mma'".
        "sync.aligned.m16n8k64.row.col.s32.s4.s8.s32",
        "sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.and.popc",
        // "Illegal alayout '.col' for instruction 'mma'".
        "sync.aligned.m8n8k32.col.row.s32.s4.s4.s32",
        // "Illegal matrix shape '.m16n8k16' for instruction 'Sparse MMA with integer types'".
        "sp.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32",
        // "Arguments mismatch" (no sparse single-bit form; C must equal D).
        "sp.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc",
        "sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32",
    ] {
        assert!(form(text).is_err(), "{text}");
    }
    let sparse = ptxsim_isa::ops::OpForm::Mma(
        form("sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").unwrap(),
    );
    for (value, fails) in [
        (Some(0), false),
        (Some(3), false),
        (Some(4), true),
        (None, false),
    ] {
        let violation = ptxsim_isa::op_layout::sparsity_selector_violation(&sparse, value);
        assert_eq!(violation.is_some(), fails, "{value:?}");
    }
}

/// The single-bit `wgmma.mma_async` with ptxas 13.5's verdicts (`-arch sm_90a`, PTX 8.0).
#[test]
fn single_bit_wgmma_forms() {
    use ptxsim_isa::wgmma::{WgmmaOp, decode_wgmma};
    let form = |text: &str| decode_wgmma(&text.split('.').collect::<Vec<_>>());
    for text in [
        "mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc",
        "mma_async.sync.aligned.and.popc.m64n8k256.s32.b1.b1",
        "mma_async.sync.aligned.m64n224k256.s32.b1.b1.and.popc",
    ] {
        let Ok(WgmmaOp::Mma(f)) = form(text) else {
            panic!("{text}");
        };
        assert!(!f.is_float() && f.k == 256, "{text}");
    }
    for text in [
        // "Incorrect operations specified for wgmma.mma_async with boolean type".
        "mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc",
        // "Illegal reduction operation for instruction 'wgmma.mma_async.s32.b1'".
        "mma_async.sync.aligned.m64n8k256.s32.b1.b1.popc.and",
        // "Boolean operation is required for instruction 'wgmma.mma_async'".
        "mma_async.sync.aligned.m64n8k256.s32.b1.b1",
        // "Illegal modifier '.satfinite' for instruction 'wgmma.mma_async with boolean type'".
        "mma_async.sync.aligned.m64n8k256.satfinite.s32.b1.b1.and.popc",
        // "Unknown modifier '.m64n40k256'", "Unknown modifier '.m64n8k128'".
        "mma_async.sync.aligned.m64n40k256.s32.b1.b1.and.popc",
        "mma_async.sync.aligned.m64n8k128.s32.b1.b1.and.popc",
        // "Unexpected instruction types specified for 'wgmma.mma_async'".
        "mma_async.sync.aligned.m64n8k32.s32.s8.s8.and.popc",
    ] {
        assert!(form(text).is_err(), "{text}");
    }
}

/// The sparse `wgmma.mma_async.sp` (9.7.15.6.3) with ptxas 13.5's verdicts (`-arch sm_90a`,
/// PTX 8.7): the dense types at twice the `k`, `.sp` before or after `.sync.aligned`, the
/// integer shapes up to `n256`, and the operands it takes.
#[test]
fn sparse_wgmma_forms() {
    use ptxsim_isa::wgmma::{WgmmaOp, decode_wgmma};
    let form = |text: &str| decode_wgmma(&text.split('.').collect::<Vec<_>>());
    for (text, k, selectors) in [
        ("mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16", 32, 2),
        ("mma_async.sync.aligned.sp.m64n256k32.f16.f16.f16", 32, 2),
        ("mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16", 32, 2),
        ("mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32", 16, 2),
        ("mma_async.sp.sync.aligned.m64n256k64.f16.e5m2.e5m2", 64, 1),
        ("mma_async.sp.sync.aligned.m64n240k64.s32.s8.u8", 64, 1),
        (
            "mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.u8.u8",
            64,
            1,
        ),
    ] {
        let Ok(WgmmaOp::Mma(f)) = form(text) else {
            panic!("{text}");
        };
        assert!(f.sparse, "{text}");
        assert_eq!(
            (f.k, f.stored_k(), f.sparsity_selectors()),
            (k, k / 2, selectors)
        );
    }
    let Ok(WgmmaOp::Mma(f16)) = form("mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16") else {
        panic!("f16");
    };
    assert_eq!(
        f16.tail(false),
        [
            "sp-meta",
            "sp-sel",
            "scale-d",
            "imm-scale-a",
            "imm-scale-b",
            "imm-trans-a",
            "imm-trans-b"
        ]
    );
    assert_eq!(f16.tail(true)[..3], ["sp-meta", "sp-sel", "scale-d"]);
    for text in [
        // "Multiple sparsity modifiers specified".
        "mma_async.sp.sync.aligned.sp.m64n8k32.f32.f16.f16",
        // "Illegal instruction types specified for 'Sparse wgmma.mma_async with floating point
        // types' with shape '.m64n8k16'".
        "mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16",
        // "Illegal matrix shape '.m64n8k32' for instruction 'Sparse wgmma.mma_async with FP8
        // types'".
        "mma_async.sp.sync.aligned.m64n8k32.f32.e4m3.e4m3",
        // "Illegal matrix shape '.m64n40k64' for instruction 'Sparse wgmma.mma_async with
        // mixed integer types'".
        "mma_async.sp.sync.aligned.m64n40k64.s32.s8.u8",
        // "Illegal modifier '.satfinite' for instruction 'Sparse wgmma.mma_async with floating
        // point types'".
        "mma_async.sp.sync.aligned.m64n8k32.satfinite.f32.f16.f16",
        // "Unknown modifier '.m64n8k512'".
        "mma_async.sp.sync.aligned.m64n8k512.s32.b1.b1.and.popc",
        "mma_async.sp.sync.aligned.m64n8k256.s32.b1.b1.and.popc",
    ] {
        assert!(form(text).is_err(), "{text}");
    }
}
