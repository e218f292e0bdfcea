//! The instruction coverage table of docs/isa.md, rendered from the tables of this crate so the
//! docs cannot drift (style rule 1).

use std::fmt::Write as _;

use crate::cvt::{CVT_SYNTAX, CvtForm, CvtSyntax, Presence, RoundingRule, describe_types};
use crate::form::Indexed;
use crate::gating::{Applies, CvtFlag, GATES, Gate, Support, TargetSet};
use crate::layout::{RegisterRule, SlotShape};
use crate::mov::{MOV_PACK_TYPES, MOV_TYPES};
use crate::opcode::{Opcode, Rounding};
use crate::types::Type;

fn intersects(a: &[Type], b: &[Type]) -> bool {
    a.iter().any(|t| b.contains(t))
}

fn gate_touches(gate: &Gate, line: &CvtSyntax) -> bool {
    let Applies::Cvt {
        destination,
        source,
        either,
        rounding,
        flag,
    } = gate.applies
    else {
        return false;
    };
    let roundings: &[Rounding] = match line.rounding {
        RoundingRule::ByConversion => &[
            Rounding::Rn,
            Rounding::Rz,
            Rounding::Rm,
            Rounding::Rp,
            Rounding::Rni,
            Rounding::Rzi,
            Rounding::Rmi,
            Rounding::Rpi,
        ],
        RoundingRule::OneOf(list) => list,
    };
    destination.is_none_or(|d| intersects(d, line.destination))
        && source.is_none_or(|s| intersects(s, line.source))
        && either.is_none_or(|e| intersects(e, line.destination) || intersects(e, line.source))
        && rounding.is_none_or(|r| r.iter().any(|x| roundings.contains(x)))
        && flag.is_none_or(|f| match f {
            CvtFlag::Relu => line.relu,
            CvtFlag::Satfinite => line.satfinite != Presence::Forbidden,
            CvtFlag::Ftz => line.ftz_sat,
        })
        && gate.feature != "cvt"
}

fn describe_support(support: &[Support]) -> String {
    let parts: Vec<String> = support
        .iter()
        .map(|s| match s.targets {
            TargetSet::Any => format!("PTX {}", s.since),
            _ => format!("PTX {} on {}", s.since, s.targets.describe()),
        })
        .collect();
    parts.join("; or ")
}

/// The operand registers of a syntax line, from the layout of its first type pair.
fn operand_summary(line: &'static CvtSyntax) -> String {
    if line.ftz_sat {
        return "Tables 27/28; exact size when a side is .bf16 (.bf16 in .b16)".to_string();
    }
    let (Some(&d), Some(&a)) = (line.destination.first(), line.source.first()) else {
        return String::new();
    };
    let form = CvtForm {
        destination: Indexed { value: d, index: 0 },
        source: Indexed { value: a, index: 1 },
        rounding: None,
        ftz: None,
        sat: None,
        relu: None,
        satfinite: None,
        scaled: line.scaled.then_some(2),
        syntax: line,
    };
    let slots: Vec<String> = form
        .layout()
        .iter()
        .map(|slot| {
            let rule = match slot.shape {
                SlotShape::Scalar(rule)
                | SlotShape::Vector { element: rule, .. }
                | SlotShape::ScalarOrSingle(rule)
                | SlotShape::ScalarOrSymbol(rule)
                | SlotShape::ScalarOrSink(rule) => rule,
                SlotShape::Address => return format!("{}: [address]", slot.name),
                SlotShape::Label => return format!("{}: label", slot.name),
            };
            let text = match rule {
                RegisterRule::OneOf(types) => types
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join("/"),
                RegisterRule::RelaxedSource(t) => format!("{t} (Table 27)"),
                RegisterRule::RelaxedDestination(t) => format!("{t} (Table 28)"),
                RegisterRule::SameSize(t) => format!("{t}-sized"),
                RegisterRule::Constant => "constant".to_string(),
            };
            let optional = if slot.name == "scale-factor" {
                " (optional)"
            } else {
                ""
            };
            format!("{}: {text}{optional}", slot.name)
        })
        .collect();
    slots.join("; ")
}

const OPCODES_HEADER: &str = "\n## Opcodes\n\n\
Every instruction name of the PTX ISA (section numbers of PTX ISA 9.1). Every instruction is \
parsed (the grammar is structural). *Checked* says what `ptxsim check` validates against the \
table (ptxas 13.5's verdicts on 74,565 generated variants of these opcodes agree, \
`tests/conformance/ops-*.tsv`, besides documented divergences); an unknown name is an error \
(E0300). *Compared with hardware* counts the forms run on an sm_90 GPU form by form \
(`tests/hardware`, `docs/hardware.md`); the sample kernels compare whole kernels besides.\n\n\
| opcode | PTX ISA section | checked | runs | compared with hardware | decoded and checked, not run yet |\n\
|---|---|---|---|---|---|\n";

/// The forms of a decoded opcode that `ptxsim check` accepts but `run` reports as unsupported.
fn not_run(op: Opcode) -> &'static str {
    match op {
        Opcode::Addc | Opcode::Subc | Opcode::Madc => {
            "16-bit types and `.sat` (accepted by ptxas, not in the ISA's syntax)"
        }
        Opcode::Testp => "`testp.type` without a property (accepted by ptxas, not in the ISA)",
        Opcode::Cp => "`cp.async.bulk`'s `.cp_mask` (gated)",
        Opcode::Mma => {
            "the sparse `mma.sp` `.block_scale` forms (fragment vectors, operand counts and \
             gates checked)"
        }
        Opcode::Tcgen05 => {
            "the decompressing `tcgen05.cp` (`.b8x16`), `tcgen05.mma` `.sp` with M = 64, \
             `.cta_group::2`, `.ws` or block scaling, `.ws` with A in tensor memory below \
             M = 128 or a zero-column mask, A transposed for FP6/FP4, block scaling with 64 rows a \
             CTA of a pair (M = 128), `scale-input-d` with an `.f16` D (trap at run)"
        }
        _ => "",
    }
}

/// Renders docs/isa.md. `compared` lists, per opcode, how many of its forms were compared with
/// a GPU form by form (the test that keeps docs/isa.md current reads them from
/// `tests/hardware`).
pub fn render_isa_markdown(compared: &[(String, usize)]) -> String {
    let mut out = String::new();
    out.push_str("# Instruction coverage\n\n");
    out.push_str(
        "Generated from the tables of `crates/isa` by `ptxsim_isa::coverage::render_isa_markdown`; \
         do not edit. Regenerate with `PTXSIM_BLESS=1 cargo test -p ptxsim-isa --test docs`.\n\n",
    );
    out.push_str("## cvt (PTX ISA 9.7.9.21)\n\n");
    out.push_str("One row per line of the spec's Syntax block. Requirements list every PTX ISA / target note that can apply to a form of the line.\n\n");
    out.push_str(
        "| syntax | .dtype | .atype | .satfinite | operand registers | requirements |\n|---|---|---|---|---|---|\n",
    );
    for line in CVT_SYNTAX {
        let gates: Vec<String> = GATES
            .iter()
            .filter(|g| gate_touches(g, line))
            .map(|g| format!("{}: {}", g.feature, describe_support(g.support)))
            .collect();
        let satfinite = match line.satfinite {
            Presence::Forbidden => "no",
            Presence::Optional => "optional",
            Presence::Required => "required",
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            line.syntax.replace('|', "\\|"),
            describe_types(line.destination),
            describe_types(line.source),
            satfinite,
            operand_summary(line),
            if gates.is_empty() {
                "PTX 1.0".to_string()
            } else {
                gates.join("<br>")
            }
        );
    }
    out.push_str("\n## cvt.pack (PTX ISA 9.7.9.22)\n\n| syntax | requirements |\n|---|---|\n");
    for (syntax, sub_byte) in [
        ("cvt.pack.sat.{u16,s16}.s32 d, a, b", false),
        ("cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c", false),
        ("cvt.pack.sat.{u4,s4,u2,s2}.s32.b32 d, a, b, c", true),
    ] {
        let gates: Vec<String> = GATES
            .iter()
            .filter(|g| matches!(g.applies, Applies::CvtPack { sub_byte: s } if !s || sub_byte))
            .map(|g| format!("{}: {}", g.feature, describe_support(g.support)))
            .collect();
        let _ = writeln!(out, "| `{syntax}` | {} |", gates.join("<br>"));
    }
    out.push_str("\n## mov (PTX ISA 9.7.9.4)\n\n| form | types | requirements |\n|---|---|---|\n");
    let names = |types: &[Type]| {
        types
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let b128 = GATES
        .iter()
        .filter(|g| g.applies == Applies::Mov(Some(Type::B128)))
        .map(|g| format!("{}: {}", g.feature, describe_support(g.support)))
        .collect::<Vec<_>>()
        .join("<br>");
    let _ = writeln!(
        out,
        "| `mov.type d, a` | {} | PTX 1.0; {b128} |",
        names(MOV_TYPES)
    );
    let _ = writeln!(
        out,
        "| `mov.type d, {{a, b(, c, e)}}` / `mov.type {{d, e(, f, g)}}, a` (sink `_` in destination vectors) | {} | PTX 1.0; {b128} |",
        names(MOV_PACK_TYPES)
    );
    out.push_str(OPCODES_HEADER);
    for &op in Opcode::ALL {
        let (checked, runs) = if op == Opcode::St {
            (
                "modifiers, operands, target and version (`st.async`, `st.bulk`: Syntax-block \
                 table, tests/conformance/async-stores.tsv.xz)",
                "yes (`st.async` completes on its mbarrier as it issues; docs/clusters.md)",
            )
        } else if op == Opcode::Red {
            (
                "modifiers, operands, target and version (`red.async`: Syntax-block table, \
                 tests/conformance/async-stores.tsv.xz)",
                "yes (`red.async` completes on its mbarrier as it issues; docs/clusters.md)",
            )
        } else if op.is_decoded() {
            ("modifiers, operands, target and version", "yes")
        } else if op == Opcode::Tcgen05 {
            (
                "alloc, dealloc, relinquish_alloc_permit, ld, st, cp, shift, commit, wait, fence: \
                 modifiers, operands, target and version (Syntax-block table; \
                 tests/conformance/tcgen05.tsv); mma: target and version (its operands when it \
                 runs)",
                "`.cta_group::1`: alloc, dealloc, relinquish_alloc_permit, ld, st, wait, fence, \
                 cp (`.128x256b`, `.4x256b`, `.128x128b`, the multicast `.32x128b.warpx4` and \
                 `.64x128b.warpx2::02_13`/`::01_23`), shift, commit (also \
                 `.multicast::cluster`), mma (M = 64 and 128; FP8/FP6/FP4 `.kind::f8f6f4`; \
                 `.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4` `.block_scale` at M = 64 and 128), \
                 mma.ws (M = 32, 64, 128; the B collector buffers); \
                 `.cta_group::2` (a CTA pair of a cluster): alloc, dealloc, \
                 relinquish_alloc_permit, cp, shift, commit, mma (M = 128 and 256; \
                 block-scaled at M = 256); docs/tensor-cores.md",
            )
        } else if matches!(
            op,
            Opcode::Alloca | Opcode::Stacksave | Opcode::Stackrestore | Opcode::Pmevent
        ) {
            (
                "modifiers, operands, target and version (Syntax-block table)",
                "yes (a 1 KiB stack per thread; `pmevent` does nothing: docs/executor.md, \
                 \"The stack\")",
            )
        } else if op == Opcode::Clusterlaunchcontrol {
            (
                "modifiers, operands, target and version (Syntax-block table; \
                 tests/conformance/clusterlaunchcontrol.tsv)",
                "yes (`try_cancel` cancels no cluster: every response says the request failed, \
                 docs/clusters.md)",
            )
        } else if op == Opcode::Brx {
            (
                "modifiers, operands, target and version (Syntax-block table); `tlist` a \
                 `.branchtargets` list",
                "yes (an index past the list traps)",
            )
        } else if !crate::syntax::forms(op).is_empty() {
            (
                "modifiers, operands, target and version (Syntax-block table)",
                "no: `run` stops there with \"unsupported instruction\" and its line",
            )
        } else if crate::syntax::OPCODE_GATES.iter().any(|g| g.opcode == op) {
            (
                "target and version",
                "no: `run` stops there with \"unsupported instruction\" and its line",
            )
        } else {
            (
                "name only",
                "no: `run` stops there with \"unsupported instruction\" and its line",
            )
        };
        let hardware = match compared.iter().find(|(name, _)| name == op.name()) {
            Some((_, 1)) => "1 form".to_string(),
            Some((_, forms)) => format!("{forms} forms"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {checked} | {runs} | {hardware} | {} |",
            op.name(),
            op.section(),
            not_run(op)
        );
    }
    out
}
