//! Targets, families, versions, and the requirement messages.

use ptxsim_isa::{
    PtxVersion, Target, TargetVariant, check_module, decode, requirements, satisfied,
};

fn t(name: &str) -> Target {
    Target::parse(name).expect("target")
}

#[test]
fn target_names_parse_and_print() {
    for name in [
        "sm_50",
        "sm_90",
        "sm_90a",
        "sm_100a",
        "sm_100f",
        "sm_121f",
        "compute_90",
        "compute_100a",
    ] {
        assert_eq!(t(name).name(), name);
    }
    assert_eq!(t("sm_100f").variant, TargetVariant::FamilySpecific);
    assert!(t("compute_90").is_virtual);
    for bad in [
        "sm_", "sm_x", "sm_90b", "gfx90a", "sm_100af", "", "sm_99999",
    ] {
        assert!(Target::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn families_follow_ptxas() {
    // sm_100f covers sm_100 and later members of family 10 (sm_103, sm_107), in their a and f
    // variants, and nothing of other families; the plain targets are never family targets.
    for (target, base, expected) in [
        ("sm_100f", 100, true),
        ("sm_100a", 100, true),
        ("sm_103a", 100, true),
        ("sm_103f", 100, true),
        ("sm_107f", 100, true),
        ("sm_103", 100, false),
        ("sm_110f", 100, false),
        ("sm_100f", 103, false),
        ("sm_101f", 110, true),
        ("sm_101a", 110, true),
        ("sm_121a", 120, true),
        ("sm_121f", 120, true),
        ("sm_120", 120, false),
    ] {
        assert_eq!(
            t(target).in_family_of(base),
            expected,
            "{target} in sm_{base}f"
        );
    }
    assert_eq!(t("sm_101a").canonical_number(), 110);
}

#[test]
fn version_target_compatibility() {
    let v = |s| PtxVersion::parse(s).expect("version");
    let e = check_module(t("sm_100a"), v("8.5")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "PTX .version 8.5 does not support .target sm_100a; it needs .version 8.6 or later"
    );
    assert!(check_module(t("sm_100a"), v("8.6")).is_ok());
    assert!(check_module(t("sm_100f"), v("8.7")).is_err());
    assert!(check_module(t("sm_88"), v("9.0")).is_ok());
    assert!(check_module(t("sm_999"), v("9.1")).is_err());
}

#[test]
fn unmet_messages() {
    let v = |s| PtxVersion::parse(s).expect("version");
    let form = decode("cvt", &["rn", "satfinite", "e2m1x2", "f32"]).expect("decodes");
    let req = requirements(&form);
    let e = satisfied(&req, t("sm_90"), v("9.1")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cvt.rn.satfinite.e2m1x2.f32 needs sm_100a, sm_110a, sm_120a or an sm_100f/sm_110f/sm_120f family target; this module targets sm_90"
    );
    for ok in [
        "sm_100a", "sm_101a", "sm_103a", "sm_103f", "sm_110f", "sm_120a", "sm_121f",
    ] {
        assert!(satisfied(&req, t(ok), v("9.1")).is_ok(), "{ok}");
    }
    assert!(satisfied(&req, t("sm_103"), v("9.1")).is_err());
    // sm_100a has it from 8.6; the family targets only from 8.8.
    assert!(satisfied(&req, t("sm_100a"), v("8.6")).is_ok());

    let form = decode("cvt", &["rn", "satfinite", "e4m3x2", "f32"]).expect("decodes");
    let e = satisfied(&requirements(&form), t("sm_89"), v("7.8")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cvt.rn.satfinite.e4m3x2.f32 needs PTX ISA version 8.1 or later on sm_89; this module declares .version 7.8"
    );
    assert!(satisfied(&requirements(&form), t("sm_90"), v("7.8")).is_ok());

    let form = decode("mov", &["b128"]).expect("decodes");
    assert!(satisfied(&requirements(&form), t("sm_70"), v("8.2")).is_err());
    assert!(satisfied(&requirements(&form), t("sm_70"), v("8.3")).is_ok());
}

#[test]
fn unmet_gates_point_at_their_modifier() {
    let v = |s| PtxVersion::parse(s).expect("version");
    let form = decode("cvt", &["rs", "relu", "satfinite", "f16x2", "f32"]).expect("decodes");
    let e = satisfied(&requirements(&form), t("sm_75"), v("7.0")).unwrap_err();
    let modifiers: Vec<(&str, Option<usize>)> = e
        .gates
        .iter()
        .map(|g| (g.gate.feature, g.modifier))
        .collect();
    assert_eq!(
        modifiers,
        [
            ("cvt .relu", Some(1)),
            ("cvt to .f16x2/.bf16/.bf16x2/.tf32", Some(3)),
            (
                "cvt.satfinite.{f16, bf16, f16x2, bf16x2, tf32}.f32",
                Some(2)
            ),
            ("cvt .rs rounding", Some(0)),
        ]
    );
    let form = decode("cvt", &["pack", "sat", "u4", "s32", "b32"]).expect("decodes");
    let e = satisfied(&requirements(&form), t("sm_72"), v("6.5")).unwrap_err();
    assert_eq!(
        e.gates.iter().map(|g| g.modifier).collect::<Vec<_>>(),
        [Some(2)]
    );
}
