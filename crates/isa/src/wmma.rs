//! The warp-level matrix instructions `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA
//! 9.7.14.4), decoded into a [`WmmaForm`].
//!
//! Decoded and run: the shapes `.m16n16k16`, `.m32n8k16`, `.m8n32k16` with `.f16`, `.bf16`,
//! `.s8`, `.u8` multiplicands; `.m16n16k8` with `.tf32`; `.m8n8k4` with `.f64`; the sub-byte
//! `.m8n8k32` with `.s4`/`.u4` and the single-bit `.m8n8k128` with `.b1` (`.xor.popc` or
//! `.and.popc`), whose A is loaded `.row` and B `.col` only ("Sub-byte loads").
//!
//! Modifiers may come in any order (ptxas 13.5 takes `wmma.load.a.aligned.sync.m16n16k16.row.
//! f16`); `.sync` is required (".sync modifier required for instruction 'wmma.load.a'"), and
//! `.aligned` from PTX ISA 6.3, which introduced it ([`version_rule`]). The operation comes first: `load.a`, `load.b`, `load.c`, `store.d` or
//! `mma` (ptxas: "Unknown modifier '.c'" for `wmma.store.c`).

use crate::form::{DecodeError, DecodeErrorKind};
use crate::mma::{BitOp, MmaType};

/// A matrix of `wmma`: "D = A * B + C, where A is an MxK matrix, B is a KxN matrix, C and D
/// are MxN matrices".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WmmaMatrix {
    /// A (M x K).
    A,
    /// B (K x N).
    B,
    /// C (M x N), the accumulator.
    C,
    /// D (M x N), the result (same fragment as C).
    D,
}

impl WmmaMatrix {
    /// The PTX spelling (`a`, `b`, `c`, `d`).
    pub const fn name(self) -> &'static str {
        match self {
            WmmaMatrix::A => "a",
            WmmaMatrix::B => "b",
            WmmaMatrix::C => "c",
            WmmaMatrix::D => "d",
        }
    }
}

/// Which `wmma` instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WmmaOp {
    /// `wmma.load.{a,b,c}`.
    Load(WmmaMatrix),
    /// `wmma.store.d`.
    Store,
    /// `wmma.mma`.
    Mma,
}

/// The state space of `wmma.load`/`wmma.store`: "wmma.load operation may be used only with
/// .global and .shared spaces and with generic addressing, where the address points to
/// .global or .shared space".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WmmaSpace {
    /// No `.ss`: a generic address (into global or shared memory).
    Generic,
    /// `.global`.
    Global,
    /// `.shared` or `.shared::cta`.
    Shared,
}

/// One `wmma` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WmmaForm {
    /// `load.a`/`load.b`/`load.c`, `store.d` or `mma`.
    pub op: WmmaOp,
    /// Rows of A, C and D.
    pub m: u8,
    /// Columns of B, C and D.
    pub n: u8,
    /// Columns of A, rows of B.
    pub k: u8,
    /// `load`/`store`: `.layout` is `.row`; `mma`: `.alayout` is `.row`.
    pub a_row: bool,
    /// `mma`: `.blayout` is `.row` (`load`/`store`: equal to `a_row`).
    pub b_row: bool,
    /// `load`/`store`: the state space (`mma`: [`WmmaSpace::Generic`]).
    pub space: WmmaSpace,
    /// `.satfinite` (integer `mma`; floating-point `mma` below PTX ISA 6.5).
    pub satfinite: bool,
    /// `.aligned` is written (mandatory from PTX ISA 6.3, refused before it).
    pub aligned: bool,
    /// `mma`: the `.op.popc` of the single-bit `.m8n8k128` (`.xor` or `.and`).
    pub bit_op: Option<BitOp>,
    /// `mma`: `.dtype`; `load`/`store`: the element type.
    pub d: MmaType,
    /// `mma`: `.atype`; `load`/`store`: the element type.
    pub a: MmaType,
    /// `mma`: `.btype`; `load`/`store`: the element type.
    pub b: MmaType,
    /// `mma`: `.ctype`; `load`/`store`: the element type.
    pub c: MmaType,
    /// `mma` `.f64`: the `.rnd` (`.rn`, `.rz`, `.rm`, `.rp`; `.rn` when absent and for every
    /// other form), as [`crate::mma::MmaForm::rounding`].
    pub rounding: crate::Rounding,
}

impl WmmaForm {
    /// The element type of a matrix.
    pub fn element(&self, matrix: WmmaMatrix) -> MmaType {
        match matrix {
            WmmaMatrix::A => self.a,
            WmmaMatrix::B => self.b,
            WmmaMatrix::C => self.c,
            WmmaMatrix::D => self.d,
        }
    }

    /// The matrix a `load`/`store` moves (D for `mma`).
    pub fn matrix(&self) -> WmmaMatrix {
        match self.op {
            WmmaOp::Load(matrix) => matrix,
            WmmaOp::Store | WmmaOp::Mma => WmmaMatrix::D,
        }
    }

    /// `(rows, columns)` of a matrix.
    pub fn dimensions(&self, matrix: WmmaMatrix) -> (usize, usize) {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        match matrix {
            WmmaMatrix::A => (m, k),
            WmmaMatrix::B => (k, n),
            WmmaMatrix::C | WmmaMatrix::D => (m, n),
        }
    }

    /// The number of registers of a matrix's fragment (9.7.14.4.1, "Matrix Fragments for
    /// WMMA"): the matrix's bits spread over the 32 lanes in 32-bit registers (64-bit for
    /// `.f64`), except that `.f16` A and B fragments are always "a vector expression of eight
    /// .f16x2 registers" (the distinct registers repeated: measured, `tests/hardware/wmma`).
    pub fn registers(&self, matrix: WmmaMatrix) -> usize {
        let ty = self.element(matrix);
        if ty == MmaType::F16 && matches!(matrix, WmmaMatrix::A | WmmaMatrix::B) {
            return 8;
        }
        self.distinct_registers(matrix)
    }

    /// The registers of a fragment that hold distinct elements (for `.f16` A and B the
    /// fragment's first registers; the rest repeat them).
    pub fn distinct_registers(&self, matrix: WmmaMatrix) -> usize {
        let ty = self.element(matrix);
        let (rows, cols) = self.dimensions(matrix);
        let register_bits = if ty == MmaType::F64 { 64 } else { 32 };
        rows * cols * ty.bits() as usize / (32 * register_bits)
    }

    /// The fragment size in bytes ("The starting address of each instance of the leading
    /// dimension (row or column) must be aligned with the size of the corresponding fragment
    /// in bytes").
    pub fn fragment_bytes(&self, matrix: WmmaMatrix) -> usize {
        let ty = self.element(matrix);
        self.registers(matrix) * if ty == MmaType::F64 { 8 } else { 4 }
    }

    /// The default stride in elements: "The default value of the stride is the size of the
    /// leading dimension of the matrix. For example, for an MxK matrix, the stride is K for a
    /// row-major layout and M for a column-major layout."
    pub fn default_stride(&self) -> usize {
        let (rows, cols) = self.dimensions(self.matrix());
        if self.a_row { cols } else { rows }
    }

    /// Bits of one memory element (`.tf32` is stored as `.f32`; `.s4`/`.u4` are 4 bits, `.b1`
    /// one, packed from the least significant bits of each byte up).
    pub fn element_bits(&self, matrix: WmmaMatrix) -> usize {
        self.element(matrix).bits() as usize
    }

    /// The instruction's modifiers after `wmma.`, for messages.
    pub fn name(&self) -> String {
        let layout = |row: bool| if row { "row" } else { "col" };
        let shape = format!("m{}n{}k{}", self.m, self.n, self.k);
        match self.op {
            WmmaOp::Load(_) | WmmaOp::Store => {
                let op = match self.op {
                    WmmaOp::Load(matrix) => format!("load.{}", matrix.name()),
                    _ => "store.d".to_string(),
                };
                let space = match self.space {
                    WmmaSpace::Generic => "",
                    WmmaSpace::Global => ".global",
                    WmmaSpace::Shared => ".shared",
                };
                format!(
                    "{op}.sync.aligned.{}.{shape}{space}.{}",
                    layout(self.a_row),
                    self.a.name()
                )
            }
            WmmaOp::Mma => {
                let types = if self.a == MmaType::F16 {
                    format!("{}.{}", self.d.name(), self.c.name())
                } else {
                    format!(
                        "{}.{}.{}.{}",
                        self.d.name(),
                        self.a.name(),
                        self.b.name(),
                        self.c.name()
                    )
                };
                format!(
                    "mma{}.sync.aligned.{}.{}.{shape}.{types}{}",
                    self.bit_op
                        .map_or(String::new(), |op| format!(".{}.popc", op.name())),
                    layout(self.a_row),
                    layout(self.b_row),
                    if self.satfinite { ".satfinite" } else { "" }
                )
            }
        }
    }
}

fn error(kind: DecodeErrorKind, index: Option<usize>, rule: impl Into<String>) -> DecodeError {
    DecodeError::new(kind, index, rule)
}

fn parse_shape(m: &str) -> Option<(u8, u8, u8)> {
    Some(match m {
        "m16n16k16" => (16, 16, 16),
        "m32n8k16" => (32, 8, 16),
        "m8n32k16" => (8, 32, 16),
        "m16n16k8" => (16, 16, 8),
        "m8n8k4" => (8, 8, 4),
        "m8n8k32" => (8, 8, 32),
        "m8n8k128" => (8, 8, 128),
        _ => return None,
    })
}

/// Decodes the modifiers of `wmma` (9.7.14.4.3-5, "Syntax"), the first being `load`, `store`
/// or `mma`.
pub fn decode_wmma(modifiers: &[&str]) -> Result<WmmaForm, DecodeError> {
    let (op, rest, first) = match modifiers {
        ["load", matrix, rest @ ..] => {
            let matrix = match *matrix {
                "a" => WmmaMatrix::A,
                "b" => WmmaMatrix::B,
                "c" => WmmaMatrix::C,
                other => {
                    return Err(error(
                        DecodeErrorKind::UnknownModifier,
                        Some(1),
                        format!("wmma.load takes .a, .b or .c, not .{other}"),
                    ));
                }
            };
            (WmmaOp::Load(matrix), rest, 2)
        }
        ["store", "d", rest @ ..] => (WmmaOp::Store, rest, 2),
        ["store", other, ..] => {
            return Err(error(
                DecodeErrorKind::UnknownModifier,
                Some(1),
                format!("wmma.store takes .d, not .{other}"),
            ));
        }
        ["mma", rest @ ..] => (WmmaOp::Mma, rest, 1),
        _ => {
            return Err(error(
                DecodeErrorKind::UnknownModifier,
                modifiers.first().map(|_| 0),
                "wmma is wmma.load.{a,b,c}, wmma.store.d or wmma.mma",
            ));
        }
    };
    let memory = op != WmmaOp::Mma;
    let name = match op {
        WmmaOp::Load(matrix) => format!("wmma.load.{}", matrix.name()),
        WmmaOp::Store => "wmma.store.d".to_string(),
        WmmaOp::Mma => "wmma.mma".to_string(),
    };
    let (mut sync, mut aligned, mut satfinite) = (false, false, false);
    let mut shape: Option<(u8, u8, u8)> = None;
    let mut layouts: Vec<bool> = Vec::new();
    let mut space: Option<WmmaSpace> = None;
    let mut types: Vec<MmaType> = Vec::new();
    // `.xor`/`.and` and the position of the `.popc` that must follow it (ptxas 13.5: "Illegal
    // reduction operation" for `.popc.xor`).
    let mut bit_op: Option<(usize, BitOp)> = None;
    let mut popc: Option<usize> = None;
    // `.rnd` of the `.f64` form.
    let mut rounding: Option<(usize, &str)> = None;
    for (offset, &m) in rest.iter().enumerate() {
        let index = Some(first + offset);
        let twice = || {
            error(
                DecodeErrorKind::DuplicateModifier,
                index,
                format!(".{m} is written twice"),
            )
        };
        match m {
            "sync" if sync => return Err(twice()),
            "sync" => sync = true,
            "aligned" if aligned => return Err(twice()),
            "aligned" => aligned = true,
            "row" => layouts.push(true),
            "col" => layouts.push(false),
            "satfinite" if !memory => satfinite = true,
            "global" | "shared" | "shared::cta" if memory => {
                if space.is_some() {
                    return Err(error(
                        DecodeErrorKind::ConflictingModifier,
                        index,
                        format!("{name} takes one state space"),
                    ));
                }
                space = Some(if m == "global" {
                    WmmaSpace::Global
                } else {
                    WmmaSpace::Shared
                });
            }
            "local" | "const" | "param" | "shared::cluster" if memory => {
                return Err(error(
                    DecodeErrorKind::UnknownModifier,
                    index,
                    format!(
                        "{name} reads and writes .global or .shared (or a generic address \
                         into them), not .{m}"
                    ),
                ));
            }
            "rn" | "rz" | "rm" | "rp" if !memory => {
                if rounding.is_some() {
                    return Err(error(
                        DecodeErrorKind::ConflictingModifier,
                        index,
                        "wmma.mma takes one rounding modifier",
                    ));
                }
                rounding = Some((first + offset, m));
            }
            "xor" | "and" | "popc" if memory => {
                return Err(error(
                    DecodeErrorKind::UnknownModifier,
                    index,
                    format!(".{m} is not a modifier of {name}"),
                ));
            }
            "xor" | "and" if bit_op.is_some() => return Err(twice()),
            "xor" => bit_op = Some((offset, BitOp::Xor)),
            "and" => bit_op = Some((offset, BitOp::And)),
            "popc" if popc.is_some() => return Err(twice()),
            "popc" => popc = Some(offset),
            _ => {
                if let Some(t) = MmaType::from_name(m) {
                    types.push(t);
                } else if let Some(s) = parse_shape(m) {
                    if shape.replace(s).is_some() {
                        return Err(error(
                            DecodeErrorKind::ConflictingModifier,
                            index,
                            format!("{name} takes one shape"),
                        ));
                    }
                } else {
                    return Err(error(
                        DecodeErrorKind::UnknownModifier,
                        index,
                        format!(".{m} is not a modifier of {name}"),
                    ));
                }
            }
        }
    }
    let fix = format!("write {name}.sync.aligned");
    if !sync {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{name} needs .sync"),
        )
        .with_fix(fix));
    }
    let Some((m, n, k)) = shape else {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{name} needs a shape such as .m16n16k16"),
        ));
    };
    // `wmma.mma.op.popc` (9.7.14.4.5): the operation, then `.popc`.
    let bit_op = match (bit_op, popc) {
        (None, None) => None,
        (Some((at, op)), Some(popc_at)) if popc_at == at + 1 => Some(op),
        (Some(_), None) => {
            return Err(error(
                DecodeErrorKind::UnknownModifier,
                None,
                "a single-bit wmma.mma needs .popc after .xor or .and",
            )
            .with_fix("write wmma.mma.xor.popc or wmma.mma.and.popc"));
        }
        (_, Some(popc_at)) => {
            return Err(error(
                DecodeErrorKind::UnknownModifier,
                Some(first + popc_at),
                ".popc follows the operation of a single-bit wmma.mma (.xor.popc or .and.popc)",
            ));
        }
    };
    let wanted_layouts = if memory { 1 } else { 2 };
    if layouts.len() != wanted_layouts {
        let rule = if memory {
            format!("{name} takes one .layout (.row or .col)")
        } else {
            "wmma.mma takes .alayout and .blayout (.row or .col each)".to_string()
        };
        return Err(error(DecodeErrorKind::UnknownModifier, None, rule));
    }
    let a_row = layouts[0];
    let b_row = *layouts.last().unwrap_or(&a_row);
    let space = space.unwrap_or(WmmaSpace::Generic);
    let form = if memory {
        let [ty] = types[..] else {
            return Err(error(
                if types.is_empty() {
                    DecodeErrorKind::MissingType
                } else {
                    DecodeErrorKind::ExtraType
                },
                None,
                format!("{name} takes one type"),
            ));
        };
        WmmaForm {
            op,
            m,
            n,
            k,
            a_row,
            b_row: a_row,
            space,
            satfinite: false,
            aligned,
            bit_op: None,
            d: ty,
            a: ty,
            b: ty,
            c: ty,
            rounding: crate::Rounding::Rn,
        }
    } else {
        let (d, a, b, c) = match types[..] {
            // `.f16` multiplicands: `.dtype.ctype`.
            [d, c] => (d, MmaType::F16, MmaType::F16, c),
            [d, a, b, c] => (d, a, b, c),
            _ => {
                return Err(error(
                    DecodeErrorKind::MissingType,
                    None,
                    "wmma.mma takes .dtype.ctype (.f16 multiplicands) or \
                     .dtype.atype.btype.ctype",
                ));
            }
        };
        WmmaForm {
            op,
            m,
            n,
            k,
            a_row,
            b_row,
            space,
            satfinite,
            aligned,
            bit_op,
            d,
            a,
            b,
            c,
            rounding: crate::Rounding::Rn,
        }
    };
    // "wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.f64.f64.f64.f64" (9.7.14.4.14); ptxas
    // 13.5: "Illegal rounding modifier for instruction 'wmma.mma'" on the other forms.
    let form = match rounding {
        None => form,
        Some((_, name)) if form.a == MmaType::F64 => WmmaForm {
            rounding: crate::Rounding::from_name(name).unwrap_or(crate::Rounding::Rn),
            ..form
        },
        Some((index, name)) => {
            return Err(error(
                DecodeErrorKind::UnknownModifier,
                Some(index),
                format!(".{name}: only the .f64 form of wmma.mma takes a rounding modifier"),
            ));
        }
    };
    validate(&form, types.len())?;
    Ok(form)
}

/// What a form's modifiers need of the module's `.version`, which decoding does not see (ptxas
/// 13.5, `tests/conformance/llvm-lines.tsv.xz`): `.aligned` from PTX ISA 6.3 on (".aligned
/// modifier required for instruction 'wmma.load.a'"; before 6.3 it is refused, a gate), and no
/// `.satfinite` on a floating-point `wmma.mma` from 6.5 on ("Instruction ''wmma.mma' with
/// floating point type' with '.satfinite' is not supported starting from PTX ISA version
/// 6.5"). The message, or `None`.
pub fn version_rule(form: &WmmaForm, version: crate::PtxVersion) -> Option<String> {
    let name = match form.op {
        WmmaOp::Load(matrix) => format!("wmma.load.{}", matrix.name()),
        WmmaOp::Store => "wmma.store.d".to_string(),
        WmmaOp::Mma => "wmma.mma".to_string(),
    };
    if !form.aligned && version >= crate::PtxVersion::new(6, 3) {
        return Some(format!("{name} needs .aligned from PTX ISA version 6.3 on"));
    }
    if form.satfinite && form.a == MmaType::F16 && version >= crate::PtxVersion::new(6, 5) {
        return Some(
            "a floating-point wmma.mma takes no .satfinite from PTX ISA version 6.5 on".to_string(),
        );
    }
    None
}

/// The shape/type rows of the ISA's syntax blocks (ptxas 13.5 rejects the rest: "Unexpected
/// instruction types specified for 'wmma.mma'"; it rejects mixed `.s8.u8`; `.satfinite` on a
/// floating-point `wmma.mma` is left to [`version_rule`]).
fn validate(f: &WmmaForm, type_count: usize) -> Result<(), DecodeError> {
    use MmaType::*;
    let big = matches!((f.m, f.n, f.k), (16, 16, 16) | (32, 8, 16) | (8, 32, 16));
    let tf32 = (f.m, f.n, f.k) == (16, 16, 8);
    let f64 = (f.m, f.n, f.k) == (8, 8, 4);
    // "Sub-byte loads": `wmma.load.a.sync.aligned.row`, `wmma.load.b.sync.aligned.col`
    // (ptxas 13.5: "Illegal alayout '.col' for instruction 'wmma.load.a'").
    let int4 = (f.m, f.n, f.k) == (8, 8, 32);
    let bits = (f.m, f.n, f.k) == (8, 8, 128);
    let sub_byte_layout = match f.op {
        WmmaOp::Load(WmmaMatrix::A) => f.a_row,
        WmmaOp::Load(WmmaMatrix::B) => !f.a_row,
        WmmaOp::Mma => f.a_row && !f.b_row,
        _ => true,
    };
    let ok = match f.op {
        WmmaOp::Load(WmmaMatrix::A | WmmaMatrix::B) => {
            (big && matches!(f.a, F16 | Bf16 | S8 | U8))
                || (tf32 && f.a == Tf32)
                || (f64 && f.a == F64)
                || (int4 && matches!(f.a, S4 | U4) && sub_byte_layout)
                || (bits && f.a == B1 && sub_byte_layout)
        }
        WmmaOp::Load(_) | WmmaOp::Store => {
            (big && matches!(f.a, F16 | F32 | S32))
                || (tf32 && f.a == F32)
                || (f64 && f.a == F64)
                // The ISA has `.s32` accumulators for the sub-byte shapes; ptxas 13.5 also
                // takes `wmma.load.c`/`wmma.store.d` `.m8n8k32`/`.m8n8k128` `.f32` (two `.f32`
                // registers, the same 32-bit words).
                || ((int4 || bits) && matches!(f.a, S32 | F32))
        }
        WmmaOp::Mma => {
            let float_acc = matches!(f.d, F16 | F32) && matches!(f.c, F16 | F32);
            let types = match (f.a, f.b) {
                // `.satfinite` below PTX ISA 6.5 only ([`version_rule`]).
                (F16, F16) => big && float_acc && type_count == 2,
                (Bf16, Bf16) => big && (f.d, f.c) == (F32, F32) && !f.satfinite,
                (Tf32, Tf32) => tf32 && (f.d, f.c) == (F32, F32) && !f.satfinite,
                (S8, S8) | (U8, U8) => big && (f.d, f.c) == (S32, S32),
                (F64, F64) => f64 && (f.d, f.c) == (F64, F64) && !f.satfinite,
                // `wmma.mma.sync.aligned.row.col.m8n8k32.s32.atype.btype.s32{.satfinite}`
                // (ptxas 13.5 rejects mixed `.s4.u4`).
                (S4, S4) | (U4, U4) => int4 && (f.d, f.c) == (S32, S32) && sub_byte_layout,
                // `wmma.mma.op.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32` ("Modifier
                // .satfinite not allowed ... with shape '.m8n8k128'").
                (B1, B1) => bits && (f.d, f.c) == (S32, S32) && sub_byte_layout && !f.satfinite,
                _ => false,
            };
            types && (f.bit_op.is_some() == (f.a == B1))
        }
    };
    if !ok {
        return Err(error(
            DecodeErrorKind::UnsupportedTypes,
            None,
            format!("wmma.{} is not a form of the PTX ISA", f.name()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_compiler_forms() {
        let f = decode_wmma(&[
            "load",
            "a",
            "sync",
            "aligned",
            "row",
            "m16n16k16",
            "global",
            "f16",
        ])
        .unwrap();
        assert_eq!(f.op, WmmaOp::Load(WmmaMatrix::A));
        assert_eq!(
            (f.registers(WmmaMatrix::A), f.fragment_bytes(WmmaMatrix::A)),
            (8, 32)
        );
        assert_eq!(f.default_stride(), 16);
        assert_eq!(f.space, WmmaSpace::Global);
        let f = decode_wmma(&["load", "a", "sync", "aligned", "m16n16k16", "col", "bf16"]).unwrap();
        assert_eq!(f.registers(WmmaMatrix::A), 4);
        let f = decode_wmma(&["load", "b", "sync", "aligned", "col", "m8n32k16", "u8"]).unwrap();
        assert_eq!((f.registers(WmmaMatrix::B), f.default_stride()), (4, 16));
        let f = decode_wmma(&[
            "mma",
            "sync",
            "aligned",
            "row",
            "col",
            "m16n16k16",
            "f16",
            "f32",
        ])
        .unwrap();
        assert_eq!((f.d, f.a, f.c), (MmaType::F16, MmaType::F16, MmaType::F32));
        assert_eq!(f.registers(WmmaMatrix::D), 4);
        assert_eq!(f.registers(WmmaMatrix::C), 8);
        let f = decode_wmma(&[
            "mma",
            "sync",
            "aligned",
            "row",
            "col",
            "m32n8k16",
            "s32",
            "s8",
            "s8",
            "s32",
            "satfinite",
        ])
        .unwrap();
        assert!(f.satfinite);
        assert_eq!(
            (f.registers(WmmaMatrix::A), f.registers(WmmaMatrix::B)),
            (4, 1)
        );
        let f = decode_wmma(&[
            "mma", "sync", "aligned", "row", "col", "m8n8k4", "rn", "f64", "f64", "f64", "f64",
        ])
        .unwrap();
        assert_eq!(f.registers(WmmaMatrix::C), 2);
        // The sub-byte and single-bit forms: one register of A and B, two of C; strides 32
        // and 128 elements (9.7.14.4.2's table).
        let f = decode_wmma(&["load", "b", "sync", "aligned", "col", "m8n8k32", "u4"]).unwrap();
        assert_eq!((f.registers(WmmaMatrix::B), f.default_stride()), (1, 32));
        let f = decode_wmma(&["load", "a", "sync", "aligned", "row", "m8n8k128", "b1"]).unwrap();
        assert_eq!(
            (f.fragment_bytes(WmmaMatrix::A), f.default_stride()),
            (4, 128)
        );
        let f = decode_wmma(&[
            "mma", "and", "popc", "sync", "aligned", "row", "col", "m8n8k128", "s32", "b1", "b1",
            "s32",
        ])
        .unwrap();
        assert_eq!(f.bit_op, Some(BitOp::And));
        assert_eq!(f.registers(WmmaMatrix::D), 2);
    }

    #[test]
    fn rejects_what_ptxas_rejects() {
        use DecodeErrorKind::*;
        let kind = |modifiers: &[&str]| decode_wmma(modifiers).map(|_| ()).map_err(|e| e.kind);
        // (modifiers joined by dots, the error)
        for (modifiers, expected) in [
            ("load.a.aligned.row.m16n16k16.f16", UnknownModifier),
            ("load.d.sync.aligned.row.m16n16k16.f32", UnknownModifier),
            ("store.c.sync.aligned.row.m16n16k16.f32", UnknownModifier),
            (
                "load.a.sync.aligned.row.m16n16k16.local.f16",
                UnknownModifier,
            ),
            ("load.a.sync.aligned.row.m16n16k16.f32", UnsupportedTypes),
            ("load.a.sync.aligned.row.m16n16k8.f16", UnsupportedTypes),
            // "Illegal alayout '.col' for instruction 'wmma.load.a'" (sub-byte A is row-major).
            ("load.a.sync.aligned.col.m8n8k32.s4", UnsupportedTypes),
            ("load.b.sync.aligned.row.m8n8k128.b1", UnsupportedTypes),
            ("load.c.sync.aligned.row.m8n8k32.s4", UnsupportedTypes),
            (
                "mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32",
                UnsupportedTypes,
            ),
            (
                "mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
                UnsupportedTypes,
            ),
            (
                "mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32.satfinite",
                UnsupportedTypes,
            ),
            (
                "mma.popc.xor.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
                UnknownModifier,
            ),
            (
                "mma.sync.aligned.row.col.m16n16k16.f32.f16.f16.f32",
                UnsupportedTypes,
            ),
            (
                "mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32",
                UnsupportedTypes,
            ),
            (
                "mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f16",
                UnsupportedTypes,
            ),
            ("mma.sync.aligned.row.m16n16k16.f32.f32", UnknownModifier),
            (
                "mma.sync.aligned.row.col.m16n16k16.rn.f32.f32",
                UnknownModifier,
            ),
            (
                "mma.sync.aligned.row.col.m8n8k4.rz.rm.f64.f64.f64.f64",
                ConflictingModifier,
            ),
        ] {
            let modifiers: Vec<&str> = modifiers.split('.').collect();
            assert_eq!(kind(&modifiers), Err(expected), "{modifiers:?}");
        }
    }

    #[test]
    fn f64_takes_a_rounding_modifier() {
        let words: Vec<&str> = "mma.sync.aligned.row.col.m8n8k4.rp.f64.f64.f64.f64"
            .split('.')
            .collect();
        assert_eq!(decode_wmma(&words).unwrap().rounding, crate::Rounding::Rp);
    }

    /// ptxas 13.5 (`tests/conformance/llvm-lines.tsv.xz`): `.aligned` from PTX ISA 6.3 on, a
    /// floating-point `.satfinite` below 6.5 only.
    #[test]
    fn version_rules_follow_ptxas() {
        let v = crate::PtxVersion::new;
        let unaligned = decode_wmma(&["load", "a", "sync", "row", "m16n16k16", "f16"]).unwrap();
        assert!(!unaligned.aligned);
        assert_eq!(version_rule(&unaligned, v(6, 2)), None);
        assert!(version_rule(&unaligned, v(6, 3)).is_some());
        let words: Vec<&str> = "mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite"
            .split('.')
            .collect();
        let satfinite = decode_wmma(&words).unwrap();
        assert_eq!(version_rule(&satfinite, v(6, 4)), None);
        assert!(version_rule(&satfinite, v(6, 5)).is_some());
    }
}
