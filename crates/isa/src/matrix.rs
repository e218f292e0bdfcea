//! The warp-level matrix load, store and transpose instructions `ldmatrix` (PTX ISA
//! 9.7.14.5.15), `stmatrix` (9.7.14.5.16) and `movmatrix` (9.7.14.5.17), decoded into a
//! [`MatrixForm`].
//!
//! The `.m8n8` shape with `.b16` elements is supported (the form nvcc and Triton emit); the
//! sm_100a forms (`.m16n16`, `.m8n16`, `.m16n8`, `.b8`, the `.b8x16` destination formats) are
//! decoded by name and reported as not supported by ptxsim.
//!
//! Modifiers may come in any order (ptxas 13.5 takes `ldmatrix.sync.aligned.x4.m8n8.shared.
//! trans.b16`); `.sync` and `.aligned` are both required (".sync modifier required for
//! instruction 'ldmatrix'"), as are the shape, `.num` (not for `movmatrix`) and the type;
//! `movmatrix` requires `.trans` and takes no state space.

use crate::form::{DecodeError, DecodeErrorKind};
use crate::opcode::Opcode;

/// Elements per matrix row and rows per matrix of the `.m8n8` shape.
pub const ROWS: usize = 8;

/// One `ldmatrix`/`stmatrix`/`movmatrix` form: `.m8n8`, `.b16`, one, two or four matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatrixForm {
    /// `.x1`, `.x2`, `.x4`: the number of 8x8 matrices (1 for `movmatrix`).
    pub count: u8,
    /// `.trans`: the matrices are read (`ldmatrix`) or written (`stmatrix`) column-major;
    /// always set for `movmatrix`.
    pub trans: bool,
    /// `.shared` or `.shared::cta` was written; otherwise the address is generic and must point
    /// into shared memory.
    pub shared: bool,
}

impl MatrixForm {
    /// The modifiers after `opcode.sync.aligned`, for messages (`m8n8.x4.trans.shared.b16`).
    pub fn name(&self, opcode: Opcode) -> String {
        let mut name = String::from("m8n8");
        if opcode != Opcode::Movmatrix {
            name.push_str(&format!(".x{}", self.count));
        }
        if self.trans {
            name.push_str(".trans");
        }
        if self.shared {
            name.push_str(".shared");
        }
        name.push_str(".b16");
        name
    }
}

fn error(kind: DecodeErrorKind, index: Option<usize>, rule: impl Into<String>) -> DecodeError {
    DecodeError::new(kind, index, rule)
}

fn unsupported(opcode: Opcode, index: usize, modifier: &str) -> DecodeError {
    error(
        DecodeErrorKind::UnsupportedInstruction(opcode),
        Some(index),
        format!(
            "{opcode} with .{modifier} (the sm_100a 8-bit, 6-bit and 4-bit forms) is not \
             supported by ptxsim yet; .m8n8 .b16 is"
        ),
    )
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
/// 9.7.14.5.15-17). Any other opcode is [`DecodeErrorKind::UnsupportedInstruction`].
pub fn decode_matrix(opcode: Opcode, modifiers: &[&str]) -> Result<MatrixForm, DecodeError> {
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
    let (mut sync, mut aligned, mut shape, mut trans, mut space, mut ty) =
        (None, None, None, None, None, None);
    let mut count: Option<(usize, u8)> = None;
    for (index, &m) in modifiers.iter().enumerate() {
        match m {
            "sync" => once(&mut sync, index, m)?,
            "aligned" => once(&mut aligned, index, m)?,
            "m8n8" => once(&mut shape, index, m)?,
            "trans" => once(&mut trans, index, m)?,
            "b16" => once(&mut ty, index, m)?,
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
            "m16n16" | "m8n16" | "b8x16" | "b6x16_p32" | "b4x16_p64"
                if opcode == Opcode::Ldmatrix =>
            {
                return Err(unsupported(opcode, index, m));
            }
            "m16n8" if opcode == Opcode::Stmatrix => return Err(unsupported(opcode, index, m)),
            "b8" if !movmatrix => {
                return Err(error(
                    DecodeErrorKind::UnsupportedTypes,
                    Some(index),
                    format!(
                        "{opcode} .b8 goes with the sm_100a shapes only (not supported by \
                         ptxsim yet); .m8n8 takes .b16"
                    ),
                ));
            }
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
    if shape.is_none() {
        return Err(error(
            DecodeErrorKind::UnknownModifier,
            None,
            format!("{opcode} needs a shape (.m8n8)"),
        ));
    }
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
    if ty.is_none() {
        return Err(error(
            DecodeErrorKind::MissingType,
            None,
            format!("{opcode} needs .b16"),
        ));
    }
    Ok(MatrixForm {
        count: count.map_or(1, |(_, n)| n),
        trans: trans.is_some(),
        shared: space.is_some(),
    })
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
        assert_eq!(
            form,
            Ok(MatrixForm {
                count: 4,
                trans: true,
                shared: true
            })
        );
        let form = decode_matrix(
            Opcode::Stmatrix,
            &["sync", "aligned", "x2", "m8n8", "shared::cta", "b16"],
        );
        assert_eq!(
            form,
            Ok(MatrixForm {
                count: 2,
                trans: false,
                shared: true
            })
        );
        let form = decode_matrix(
            Opcode::Movmatrix,
            &["sync", "aligned", "m8n8", "trans", "b16"],
        );
        assert_eq!(
            form,
            Ok(MatrixForm {
                count: 1,
                trans: true,
                shared: false
            })
        );
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
            kind(l, &["sync", "aligned", "m16n16", "x1", "trans", "b8"]),
            Err(UnsupportedInstruction(l))
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
