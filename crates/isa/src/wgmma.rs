//! `wgmma` (PTX ISA 9.7.15.5.2, 9.7.15.6-7): the warpgroup-level matrix multiply-accumulate
//! `wgmma.mma_async` and its ordering instructions `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group`, decoded into a [`WgmmaOp`].
//!
//! The `wgmma.mma_async` forms are the rows of the ISA's syntax blocks: `.f16`/`.bf16` (k16),
//! `.tf32` (k8), FP8 `.e4m3`/`.e5m2` in any mix (k32) with `.f16` or `.f32` accumulators,
//! `.s8`/`.u8` (k32, `.s32`, `.satfinite` optional, a shorter list of `n`) and the single-bit
//! `.s32.b1.b1.and.popc` (k256, the integer `n`), and the sparse `wgmma.mma_async.sp` (9.7.15.6:
//! the same types at twice the `k`, A stored as `M x K/2`, with `sp-meta` and `sp-sel`; no
//! single-bit form). Every form is
//! arch-specific: ptxas 13.5 rejects them on `sm_90` ("Instruction 'wgmma.mma_async with
//! floating point types' not supported on .target 'sm_90'"; `crates/isa/tests/wgmma.rs` keeps
//! the probes).

use crate::form::{DecodeError, DecodeErrorKind, Location, RuleCode, Violation};
use crate::mma::{BitOp, MmaType};

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
    /// `.sp`: A is structured sparse (9.7.15.6, "the MxK matrix A is packed into MxK/2
    /// elements"); `k` is the dense `K`.
    pub sparse: bool,
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

    /// The operands after `d, a-desc|a, b-desc`, as the syntax names them: `sp-meta, sp-sel` of
    /// the sparse forms (9.7.15.6.3, "Syntax"), `scale-d` and the immediates of the form
    /// (`imm-trans-a` only with A from a descriptor).
    pub fn tail(&self, a_from_registers: bool) -> &'static [&'static str] {
        const FULL: [&str; 7] = [
            "sp-meta",
            "sp-sel",
            "scale-d",
            "imm-scale-a",
            "imm-scale-b",
            "imm-trans-a",
            "imm-trans-b",
        ];
        const NO_TRANS_A: [&str; 6] = [
            "sp-meta",
            "sp-sel",
            "scale-d",
            "imm-scale-a",
            "imm-scale-b",
            "imm-trans-b",
        ];
        let names: &'static [&'static str] =
            match (self.is_float(), self.transposes(), a_from_registers) {
                (false, _, _) => &FULL[..3],
                (true, false, _) => &FULL[..5],
                (true, true, true) => &NO_TRANS_A,
                (true, true, false) => &FULL,
            };
        if self.sparse { names } else { &names[2..] }
    }

    /// The sparsity selectors the ISA defines for the sparse form (9.7.15.6.3: "0 (threads T0,
    /// T1) or 1 (threads T2, T3)" for `.tf32`, `.f16`, `.bf16`; "0 (all threads contribute)"
    /// for the 8-bit types); ptxas 13.5 rejects the others ("Argument 4 of instruction 'Sparse
    /// wgmma.mma_async with floating point types': unexpected value '2', expected to be 0 or
    /// 1").
    pub fn sparsity_selectors(&self) -> u32 {
        if self.a.bits() == 8 { 1 } else { 2 }
    }

    /// The `k` of A as stored: half the dense `k` for the sparse forms ("the MxK matrix A is
    /// packed into MxK/2 elements").
    pub fn stored_k(&self) -> u16 {
        if self.sparse { self.k / 2 } else { self.k }
    }

    /// Whether `.atype` and `.btype` are `.s8` and `.u8` in either order (PTX ISA 8.4; ptxas
    /// 13.5: "Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4 or
    /// later").
    pub fn mixed_integer(&self) -> bool {
        self.a.is_int8() && self.a != self.b
    }

    /// The modifiers after `wgmma.mma_async.sync.aligned` (ptxas 13.5 also takes `.sp` there),
    /// for messages.
    pub fn name(&self) -> String {
        format!(
            "{}m64n{}k{}{}.{}.{}.{}{}",
            if self.sparse { "sp." } else { "" },
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
    let mut sparse = false;
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
            // ptxas 13.5 takes `.sp` after `.sync.aligned` as well ("Multiple sparsity
            // modifiers specified" when written twice).
            "sp" if first == "mma_async" && sparse => {
                return Err(error(Some(index), "multiple sparsity modifiers (.sp)"));
            }
            "sp" if first == "mma_async" => sparse = true,
            _ if first == "mma_async" => {
                if let Some(t) = type_from_name(m) {
                    types.push(t);
                } else if let Some(s) = parse_shape(m) {
                    if shape.replace(s).is_some() {
                        return Err(error(Some(index), "wgmma.mma_async takes one shape"));
                    }
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
        sparse,
        d,
        a,
        b,
    };
    validate(&form)?;
    Ok(WgmmaOp::Mma(form))
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
/// 'wgmma.mma_async with integer types'"). The sparse forms (9.7.15.6.3) have twice the dense
/// `k`; the integer and single-bit shapes go on to N = 256, dense and sparse, though the dense
/// syntax block's list ends at `.m64n224k32` (ptxas 13.5 takes `.m64n240k32`, `.m64n256k32`
/// and `.m64n240k256`, as CUTLASS's `SM90_64x256x32_S32S8S8_SS` writes them, and rejects
/// `.m64n40k32`); there is no sparse single-bit form ("Unknown modifier '.m64n8k512'").
fn validate(f: &WgmmaForm) -> Result<(), DecodeError> {
    use MmaType::*;
    // Floating point: N = 8*i, i = 1..32. Integer: N = 8*i, i = 1..4, or 16*i, i = 3..16.
    let n = f.n;
    let float_n = n % 8 == 0 && (8..=256).contains(&n);
    let integer_n =
        (n % 8 == 0 && (8..=32).contains(&n)) || (n % 16 == 0 && (48..=256).contains(&n));
    let k = f.stored_k();
    let ok = match (f.a, f.b) {
        (F16, F16) => k == 16 && matches!(f.d, F16 | F32) && float_n,
        (Bf16, Bf16) => k == 16 && f.d == F32 && float_n,
        (Tf32, Tf32) => k == 8 && f.d == F32 && float_n,
        (E4m3 | E5m2, E4m3 | E5m2) => k == 32 && matches!(f.d, F16 | F32) && float_n,
        (S8 | U8, S8 | U8) => k == 32 && f.d == S32 && integer_n,
        // ptxas 13.5: "Incorrect operations specified for wgmma.mma_async with boolean type"
        // for `.xor.popc`, "Boolean operation is required" without one.
        (B1, B1) => {
            !f.sparse && k == 256 && f.d == S32 && integer_n && f.bit_op == Some(BitOp::And)
        }
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

/// The value rules of the immediates (which operand kinds do not show): "The valid values of
/// imm-scale-a and imm-scale-b are -1 and 1", "The valid values of imm-trans-a and imm-trans-b
/// are 0 and 1" (ptxas 13.5: "Argument 4 of instruction 'wgmma.mma_async with floating point
/// types': unexpected value '2', expected to be -1 or 1"), and `sp-sel` of the sparse forms in
/// [`WgmmaForm::sparsity_selectors`]. `values[i]` is the integer value of operand `i` when it
/// is an integer immediate (operands past the end are left to the operand-count rule).
pub fn immediate_violation(
    form: &WgmmaForm,
    a_from_registers: bool,
    values: &[Option<i128>],
) -> Option<Violation> {
    for (offset, &name) in form.tail(a_from_registers).iter().enumerate() {
        let index = 3 + offset;
        let allowed: &[i128] = match name {
            "sp-meta" | "scale-d" => continue,
            "sp-sel" if form.sparsity_selectors() == 1 => &[0],
            "imm-scale-a" | "imm-scale-b" => &[-1, 1],
            _ => &[0, 1],
        };
        let value = values.get(index)?;
        let message = match *value {
            Some(value) if allowed.contains(&value) => continue,
            Some(value) => match allowed {
                [only] => format!("{name} must be {only}, not {value}"),
                _ => format!(
                    "{name} must be {} or {}, not {value}",
                    allowed[0], allowed[1]
                ),
            },
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
