//! Target and PTX ISA version requirements of instruction forms, as data: every "introduced in
//! PTX ISA version" (PTX ISA Notes) and "requires"/"supported on" (Target ISA Notes) sentence
//! of the cvt, cvt.pack and mov sections is one [`Gate`] of [`GATES`].

use std::fmt;

use crate::cvt::CvtForm;
use crate::form::Form;
use crate::opcode::Rounding;
use crate::target::{PtxVersion, Target, TargetVariant};
use crate::types::Type;

use Type::*;

/// The targets a feature is available on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetSet {
    /// Every target.
    Any,
    /// `sm_XX` or higher, any variant (after the sm_101 -> sm_110 renaming).
    AtLeast(u32),
    /// Targets below `sm_XX` from the given PTX ISA version on, and every target below that
    /// version (a feature later targets dropped at that version: ptxas 13.5, "Instruction
    /// 'vote' without '.sync' is not supported on .target sm_70 and higher from PTX ISA
    /// version 6.4").
    Below(u32, PtxVersion),
    /// The listed arch-specific targets (`sm_XXa`), and every family- or arch-specific target
    /// "`sm_XXf` or higher in the same family" of the listed family bases.
    Specific {
        /// Arch-specific architectures by number (`sm_100a` -> 100).
        arch: &'static [u32],
        /// Family bases (`sm_100f` -> 100).
        families: &'static [u32],
    },
}

impl TargetSet {
    /// Whether a target is in the set.
    pub fn contains(&self, target: Target) -> bool {
        match *self {
            TargetSet::Any => true,
            TargetSet::AtLeast(number) => target.canonical_number() >= number,
            TargetSet::Below(number, _) => target.canonical_number() < number,
            TargetSet::Specific { arch, families } => {
                (target.variant == TargetVariant::ArchSpecific
                    && arch.contains(&target.canonical_number()))
                    || families.iter().any(|&base| target.in_family_of(base))
            }
        }
    }

    /// In words, e.g. "sm_100a, sm_110a, sm_120a or an sm_100f/sm_110f/sm_120f family target".
    pub fn describe(&self) -> String {
        match *self {
            TargetSet::Any => "any target".to_string(),
            TargetSet::AtLeast(number) => format!("sm_{number} or higher"),
            TargetSet::Below(number, from) => {
                format!("a target below sm_{number} (from PTX ISA {from} on)")
            }
            TargetSet::Specific { .. } => describe_targets(&[Support {
                since: PtxVersion::new(1, 0),
                targets: *self,
            }]),
        }
    }
}

/// One way to have a feature: a PTX ISA version and a set of targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The `.version` that introduced it for these targets.
    pub since: PtxVersion,
    /// The targets.
    pub targets: TargetSet,
}

/// Which forms a gate applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// A cvt whose types and modifiers match every given field.
    Cvt {
        /// `.dtype` is one of these.
        destination: Option<&'static [Type]>,
        /// `.atype` is one of these.
        source: Option<&'static [Type]>,
        /// `.dtype` or `.atype` is one of these.
        either: Option<&'static [Type]>,
        /// The rounding is one of these.
        rounding: Option<&'static [Rounding]>,
        /// This modifier is present.
        flag: Option<CvtFlag>,
    },
    /// Every `cvt.pack`, or those with a sub-byte `.convertType`.
    CvtPack {
        /// Only `.u4`/`.s4`/`.u2`/`.s2`.
        sub_byte: bool,
    },
    /// Every `mov` (`None`) or `mov` with this type.
    Mov(Option<Type>),
    /// A feature of the other instructions ([`crate::op_gating`]).
    Op(crate::op_gating::OpFeature),
    /// A gate of the Syntax-block table of instructions known by name ([`crate::syntax`]),
    /// applied by [`crate::syntax::gates`], never by [`requirements`].
    Syntax,
}

/// A cvt flag modifier a gate can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtFlag {
    /// `.relu`
    Relu,
    /// `.satfinite`
    Satfinite,
    /// `.ftz`
    Ftz,
}

/// A requirement sentence of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// The feature as the spec names it.
    pub feature: &'static str,
    /// Which forms it concerns.
    pub applies: Applies,
    /// The alternatives; a form needs one of them.
    pub support: &'static [Support],
}

const fn cvt(
    destination: Option<&'static [Type]>,
    source: Option<&'static [Type]>,
    either: Option<&'static [Type]>,
    rounding: Option<&'static [Rounding]>,
    flag: Option<CvtFlag>,
) -> Applies {
    Applies::Cvt {
        destination,
        source,
        either,
        rounding,
        flag,
    }
}

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

const fn anywhere(since: PtxVersion) -> Support {
    Support {
        since,
        targets: TargetSet::Any,
    }
}

const fn at_least(since: PtxVersion, number: u32) -> Support {
    Support {
        since,
        targets: TargetSet::AtLeast(number),
    }
}

const BF16_SOURCES: &[Type] = &[U8, S8, U16, S16, U32, S32, U64, S64, F16, F64, Bf16];
const BF16_DESTINATIONS: &[Type] = &[U8, S8, U16, S16, U32, S32, U64, S64, F16, F64];
const BLACKWELL_ARCH: &[u32] = &[100, 110, 120];
const BLACKWELL_FAMILIES: &[u32] = &[100, 110, 120];

/// The arch- and family-specific targets of sm_100 and later: sm_100a, sm_101a (renamed
/// sm_110a), sm_103a, sm_110a, sm_120a, sm_121a and the sm_100f, sm_110f and sm_120f families.
pub const BLACKWELL_SPECIFIC: TargetSet = TargetSet::Specific {
    arch: &[100, 101, 103, 110, 120, 121],
    families: BLACKWELL_FAMILIES,
};

/// sm_120a, sm_121a and the sm_120f family (the consumer Blackwell features).
pub const SM120_SPECIFIC: TargetSet = TargetSet::Specific {
    arch: &[120, 121],
    families: &[120],
};
/// "supported on sm_100a, sm_101a (renamed sm_110a), sm_120a, and from PTX ISA 8.8 on
/// sm_100f/sm_101f(sm_110f)/sm_120f or higher in the same family".
const BLACKWELL: &[Support] = &[
    Support {
        since: v(8, 6),
        targets: TargetSet::Specific {
            arch: BLACKWELL_ARCH,
            families: &[],
        },
    },
    Support {
        since: v(8, 8),
        targets: TargetSet::Specific {
            arch: &[],
            families: BLACKWELL_FAMILIES,
        },
    },
];
const BLACKWELL_FAMILY_9_1: &[Support] = &[Support {
    since: v(9, 1),
    targets: TargetSet::Specific {
        arch: &[],
        families: BLACKWELL_FAMILIES,
    },
}];
/// `cvt.rn{.relu}.bf16x2.{f8x2type,f6x2type,f4x2type}` (PTX ISA 9.2, beyond the spec excerpt):
/// ptxas 13.5 accepts it on sm_100a/sm_103a/sm_110a/sm_120a/sm_121a and sm_100f/sm_120f from
/// `.version 9.2`, and rejects it on sm_90 and sm_100.
const BLACKWELL_9_2: &[Support] = &[Support {
    since: v(9, 2),
    targets: TargetSet::Specific {
        arch: BLACKWELL_ARCH,
        families: BLACKWELL_FAMILIES,
    },
}];
/// `.rs` is "supported on sm_100a, sm_103a"; sm_107a, which PTX ISA 9.1 predates (ptxas 13.5
/// accepts it from `.version` 9.4), also has it according to ptxas (docs/divergences.md).
const STOCHASTIC: &[Support] = &[Support {
    since: v(8, 7),
    targets: TargetSet::Specific {
        arch: &[100, 103, 107],
        families: &[],
    },
}];

/// Every gate of the cvt (cvt.md "PTX ISA Notes", "Target ISA Notes"), cvt.pack and mov
/// sections, in the spec's order.
pub const GATES: &[Gate] = &[
    Gate {
        feature: "cvt",
        applies: cvt(None, None, None, None, None),
        support: &[anywhere(v(1, 0))],
    },
    // "cvt to or from .f64 requires sm_13 or higher" (Target ISA notes), but ptxas 13.5
    // assembles `cvt.rzi.s32.f64` for `.target sm_10`-`sm_12` without a word (it takes every
    // `.f64` instruction there, as `map_f64_to_f32` did), so no gate is kept for it
    // (docs/divergences.md D55).
    Gate {
        feature: "cvt .relu",
        applies: cvt(None, None, None, None, Some(CvtFlag::Relu)),
        support: &[at_least(v(7, 0), 80)],
    },
    Gate {
        feature: "cvt to .f16x2/.bf16/.bf16x2/.tf32",
        applies: cvt(Some(&[F16x2, Bf16, Bf16x2, Tf32]), None, None, None, None),
        support: &[at_least(v(7, 0), 80)],
    },
    Gate {
        feature: "cvt.f32.bf16",
        applies: cvt(Some(&[F32]), Some(&[Bf16]), None, None, None),
        support: &[at_least(v(7, 1), 80)],
    },
    Gate {
        feature: "cvt.bf16.{u8/s8/u16/s16/u32/s32/u64/s64/f16/f64/bf16}",
        applies: cvt(Some(&[Bf16]), Some(BF16_SOURCES), None, None, None),
        support: &[at_least(v(7, 8), 90)],
    },
    Gate {
        feature: "cvt.{u8/s8/u16/s16/u32/s32/u64/s64/f16/f64}.bf16",
        applies: cvt(Some(BF16_DESTINATIONS), Some(&[Bf16]), None, None, None),
        support: &[at_least(v(7, 8), 90)],
    },
    Gate {
        feature: "cvt.tf32.f32.{relu}.{rn/rz}",
        applies: cvt(
            Some(&[Tf32]),
            Some(&[F32]),
            None,
            Some(&[Rounding::Rn, Rounding::Rz]),
            None,
        ),
        support: &[at_least(v(7, 8), 90)],
    },
    Gate {
        feature: ".ftz for cvt.f32.bf16",
        applies: cvt(Some(&[F32]), Some(&[Bf16]), None, None, Some(CvtFlag::Ftz)),
        support: &[at_least(v(7, 8), 90)],
    },
    Gate {
        feature: "cvt with .e4m3x2/.e5m2x2",
        applies: cvt(None, None, Some(&[E4m3x2, E5m2x2]), None, None),
        support: &[at_least(v(7, 8), 90), at_least(v(8, 1), 89)],
    },
    Gate {
        feature: "cvt.satfinite.{f16, bf16, f16x2, bf16x2, tf32}.f32",
        applies: cvt(
            Some(&[F16, Bf16, F16x2, Bf16x2, Tf32]),
            Some(&[F32]),
            None,
            None,
            Some(CvtFlag::Satfinite),
        ),
        support: &[anywhere(v(8, 1))],
    },
    Gate {
        feature: "cvt.{rn/rz}.satfinite.tf32.f32",
        applies: cvt(
            Some(&[Tf32]),
            Some(&[F32]),
            None,
            Some(&[Rounding::Rn, Rounding::Rz]),
            Some(CvtFlag::Satfinite),
        ),
        support: &[at_least(v(8, 6), 100)],
    },
    Gate {
        feature: "cvt.rn.satfinite{.relu}.{e2m1x2/e2m3x2/e3m2x2/ue8m0x2}.f32",
        applies: cvt(
            Some(&[E2m1x2, E2m3x2, E3m2x2, Ue8m0x2]),
            Some(&[F32]),
            None,
            None,
            None,
        ),
        support: BLACKWELL,
    },
    Gate {
        feature: "cvt.rn{.relu}.f16x2.{e2m1x2/e2m3x2/e3m2x2}",
        applies: cvt(
            Some(&[F16x2]),
            Some(&[E2m1x2, E2m3x2, E3m2x2]),
            None,
            None,
            None,
        ),
        support: BLACKWELL,
    },
    Gate {
        feature: "cvt.rn{.relu}.bf16x2.{e4m3x2/e5m2x2/e2m1x2/e2m3x2/e3m2x2}",
        applies: cvt(
            Some(&[Bf16x2]),
            Some(&[E4m3x2, E5m2x2, E2m1x2, E2m3x2, E3m2x2]),
            None,
            None,
            None,
        ),
        support: BLACKWELL_9_2,
    },
    Gate {
        feature: "cvt.{rp/rz}{.satfinite}{.relu}.ue8m0x2.bf16x2",
        applies: cvt(Some(&[Ue8m0x2]), Some(&[Bf16x2]), None, None, None),
        support: BLACKWELL,
    },
    Gate {
        feature: "cvt.rn.bf16x2.ue8m0x2",
        applies: cvt(Some(&[Bf16x2]), Some(&[Ue8m0x2]), None, None, None),
        support: BLACKWELL,
    },
    Gate {
        feature: "cvt .rs rounding",
        applies: cvt(None, None, None, Some(&[Rounding::Rs]), None),
        support: STOCHASTIC,
    },
    Gate {
        feature: "cvt.rs{.e2m1x4/.e4m3x4/.e5m2x4/.e3m2x4/.e2m3x4}.f32",
        applies: cvt(
            Some(&[E2m1x4, E4m3x4, E5m2x4, E3m2x4, E2m3x4]),
            Some(&[F32]),
            None,
            None,
            None,
        ),
        support: STOCHASTIC,
    },
    Gate {
        feature: "cvt.rn.satfinite{.relu}{.e5m2x2/.e4m3x2}.bf16x2",
        applies: cvt(Some(&[E5m2x2, E4m3x2]), Some(&[Bf16x2]), None, None, None),
        support: BLACKWELL_FAMILY_9_1,
    },
    Gate {
        feature: "cvt.rn.satfinite{.relu}{.e2m3x2/.e3m2x2/.e2m1x2}{.f16x2/.bf16x2}",
        applies: cvt(
            Some(&[E2m3x2, E3m2x2, E2m1x2]),
            Some(&[F16x2, Bf16x2]),
            None,
            None,
            None,
        ),
        support: BLACKWELL_FAMILY_9_1,
    },
    Gate {
        feature: "cvt with .s2f6x2",
        applies: cvt(None, None, Some(&[S2f6x2]), None, None),
        // The spec lists sm_100a, sm_103a, sm_110a, sm_120a, sm_121a; sm_107a per ptxas 13.5.
        support: &[Support {
            since: v(9, 1),
            targets: TargetSet::Specific {
                arch: &[100, 103, 107, 110, 120, 121],
                families: &[],
            },
        }],
    },
    Gate {
        feature: "cvt.pack",
        applies: Applies::CvtPack { sub_byte: false },
        support: &[at_least(v(6, 5), 72)],
    },
    Gate {
        feature: "cvt.pack with .u4/.s4/.u2/.s2",
        applies: Applies::CvtPack { sub_byte: true },
        support: &[at_least(v(6, 5), 75)],
    },
    Gate {
        feature: "mov",
        applies: Applies::Mov(None),
        support: &[anywhere(v(1, 0))],
    },
    Gate {
        feature: "mov.b128",
        applies: Applies::Mov(Some(B128)),
        support: &[at_least(v(8, 3), 70)],
    },
];

/// The `.b128` type in a declaration (`.reg .b128`, `.param .b128`, `.global .b128`): ptxas
/// says "Feature 'Type .b128' requires PTX ISA .version 8.3 or later" and "requires .target sm_70
/// or higher", the requirement of `mov.b128` ("`.b128` type introduced in PTX ISA version 8.3",
/// "requires `sm_70` or higher"). Not an instruction gate: [`b128_declaration`] applies it.
pub static B128_TYPE: Gate = Gate {
    feature: "the .b128 type",
    applies: Applies::Mov(Some(B128)),
    support: &[at_least(v(8, 3), 70)],
};

/// What declaring something of type `.b128` needs (see [`B128_TYPE`]).
pub fn b128_declaration() -> Requirement {
    Requirement {
        instruction: "the `.b128` type".to_string(),
        gates: vec![AppliedGate {
            gate: &B128_TYPE,
            modifier: None,
        }],
    }
}

fn matches_cvt(applies: &Applies, form: &CvtForm) -> bool {
    let Applies::Cvt {
        destination,
        source,
        either,
        rounding,
        flag,
    } = applies
    else {
        return false;
    };
    let d = form.destination.value;
    let a = form.source.value;
    destination.is_none_or(|list| list.contains(&d))
        && source.is_none_or(|list| list.contains(&a))
        && either.is_none_or(|list| list.contains(&d) || list.contains(&a))
        && rounding.is_none_or(|list| form.rounding.is_some_and(|r| list.contains(&r.value)))
        && flag.is_none_or(|flag| match flag {
            CvtFlag::Relu => form.relu.is_some(),
            CvtFlag::Satfinite => form.satfinite.is_some(),
            CvtFlag::Ftz => form.ftz.is_some(),
        })
}

/// A gate that applies to a form, with the modifier that brings it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppliedGate {
    /// The gate.
    pub gate: &'static Gate,
    /// Index of the modifier that triggers it (the flag, the rounding or the type the gate
    /// names), for the checker's span; `None` when the gate concerns the instruction as a whole.
    pub modifier: Option<usize>,
}

/// What a form needs: every gate that applies to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The form's canonical text, for messages.
    pub instruction: String,
    /// The gates; all must be met.
    pub gates: Vec<AppliedGate>,
}

/// The modifier a cvt gate is about: its flag, else its rounding, else the type it names.
fn cvt_gate_modifier(applies: &Applies, form: &CvtForm) -> Option<usize> {
    let Applies::Cvt {
        destination,
        source,
        either,
        rounding,
        flag,
    } = applies
    else {
        return None;
    };
    if let Some(flag) = flag {
        return match flag {
            CvtFlag::Relu => form.relu,
            CvtFlag::Satfinite => form.satfinite,
            CvtFlag::Ftz => form.ftz,
        };
    }
    if rounding.is_some() && destination.is_none() && source.is_none() {
        return form.rounding.map(|r| r.index);
    }
    if let Some(list) = either {
        return Some(if list.contains(&form.destination.value) {
            form.destination.index
        } else {
            form.source.index
        });
    }
    match (destination, source) {
        (Some(_), None) => Some(form.destination.index),
        (None, Some(_)) => Some(form.source.index),
        (Some(_), Some(_)) => Some(form.source.index),
        (None, None) => None,
    }
}

/// Collects the gates of [`GATES`] that apply to a form.
pub fn requirements(form: &Form) -> Requirement {
    let gates = GATES
        .iter()
        .chain(crate::op_gating::OP_GATES)
        .filter_map(|gate| {
            let modifier = match (form, gate.applies) {
                (Form::Cvt(cvt), applies @ Applies::Cvt { .. }) => {
                    if !matches_cvt(&applies, cvt) {
                        return None;
                    }
                    cvt_gate_modifier(&applies, cvt)
                }
                (Form::CvtPack(pack), Applies::CvtPack { sub_byte }) => {
                    if sub_byte && !matches!(pack.convert.value, U4 | S4 | U2 | S2) {
                        return None;
                    }
                    sub_byte.then_some(pack.convert.index)
                }
                (Form::Mov(mov), Applies::Mov(ty)) => {
                    if ty.is_some_and(|ty| mov.ty.value != ty) {
                        return None;
                    }
                    ty.map(|_| mov.ty.index)
                }
                (Form::Op(op), Applies::Op(feature)) => crate::op_gating::applies(feature, op)?,
                _ => return None,
            };
            Some(AppliedGate { gate, modifier })
        })
        .collect();
    Requirement {
        instruction: form.text(),
        gates,
    }
}

/// One gate a module does not meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmetGate {
    /// The gate.
    pub gate: &'static Gate,
    /// Index of the modifier that brings the gate in, if any (see [`AppliedGate::modifier`]).
    pub modifier: Option<usize>,
    /// Why.
    pub reason: UnmetReason,
}

/// Why a gate is not met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnmetReason {
    /// No alternative lists the module's target.
    Target,
    /// The target is listed but only from a later `.version`.
    Version(PtxVersion),
}

/// The requirements a module does not meet, renderable as a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    /// The instruction, e.g. `cvt.rn.satfinite.e2m1x2.f32`, or `.target` for module checks.
    pub instruction: String,
    /// The module's target.
    pub target: Target,
    /// The module's version.
    pub version: PtxVersion,
    /// Each unmet gate.
    pub gates: Vec<UnmetGate>,
}

impl fmt::Display for Unmet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, unmet) in self.gates.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            match unmet.reason {
                UnmetReason::Target => {
                    write!(
                        f,
                        "{} needs {}; this module targets {}",
                        self.instruction,
                        describe_targets(unmet.gate.support),
                        self.target
                    )?;
                }
                UnmetReason::Version(needed) => write!(
                    f,
                    "{} needs PTX ISA version {needed} or later on {}; this module declares .version {}",
                    self.instruction, self.target, self.version
                )?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for Unmet {}

/// The union of the targets of a gate's alternatives, in words: arch-specific targets and family
/// bases merged into one list ("sm_100a, sm_110a, sm_120a or an sm_100f/sm_110f/sm_120f family
/// target"), or the oldest "sm_XX or higher".
pub fn describe_targets(support: &[Support]) -> String {
    let mut arch: Vec<u32> = Vec::new();
    let mut families: Vec<u32> = Vec::new();
    let mut at_least: Option<u32> = None;
    for s in support {
        match s.targets {
            TargetSet::Any => return TargetSet::Any.describe(),
            below @ TargetSet::Below(..) => return below.describe(),
            TargetSet::AtLeast(n) => at_least = Some(at_least.map_or(n, |m: u32| m.min(n))),
            TargetSet::Specific {
                arch: a,
                families: f,
            } => {
                for &n in a {
                    if !arch.contains(&n) {
                        arch.push(n);
                    }
                }
                for &n in f {
                    if !families.contains(&n) {
                        families.push(n);
                    }
                }
            }
        }
    }
    let mut parts: Vec<String> = arch.iter().map(|n| format!("sm_{n}a")).collect();
    if !families.is_empty() {
        let names: Vec<String> = families.iter().map(|n| format!("sm_{n}f")).collect();
        parts.push(format!("an {} family target", names.join("/")));
    }
    if let Some(n) = at_least {
        parts.push(format!("sm_{n} or higher"));
    }
    match parts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Checks a requirement against a module's `.target` and `.version`.
pub fn satisfied(
    requirement: &Requirement,
    target: Target,
    version: PtxVersion,
) -> Result<(), Unmet> {
    let mut gates = Vec::new();
    for &AppliedGate { gate, modifier } in &requirement.gates {
        let on_target: Vec<&Support> = gate
            .support
            .iter()
            .filter(|s| {
                s.targets.contains(target)
                    || matches!(s.targets, TargetSet::Below(_, from) if version < from)
            })
            .collect();
        if on_target.is_empty() {
            gates.push(UnmetGate {
                gate,
                modifier,
                reason: UnmetReason::Target,
            });
        } else if !on_target.iter().any(|s| version >= s.since) {
            let needed = on_target.iter().map(|s| s.since).min().unwrap_or(version);
            gates.push(UnmetGate {
                gate,
                modifier,
                reason: UnmetReason::Version(needed),
            });
        }
    }
    if gates.is_empty() {
        Ok(())
    } else {
        Err(Unmet {
            instruction: requirement.instruction.clone(),
            target,
            version,
            gates,
        })
    }
}

/// A `.version`/`.target` pair that ptxas rejects ("PTX .version 8.5 does not support
/// .target sm_100a").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleUnsupported {
    /// The target.
    pub target: Target,
    /// The version.
    pub version: PtxVersion,
    /// The oldest version ptxas accepts with the target, if it knows the target.
    pub minimum: Option<PtxVersion>,
}

impl fmt::Display for ModuleUnsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.minimum {
            Some(min) => write!(
                f,
                "PTX .version {} does not support .target {}; it needs .version {min} or later",
                self.version, self.target
            ),
            None => write!(
                f,
                ".target {} is not an architecture ptxas 13.5 knows",
                self.target
            ),
        }
    }
}

impl std::error::Error for ModuleUnsupported {}

/// Checks a module's `.version` against its `.target` ([`Target::min_ptx_version`]).
pub fn check_module(target: Target, version: PtxVersion) -> Result<(), ModuleUnsupported> {
    match target.min_ptx_version() {
        Some(min) if version >= min => Ok(()),
        minimum => Err(ModuleUnsupported {
            target,
            version,
            minimum,
        }),
    }
}
