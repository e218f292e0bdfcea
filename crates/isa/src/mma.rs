//! `mma.sync.aligned` (PTX ISA 9.7.14.5.14): the shapes and element types of the warp-level
//! matrix multiply-accumulate `D = A * B + C`, decoded into an [`MmaForm`].
//!
//! The forms ptxsim runs are the dense ones of sm_70 to sm_90: `.f16`/`.bf16`/`.tf32`/FP8
//! (`.e4m3`, `.e5m2`) with `.f16` or `.f32` accumulators, `.s8`/`.u8` with `.s32`
//! (`.satfinite` optional) and `.f64`; and sm_120a's `.kind::f8f6f4` (FP8, FP6 `.e3m2`/`.e2m3`
//! and FP4 `.e2m1` operands, each in an 8-bit container) and `.block_scale` forms
//! (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`, 9.7.14.3); the sub-byte integer
//! forms (`.s4`/`.u4`, `.m8n8k32`, `.m16n8k32`, `.m16n8k64`) and the single-bit ones (`.b1`
//! with `.xor.popc` or `.and.popc`, `.m8n8k128`, `.m16n8k128`, `.m16n8k256`); and the sparse
//! `mma.sp` / `mma.sp::ordered_metadata` (9.7.14.6.3) with `.f16`, `.bf16`, `.tf32`, FP8,
//! `.s8`/`.u8` and `.s4`/`.u4` operands; `.f64` takes `.rn` (the default), `.rz`, `.rm` or
//! `.rp`; and the sparse `.kind::f8f6f4` (`mma.sp::ordered_metadata`, `.m16n8k64`). The sparse
//! `.block_scale` forms are recognised by name and reported as not supported.

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
    /// `.s4`: a signed 4-bit integer, eight to a 32-bit register.
    S4,
    /// `.u4`: an unsigned 4-bit integer, eight to a 32-bit register.
    U4,
    /// `.b1`: a single bit, thirty-two to a 32-bit register.
    B1,
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
            "s4" => MmaType::S4,
            "u4" => MmaType::U4,
            "b1" => MmaType::B1,
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
            MmaType::S4 => "s4",
            MmaType::U4 => "u4",
            MmaType::B1 => "b1",
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
            MmaType::S4 | MmaType::U4 => 4,
            MmaType::B1 => 1,
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

    /// Whether the type is a 4-bit integer (`.s4`, `.u4`).
    pub const fn is_int4(self) -> bool {
        matches!(self, MmaType::S4 | MmaType::U4)
    }

    /// Whether the products are integers summed exactly into `.s32`: `.s8`/`.u8`, `.s4`/`.u4`
    /// and `.b1` (9.7.14.5.14, "Integer operations").
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            MmaType::S8 | MmaType::U8 | MmaType::S4 | MmaType::U4 | MmaType::B1
        )
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
    /// Columns of A, rows of B (up to 256: `.m16n8k256`).
    pub k: u16,
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
    /// The `.bitOp.popc` of the single-bit `.b1` forms.
    pub bit_op: Option<BitOp>,
    /// `mma.sp` or `mma.sp::ordered_metadata` (9.7.14.6.3): A is 2:4 (1:2 for `.tf32`, pairwise
    /// 4:8 for `.s4`/`.u4`) structured sparse, its non-zero elements in `a`, their positions in
    /// the metadata operand `e`, the lanes that supply it chosen by the selector `f`.
    pub sparse: Option<Sparsity>,
    /// `.dtype`.
    pub d: MmaType,
    /// `.atype`.
    pub a: MmaType,
    /// `.btype`.
    pub b: MmaType,
    /// `.ctype`.
    pub c: MmaType,
    /// The `.rnd` of the `.f64` forms, `.rn`, `.rz`, `.rm` or `.rp` (`.rn` for every other
    /// form): "Precision of the element-wise multiplication and addition operation is identical
    /// to that of .f64 precision fused multiply-add" with that rounding (9.7.14.4.1,
    /// "Precision and rounding"; `.rn` the default).
    pub rounding: crate::Rounding,
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

/// The logical operation of a single-bit `mma` (9.7.14.5.14): "mma.xor.popc and mma.and.popc
/// computes the XOR, AND respectively of a k-bit row of A with a k-bit column of B, then counts
/// the number of set bits in the result (popc)".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// `.xor.popc`.
    Xor,
    /// `.and.popc`.
    And,
}

impl BitOp {
    /// The PTX spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            BitOp::Xor => "xor",
            BitOp::And => "and",
        }
    }
}

/// The variant of a sparse `mma` (9.7.14.6.3: `.spvariant = {.sp, .sp::ordered_metadata}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sparsity {
    /// `.sp`.
    Sp,
    /// `.sp::ordered_metadata`: "requires the indices in the sparsity metadata to be sorted in an
    /// increasing order starting from LSB, otherwise behavior is undefined".
    OrderedMetadata,
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
            MmaOperand::A => (u16::from(self.m), self.k),
            MmaOperand::B => (self.k, u16::from(self.n)),
            MmaOperand::C | MmaOperand::D => (u16::from(self.m), u16::from(self.n)),
        };
        let groups = if self.is_quad_pair() { 4 } else { 1 };
        let ty = self.element(operand);
        let register_bits = if ty == MmaType::F64 { 64 } else { 32 };
        // A sparse A holds its M x K/2 non-zero elements only (9.7.14.6: "the MxK matrix A is
        // packed into MxK/2 elements").
        let stored = if self.sparse.is_some() && operand == MmaOperand::A {
            2
        } else {
            1
        };
        rows as usize * cols as usize * groups * self.element_bits(ty) as usize
            / (32 * register_bits * stored)
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
        let bit_op = self
            .bit_op
            .map_or(String::new(), |op| format!(".{}.popc", op.name()));
        format!(
            "m{}n{}k{}.{}.{}{}{}.{}.{}.{}.{}{}{}",
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
            bit_op,
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
    let mut sparse: Option<Sparsity> = None;
    let mut sync = false;
    let mut aligned = false;
    let mut shape: Option<(u8, u8, u16)> = None;
    let mut layouts: Vec<(usize, bool)> = Vec::new();
    let mut satfinite = false;
    let mut kind_f8f6f4 = false;
    // (.kind::mxf8f6f4 / mxf4 / mxf4nvf4 as 0 / 1 / 2, .block_scale, .scale_vec, .ue4m3)
    let mut scaled_kind: Option<u8> = None;
    let mut block_scale = false;
    let mut scale_vec: Option<u8> = None;
    let mut stype: Option<bool> = None;
    // `.xor`/`.and` and the index of the `.popc` that must follow it ("Illegal reduction
    // operation" for `.popc.and`, "Unexpected number of operations" for a repeated one).
    let mut bit_op: Option<(usize, BitOp)> = None;
    let mut popc: Option<usize> = None;
    let mut types: Vec<(usize, MmaType)> = Vec::new();
    // `.rnd` on the `.f64` forms (`.rn` is the default).
    let mut rounding: Option<(usize, &str)> = None;
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "rn" | "rz" | "rm" | "rp" if rounding.is_some() => {
                return Err(error(Some(index), "mma takes one rounding modifier"));
            }
            "rn" | "rz" | "rm" | "rp" => rounding = Some((index, m)),
            // ptxas 13.5 takes the variant anywhere (`mma.sync.sp.aligned...`).
            "sp" | "sp::ordered_metadata" if sparse.is_some() => {
                return Err(error(Some(index), "mma takes one sparsity variant"));
            }
            "sp" => sparse = Some(Sparsity::Sp),
            "sp::ordered_metadata" => sparse = Some(Sparsity::OrderedMetadata),
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
            "xor" | "and" if bit_op.is_some() => {
                return Err(error(Some(index), "mma takes one .xor or .and"));
            }
            "xor" => bit_op = Some((index, BitOp::Xor)),
            "and" => bit_op = Some((index, BitOp::And)),
            "popc" if popc.is_some() => {
                return Err(error(Some(index), ".popc is written twice"));
            }
            "popc" => popc = Some(index),
            _ if m.starts_with("kind::") || m.starts_with("scale_vec::") => {
                return Err(unsupported(format!(
                    "mma with .{m} is not supported by ptxsim yet"
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
    if sparse.is_some() && (scaled_kind.is_some() || block_scale) {
        return Err(unsupported(
            "the sparse .block_scale forms of mma are not supported by ptxsim yet",
        ));
    }
    // `mma.spvariant.sync.aligned.m16n8k64.row.col.kind::f8f6f4.dtype.f8f6f4type.f8f6f4type.
    // ctype` (9.7.14.6.3): ptxas 13.5 takes only `.sp::ordered_metadata` there ("Illegal
    // modifier '.sp' for instruction 'mma'").
    if sparse == Some(Sparsity::Sp) && kind_f8f6f4 {
        let at = modifiers.iter().position(|&m| m == "sp");
        return Err(error(
            at,
            "the sparse .kind::f8f6f4 mma takes .sp::ordered_metadata, not .sp",
        )
        .with_fix("write mma.sp::ordered_metadata"));
    }
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
    // `.bitOp.popc` (9.7.14.5.14, "Single bit"): the operation, then `.popc`.
    let bit_op = match (bit_op, popc) {
        (None, None) => None,
        (Some((op_index, op)), Some(popc_index)) if popc_index == op_index + 1 => Some(op),
        (Some(_), None) => {
            return Err(
                error(None, "a single-bit mma needs .popc after .xor or .and")
                    .with_fix("write .xor.popc or .and.popc"),
            );
        }
        (_, Some(popc_index)) => {
            return Err(error(
                Some(popc_index),
                ".popc follows the operation of a single-bit mma (.xor.popc or .and.popc)",
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
        bit_op,
        sparse,
        d,
        a,
        b,
        c,
        rounding: rounding
            .and_then(|(_, name)| crate::Rounding::from_name(name))
            .unwrap_or(crate::Rounding::Rn),
    };
    // PTX ISA 9.0 mma.md writes the `.f64` form without a rounding modifier; ptxas 13.5 takes
    // one of `.rn`, `.rz`, `.rm`, `.rp` on it, anywhere among the modifiers (`mma.sync.aligned.
    // m16n8k4.row.col.f64.f64.f64.f64.rn`, as CUTLASS writes it), from the form's first
    // version on, and rejects them on the other forms ("Illegal rounding modifier for
    // instruction 'mma'", "Multiple rounding modifiers specified"). `.rn` is what ptxsim's
    // `.f64` mma does by default; the directed roundings round each fused step their way.
    if let Some((index, rounding)) = rounding
        && [d, a, b, c] != [MmaType::F64; 4]
    {
        return Err(error(
            Some(index),
            format!(".{rounding}: only the .f64 forms of mma take a rounding modifier"),
        ));
    }
    validate(&form)?;
    Ok(form)
}

fn parse_shape(m: &str) -> Option<(u8, u8, u16)> {
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
    let ok = if f.sparse.is_some() {
        row_col && sparse_form(f)
    } else {
        dense_form(f, shape, floating_acc, row_col)
    };
    // "Illegal modifier '.satfinite' for instruction 'mma'" on `.b1` (ptxas 13.5).
    let satfinite_ok = (!f.satfinite || f.a.is_int8() || f.a.is_int4())
        && (!f.kind_f8f6f4 || matches!(f.a, E4m3 | E5m2 | E3m2 | E2m3 | E2m1));
    if !ok || !satfinite_ok {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            None,
            format!(
                "mma{}.sync.aligned.{} is not a form of the PTX ISA",
                match f.sparse {
                    Some(Sparsity::Sp) => ".sp",
                    Some(Sparsity::OrderedMetadata) => ".sp::ordered_metadata",
                    None => "",
                },
                f.name()
            ),
        ));
    }
    Ok(())
}

/// The shape/type rows of `mma.sp`'s syntax (9.7.14.6.3, with `.kind::f8f6f4`; "In case of shapes .m16n8k16,
/// .m16n8k32 and .m16n8k64, .dtype must be the same as .ctype"; ptxas 13.5 rejects an `.f16`
/// accumulator with FP8 below sm_120 and a single-bit sparse form: "Arguments mismatch").
fn sparse_form(f: &MmaForm) -> bool {
    use MmaType::*;
    let shape = (f.m, f.n, f.k);
    let same_acc = matches!((f.d, f.c), (F16, F16) | (F32, F32));
    let f8f6f4 = |t: MmaType| t.is_fp8() || t.is_fp6_or_fp4();
    f.bit_op.is_none()
        && match (f.a, f.b) {
            // `.kind::f8f6f4` (sm_100a FP8, sm_120a FP6/FP4 too): `.m16n8k64`, `.f16` or `.f32`
            // C = D (ptxas 13.5: "Incorrect instruction type specified for Sparse mma with shape
            // '.m16n8k32'", "Unexpected instruction types specified for 'mma'").
            (a, b) if f.kind_f8f6f4 => f8f6f4(a) && f8f6f4(b) && same_acc && shape == (16, 8, 64),
            (F16, F16) => same_acc && matches!(shape, (16, 8, 16) | (16, 8, 32)),
            (Bf16, Bf16) => (f.d, f.c) == (F32, F32) && matches!(shape, (16, 8, 16) | (16, 8, 32)),
            (Tf32, Tf32) => (f.d, f.c) == (F32, F32) && matches!(shape, (16, 8, 8) | (16, 8, 16)),
            (E4m3 | E5m2, E4m3 | E5m2) => (f.d, f.c) == (F32, F32) && shape == (16, 8, 64),
            (S8 | U8, S8 | U8) => {
                (f.d, f.c) == (S32, S32) && matches!(shape, (16, 8, 32) | (16, 8, 64))
            }
            (S4 | U4, S4 | U4) => {
                (f.d, f.c) == (S32, S32) && matches!(shape, (16, 8, 64) | (16, 8, 128))
            }
            _ => false,
        }
}

/// The shape/type rows of the dense `mma` (9.7.14.5.14, "Syntax").
fn dense_form(f: &MmaForm, shape: (u8, u8, u16), floating_acc: bool, row_col: bool) -> bool {
    use MmaType::*;
    let form = match (f.a, f.b) {
        // `.m8n8k4` also takes an `.f32` result of an `.f16` accumulator (the Syntax block
        // lets `.dtype` and `.ctype` be either; ptxas 13.5 takes `.f32.f16.f16.f16` for
        // `.m8n8k4` only: ".dtype must be '.f16' when .ctype is '.f16'" for `.m16n8k8`/`k16`,
        // ".dtype must be '.f32' when .ctype is '.f32'" for `.f16.f16.f16.f32`).
        (F16, F16) => {
            floating_acc && matches!(shape, (16, 8, 8) | (16, 8, 16)) && row_col
                || shape == (8, 8, 4) && (floating_acc || (f.d, f.c) == (F32, F16))
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
        // `mma.sync.aligned.shape.row.col{.satfinite}.s32.atype.btype.s32`, `.shape =
        // {.m8n8k32, .m16n8k32, .m16n8k64}`, `.atype`/`.btype = {.u4, .s4}`.
        (S4 | U4, S4 | U4) => {
            row_col
                && (f.d, f.c) == (S32, S32)
                && matches!(shape, (8, 8, 32) | (16, 8, 32) | (16, 8, 64))
        }
        // `mma.sync.aligned.shape.row.col.s32.b1.b1.s32.bitOp.popc`, `.shape = {.m8n8k128,
        // .m16n8k128, .m16n8k256}`.
        (B1, B1) => {
            row_col
                && (f.d, f.c) == (S32, S32)
                && f.bit_op.is_some()
                && matches!(shape, (8, 8, 128) | (16, 8, 128) | (16, 8, 256))
        }
        _ => false,
    };
    form && (f.block_scale.is_none() || (f.a.is_fp8() || f.a.is_fp6_or_fp4()))
        // ptxas 13.5 also takes `.xor.popc` on the `.s4`/`.u4` forms; the ISA has it on `.b1`
        // only ("Unexpected instruction types specified for 'mma'" on `.s8` and `.f16`):
        // docs/divergences.md, D31.
        && (f.bit_op.is_none() || f.a == B1)
}
