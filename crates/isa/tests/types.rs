//! The type table: names round-trip, sizes, kinds, register declarations.

use ptxsim_isa::{Type, TypeKind};

#[test]
fn names_round_trip() {
    for &t in Type::ALL {
        assert_eq!(Type::from_name(t.name()), Some(t));
        assert_eq!(Type::from_name(&format!(".{}", t.name())), Some(t));
    }
    assert_eq!(Type::from_name("f8"), None);
    assert_eq!(Type::from_name(""), None);
}

#[test]
fn sizes_and_kinds() {
    let expect = [
        (Type::B128, 128, TypeKind::Bit),
        (Type::S2, 2, TypeKind::Signed),
        (Type::U4, 4, TypeKind::Unsigned),
        (Type::Bf16, 16, TypeKind::Float),
        (Type::Tf32, 32, TypeKind::Float),
        (Type::F16x2, 32, TypeKind::Packed),
        (Type::E2m1x2, 8, TypeKind::Packed),
        (Type::E2m1x4, 16, TypeKind::Packed),
        (Type::E4m3x4, 32, TypeKind::Packed),
        (Type::Ue8m0x2, 16, TypeKind::Packed),
        (Type::S2f6x2, 16, TypeKind::Packed),
        (Type::Pred, 1, TypeKind::Predicate),
    ];
    for (t, bits, kind) in expect {
        assert_eq!((t.bits(), t.kind()), (bits, kind), "{t}");
    }
    assert_eq!(Type::S8.integer_range(), Some((-128, 127)));
    assert_eq!(Type::U2.integer_range(), Some((0, 3)));
    assert_eq!(Type::U64.integer_range(), Some((0, u64::MAX as i128)));
}

/// ptxas 13.5 accepts `.reg` of exactly these types (`.bf16`, `.bf16x2`, `.tf32` are syntax
/// errors; the fp8/fp6/fp4/ue8m0/s2f6 formats "may only be used as an instruction type").
#[test]
fn register_declaration_types() {
    let declarable: Vec<Type> = Type::ALL
        .iter()
        .copied()
        .filter(|t| t.is_register_type())
        .collect();
    assert_eq!(declarable, Type::REGISTER_TYPES);
    for name in [
        "bf16", "bf16x2", "tf32", "e4m3x2", "e2m1x2", "ue8m0x2", "s2f6x2", "u4",
    ] {
        assert!(
            !Type::from_name(name).is_some_and(|t| t.is_register_type()),
            "{name}"
        );
    }
}
