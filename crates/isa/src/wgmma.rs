//! `wgmma` (PTX ISA 9.7.15.5.2, 9.7.15.6-7): the warpgroup-level matrix multiply-accumulate
//! `wgmma.mma_async` and its ordering instructions `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group`, decoded into a [`WgmmaOp`].
//!
//! The `wgmma.mma_async` forms are the rows of the ISA's syntax blocks: `.f16`/`.bf16` (k16),
//! `.tf32` (k8), FP8 `.e4m3`/`.e5m2` in any mix (k32) with `.f16` or `.f32` accumulators,
//! `.s8`/`.u8` (k32, `.s32`, `.satfinite` optional, a shorter list of `n`) and the single-bit
//! `.s32.b1.b1.and.popc` (k256, the integer `n`). `.sp` is recognised and reported as not
//! supported. Every form is
//! arch-specific: ptxas 13.5 rejects them on `sm_90` ("Instruction 'wgmma.mma_async with
//! floating point types' not supported on .target 'sm_90'"; `crates/isa/tests/wgmma.rs` keeps
//! the probes).

use crate::form::{DecodeError, DecodeErrorKind, Location, RuleCode, Violation};
use crate::mma::{BitOp, MmaType};
use crate::opcode::Opcode;

/// One `wgmma.mma_async.sync.aligned.shape{.satfinite}.dtype.atype.btype` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WgmmaForm {
    /// Columns of B and D (`m` is always 64).
    pub n: u16,
    /// Columns of A, rows of B: 8 (`.tf32`), 16 (`.f16`/`.bf16`), 32 (8-bit types) or 256
    /// (`.b1`).
    pub k: u16,
    /// `.satfinite` (integer forms).
    pub satfinite: bool,
    /// `.and.popc` of the single-bit form ("wgmma.mma_async.sync.aligned.shape.s32.b1.b1.op.
    /// popc", `.op = {.and}`).
    pub bit_op: Option<BitOp>,
    /// `.dtype`.
    pub d: MmaType,
    /// `.atype`.
    pub a: MmaType,
    /// `.btype`.
    pub b: MmaType,
}

/// Rows of A and D of every `wgmma.mma_async` shape.
pub const M: usize = 64;

/// Threads of a warpgroup: "a set of four contiguous warps" (9.7.15.1).
pub const WARPGROUP_THREADS: usize = 128;

impl WgmmaForm {
    /// Registers of `d` per thread: `N/2` `.f32`/`.s32` registers, `N/4` `.f16x2` registers
    /// (9.7.15.5.1.1, "Accumulator D").
    pub fn d_registers(&self) -> usize {
        if self.d == MmaType::F16 {
            usize::from(self.n) / 4
        } else {
            usize::from(self.n) / 2
        }
    }

    /// Whether the form takes `imm-scale-a`/`imm-scale-b` (the floating-point forms).
    pub fn is_float(&self) -> bool {
        !self.a.is_integer()
    }

    /// Whether the form takes `imm-trans-a`/`imm-trans-b`: "The transpose operation is only
    /// supported for the wgmma.mma_async variants with .f16/ .bf16 types".
    pub fn transposes(&self) -> bool {
        matches!(self.a, MmaType::F16 | MmaType::Bf16)
    }

    /// The operands after `d, a, b-desc`, as the syntax names them: `scale-d` and the
    /// immediates of the form (`imm-trans-a` only with A from a descriptor).
    pub fn tail(&self, a_from_registers: bool) -> &'static [&'static str] {
        match (self.is_float(), self.transposes(), a_from_registers) {
            (false, _, _) => &["scale-d"],
            (true, false, _) => &["scale-d", "imm-scale-a", "imm-scale-b"],
            (true, true, true) => &["scale-d", "imm-scale-a", "imm-scale-b", "imm-trans-b"],
            (true, true, false) => &[
                "scale-d",
                "imm-scale-a",
                "imm-scale-b",
                "imm-trans-a",
                "imm-trans-b",
            ],
        }
    }

    /// Whether `.atype` and `.btype` are `.s8` and `.u8` in either order (PTX ISA 8.4; ptxas
    /// 13.5: "Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4 or
    /// later").
    pub fn mixed_integer(&self) -> bool {
        self.a.is_int8() && self.a != self.b
    }

    /// The modifiers after `wgmma.mma_async.sync.aligned`, for messages.
    pub fn name(&self) -> String {
        format!(
            "m64n{}k{}{}.{}.{}.{}{}",
            self.n,
            self.k,
            if self.satfinite { ".satfinite" } else { "" },
            self.d.name(),
            self.a.name(),
            self.b.name(),
            self.bit_op
                .map_or(String::new(), |op| format!(".{}.popc", op.name()))
        )
    }
}

/// A decoded `wgmma` instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WgmmaOp {
    /// `wgmma.mma_async.sync.aligned...`.
    Mma(WgmmaForm),
    /// `wgmma.fence.sync.aligned`.
    Fence,
    /// `wgmma.commit_group.sync.aligned`.
    CommitGroup,
    /// `wgmma.wait_group.sync.aligned N`.
    WaitGroup,
}

fn error(index: Option<usize>, message: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::UnknownModifier, index, message)
}

/// Decodes the modifiers of `wgmma` (9.7.15.5.2, 9.7.15.6-7, "Syntax").
pub fn decode_wgmma(modifiers: &[&str]) -> Result<WgmmaOp, DecodeError> {
    let Some((&first, rest)) = modifiers.split_first() else {
        return Err(error(
            None,
            "wgmma needs an operation: .mma_async, .fence, .commit_group or .wait_group",
        ));
    };
    let mut sync = false;
    let mut aligned = false;
    let mut satfinite = false;
    let mut shape: Option<(u16, u16)> = None;
    let mut types: Vec<MmaType> = Vec::new();
    // `.and`/`.xor` and the position of the `.popc` that must follow it (ptxas 13.5: "Illegal
    // reduction operation" for `.popc.and`).
    let mut bit_op: Option<(usize, BitOp)> = None;
    let mut popc: Option<usize> = None;
    for (offset, &m) in rest.iter().enumerate() {
        let index = offset + 1;
        match m {
            "sync" => sync = true,
            "aligned" => aligned = true,
            "satfinite" if first == "mma_async" => satfinite = true,
            "and" | "xor" if first == "mma_async" && bit_op.is_some() => {
                return Err(error(Some(index), format!(".{m} is written twice")));
            }
            "and" if first == "mma_async" => bit_op = Some((index, BitOp::And)),
            "xor" if first == "mma_async" => bit_op = Some((index, BitOp::Xor)),
            "popc" if first == "mma_async" && popc.is_some() => {
                return Err(error(Some(index), ".popc is written twice"));
            }
            "popc" if first == "mma_async" => popc = Some(index),
            _ if first == "mma_async" => {
                if let Some(t) = type_from_name(m) {
                    types.push(t);
                } else if let Some(s) = parse_shape(m) {
                    if shape.replace(s).is_some() {
                        return Err(error(Some(index), "wgmma.mma_async takes one shape"));
                    }
                } else if m == "sp" {
                    return Err(unsupported("wgmma.mma_async.sp (sparse)"));
                } else {
                    return Err(error(
                        Some(index),
                        format!(".{m} is not a modifier of wgmma.mma_async"),
                    ));
                }
            }
            _ => {
                return Err(error(
                    Some(index),
                    format!(".{m} is not a modifier of wgmma.{first}"),
                ));
            }
        }
    }
    let op = match first {
        "mma_async" => None,
        "fence" => Some(WgmmaOp::Fence),
        "commit_group" => Some(WgmmaOp::CommitGroup),
        "wait_group" => Some(WgmmaOp::WaitGroup),
        "sp" => return Err(unsupported("wgmma.mma_async.sp (sparse)")),
        other => {
            return Err(error(
                Some(0),
                format!(
                    ".{other} is not a wgmma operation (mma_async, fence, commit_group, wait_group)"
                ),
            ));
        }
    };
    // ptxas 13.5: ".sync modifier required for instruction 'wgmma.mma_async'".
    if !sync {
        return Err(error(None, format!("wgmma.{first} needs .sync"))
            .with_fix(format!("write wgmma.{first}.sync.aligned")));
    }
    if !aligned {
        return Err(error(None, format!("wgmma.{first} needs .aligned"))
            .with_fix(format!("write wgmma.{first}.sync.aligned")));
    }
    if let Some(op) = op {
        return Ok(op);
    }
    let bit_op = match (bit_op, popc) {
        (None, None) => None,
        (Some((at, op)), Some(popc_at)) if popc_at == at + 1 => Some(op),
        (Some(_), None) => {
            return Err(error(None, "a single-bit wgmma.mma_async needs .and.popc")
                .with_fix("write .and.popc"));
        }
        (_, Some(popc_at)) => {
            return Err(error(
                Some(popc_at),
                ".popc follows the operation of a single-bit wgmma.mma_async (.and.popc)",
            ));
        }
    };
    let Some((n, k)) = shape else {
        return Err(error(
            None,
            "wgmma.mma_async needs a shape such as .m64n64k16",
        ));
    };
    let [d, a, b] = types[..] else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "wgmma.mma_async needs three types: .dtype.atype.btype",
        ));
    };
    let form = WgmmaForm {
        n,
        k,
        satfinite,
        bit_op,
        d,
        a,
        b,
    };
    validate(&form)?;
    Ok(WgmmaOp::Mma(form))
}

fn unsupported(what: &str) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnsupportedInstruction(Opcode::Wgmma),
        None,
        format!("{what} is not supported by ptxsim yet"),
    )
}

fn type_from_name(name: &str) -> Option<MmaType> {
    Some(match name {
        "f16" => MmaType::F16,
        "bf16" => MmaType::Bf16,
        "tf32" => MmaType::Tf32,
        "e4m3" => MmaType::E4m3,
        "e5m2" => MmaType::E5m2,
        "s8" => MmaType::S8,
        "u8" => MmaType::U8,
        "b1" => MmaType::B1,
        "f32" => MmaType::F32,
        "s32" => MmaType::S32,
        _ => return None,
    })
}

/// `.m64nNkK`: `(N, K)`.
fn parse_shape(m: &str) -> Option<(u16, u16)> {
    let rest = m.strip_prefix("m64n")?;
    let (n, k) = rest.split_once('k')?;
    Some((n.parse().ok()?, k.parse().ok()?))
}

/// The shape and type rows of the ISA's syntax (ptxas 13.5: "Unexpected instruction types
/// specified for 'wgmma.mma_async'", "Illegal matrix shape '.m64n40k32' for instruction
/// 'wgmma.mma_async with integer types'").
fn validate(f: &WgmmaForm) -> Result<(), DecodeError> {
    use MmaType::*;
    // Floating point: N = 8*i, i = 1..32. Integer: N = 8*i, i = 1..4, or 16*i, i = 3..14
    // (the syntax block's list ends at .m64n224k32).
    let n = f.n;
    let float_n = n % 8 == 0 && (8..=256).contains(&n);
    let integer_n =
        (n % 8 == 0 && (8..=32).contains(&n)) || (n % 16 == 0 && (48..=224).contains(&n));
    let ok = match (f.a, f.b) {
        (F16, F16) => f.k == 16 && matches!(f.d, F16 | F32) && float_n,
        (Bf16, Bf16) => f.k == 16 && f.d == F32 && float_n,
        (Tf32, Tf32) => f.k == 8 && f.d == F32 && float_n,
        (E4m3 | E5m2, E4m3 | E5m2) => f.k == 32 && matches!(f.d, F16 | F32) && float_n,
        (S8 | U8, S8 | U8) => f.k == 32 && f.d == S32 && integer_n,
        // ptxas 13.5: "Incorrect operations specified for wgmma.mma_async with boolean type"
        // for `.xor.popc`, "Boolean operation is required" without one.
        (B1, B1) => f.k == 256 && f.d == S32 && integer_n && f.bit_op == Some(BitOp::And),
        _ => false,
    } && (f.bit_op.is_none() || f.a == B1);
    let satfinite_ok = !f.satfinite || f.a.is_int8();
    if !ok || !satfinite_ok {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            None,
            format!(
                "wgmma.mma_async.sync.aligned.{} is not a form of the PTX ISA",
                f.name()
            ),
        ));
    }
    Ok(())
}

/// The value rules of the immediates after `scale-d` (which operand kinds do not show):
/// "The valid values of imm-scale-a and imm-scale-b are -1 and 1", "The valid values of
/// imm-trans-a and imm-trans-b are 0 and 1" (ptxas 13.5: "Argument 4 of instruction
/// 'wgmma.mma_async with floating point types': unexpected value '2', expected to be -1 or 1").
/// `values[i]` is the integer value of operand `i` when it is an integer immediate (operands
/// past the end are left to the operand-count rule).
pub fn immediate_violation(
    form: &WgmmaForm,
    a_from_registers: bool,
    values: &[Option<i128>],
) -> Option<Violation> {
    for (offset, &name) in form.tail(a_from_registers).iter().enumerate().skip(1) {
        let index = 3 + offset;
        let allowed: &[i128] = if name.starts_with("imm-scale") {
            &[-1, 1]
        } else {
            &[0, 1]
        };
        let value = values.get(index)?;
        let message = match *value {
            Some(value) if allowed.contains(&value) => continue,
            Some(value) => format!(
                "{name} must be {} or {}, not {value}",
                allowed[0], allowed[1]
            ),
            None => format!("{name} must be an integer constant"),
        };
        return Some(Violation::new(
            RuleCode::ConstantValue,
            Location::Operand(index),
            message,
        ));
    }
    None
}
