//! Lowering of `tcgen05` (PTX ISA 9.7.16) to [`crate::program::tcgen05::Tcgen05`]. The
//! instruction table knows `tcgen05` by its Syntax block only (the checker validates alloc,
//! dealloc and relinquish_alloc_permit there, and gates the opcode); the forms are read here
//! from the modifiers. A form ptxsim does not run becomes [`InstructionKind::Unsupported`] with
//! the reason, so that a run stops there with its location.

use ptxsim_isa::Type;
use ptxsim_isa::ops::Space;
use ptxsim_syntax::ast::{self, Operand};

use super::Builder;
use crate::program::InstructionKind;
use crate::program::tcgen05::{
    Collector, CollectorUsage, CopyShape, Kind, LoadReduction, Mma, MmaA, Shape, Tcgen05,
};

impl Builder<'_> {
    /// `tcgen05.<op>...` to its executable form, or the reason it does not run.
    pub(super) fn tcgen05(
        &mut self,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let modifiers = instruction.modifier_names();
        let operands = instruction.operands.as_slice();
        let has = |name: &str| modifiers.contains(&name);
        let count = |expected: usize| -> Result<(), String> {
            if operands.len() == expected {
                Ok(())
            } else {
                Err(format!(
                    "expected {expected} operands, found {}",
                    operands.len()
                ))
            }
        };
        let Some(&op) = modifiers.first() else {
            return Err("tcgen05 needs an operation".to_string());
        };
        // `.cta_group::2`: the CTA pair (the executor checks that the kernel names one value
        // of `.cta_group` only).
        let pair = has("cta_group::2");
        let tcgen05 = match op {
            "wait::ld" | "wait::st" | "fence::before_thread_sync" | "fence::after_thread_sync" => {
                return Ok(InstructionKind::Fence);
            }
            "alloc" => {
                count(2)?;
                Tcgen05::Alloc {
                    dst: self.memory_operand(&operands[0])?,
                    space: if has("shared::cta") {
                        Space::Shared
                    } else {
                        Space::Generic
                    },
                    columns: self.source(&operands[1], Type::U32)?,
                    pair,
                }
            }
            "dealloc" => {
                count(2)?;
                Tcgen05::Dealloc {
                    taddr: self.source(&operands[0], Type::U32)?,
                    columns: self.source(&operands[1], Type::U32)?,
                    pair,
                }
            }
            "relinquish_alloc_permit" => Tcgen05::Relinquish { pair },
            "ld" | "st" => self.tcgen05_ld_st(op == "ld", &modifiers, operands)?,
            "cp" => {
                count(2)?;
                if modifiers.iter().any(|m| m.starts_with("b8x16")) {
                    return Err(
                        "tcgen05.cp with decompression (.b8x16) is not supported by \
                                ptxsim yet"
                            .to_string(),
                    );
                }
                let shape = if has("32x128b") && has("warpx4") {
                    CopyShape::S32x128bWarpx4
                } else if has("64x128b") && has("warpx2::02_13") {
                    CopyShape::S64x128bWarpx2Pairs02And13
                } else if has("64x128b") && has("warpx2::01_23") {
                    CopyShape::S64x128bWarpx2Pairs01And23
                } else if has("128x256b") {
                    CopyShape::S128x256b
                } else if has("4x256b") {
                    CopyShape::S4x256b
                } else if has("128x128b") {
                    CopyShape::S128x128b
                } else {
                    return Err("this shape of tcgen05.cp is not supported by ptxsim yet".into());
                };
                Tcgen05::Cp {
                    shape,
                    taddr: self.memory_operand(&operands[0])?,
                    desc: self.source(&operands[1], Type::B64)?,
                    pair,
                }
            }
            "shift" => {
                count(1)?;
                Tcgen05::Shift {
                    taddr: self.memory_operand(&operands[0])?,
                    pair,
                }
            }
            "commit" => {
                let multicast = has("multicast::cluster");
                count(if multicast { 2 } else { 1 })?;
                Tcgen05::Commit {
                    mbar: self.memory_operand(&operands[0])?,
                    space: if modifiers.iter().any(|m| m.starts_with("shared")) {
                        Space::SharedCluster
                    } else {
                        Space::Generic
                    },
                    cta_mask: if multicast {
                        Some(self.source(&operands[1], Type::B16)?)
                    } else {
                        None
                    },
                    pair,
                }
            }
            "mma" => self.tcgen05_mma(&modifiers, operands, pair)?,
            other => {
                return Err(format!(
                    "tcgen05.{other} is not supported by ptxsim yet (docs/tensor-cores.md)"
                ));
            }
        };
        Ok(InstructionKind::Tcgen05(Box::new(tcgen05)))
    }

    /// `tcgen05.ld ... r, [taddr]{, immHalfSplitoff}` or `tcgen05.st ... [taddr]{,
    /// immHalfSplitoff}, r`.
    fn tcgen05_ld_st(
        &mut self,
        load: bool,
        modifiers: &[&str],
        operands: &[Operand],
    ) -> Result<Tcgen05, String> {
        let red = load && modifiers.contains(&"red");
        let shape = modifiers
            .iter()
            .find_map(|m| Shape::parse(m))
            .ok_or("tcgen05.ld/st needs a shape")?;
        let num = modifiers
            .iter()
            .find_map(|m| m.strip_prefix('x').and_then(|n| n.parse::<u32>().ok()))
            .filter(|n| n.is_power_of_two() && *n <= 128)
            .ok_or("tcgen05.ld/st needs .num (.x1 ... .x128)")?;
        let pack = modifiers.contains(&"pack::16b") || modifiers.contains(&"unpack::16b");
        let split_form = shape == Shape::S16x32bx2;
        if red && (pack || !matches!(shape, Shape::S32x32b | Shape::S16x32bx2) || num < 2) {
            return Err(
                "tcgen05.ld.red takes .32x32b or .16x32bx2, .num at least .x2 (\"When .red \
                 qualifier is specified, .num modifier must be at least .x2\") and no .pack"
                    .to_string(),
            );
        }
        // `.red` puts `redval` after `r`.
        let mut operands = operands.to_vec();
        let redval = if red && operands.len() > 1 {
            Some(operands.remove(1))
        } else {
            None
        };
        let operands = &operands[..];
        let expected = if split_form { 3 } else { 2 };
        if operands.len() != expected {
            return Err(format!(
                "tcgen05.{}.{} takes {expected} operands, not {}",
                if load { "ld" } else { "st" },
                shape.name(),
                operands.len()
            ));
        }
        let (vector, address) = if load {
            (&operands[0], &operands[1])
        } else {
            (&operands[expected - 1], &operands[0])
        };
        let split = if split_form {
            match self.source(&operands[if load { 2 } else { 1 }], Type::U32)? {
                super::Source::Immediate(bits) => bits as u32,
                _ => return Err("immHalfSplitoff must be an integer constant".to_string()),
            }
        } else {
            0
        };
        let elements: &[Operand] = match vector {
            Operand::Vector(elements) => &elements.value,
            single => std::slice::from_ref(single),
        };
        // Table 49: `.num` repetitions of the shape's registers (at most 128); `.pack::16b`
        // keeps the count and covers twice the columns (two 16-bit halves a register).
        let registers = shape.registers() * num as usize;
        if registers > 128 || elements.len() != registers {
            return Err(format!(
                "tcgen05.{}.{}.x{num} takes {registers} registers (at most 128), not {}",
                if load { "ld" } else { "st" },
                shape.name(),
                elements.len()
            ));
        }
        let taddr = self.memory_operand(address)?;
        Ok(if load {
            Tcgen05::Ld {
                shape,
                num,
                pack,
                d: elements
                    .iter()
                    .map(|element| self.destination(element))
                    .collect::<Result<_, _>>()?,
                taddr,
                split,
                red: match redval {
                    Some(redval) => {
                        Some(Self::load_reduction(modifiers, self.destination(&redval)?)?)
                    }
                    None => None,
                },
            }
        } else {
            Tcgen05::St {
                shape,
                num,
                unpack: pack,
                sources: self.vector_sources(elements, Type::B32)?,
                taddr,
                split,
            }
        })
    }

    /// `.redOp{.abs}{.NaN}.type` of `tcgen05.ld.red` (9.7.16.8.3: `.redOp = { .min, .max }`,
    /// `.type = { .u32, .s32 }` or `.f32`, `.abs` and `.NaN` with `.f32` only).
    fn load_reduction(
        modifiers: &[&str],
        dest: super::Destination,
    ) -> Result<LoadReduction, String> {
        let max = match (modifiers.contains(&"max"), modifiers.contains(&"min")) {
            (true, false) => true,
            (false, true) => false,
            _ => return Err("tcgen05.ld.red takes one of .min and .max".to_string()),
        };
        let ty = match modifiers.iter().find_map(|m| match *m {
            "f32" => Some(Type::F32),
            "u32" => Some(Type::U32),
            "s32" => Some(Type::S32),
            _ => None,
        }) {
            Some(ty) => ty,
            None => return Err("tcgen05.ld.red takes .f32, .u32 or .s32".to_string()),
        };
        let (abs, nan) = (modifiers.contains(&"abs"), modifiers.contains(&"NaN"));
        if ty != Type::F32 && (abs || nan) {
            return Err(".abs and .NaN of tcgen05.ld.red go with .f32 only".to_string());
        }
        Ok(LoadReduction {
            max,
            ty,
            abs,
            nan,
            dest,
        })
    }

    /// `tcgen05.mma{.sp}.cta_group.kind [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta-tmem],}
    /// idesc, {disable-output-lane,} enable-input-d {, scale-input-d}` (9.7.16.10.9.1-2).
    /// `.sp` with `.ws` or `.block_scale` is not run yet.
    fn tcgen05_mma(
        &mut self,
        modifiers: &[&str],
        operands: &[Operand],
        pair: bool,
    ) -> Result<Tcgen05, String> {
        let sparse = modifiers.contains(&"sp");
        let ws = if modifiers.contains(&"ws") {
            if pair {
                return Err("tcgen05.mma.ws takes .cta_group::1 only".to_string());
            }
            Some(Self::collector(modifiers)?)
        } else {
            None
        };
        let kind = modifiers
            .iter()
            .find_map(|m| Kind::parse(m))
            .ok_or("this .kind of tcgen05.mma is not supported by ptxsim yet")?;
        let block_scale = modifiers.contains(&"block_scale");
        if ws.is_some() && (block_scale || kind.block_scaled()) {
            return Err("tcgen05.mma.ws has no block-scaled form".to_string());
        }
        if block_scale != kind.block_scaled() {
            return Err(
                ".kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4 go with .block_scale, the \
                 other kinds without it"
                    .to_string(),
            );
        }
        let scale_vec = if block_scale {
            Self::scale_vec(kind, modifiers)?
        } else {
            0
        };
        if sparse && (ws.is_some() || block_scale) {
            return Err(
                "sparse tcgen05.mma.sp with .ws or .block_scale is not supported by ptxsim yet"
                    .to_string(),
            );
        }
        // `.sp` puts `[sp-meta-tmem]` between b-desc and idesc (9.7.16.10.9.1, Syntax).
        let mut operands = operands.to_vec();
        let sparse_metadata = if sparse {
            if operands.len() < 6 {
                return Err(format!(
                    "tcgen05.mma.sp takes at least 6 operands, not {}",
                    operands.len()
                ));
            }
            Some(self.memory_operand(&operands.remove(3))?)
        } else {
            None
        };
        let operands = &operands[..];
        if operands.len() < 5 {
            return Err(format!(
                "tcgen05.mma takes at least 5 operands, not {}",
                operands.len()
            ));
        }
        let d = self.memory_operand(&operands[0])?;
        let a = match &operands[1] {
            Operand::Address(_) => MmaA::Tmem(self.memory_operand(&operands[1])?),
            other => MmaA::Descriptor(self.source(other, Type::B64)?),
        };
        let b = self.source(&operands[2], Type::B64)?;
        let idesc = self.source(&operands[3], Type::B32)?;
        let (disable_output_lane, rest) = match &operands[4] {
            Operand::Vector(_) if ws.is_some() => {
                return Err("tcgen05.mma.ws takes no disable-output-lane".to_string());
            }
            Operand::Vector(elements) => (
                self.vector_sources(&elements.value, Type::B32)?,
                &operands[5..],
            ),
            _ => (Vec::new(), &operands[4..]),
        };
        let (scales, rest) = if block_scale {
            if rest.len() < 2 {
                return Err(".block_scale takes [scale-A-tmem], [scale-B-tmem]".to_string());
            }
            (
                Some((
                    self.memory_operand(&rest[0])?,
                    self.memory_operand(&rest[1])?,
                )),
                &rest[2..],
            )
        } else {
            (None, rest)
        };
        let Some(enable) = rest.first() else {
            return Err("tcgen05.mma needs enable-input-d".to_string());
        };
        if rest.len() > 2 {
            return Err(format!("tcgen05.mma: {} operands too many", rest.len() - 2));
        }
        if ws.is_some() && rest.len() == 2 {
            return Err(
                "the zero-column-mask-desc of tcgen05.mma.ws is not supported by ptxsim yet"
                    .to_string(),
            );
        }
        if rest.len() == 2 && !matches!(kind, Kind::F16 | Kind::Tf32) {
            return Err(
                "scale-input-d: \"The argument scale-input-d is only valid for .kind::tf32 and \
                 .kind::f16\""
                    .to_string(),
            );
        }
        Ok(Tcgen05::Mma(Box::new(Mma {
            kind,
            d,
            a,
            b,
            idesc,
            disable_output_lane,
            enable_input_d: self.predicate_source(enable)?,
            scale_input_d: match rest.get(1) {
                Some(scale) => Some(self.source(scale, Type::U32)?),
                None => None,
            },
            scales,
            scale_vec,
            pair,
            ws,
            sparse_metadata,
        })))
    }

    /// `.collector::bN::{fill,use,lastuse,discard}` of `tcgen05.mma.ws` (`b0` to `b3`; without
    /// it, `.collector::b0::discard`).
    fn collector(modifiers: &[&str]) -> Result<Collector, String> {
        let Some(named) = modifiers.iter().find_map(|m| m.strip_prefix("collector::")) else {
            return Ok(Collector {
                buffer: 0,
                usage: CollectorUsage::Discard,
            });
        };
        let (buffer, usage) = named.split_once("::").unwrap_or((named, ""));
        let buffer = match buffer {
            "b0" => 0,
            "b1" => 1,
            "b2" => 2,
            "b3" => 3,
            other => return Err(format!("tcgen05.mma.ws has no collector buffer {other}")),
        };
        let usage = match usage {
            "fill" => CollectorUsage::Fill,
            "use" => CollectorUsage::Use,
            "lastuse" => CollectorUsage::LastUse,
            "discard" => CollectorUsage::Discard,
            other => return Err(format!("tcgen05.mma.ws has no collector usage {other:?}")),
        };
        Ok(Collector { buffer, usage })
    }

    /// The scale factors per row and K of one instruction (Table 36's `.scale_vec_size`,
    /// as ptxas 13.5 takes it for tcgen05.mma): `.kind::mxf8f6f4` `.scale_vec::1X` (the
    /// default; `.block32`), `.kind::mxf4` `.scale_vec::2X` (the default; `.block32`),
    /// `.kind::mxf4nvf4` `.scale_vec::2X` (`.block32`) or `.scale_vec::4X` (`.block16`), which
    /// it must name ("Modifier '.kind::mxf4nvf4' requires modifier '.scale_vectorsize'").
    fn scale_vec(kind: Kind, modifiers: &[&str]) -> Result<u32, String> {
        let k = kind.k() as u32;
        let named = modifiers.iter().find_map(|m| match *m {
            "scale_vec::1X" => Some(1),
            "scale_vec::2X" => Some(2),
            "scale_vec::4X" => Some(4),
            "block32" => Some(k / 32),
            "block16" => Some(k / 16),
            _ => None,
        });
        let allowed: &[u32] = match kind {
            Kind::Mxf8f6f4 => &[1],
            Kind::Mxf4 => &[2],
            _ => &[2, 4],
        };
        match named.or(if kind == Kind::Mxf4nvf4 {
            None
        } else {
            Some(allowed[0])
        }) {
            Some(vec) if allowed.contains(&vec) => Ok(vec),
            Some(vec) => Err(format!(
                "this .kind cannot be combined with {vec} scale factors per row \
                 (.scale_vec::{vec}X; Table 36)"
            )),
            None => Err(".kind::mxf4nvf4 needs .scale_vec::2X or .scale_vec::4X".to_string()),
        }
    }
}
