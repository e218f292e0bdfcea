//! The warp-level matrix load, store and transpose instructions `ldmatrix` (PTX ISA
//! 9.7.14.5.15), `stmatrix` (9.7.14.5.16) and `movmatrix` (9.7.14.5.17), decoded into a
//! [`MatrixForm`].
//!
//! Decoded and run: the `.m8n8` shape with `.b16` elements (the form nvcc and Triton emit) and
//! the sm_100a forms `ldmatrix.m16n16.trans` with `.b8` or `.b8x16.src_fmt`,
//! `ldmatrix.m8n16.b8x16.src_fmt` and `stmatrix.m16n8.trans.b8`. The other sm_100a spellings
//! (`.m16n16` without `.trans`, which the ISA makes mandatory: "for 16x16 matrices, .trans is
//! mandatory"; `stmatrix.m16n8` without `.trans`: "for 16x8 matrices, .trans is mandatory")
//! are reported as not supported by ptxsim, and are checked by the Syntax-block table as the
//! runnable sm_100a forms are.
//!
//! Modifiers may come in any order (ptxas 13.5 takes `ldmatrix.sync.aligned.x4.m8n8.shared.
//! trans.b16`); `.sync` and `.aligned` are both required (".sync modifier required for
//! instruction 'ldmatrix'"), as are the shape, `.num` (not for `movmatrix`) and the type;
//! `movmatrix` requires `.trans` and takes no state space.

use crate::form::{DecodeError, DecodeErrorKind};
use crate::opcode::Opcode;

/// Elements per matrix row and rows per matrix of the `.m8n8` shape.
pub const ROWS: usize = 8;

/// The `.shape` of a matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixShape {
    /// `.m8n8`: 8 rows of eight 16-bit elements.
    M8n8,
    /// `.m16n16` (`ldmatrix`): 16 rows of sixteen 8-bit elements, two registers per matrix
    /// ("For matrix shape 16x16, two destination registers r0 and r1 of type .b32 must be
    /// specified").
    M16n16,
    /// `.m8n16` (`ldmatrix`): 8 rows of sixteen 8-bit elements ("For matrix shape 8x16, one
    /// destination register r0 of type .b32 must be specified").
    M8n16,
    /// `.m16n8` (`stmatrix`): a 16x8 matrix of 8-bit elements stored transposed, 8 rows of 16
    /// bytes ("For 16x8 matrix shape, each of the 32 threads in the warp provides four
    /// elements of data per matrix").
    M16n8,
}

impl MatrixShape {
    /// The row addresses (lanes) one matrix takes: 16 for `.m16n16`, else 8.
    pub fn rows(self) -> usize {
        if self == MatrixShape::M16n16 { 16 } else { 8 }
    }

    /// The `.b32` registers per matrix: two for `.m16n16`, else one.
    pub fn registers(self) -> usize {
        if self == MatrixShape::M16n16 { 2 } else { 1 }
    }

    fn name(self) -> &'static str {
        match self {
            MatrixShape::M8n8 => "m8n8",
            MatrixShape::M16n16 => "m16n16",
            MatrixShape::M8n16 => "m8n16",
            MatrixShape::M16n8 => "m16n8",
        }
    }
}

/// The element data of a matrix instruction: `.type`, or `ldmatrix`'s `.dst_fmt.src_fmt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixElements {
    /// `.b16`.
    B16,
    /// `.b8`.
    B8,
    /// `.b8x16.b6x16_p32`: "source data is 16 unsigned 6-bit elements with 32 bits padding",
    /// each unpacked into an 8-bit element.
    B8x16FromB6x16P32,
    /// `.b8x16.b4x16_p64`: "source data is 16 unsigned 4-bit elements with 64 bits padding",
    /// each unpacked into an 8-bit element.
    B8x16FromB4x16P64,
}

impl MatrixElements {
    /// The bits of one packed source element (`None` when the rows hold the elements as they
    /// are loaded).
    pub fn packed_bits(self) -> Option<u32> {
        match self {
            MatrixElements::B8x16FromB6x16P32 => Some(6),
            MatrixElements::B8x16FromB4x16P64 => Some(4),
            MatrixElements::B16 | MatrixElements::B8 => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            MatrixElements::B16 => "b16",
            MatrixElements::B8 => "b8",
            MatrixElements::B8x16FromB6x16P32 => "b8x16.b6x16_p32",
            MatrixElements::B8x16FromB4x16P64 => "b8x16.b4x16_p64",
        }
    }
}

/// One `ldmatrix`/`stmatrix`/`movmatrix` form: its shape, elements, one, two or four matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatrixForm {
    /// `.shape`.
    pub shape: MatrixShape,
    /// `.type` or `.dst_fmt.src_fmt`.
    pub elements: MatrixElements,
    /// `.x1`, `.x2`, `.x4`: the number of matrices (1 for `movmatrix`).
    pub count: u8,
    /// `.trans`: the matrices are read (`ldmatrix`) or written (`stmatrix`) column-major;
    /// always set for `movmatrix` and for the `.m16n16` and `.m16n8` shapes.
    pub trans: bool,
    /// `.shared` or `.shared::cta` was written; otherwise the address is generic and must point
    /// into shared memory.
    pub shared: bool,
}

impl MatrixForm {
    /// The `.m8n8` `.b16` form.
    pub fn m8n8(count: u8, trans: bool, shared: bool) -> MatrixForm {
        MatrixForm {
            shape: MatrixShape::M8n8,
            elements: MatrixElements::B16,
            count,
            trans,
            shared,
        }
    }

    /// The `.b32` registers of the vector `r`: one per matrix, two for `.m16n16`.
    pub fn registers(&self) -> usize {
        usize::from(self.count) * self.shape.registers()
    }

    /// The modifiers after `opcode.sync.aligned`, for messages (`m8n8.x4.trans.shared.b16`).
    pub fn name(&self, opcode: Opcode) -> String {
        let mut name = String::from(self.shape.name());
        if opcode != Opcode::Movmatrix {
            name.push_str(&format!(".x{}", self.count));
        }
        if self.trans {
            name.push_str(".trans");
        }
        if self.shared {
            name.push_str(".shared");
        }
        name.push('.');
        name.push_str(self.elements.name());
        name
    }
}

fn error(kind: DecodeErrorKind, index: Option<usize>, rule: impl Into<String>) -> DecodeError {
    DecodeError::new(kind, index, rule)
}

/// An sm_100a spelling ptxsim does not run: checked by the Syntax-block table (9.7.14.5.15-16)
/// instead, and stopped at run with "unsupported instruction".
fn unsupported(opcode: Opcode, index: Option<usize>, why: &str) -> DecodeError {
    error(
        DecodeErrorKind::UnsupportedInstruction(opcode),
        index,
        format!("{opcode} {why} is not supported by ptxsim"),
    )
}

/// Sets `slot` to `(index, value)` unless one of its kind was written before (`rule` says
/// which).
fn once_valued<T>(
    slot: &mut Option<(usize, T)>,
    (index, value): (usize, T),
    rule: impl FnOnce() -> String,
) -> Result<(), DecodeError> {
    if slot.is_some() {
        return Err(error(
            DecodeErrorKind::DuplicateModifier,
            Some(index),
            rule(),
        ));
    }
    *slot = Some((index, value));
    Ok(())
}

fn once(slot: &mut Option<usize>, index: usize, modifier: &str) -> Result<(), DecodeError> {
    if slot.is_some() {
        return Err(error(
            DecodeErrorKind::DuplicateModifier,
            Some(index),
            format!(".{modifier} is written twice"),
        ));
    }
    *slot = Some(index);
    Ok(())
}

/// Decodes the modifiers of `ldmatrix`, `stmatrix` or `movmatrix` (the "Syntax" blocks of
/// 9.7.14.5.15-17). Any other opcode is [`DecodeErrorKind::UnsupportedInstruction`], as are the
/// sm_100a spellings ptxsim does not run (module docs). An sm_100a form that does not decode
/// is left to the Syntax-block table too, which checks every sm_100a form as ptxas does.
pub fn decode_matrix(opcode: Opcode, modifiers: &[&str]) -> Result<MatrixForm, DecodeError> {
    let newer = modifiers.iter().position(|&m| match opcode {
        Opcode::Ldmatrix => matches!(m, "m16n16" | "m8n16" | "b8x16" | "b6x16_p32" | "b4x16_p64"),
        Opcode::Stmatrix => m == "m16n8",
        _ => false,
    });
    decode(opcode, modifiers).map_err(|e| match newer {
        Some(at) if !matches!(e.kind, DecodeErrorKind::UnsupportedInstruction(_)) => {
            unsupported(opcode, Some(at), "in this sm_100a form")
        }
        _ => e,
    })
}

fn decode(opcode: Opcode, modifiers: &[&str]) -> Result<MatrixForm, DecodeError> {
    if !matches!(
        opcode,
        Opcode::Ldmatrix | Opcode::Stmatrix | Opcode::Movmatrix
    ) {
        return Err(error(
            DecodeErrorKind::UnsupportedInstruction(opcode),
            None,
            format!("{opcode} is not a matrix load, store or transpose"),
        ));
    }
    let movmatrix = opcode == Opcode::Movmatrix;
    let ldmatrix = opcode == Opcode::Ldmatrix;
    let (mut sync, mut aligned, mut trans, mut space) = (None, None, None, None);
    let mut shape: Option<(usize, MatrixShape)> = None;
    let mut ty: Option<(usize, &str)> = None;
    let mut source: Option<(usize, &str)> = None;
    let mut count: Option<(usize, u8)> = None;
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "sync" => once(&mut sync, index, m)?,
            "aligned" => once(&mut aligned, index, m)?,
            "trans" => once(&mut trans, index, m)?,
            "m8n8" | "m16n16" | "m8n16" | "m16n8" => {
                let value = match m {
                    "m8n8" => MatrixShape::M8n8,
                    "m16n16" if ldmatrix => MatrixShape::M16n16,
                    "m8n16" if ldmatrix => MatrixShape::M8n16,
                    "m16n8" if opcode == Opcode::Stmatrix => MatrixShape::M16n8,
                    _ => {
                        return Err(error(
                            DecodeErrorKind::UnknownModifier,
                            Some(index),
                            format!(".{m} is not a shape of {opcode}"),
                        ));
                    }
                };
                once_valued(&mut shape, (index, value), || {
                    format!("{opcode} takes one shape")
                })?;
            }
            "b16" | "b8" | "b8x16" if !movmatrix || m == "b16" => {
                if m == "b8x16" && !ldmatrix {
                    return Err(error(
                        DecodeErrorKind::UnsupportedTypes,
                        Some(index),
                        format!("{opcode} takes .b16 or .b8, not .{m}"),
                    ));
                }
                once_valued(&mut ty, (index, m), || format!("{opcode} takes one type"))?;
            }
            "b6x16_p32" | "b4x16_p64" if ldmatrix => {
                once_valued(&mut source, (index, m), || {
                    "ldmatrix takes one source format".to_string()
                })?;
            }
            "x1" | "x2" | "x4" if !movmatrix => {
                if count.is_some() {
                    return Err(error(
                        DecodeErrorKind::ConflictingModifier,
                        Some(index),
                        format!("{opcode} takes one .num (.x1, .x2 or .x4)"),
                    ));
                }
                count = Some((
                    index,
                    if m == "x1" {
                        1
                    } else if m == "x2" {
                        2
                    } else {
                        4
                    },
                ));
            }
            "shared" | "shared::cta" if !movmatrix => once(&mut space, index, "shared")?,
            _ if crate::types::Type::from_name(m).is_some() => {
                return Err(error(
                    DecodeErrorKind::UnsupportedTypes,
                    Some(index),
                    format!("{opcode} takes .b16, not .{m}"),
                ));
            }
            "global" | "local" | "const" | "param" | "shared::cluster" | "param::entry"
            | "param::func" => {
                let rule = if movmatrix {
                    format!("{opcode} takes no state space")
                } else {
                    format!("{opcode} reads and writes .shared only, not .{m}")
                };
                return Err(error(DecodeErrorKind::UnknownModifier, Some(index), rule));
            }
            _ => {
                return Err(error(
                    DecodeErrorKind::UnknownModifier,
                    Some(index),
                    format!(".{m} is not a modifier of {opcode}"),
                ));
            }
        }
    }
    let fix = format!("write {opcode}.sync.aligned");
    if sync.is_none() {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs .sync"),
        )
        .with_fix(fix));
    }
    if aligned.is_none() {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs .aligned"),
        )
        .with_fix(fix));
    }
    let Some((shape_at, shape)) = shape else {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs a shape (.m8n8)"),
        ));
    };
    if !movmatrix && count.is_none() {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs .num: .x1, .x2 or .x4"),
        ));
    }
    if movmatrix && trans.is_none() {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            "movmatrix needs .trans",
        )
        .with_fix("write movmatrix.sync.aligned.m8n8.trans.b16"));
    }
    let Some((ty_at, ty)) = ty else {
        return Err(error(
            DecodeErrorKind::MissingType,
            None,
            format!("{opcode} needs .b16"),
        ));
    };
    let count = count.map_or(1, |(_, n)| n);
    let elements = match (ty, source) {
        ("b16", None) => MatrixElements::B16,
        ("b8", None) => MatrixElements::B8,
        ("b8x16", Some((_, "b6x16_p32"))) => MatrixElements::B8x16FromB6x16P32,
        ("b8x16", Some((_, "b4x16_p64"))) => MatrixElements::B8x16FromB4x16P64,
        // `.b8x16` without a source format, or a source format after `.b16`/`.b8`: the
        // Syntax-block table says what ptxas says.
        (_, source) => {
            return Err(unsupported(
                opcode,
                Some(source.map_or(ty_at, |(at, _)| at)),
                "with this .dst_fmt/.src_fmt",
            ));
        }
    };
    let form = MatrixForm {
        shape,
        elements,
        count,
        trans: trans.is_some(),
        shared: space.is_some(),
    };
    match (shape, elements) {
        (MatrixShape::M8n8, MatrixElements::B16) => Ok(form),
        (MatrixShape::M8n8, _) => Err(error(
            DecodeErrorKind::UnsupportedTypes,
            Some(ty_at),
            format!(
                "{opcode} .{} goes with the sm_100a shapes; .m8n8 takes .b16",
                ty
            ),
        )),
        // "for 16x16 matrices, .trans is mandatory"; "When .shape is .m16n16, only .x1 and
        // .x2 are valid values for .num".
        (MatrixShape::M16n16, MatrixElements::B16) => {
            Err(unsupported(opcode, Some(ty_at), "with .m16n16 and .b16"))
        }
        (MatrixShape::M16n16, _) if form.trans && count <= 2 => Ok(form),
        (MatrixShape::M8n16, e) if e.packed_bits().is_some() && !form.trans => Ok(form),
        // "for 16x8 matrices, .trans is mandatory"; ".m16n8 shape is valid only for .b8 type".
        (MatrixShape::M16n8, MatrixElements::B8) if form.trans => Ok(form),
        _ => Err(unsupported(
            opcode,
            Some(shape_at),
            &format!("in the form .{}", form.name(opcode)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_compiler_forms() {
        let form = decode_matrix(
            Opcode::Ldmatrix,
            &["sync", "aligned", "m8n8", "x4", "trans", "shared", "b16"],
        );
        assert_eq!(form, Ok(MatrixForm::m8n8(4, true, true)));
        let form = decode_matrix(
            Opcode::Stmatrix,
            &["sync", "aligned", "x2", "m8n8", "shared::cta", "b16"],
        );
        assert_eq!(form, Ok(MatrixForm::m8n8(2, false, true)));
        let form = decode_matrix(
            Opcode::Movmatrix,
            &["sync", "aligned", "m8n8", "trans", "b16"],
        );
        assert_eq!(form, Ok(MatrixForm::m8n8(1, true, false)));
    }

    #[test]
    fn decodes_the_sm_100a_forms() {
        let form = decode_matrix(
            Opcode::Ldmatrix,
            &[
                "sync",
                "aligned",
                "m16n16",
                "x2",
                "trans",
                "shared::cta",
                "b8",
            ],
        )
        .unwrap();
        assert_eq!(
            (form.shape, form.elements, form.count, form.registers()),
            (MatrixShape::M16n16, MatrixElements::B8, 2, 4)
        );
        let form = decode_matrix(
            Opcode::Ldmatrix,
            &["sync", "aligned", "m8n16", "x4", "b8x16", "b6x16_p32"],
        )
        .unwrap();
        assert_eq!(
            (form.elements, form.registers(), form.elements.packed_bits()),
            (MatrixElements::B8x16FromB6x16P32, 4, Some(6))
        );
        let form = decode_matrix(
            Opcode::Stmatrix,
            &["sync", "aligned", "m16n8", "x1", "trans", "b8"],
        )
        .unwrap();
        assert_eq!(form.name(Opcode::Stmatrix), "m16n8.x1.trans.b8");
    }

    #[test]
    fn rejects_what_ptxas_rejects() {
        let kind =
            |opcode, modifiers: &[&str]| decode_matrix(opcode, modifiers).map_err(|e| e.kind);
        use DecodeErrorKind::*;
        let l = Opcode::Ldmatrix;
        assert_eq!(
            kind(l, &["aligned", "m8n8", "x1", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(l, &["sync", "m8n8", "x1", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n8", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "x1", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n8", "x1"]),
            Err(MissingType)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n8", "x1", "b32"]),
            Err(UnsupportedTypes)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n8", "x1", "b8"]),
            Err(UnsupportedTypes)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n8", "x1", "x2", "b16"]),
            Err(ConflictingModifier)
        );
        assert_eq!(
            kind(
                l,
                &["sync", "aligned", "m8n8", "x1", "trans", "trans", "b16"]
            ),
            Err(DuplicateModifier)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n8", "x1", "global", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m16n16", "x1", "b8"]),
            Err(UnsupportedInstruction(l))
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m16n16", "x4", "trans", "b8"]),
            Err(UnsupportedInstruction(l))
        );
        assert_eq!(
            kind(l, &["sync", "m8n16", "x1", "b8x16", "b4x16_p64"]),
            Err(UnsupportedInstruction(l))
        );
        assert_eq!(
            kind(
                l,
                &[
                    "sync",
                    "aligned",
                    "m8n16",
                    "x1",
                    "trans",
                    "b8x16",
                    "b4x16_p64"
                ]
            ),
            Err(UnsupportedInstruction(l))
        );
        assert_eq!(
            kind(l, &["sync", "aligned", "m8n16", "x1", "b8x16"]),
            Err(UnsupportedInstruction(l))
        );
        let s = Opcode::Stmatrix;
        assert_eq!(
            kind(s, &["sync", "aligned", "m16n8", "x1", "b8"]),
            Err(UnsupportedInstruction(s))
        );
        let m = Opcode::Movmatrix;
        assert_eq!(
            kind(m, &["sync", "aligned", "m8n8", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(m, &["sync", "aligned", "m8n8", "trans", "shared", "b16"]),
            Err(UnknownModifier)
        );
        assert_eq!(
            kind(m, &["sync", "aligned", "m8n8", "x1", "trans", "b16"]),
            Err(UnknownModifier)
        );
    }
}
