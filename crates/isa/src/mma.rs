//! `mma.sync.aligned` (PTX ISA 9.7.14.5.14): the shapes and element types of the warp-level
//! matrix multiply-accumulate `D = A * B + C`, decoded into an [`MmaForm`].
//!
//! The forms ptxsim runs are the dense ones of sm_70 to sm_90: `.f16`/`.bf16`/`.tf32`/FP8
//! (`.e4m3`, `.e5m2`) with `.f16` or `.f32` accumulators, `.s8`/`.u8` with `.s32`
//! (`.satfinite` optional) and `.f64`; and sm_120a's `.kind::f8f6f4` (FP8, FP6 `.e3m2`/`.e2m3`
//! and FP4 `.e2m1` operands, each in an 8-bit container) and `.block_scale` forms
//! (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`, 9.7.14.3). The other forms the ISA
//! lists (sub-byte integers, single-bit) are recognised by name and reported as not supported;
//! `mma.sp` is not decoded.

use crate::form::{DecodeError, DecodeErrorKind};
use crate::opcode::Opcode;

/// An element type of an `mma` operand matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmaType {
    /// `.f16`: IEEE binary16.
    F16,
    /// `.bf16`: bfloat16.
    Bf16,
    /// `.tf32`: an `.f32` register of which the tensor core uses sign, exponent and the top 10
    /// fraction bits.
    Tf32,
    /// `.e4m3`: FP8 with 4 exponent bits, no infinity.
    E4m3,
    /// `.e5m2`: FP8 with 5 exponent bits.
    E5m2,
    /// `.e3m2`: FP6 (`.kind::f8f6f4` only): "the matrix element resides in the lower 6 bits of
    /// the 8-bit container with padding in the upper 2 bits".
    E3m2,
    /// `.e2m3`: FP6, in the lower 6 bits of its 8-bit container like `.e3m2`.
    E2m3,
    /// `.e2m1`: FP4 (`.kind::f8f6f4` only): "the matrix element of type .e2m1 resides in central
    /// 4 bits of the 8-bit container with padding in the upper 2 bits and lower 2 bits".
    E2m1,
    /// `.s8`.
    S8,
    /// `.u8`.
    U8,
    /// `.f32`.
    F32,
    /// `.s32`.
    S32,
    /// `.f64`.
    F64,
}

impl MmaType {
    pub(crate) fn from_name(name: &str) -> Option<MmaType> {
        Some(match name {
            "f16" => MmaType::F16,
            "bf16" => MmaType::Bf16,
            "tf32" => MmaType::Tf32,
            "e4m3" => MmaType::E4m3,
            "e5m2" => MmaType::E5m2,
            "e3m2" => MmaType::E3m2,
            "e2m3" => MmaType::E2m3,
            "e2m1" => MmaType::E2m1,
            "s8" => MmaType::S8,
            "u8" => MmaType::U8,
            "f32" => MmaType::F32,
            "s32" => MmaType::S32,
            "f64" => MmaType::F64,
            _ => return None,
        })
    }

    /// The PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            MmaType::F16 => "f16",
            MmaType::Bf16 => "bf16",
            MmaType::Tf32 => "tf32",
            MmaType::E4m3 => "e4m3",
            MmaType::E5m2 => "e5m2",
            MmaType::E3m2 => "e3m2",
            MmaType::E2m3 => "e2m3",
            MmaType::E2m1 => "e2m1",
            MmaType::S8 => "s8",
            MmaType::U8 => "u8",
            MmaType::F32 => "f32",
            MmaType::S32 => "s32",
            MmaType::F64 => "f64",
        }
    }

    /// Bits of one element in its register (`.tf32` occupies a 32-bit register).
    pub const fn bits(self) -> u32 {
        match self {
            MmaType::E4m3
            | MmaType::E5m2
            | MmaType::E3m2
            | MmaType::E2m3
            | MmaType::E2m1
            | MmaType::S8
            | MmaType::U8 => 8,
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::Tf32 | MmaType::F32 | MmaType::S32 => 32,
            MmaType::F64 => 64,
        }
    }

    /// Whether the type is FP8.
    pub const fn is_fp8(self) -> bool {
        matches!(self, MmaType::E4m3 | MmaType::E5m2)
    }

    /// Whether the type is FP6 or FP4 (`.kind::f8f6f4` only).
    pub const fn is_fp6_or_fp4(self) -> bool {
        matches!(self, MmaType::E3m2 | MmaType::E2m3 | MmaType::E2m1)
    }

    /// Whether the type is an 8-bit integer.
    pub const fn is_int8(self) -> bool {
        matches!(self, MmaType::S8 | MmaType::U8)
    }
}

/// One `mma.sync.aligned` form: `mma.sync.aligned.mMnNkK.alayout.blayout{.satfinite}.dtype.
/// atype.btype.ctype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MmaForm {
    /// Rows of A, C and D.
    pub m: u8,
    /// Columns of B, C and D.
    pub n: u8,
    /// Columns of A, rows of B.
    pub k: u8,
    /// `.alayout` is `.row` (else `.col`; only `m8n8k4` with `.f16` takes `.col`).
    pub a_row: bool,
    /// `.blayout` is `.col` (else `.row`).
    pub b_col: bool,
    /// `.satfinite` (integer forms: clamp to the `.s32` range).
    pub satfinite: bool,
    /// `.kind::f8f6f4` (sm_120a: FP8, FP6 and FP4 operands in 8-bit containers).
    pub kind_f8f6f4: bool,
    /// `.block_scale` (sm_120a's `.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`).
    pub block_scale: Option<BlockScale>,
    /// `.dtype`.
    pub d: MmaType,
    /// `.atype`.
    pub a: MmaType,
    /// `.btype`.
    pub b: MmaType,
    /// `.ctype`.
    pub c: MmaType,
}

/// The block scaling of `mma.sync ... .block_scale` (9.7.14.3): `D = (A * scale_A) * (B *
/// scale_B) + C`, `vec` factors per row of A and column of B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockScale {
    /// `.kind::mxf4` or `.kind::mxf4nvf4`: `.e2m1` A and B packed two to a register byte
    /// ("no explicit padding is necessary"), K = 64; else `.kind::mxf8f6f4`, K = 32.
    pub packed_fp4: bool,
    /// `.kind::mxf4nvf4` (else `.kind::mxf4` when `packed_fp4`).
    pub nvf4: bool,
    /// `.scale_vec::1X`, `2X` or `4X`: 1, 2 or 4 (Table 35).
    pub vec: u8,
    /// `.stype` is `.ue4m3` (else `.ue8m0`).
    pub ue4m3: bool,
}

/// An operand matrix of `mma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaOperand {
    /// `d`.
    D,
    /// `a`.
    A,
    /// `b`.
    B,
    /// `c`.
    C,
}

impl MmaForm {
    /// The Volta-style `m8n8k4` with `.f16` inputs: four 8x8x4 products per warp, one per
    /// quad-pair (9.7.14.5.1).
    pub fn is_quad_pair(&self) -> bool {
        self.m == 8 && self.n == 8 && self.k == 4 && self.a == MmaType::F16
    }

    /// The element type of an operand.
    pub fn element(&self, operand: MmaOperand) -> MmaType {
        match operand {
            MmaOperand::D => self.d,
            MmaOperand::A => self.a,
            MmaOperand::B => self.b,
            MmaOperand::C => self.c,
        }
    }

    /// The number of registers in the operand's brace vector: the matrix's bits spread over the
    /// 32 lanes (times four for the quad-pair form), in 32-bit registers (64-bit for `.f64`).
    pub fn registers(&self, operand: MmaOperand) -> usize {
        let (rows, cols) = match operand {
            MmaOperand::A => (self.m, self.k),
            MmaOperand::B => (self.k, self.n),
            MmaOperand::C | MmaOperand::D => (self.m, self.n),
        };
        let groups = if self.is_quad_pair() { 4 } else { 1 };
        let ty = self.element(operand);
        let register_bits = if ty == MmaType::F64 { 64 } else { 32 };
        rows as usize * cols as usize * groups * self.element_bits(ty) as usize
            / (32 * register_bits)
    }

    /// Bits one element of type `ty` takes in its register: 4 for the packed `.e2m1` of
    /// `.kind::mxf4` and `.kind::mxf4nvf4`, [`MmaType::bits`] otherwise.
    pub fn element_bits(&self, ty: MmaType) -> u32 {
        match self.block_scale {
            Some(scale) if scale.packed_fp4 && ty == MmaType::E2m1 => 4,
            _ => ty.bits(),
        }
    }

    /// The instruction's modifiers after `mma.sync.aligned`, for messages.
    pub fn name(&self) -> String {
        let kind = match self.block_scale {
            Some(scale) => format!(
                ".kind::{}.block_scale.scale_vec::{}X",
                match (scale.packed_fp4, scale.nvf4) {
                    (false, _) => "mxf8f6f4",
                    (true, false) => "mxf4",
                    (true, true) => "mxf4nvf4",
                },
                scale.vec
            ),
            None if self.kind_f8f6f4 => ".kind::f8f6f4".to_string(),
            None => String::new(),
        };
        let stype = match self.block_scale {
            Some(scale) if scale.ue4m3 => ".ue4m3",
            Some(_) => ".ue8m0",
            None => "",
        };
        format!(
            "m{}n{}k{}.{}.{}{}{}.{}.{}.{}.{}{}",
            self.m,
            self.n,
            self.k,
            if self.a_row { "row" } else { "col" },
            if self.b_col { "col" } else { "row" },
            kind,
            if self.satfinite { ".satfinite" } else { "" },
            self.d.name(),
            self.a.name(),
            self.b.name(),
            self.c.name(),
            stype
        )
    }
}

fn error(index: Option<usize>, message: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::UnknownModifier, index, message)
}

fn unsupported(message: impl Into<String>) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnsupportedInstruction(Opcode::Mma),
        None,
        message,
    )
}

/// Decodes the modifiers of `mma` (9.7.14.5.14, "Syntax"). The valid combinations of shape
/// and types are the rows of the ISA's syntax blocks, as ptxas 13.5 takes them
/// (`tests/conformance/ops-forms.tsv`).
pub fn decode_mma(modifiers: &[&str]) -> Result<MmaForm, DecodeError> {
    if modifiers.first() == Some(&"sp") || modifiers.contains(&"sp::ordered_metadata") {
        return Err(unsupported(
            "mma.sp (sparse) is not supported by ptxsim yet",
        ));
    }
    let mut sync = false;
    let mut aligned = false;
    let mut shape: Option<(u8, u8, u8)> = None;
    let mut layouts: Vec<(usize, bool)> = Vec::new();
    let mut satfinite = false;
    let mut kind_f8f6f4 = false;
    // (.kind::mxf8f6f4 / mxf4 / mxf4nvf4 as 0 / 1 / 2, .block_scale, .scale_vec, .ue4m3)
    let mut scaled_kind: Option<u8> = None;
    let mut block_scale = false;
    let mut scale_vec: Option<u8> = None;
    let mut stype: Option<bool> = None;
    let mut types: Vec<(usize, MmaType)> = Vec::new();
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "sync" => sync = true,
            // ptxas 13.5: "Multiple .aligned modifiers specified" (a repeated `.sync` or
            // `.satfinite` is folded before: `crate::form::REPEATABLE_FLAGS`).
            "aligned" if aligned => {
                return Err(error(Some(index), ".aligned is written twice"));
            }
            "aligned" => aligned = true,
            "row" => layouts.push((index, true)),
            "col" => layouts.push((index, false)),
            "satfinite" => satfinite = true,
            "kind::f8f6f4" => kind_f8f6f4 = true,
            "kind::mxf8f6f4" => scaled_kind = Some(0),
            "kind::mxf4" => scaled_kind = Some(1),
            "kind::mxf4nvf4" => scaled_kind = Some(2),
            "block_scale" => block_scale = true,
            "scale_vec::1X" => scale_vec = Some(1),
            "scale_vec::2X" => scale_vec = Some(2),
            "scale_vec::4X" => scale_vec = Some(4),
            "ue8m0" => stype = Some(false),
            "ue4m3" => stype = Some(true),
            _ if m.starts_with("kind::")
                || m.starts_with("scale_vec::")
                || matches!(m, "u4" | "s4" | "b1" | "xor" | "and" | "popc") =>
            {
                return Err(unsupported(format!(
                    "mma with .{m} (sub-byte integer or single-bit) is not supported by \
                     ptxsim yet"
                )));
            }
            _ => {
                if let Some(t) = MmaType::from_name(m) {
                    types.push((index, t));
                } else if let Some(s) = parse_shape(m) {
                    if shape.replace(s).is_some() {
                        return Err(error(Some(index), "mma takes one shape"));
                    }
                } else {
                    return Err(error(Some(index), format!(".{m} is not a modifier of mma")));
                }
            }
        }
    }
    if !sync {
        return Err(error(None, "mma needs .sync").with_fix("write mma.sync.aligned"));
    }
    if !aligned {
        return Err(error(None, "mma needs .aligned").with_fix("write mma.sync.aligned"));
    }
    let Some((m, n, k)) = shape else {
        return Err(error(None, "mma needs a shape such as .m16n8k16"));
    };
    let [(_, a_row), (_, b_col)] = layouts[..] else {
        return Err(error(None, "mma needs .alayout and .blayout (.row.col)"));
    };
    let b_col = !b_col; // `.col` for B was pushed as `false`
    let [(_, d), (_, a), (_, b), (_, c)] = types[..] else {
        return Err(DecodeError::new(
            DecodeErrorKind::MissingType,
            None,
            "mma needs four types: .dtype.atype.btype.ctype",
        ));
    };
    let block_scale = match (scaled_kind, block_scale, stype) {
        (None, false, None) if scale_vec.is_none() => None,
        (Some(kind), true, Some(ue4m3)) => {
            // Table 36: .kind::mxf8f6f4 .scale_vec::1X (the default), .kind::mxf4 2X (the
            // default), .kind::mxf4nvf4 2X or 4X (named), .ue4m3 only with 4X ("Illegal
            // modifier '.scale_vec::2X' for instruction 'mma' with type '.ue4m3'").
            let vec = match (kind, scale_vec) {
                (0, None | Some(1)) => 1,
                (1, None | Some(2)) => 2,
                (2, Some(vec @ (2 | 4))) => vec,
                (2, None) => {
                    return Err(error(
                        None,
                        ".kind::mxf4nvf4 needs .scale_vec::2X or .scale_vec::4X",
                    ));
                }
                _ => {
                    return Err(error(
                        None,
                        "this .kind does not take that .scale_vec (Table 36)",
                    ));
                }
            };
            if ue4m3 && (kind != 2 || vec != 4) {
                return Err(error(
                    None,
                    ".ue4m3 scale factors go with .kind::mxf4nvf4.block_scale.scale_vec::4X",
                ));
            }
            Some(BlockScale {
                packed_fp4: kind != 0,
                nvf4: kind == 2,
                vec,
                ue4m3,
            })
        }
        _ => {
            return Err(error(
                None,
                "a block-scaled mma needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4, \
                 .block_scale and the scale type (.ue8m0 or .ue4m3)",
            ));
        }
    };
    let form = MmaForm {
        m,
        n,
        k,
        a_row,
        b_col,
        satfinite,
        kind_f8f6f4,
        block_scale,
        d,
        a,
        b,
        c,
    };
    validate(&form)?;
    Ok(form)
}

fn parse_shape(m: &str) -> Option<(u8, u8, u8)> {
    let rest = m.strip_prefix('m')?;
    let (mm, rest) = rest.split_once('n')?;
    let (nn, kk) = rest.split_once('k')?;
    Some((mm.parse().ok()?, nn.parse().ok()?, kk.parse().ok()?))
}

/// The shape/type rows of the ISA's syntax (ptxas 13.5 rejects the rest: "Unexpected
/// instruction types specified for 'mma'", ".dtype must be '.f16' when .ctype is '.f16'").
fn validate(f: &MmaForm) -> Result<(), DecodeError> {
    use MmaType::*;
    let shape = (f.m, f.n, f.k);
    let floating_acc = matches!((f.d, f.c), (F16, F16) | (F32, F32));
    let row_col = f.a_row && f.b_col;
    let ok = match (f.a, f.b) {
        (F16, F16) => {
            floating_acc
                && (matches!(shape, (16, 8, 8) | (16, 8, 16)) && row_col || shape == (8, 8, 4))
        }
        (Bf16, Bf16) => {
            row_col && (f.d, f.c) == (F32, F32) && matches!(shape, (16, 8, 8) | (16, 8, 16))
        }
        (Tf32, Tf32) => {
            row_col && (f.d, f.c) == (F32, F32) && matches!(shape, (16, 8, 4) | (16, 8, 8))
        }
        (E4m3 | E5m2, E4m3 | E5m2) if !f.kind_f8f6f4 => {
            row_col && floating_acc && matches!(shape, (16, 8, 16) | (16, 8, 32))
        }
        // `mma.sync.aligned.m16n8k64.row.col.kind.block_scale{.scale_vec_size}.f32.e2m1.e2m1.
        // f32.stype` (`.kind::mxf4`, `.kind::mxf4nvf4`).
        (E2m1, E2m1) if f.block_scale.is_some_and(|s| s.packed_fp4) => {
            row_col && (f.d, f.c) == (F32, F32) && shape == (16, 8, 64)
        }
        // `mma.sync.aligned.m16n8k32.row.col.kind.block_scale{.scale_vec_size}.f32.f8f6f4type.
        // f8f6f4type.f32.stype` (`.kind::mxf8f6f4`).
        (E4m3 | E5m2 | E3m2 | E2m3 | E2m1, E4m3 | E5m2 | E3m2 | E2m3 | E2m1)
            if f.block_scale.is_some() =>
        {
            !f.kind_f8f6f4
                && f.block_scale.is_some_and(|s| !s.packed_fp4)
                && row_col
                && (f.d, f.c) == (F32, F32)
                && shape == (16, 8, 32)
        }
        // `mma.sync.aligned.m16n8k32.row.col.kind.dtype.f8f6f4type.f8f6f4type.ctype`.
        (E4m3 | E5m2 | E3m2 | E2m3 | E2m1, E4m3 | E5m2 | E3m2 | E2m3 | E2m1) => {
            f.kind_f8f6f4 && row_col && floating_acc && shape == (16, 8, 32)
        }
        (S8 | U8, S8 | U8) => {
            row_col
                && (f.d, f.c) == (S32, S32)
                && matches!(shape, (8, 8, 16) | (16, 8, 16) | (16, 8, 32))
        }
        (F64, F64) => {
            row_col
                && (f.d, f.c) == (F64, F64)
                && matches!(shape, (8, 8, 4) | (16, 8, 4) | (16, 8, 8) | (16, 8, 16))
        }
        _ => false,
    } && (f.block_scale.is_none() || (f.a.is_fp8() || f.a.is_fp6_or_fp4()));
    let satfinite_ok = (!f.satfinite || f.a.is_int8())
        && (!f.kind_f8f6f4 || matches!(f.a, E4m3 | E5m2 | E3m2 | E2m3 | E2m1));
    if !ok || !satfinite_ok {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            None,
            format!("mma.sync.aligned.{} is not a form of the PTX ISA", f.name()),
        ));
    }
    Ok(())
}
