//! `ptxsim eval 'INSTRUCTION' name=value ...`: evaluates one `mov`, `cvt` or `cvt.pack` on given
//! operand values and prints the result in hex and decoded per lane.
//!
//! The instruction is wrapped in a kernel whose registers get the types the instruction form's
//! operand layout (from `ptxsim-isa`) asks for; the values are preloaded and the kernel is run
//! by the same executor as `ptxsim run`.

use anyhow::{Context as _, bail};
use ptxsim_exec::{Machine, report};
use ptxsim_isa::{Form, RegisterRule, SlotShape, Type, TypeKind};
use ptxsim_syntax::ast::{Item, Operand, Statement};
use std::fmt::Write as _;
use std::process::ExitCode;

/// Arguments of `ptxsim eval`.
#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    /// One instruction, e.g. `cvt.rn.satfinite.e4m3x2.f32 d, a, b` (operands are plain names).
    #[arg(value_name = "INSTRUCTION")]
    instruction: String,
    /// Operand values: `name=value`, where value is a decimal integer (`-5`), a decimal float
    /// (`448.0`, `1e-3`), hex bits (`0x3fc00000`) or a PTX float literal (`0f3fc00000`,
    /// `0d3ff8000000000000`).
    #[arg(value_name = "NAME=VALUE")]
    values: Vec<String>,
}

const HEADER: &str = ".version 9.1\n.target sm_100a\n.address_size 64\n.visible .entry eval()\n{\n";

/// The register type an operand slot rule asks for.
fn slot_type(rule: RegisterRule) -> Type {
    let declarable = |t: Type| {
        if t.is_register_type() {
            t
        } else {
            ptxsim_check::program::bit_type(t.bits())
        }
    };
    match rule {
        RegisterRule::RelaxedSource(t)
        | RegisterRule::RelaxedDestination(t)
        | RegisterRule::SameSize(t) => declarable(t),
        RegisterRule::OneOf(types) => types.first().copied().map_or(Type::B32, declarable),
        RegisterRule::Constant => Type::U32,
    }
}

/// Operand names with their register types and whether they are written.
type Slots = Vec<(String, Type, bool)>;

/// The type whose values a source operand holds when it differs from its register's type: a
/// `.bf16` source lives in a `.b16` register, but `a=1.5` means the bf16 value 1.5.
fn value_type(form: &Form, register: Type) -> Type {
    match form {
        Form::Cvt(form) => {
            let source = form.source.value;
            let scalar = matches!(
                source.kind(),
                TypeKind::Float | TypeKind::Signed | TypeKind::Unsigned
            );
            if scalar && source.bits() == register.bits() && register.kind() == TypeKind::Bit {
                source
            } else {
                register
            }
        }
        Form::CvtPack(_) | Form::Mov(_) | Form::Op(_) => register,
    }
}

fn names_of(operand: &Operand) -> Vec<String> {
    match operand {
        Operand::Name(name) => vec![name.name.value.to_string()],
        Operand::NameOffset(offset) => vec![offset.name.name.value.to_string()],
        Operand::Vector(elements) => elements.value.iter().flat_map(names_of).collect(),
        Operand::SpecialRegister(_)
        | Operand::Immediate(_)
        | Operand::Sink(_)
        | Operand::Negated(..)
        | Operand::Pair(..)
        | Operand::Address(_)
        | Operand::AddressList(_)
        | Operand::List(_) => Vec::new(),
    }
}

fn add(slots: &mut Slots, name: String, ty: Type, written: bool) -> anyhow::Result<()> {
    if let Some(existing) = slots.iter_mut().find(|(n, _, _)| *n == name) {
        if existing.1 != ty {
            bail!(
                "operand `{name}` is used as {} and as {ty}; use two names",
                existing.1
            );
        }
        existing.2 |= written;
        return Ok(());
    }
    slots.push((name, ty, written));
    Ok(())
}

fn slots_for(form: &Form, operands: &[Operand]) -> anyhow::Result<Slots> {
    let mut slots = Slots::new();
    let layout = match form {
        Form::Cvt(form) => form.layout(),
        Form::CvtPack(form) => form.layout(),
        Form::Mov(form) => {
            let ty = form.ty.value;
            for (index, operand) in operands.iter().enumerate() {
                let written = index == 0;
                match operand {
                    Operand::Vector(elements) => {
                        let count = elements.value.len().max(1) as u32;
                        let element = ptxsim_check::program::bit_type(ty.bits() / count);
                        for name in elements.value.iter().flat_map(names_of) {
                            add(&mut slots, name, element, written)?;
                        }
                    }
                    other => {
                        for name in names_of(other) {
                            add(&mut slots, name, ty, written)?;
                        }
                    }
                }
            }
            return Ok(slots);
        }
        Form::Op(op) => match ptxsim_isa::op_layout::slots(&op.form) {
            Some(slots) => slots,
            None => bail!("`ptxsim eval` cannot evaluate `{}`", op.text),
        },
    };
    for (slot, operand) in layout.iter().zip(operands) {
        let ty = match slot.shape {
            SlotShape::Scalar(rule)
            | SlotShape::Vector { element: rule, .. }
            | SlotShape::ScalarOrSingle(rule)
            | SlotShape::ScalarOrSymbol(rule)
            | SlotShape::ScalarOrSink(rule) => slot_type(rule),
            SlotShape::Address | SlotShape::Label => {
                bail!("`ptxsim eval` takes no memory or label operands")
            }
        };
        for name in names_of(operand) {
            add(&mut slots, name, ty, slot.is_destination)?;
        }
    }
    Ok(slots)
}

/// Parses an operand value for a register of type `ty` (see [`EvalArgs::values`]).
fn parse_value(text: &str, ty: Type) -> anyhow::Result<u128> {
    let width = ty.bits();
    let fits = |value: u128| -> anyhow::Result<u128> {
        if width < 128 && value >> width != 0 {
            bail!("`{text}` does not fit a {width}-bit {ty} register");
        }
        Ok(value)
    };
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        anyhow::ensure!(!negative, "hex bits take no sign: `{text}`");
        let value = u128::from_str_radix(hex, 16).with_context(|| format!("bad hex `{text}`"))?;
        return fits(value);
    }
    let float_bits = |digits: &str, count: usize| -> anyhow::Result<u64> {
        anyhow::ensure!(
            digits.len() == count,
            "`{text}` needs exactly {count} hex digits"
        );
        u64::from_str_radix(digits, 16).with_context(|| format!("bad float literal `{text}`"))
    };
    let immediate = if let Some(digits) = lower.strip_prefix("0f") {
        ptxsim_syntax::ast::ImmediateValue::F32Bits(float_bits(digits, 8)? as u32)
    } else if let Some(digits) = lower.strip_prefix("0d") {
        ptxsim_syntax::ast::ImmediateValue::F64Bits(float_bits(digits, 16)?)
    } else if body.chars().all(|c| c.is_ascii_digit()) && !body.is_empty() {
        if ty.kind() == TypeKind::Float {
            ptxsim_syntax::ast::ImmediateValue::Decimal(body.to_string())
        } else {
            let value: u64 = body
                .parse()
                .with_context(|| format!("bad integer `{text}`"))?;
            let limit = if negative {
                1u128 << width.saturating_sub(1)
            } else if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            };
            anyhow::ensure!(
                u128::from(value) <= limit,
                "`{text}` does not fit a {width}-bit {ty} register"
            );
            ptxsim_syntax::ast::ImmediateValue::Integer {
                value,
                radix: ptxsim_syntax::ast::Radix::Decimal,
                unsigned: false,
            }
        }
    } else {
        anyhow::ensure!(
            ty.kind() == TypeKind::Float,
            "`{text}` is a float but the operand is a {ty} register; give hex bits"
        );
        ptxsim_syntax::ast::ImmediateValue::Decimal(body.to_string())
    };
    let immediate = ptxsim_syntax::ast::Immediate {
        negative,
        value: immediate,
    };
    ptxsim_check::program::encode_immediate(&immediate, ty)
        .map_err(|message| anyhow::anyhow!(message))
}

/// The instruction type whose lanes a destination holds.
fn result_type(form: &Form, register: Type) -> Type {
    match form {
        Form::Cvt(form) => form.destination.value,
        Form::CvtPack(_) => Type::B32,
        Form::Mov(_) | Form::Op(_) => register,
    }
}

/// Runs the command: prints every written operand, exit 0; exit 1 for an invalid instruction
/// or value.
pub(crate) fn run(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let instruction_text = args.instruction.trim().trim_end_matches(';');
    let wrapped = format!("{HEADER}{instruction_text};\n}}\n");
    let (module, diagnostics) = ptxsim_syntax::parse(&wrapped);
    if diagnostics.iter().any(ptxsim_syntax::Diagnostic::is_error) {
        // Shown against the instruction as written, not the kernel eval wraps it in.
        let text = format!("{instruction_text};");
        let diagnostics = relocate(diagnostics, HEADER.len(), text.len());
        report_part!(
            "{}",
            crate::check::render_text(
                "<instruction>",
                &text,
                &diagnostics,
                crate::check::Shown::DEFAULT
            )?
        );
        return Ok(ExitCode::from(1));
    }
    // A `}` in the text would end the wrapping kernel and could start another one.
    if module.items.len() != 1 {
        report!("error: `ptxsim eval` takes instructions, not declarations or functions");
        return Ok(ExitCode::from(1));
    }
    let instruction = module
        .items
        .iter()
        .find_map(|item| match item {
            Item::Function(function) => function.body.as_ref().and_then(|body| {
                body.statements
                    .iter()
                    .find_map(|statement| match statement {
                        Statement::Instruction(instruction) => Some(instruction.clone()),
                        _ => None,
                    })
            }),
            _ => None,
        })
        .context("no instruction found")?;
    let modifiers = instruction.modifier_names();
    let form = match ptxsim_isa::decode(&instruction.opcode.value, &modifiers) {
        Ok(form) => form,
        Err(error) => {
            report!("error: {error}");
            return Ok(ExitCode::from(1));
        }
    };
    let slots = slots_for(&form, &instruction.operands)?;
    let mut kernel = String::from(HEADER);
    for (name, ty, _) in &slots {
        let _ = writeln!(kernel, ".reg {ty} {name};");
    }
    let _ = writeln!(kernel, "{instruction_text};\nret;\n}}");
    let program = match ptxsim_exec::load(&kernel, None) {
        Ok(program) => program,
        Err(ptxsim_exec::LoadError::Diagnostics(diagnostics)) => {
            // Shown against the instruction as written, not the kernel eval wraps it in.
            let start = kernel.rfind(instruction_text).unwrap_or(0);
            let text = format!("{instruction_text};");
            let diagnostics = relocate(diagnostics, start, text.len());
            report_part!(
                "{}",
                crate::check::render_text(
                    "<instruction>",
                    &text,
                    &diagnostics,
                    crate::check::Shown::DEFAULT
                )?
            );
            return Ok(ExitCode::from(1));
        }
        Err(error) => bail!(error),
    };
    let mut machine = Machine::new(&program, 16);
    let mut given = Vec::new();
    for assignment in &args.values {
        let (name, value) = assignment
            .split_once('=')
            .with_context(|| format!("`{assignment}` is not NAME=VALUE"))?;
        let Some(register) = program.register(name) else {
            bail!("`{name}` is not an operand of the instruction");
        };
        let ty = program.registers[register.index()].ty;
        let written = slots.iter().any(|(n, _, w)| n == name && *w);
        let ty = if written { ty } else { value_type(&form, ty) };
        machine.set_register(register, parse_value(value, ty)?);
        given.push(name.to_string());
    }
    for (name, _, written) in &slots {
        if !written && !given.contains(name) {
            bail!("no value for source operand `{name}`; add {name}=VALUE");
        }
    }
    let result = ptxsim_exec::run(&mut machine, None);
    if let Err(stopped) = &result.outcome {
        report!("error: {}", stopped.message);
        return Ok(ExitCode::from(1));
    }
    let mut out = String::new();
    for (name, ty, written) in &slots {
        if !written {
            continue;
        }
        let Some(register) = program.register(name) else {
            continue;
        };
        let value = result.registers[register.index()];
        let _ = writeln!(out, "{name} = {} ({ty})", report::hex(value, *ty));
        let lanes_ty = result_type(&form, *ty);
        let chopped = value & ptxsim_exec::semantics::mask(lanes_ty.bits());
        for lane in report::lanes(chopped, lanes_ty) {
            let digits = (lane.high - lane.low + 1).div_ceil(4) as usize;
            let _ = writeln!(
                out,
                "  [{}:{}] {} 0x{:0digits$x} = {}",
                lane.high, lane.low, lane.element, lane.bits, lane.value
            );
        }
    }
    crate::output::stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Diagnostics of the wrapping kernel moved to positions in the instruction, which starts at
/// byte `start` of the kernel and is `len` bytes long; a position outside it (in the generated
/// declarations) is put on the whole instruction.
fn relocate(
    diagnostics: Vec<ptxsim_syntax::Diagnostic>,
    start: usize,
    len: usize,
) -> Vec<ptxsim_syntax::Diagnostic> {
    let start = start as u32;
    let end = start + len as u32;
    let shift = |span: ptxsim_syntax::Span| {
        if span.start >= start && span.end <= end {
            ptxsim_syntax::Span::new((span.start - start) as usize, (span.end - start) as usize)
        } else {
            ptxsim_syntax::Span::new(0, len)
        }
    };
    diagnostics
        .into_iter()
        .map(|mut diagnostic| {
            diagnostic.span = shift(diagnostic.span);
            for label in &mut diagnostic.labels {
                label.span = shift(label.span);
            }
            if let Some(fix) = &mut diagnostic.fix {
                fix.span = shift(fix.span);
            }
            diagnostic
        })
        .collect()
}
