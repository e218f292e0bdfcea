//! Lowering a checked syntax tree to the executor's [`Program`].
//!
//! Every instruction's opcode and modifiers are decoded once, through `ptxsim-isa`'s table, and
//! its operands checked against the form's layout ([`ptxsim_isa::validate`]); registers are
//! resolved to indices with the block scoping of PTX (a register declared in a nested block is a
//! distinct register, even when it shadows an outer name); immediates are encoded for the type
//! they are used with.
//!
//! Instructions of opcodes the executor does not implement lower to
//! [`InstructionKind::Unsupported`], so that a run stops there with a named error rather than
//! refusing the whole module.

use std::collections::HashMap;

use ptxsim_isa::{Form, Opcode, Type, TypeKind};
use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::ast::{
    self, Block, Declarator, FunctionKind, Immediate, ImmediateValue, Item, Module, NameRef,
    Operand, StateSpace, Statement, VariableDeclaration,
};
use ptxsim_syntax::diag::LineIndex;
use ptxsim_syntax::span::Span;

use crate::cvt::{self, CvtOp};
use crate::error::LowerError;
use crate::ir::{
    Axis, Destination, Guard, Instruction, InstructionKind, Location, Program, RegisterId,
    RegisterInfo, Source, SpecialRegister,
};
use crate::semantics::mask;

/// The most registers one thread may declare (a guard against `%r<4000000000>`).
pub const MAX_REGISTERS: usize = 1 << 20;

/// Base addresses of the state spaces (see `docs/executor.md`): each variable or parameter gets
/// the next address of its space, aligned to its `.align` or its element size.
const PARAM_BASE: u64 = 0x0000_1000;
const CONST_BASE: u64 = 0x0001_0000;
const GLOBAL_BASE: u64 = 0x0100_0000;
const SHARED_BASE: u64 = 0x1000_0000;
const LOCAL_BASE: u64 = 0x2000_0000;

/// The kernels (`.entry` with a body) of a module, in source order.
pub fn entries(module: &Module) -> Vec<&str> {
    module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Function(function)
                if function.kind.value == FunctionKind::Entry && function.body.is_some() =>
            {
                Some(function.name.value.as_str())
            }
            Item::Function(_)
            | Item::Variable(_)
            | Item::File(_)
            | Item::Section(_)
            | Item::Pragma(_) => None,
        })
        .collect()
}

/// Lowers the kernel `entry` (or the only kernel, when `None`) of a module that parsed and
/// checked without errors. `source` is the module's text, used for locations and trace text.
/// Target and version requirements are the checker's business (`ptxsim-check`), not repeated
/// here.
pub fn lower(module: &Module, source: &str, entry: Option<&str>) -> Result<Program, LowerError> {
    let kernels = entries(module);
    let name = match entry {
        Some(name) => {
            if !kernels.contains(&name) {
                return Err(LowerError::EntryNotFound {
                    name: name.to_string(),
                    available: kernels.iter().map(|k| k.to_string()).collect(),
                });
            }
            name
        }
        None => match kernels.as_slice() {
            [] => return Err(LowerError::NoEntry),
            [only] => only,
            several => {
                return Err(LowerError::SeveralEntries(
                    several.iter().map(|k| k.to_string()).collect(),
                ));
            }
        },
    };
    let mut lowerer = Lowerer::new(source);
    let mut function = None;
    for item in &module.items {
        match item {
            Item::Variable(declaration) => lowerer.declare_addresses(declaration),
            Item::Function(candidate) => {
                if candidate.name.value == name && candidate.kind.value == FunctionKind::Entry {
                    if let Some(body) = &candidate.body {
                        function = Some((candidate, body));
                        break;
                    }
                }
            }
            Item::File(_) | Item::Section(_) | Item::Pragma(_) => {}
        }
    }
    let Some((function, body)) = function else {
        return Err(LowerError::NoEntry);
    };
    lowerer.scopes.push(Scope::default());
    for param in function.params.iter().flatten() {
        lowerer.declare_addresses(param);
    }
    lowerer.block(body, None)?;
    lowerer.resolve_branches();
    if !lowerer.diagnostics.is_empty() {
        return Err(LowerError::Invalid(lowerer.diagnostics));
    }
    Ok(Program {
        entry: name.to_string(),
        registers: lowerer.registers,
        instructions: lowerer.instructions,
    })
}

#[derive(Clone, Debug)]
enum Symbol {
    Register(RegisterId),
    /// A `.v2`/`.v4` register: its elements.
    Vector(Vec<RegisterId>),
    Address(u64),
}

#[derive(Debug, Default)]
struct Scope {
    symbols: HashMap<String, Symbol>,
}

#[derive(Debug)]
struct PendingBranch {
    instruction: usize,
    block: usize,
    label: String,
    span: Span,
}

struct Lowerer<'s> {
    source: &'s str,
    lines: LineIndex,
    scopes: Vec<Scope>,
    registers: Vec<RegisterInfo>,
    name_counts: HashMap<String, usize>,
    instructions: Vec<Instruction>,
    diagnostics: Vec<Diagnostic>,
    next_address: HashMap<&'static str, u64>,
    /// Per block: its parent block and its labels.
    blocks: Vec<(Option<usize>, HashMap<String, usize>)>,
    branches: Vec<PendingBranch>,
}

impl<'s> Lowerer<'s> {
    fn new(source: &'s str) -> Self {
        Self {
            source,
            lines: LineIndex::new(source),
            scopes: vec![Scope::default()],
            registers: Vec::new(),
            name_counts: HashMap::new(),
            instructions: Vec::new(),
            diagnostics: Vec::new(),
            next_address: HashMap::new(),
            blocks: Vec::new(),
            branches: Vec::new(),
        }
    }

    fn location(&self, span: Span) -> Location {
        let (line, column) = self.lines.line_column(self.source, span.start as usize);
        Location {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }

    fn text(&self, span: Span) -> String {
        let written = self.source.get(span.range()).unwrap_or("");
        written.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn error(&mut self, code: &'static str, message: impl Into<String>, span: Span) {
        self.diagnostics
            .push(Diagnostic::error(code, message.into(), span));
    }

    fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.symbols.get(name))
    }

    fn bind(&mut self, name: &str, symbol: Symbol) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.symbols.insert(name.to_string(), symbol);
        }
    }

    fn new_register(&mut self, name: &str, ty: Type, span: Span) -> Result<RegisterId, LowerError> {
        if self.registers.len() >= MAX_REGISTERS {
            return Err(LowerError::TooManyRegisters {
                limit: MAX_REGISTERS,
                line: self.location(span).line,
            });
        }
        let count = self.name_counts.entry(name.to_string()).or_insert(0);
        let shown = if *count == 0 {
            name.to_string()
        } else {
            format!("{name}#{count}")
        };
        *count += 1;
        let id = RegisterId(self.registers.len() as u32);
        self.registers.push(RegisterInfo { name: shown, ty });
        Ok(id)
    }

    /// Declares the names of a non-register declaration as addresses of their state space.
    fn declare_addresses(&mut self, declaration: &VariableDeclaration) {
        let (space, base) = match declaration.space.value {
            StateSpace::Param => ("param", PARAM_BASE),
            StateSpace::Const => ("const", CONST_BASE),
            StateSpace::Global => ("global", GLOBAL_BASE),
            StateSpace::Shared => ("shared", SHARED_BASE),
            StateSpace::Local => ("local", LOCAL_BASE),
            StateSpace::Reg => return,
        };
        let (element, vector) = declared_type(declaration);
        let element_bytes = u64::from(element.map_or(8, |t| t.bits().div_ceil(8)).max(1));
        let align = declaration
            .align()
            .unwrap_or(element_bytes * vector)
            .clamp(1, 1 << 16);
        for declarator in &declaration.declarators {
            let count: u64 = declarator
                .dimensions
                .iter()
                .map(|d| d.as_ref().map_or(1, |d| d.value.max(1)))
                .fold(1u64, u64::saturating_mul);
            let size = element_bytes
                .saturating_mul(vector)
                .saturating_mul(count)
                .max(1);
            let next = self.next_address.entry(space).or_insert(base);
            let address = next.div_ceil(align).saturating_mul(align);
            *next = address.saturating_add(size);
            self.bind(&declarator.name.value, Symbol::Address(address));
        }
    }

    fn declare_registers(&mut self, declaration: &VariableDeclaration) -> Result<(), LowerError> {
        let (element, vector) = declared_type(declaration);
        let Some(ty) = element else {
            self.error(
                "X0002",
                "register declaration without a register type",
                declaration.span,
            );
            return Ok(());
        };
        for declarator in &declaration.declarators {
            self.declare_register(declarator, ty, vector)?;
        }
        Ok(())
    }

    fn declare_register(
        &mut self,
        declarator: &Declarator,
        ty: Type,
        vector: u64,
    ) -> Result<(), LowerError> {
        let name = &declarator.name.value;
        if let Some(range) = &declarator.range {
            if range.value as usize > MAX_REGISTERS {
                return Err(LowerError::TooManyRegisters {
                    limit: MAX_REGISTERS,
                    line: self.location(range.span).line,
                });
            }
            for index in 0..range.value {
                let full = format!("{name}{index}");
                let id = self.new_register(&full, ty, declarator.span)?;
                self.bind(&full, Symbol::Register(id));
            }
        } else if vector > 1 {
            let mut elements = Vec::new();
            for component in ["x", "y", "z", "w"].iter().take(vector as usize) {
                let full = format!("{name}.{component}");
                elements.push(self.new_register(&full, ty, declarator.span)?);
            }
            self.bind(name, Symbol::Vector(elements));
        } else {
            let id = self.new_register(name, ty, declarator.span)?;
            self.bind(name, Symbol::Register(id));
        }
        Ok(())
    }

    fn block(&mut self, block: &Block, parent: Option<usize>) -> Result<(), LowerError> {
        let id = self.blocks.len();
        self.blocks.push((parent, HashMap::new()));
        self.scopes.push(Scope::default());
        for statement in &block.statements {
            match statement {
                Statement::Instruction(instruction) => {
                    let lowered = self.instruction(instruction, id);
                    self.instructions.push(lowered);
                }
                Statement::Label(label) => {
                    let next = self.instructions.len();
                    if let Some((_, labels)) = self.blocks.get_mut(id) {
                        labels.insert(label.value.clone(), next);
                    }
                }
                Statement::Declaration(declaration) => {
                    if declaration.space.value == StateSpace::Reg {
                        self.declare_registers(declaration)?;
                    } else {
                        self.declare_addresses(declaration);
                    }
                }
                Statement::Block(inner) => self.block(inner, Some(id))?,
                Statement::Loc(_)
                | Statement::Pragma(_)
                | Statement::Prototype(_)
                | Statement::Targets(_) => {}
            }
        }
        self.scopes.pop();
        Ok(())
    }

    fn resolve_branches(&mut self) {
        let branches = std::mem::take(&mut self.branches);
        for branch in branches {
            let mut block = Some(branch.block);
            let mut target = None;
            while let Some(id) = block {
                let Some((parent, labels)) = self.blocks.get(id) else {
                    break;
                };
                if let Some(index) = labels.get(&branch.label) {
                    target = Some(*index);
                    break;
                }
                block = *parent;
            }
            match target {
                Some(target) => {
                    if let Some(instruction) = self.instructions.get_mut(branch.instruction) {
                        instruction.kind = InstructionKind::Bra { target };
                    }
                }
                None => self.error(
                    "X0003",
                    format!(
                        "branch target `{}` is not a label of an enclosing block",
                        branch.label
                    ),
                    branch.span,
                ),
            }
        }
    }

    fn instruction(&mut self, instruction: &ast::Instruction, block: usize) -> Instruction {
        let text = self.text(instruction.span);
        let location = self.location(instruction.span);
        let guard = instruction.guard.as_ref().and_then(|guard| {
            match self.lookup(&guard.predicate.value) {
                Some(Symbol::Register(id))
                    if self.registers.get(id.index()).map(|r| r.ty) == Some(Type::Pred) =>
                {
                    Some(Guard {
                        predicate: *id,
                        negated: guard.negated,
                    })
                }
                _ => {
                    self.error(
                        "X0002",
                        format!("`{}` is not a predicate register", guard.predicate.value),
                        guard.predicate.span,
                    );
                    None
                }
            }
        });
        let kind = self.kind(instruction, block);
        Instruction {
            guard,
            kind,
            text,
            location,
        }
    }

    fn mnemonic(instruction: &ast::Instruction) -> String {
        let mut mnemonic = instruction.opcode.value.clone();
        for modifier in &instruction.modifiers {
            mnemonic.push('.');
            mnemonic.push_str(&modifier.value);
        }
        mnemonic
    }

    fn unsupported(instruction: &ast::Instruction, reason: impl Into<String>) -> InstructionKind {
        InstructionKind::Unsupported {
            mnemonic: Self::mnemonic(instruction),
            reason: reason.into(),
        }
    }

    fn kind(&mut self, instruction: &ast::Instruction, block: usize) -> InstructionKind {
        let Some(opcode) = Opcode::from_name(&instruction.opcode.value) else {
            return Self::unsupported(instruction, "not a PTX instruction ptxsim knows");
        };
        match opcode {
            Opcode::Mov | Opcode::Cvt => self.decoded(instruction),
            Opcode::Ret => InstructionKind::Ret,
            Opcode::Exit => InstructionKind::Exit,
            Opcode::Trap => InstructionKind::Trap,
            Opcode::Bra => match instruction.operands.as_slice() {
                [Operand::Name(NameRef { name, .. })] => {
                    self.branches.push(PendingBranch {
                        instruction: self.instructions.len(),
                        block,
                        label: name.value.clone(),
                        span: name.span,
                    });
                    // Replaced by `Bra { target }` once labels are known.
                    InstructionKind::Bra { target: usize::MAX }
                }
                _ => Self::unsupported(instruction, "only `bra label` is implemented"),
            },
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Mad
            | Opcode::Mul24
            | Opcode::Mad24
            | Opcode::Sad
            | Opcode::Div
            | Opcode::Rem
            | Opcode::Abs
            | Opcode::Neg
            | Opcode::Min
            | Opcode::Max
            | Opcode::Popc
            | Opcode::Clz
            | Opcode::Brev
            | Opcode::Bfe
            | Opcode::Bfi
            | Opcode::Fma
            | Opcode::Rcp
            | Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Lg2
            | Opcode::Ex2
            | Opcode::Setp
            | Opcode::Selp
            | Opcode::Slct
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Not
            | Opcode::Cnot
            | Opcode::Lop3
            | Opcode::Shf
            | Opcode::Shl
            | Opcode::Shr
            | Opcode::Shfl
            | Opcode::Prmt
            | Opcode::Ld
            | Opcode::Ldu
            | Opcode::St
            | Opcode::Prefetch
            | Opcode::Cvta
            | Opcode::Call
            | Opcode::Bar
            | Opcode::Membar
            | Opcode::Fence
            | Opcode::Atom
            | Opcode::Red
            | Opcode::Vote
            | Opcode::Activemask => Self::unsupported(
                instruction,
                format!(
                    "`{opcode}` (PTX ISA {}) is not executed yet",
                    opcode.section()
                ),
            ),
        }
    }

    /// `mov`, `cvt` and `cvt.pack`: decoded and validated through the instruction table.
    fn decoded(&mut self, instruction: &ast::Instruction) -> InstructionKind {
        let modifiers: Vec<&str> = instruction
            .modifiers
            .iter()
            .map(|m| m.value.as_str())
            .collect();
        let form = match ptxsim_isa::decode(&instruction.opcode.value, &modifiers) {
            Ok(form) => form,
            Err(error) => {
                let span = error
                    .modifier
                    .and_then(|index| instruction.modifiers.get(index))
                    .map_or(instruction.span, |m| m.span);
                self.error("X0001", error.to_string(), span);
                return Self::unsupported(instruction, "invalid");
            }
        };
        let shapes: Vec<ptxsim_isa::Operand> = instruction
            .operands
            .iter()
            .map(|operand| self.shape(operand))
            .collect();
        let violations = ptxsim_isa::validate(&form, &shapes);
        if !violations.is_empty() {
            for violation in violations {
                let span = match violation.location {
                    ptxsim_isa::Location::Modifier(index) => instruction
                        .modifiers
                        .get(index)
                        .map_or(instruction.span, |m| m.span),
                    ptxsim_isa::Location::Operand(index)
                    | ptxsim_isa::Location::Element { operand: index, .. } => instruction
                        .operands
                        .get(index)
                        .map_or(instruction.span, Operand::span),
                    ptxsim_isa::Location::Instruction => instruction.span,
                };
                self.error("X0001", violation.to_string(), span);
            }
            return Self::unsupported(instruction, "invalid");
        }
        let result = match &form {
            Form::Mov(form) => self.mov(form.ty.value, &instruction.operands),
            Form::Cvt(form) => match cvt::lower_cvt(form) {
                Ok(op) => self.cvt(op, &instruction.operands),
                Err(reason) => Err(reason),
            },
            Form::CvtPack(form) => match cvt::lower_cvt_pack(form) {
                Ok(ty) => self.cvt_pack(ty, &instruction.operands),
                Err(reason) => Err(reason),
            },
        };
        match result {
            Ok(kind) => kind,
            Err(reason) => Self::unsupported(instruction, reason),
        }
    }

    fn register_type(&self, name: &NameRef) -> Option<Type> {
        match self.resolve_name(name)? {
            Resolved::Register(id) => self.registers.get(id.index()).map(|r| r.ty),
            Resolved::Address(_) => None,
        }
    }

    fn shape(&self, operand: &Operand) -> ptxsim_isa::Operand {
        match operand {
            Operand::Name(name) => match self.register_type(name) {
                Some(ty) => ptxsim_isa::Operand::Register(ty),
                None => ptxsim_isa::Operand::Other,
            },
            Operand::Immediate(_) => ptxsim_isa::Operand::Immediate,
            Operand::Sink(_) => ptxsim_isa::Operand::Sink,
            Operand::Vector(elements) => ptxsim_isa::Operand::Vector(
                elements
                    .value
                    .iter()
                    .map(|element| match element {
                        Operand::Name(name) => match self.register_type(name) {
                            Some(ty) => ptxsim_isa::Element::Register(ty),
                            None => ptxsim_isa::Element::Other,
                        },
                        Operand::Sink(_) => ptxsim_isa::Element::Sink,
                        Operand::Immediate(_) => ptxsim_isa::Element::Immediate,
                        Operand::SpecialRegister(_)
                        | Operand::Negated(..)
                        | Operand::Pair(..)
                        | Operand::Vector(_)
                        | Operand::Address(_)
                        | Operand::AddressList(_)
                        | Operand::List(_) => ptxsim_isa::Element::Other,
                    })
                    .collect(),
            ),
            Operand::SpecialRegister(_)
            | Operand::Negated(..)
            | Operand::Pair(..)
            | Operand::Address(_)
            | Operand::AddressList(_)
            | Operand::List(_) => ptxsim_isa::Operand::Other,
        }
    }

    fn resolve_name(&self, name: &NameRef) -> Option<Resolved> {
        match (self.lookup(&name.name.value)?, &name.component) {
            (Symbol::Register(id), None) => Some(Resolved::Register(*id)),
            (Symbol::Vector(elements), Some(component)) => {
                let index = match component.value.as_str() {
                    "x" | "r" => 0,
                    "y" | "g" => 1,
                    "z" | "b" => 2,
                    "w" | "a" => 3,
                    _ => return None,
                };
                elements.get(index).copied().map(Resolved::Register)
            }
            (Symbol::Address(address), None) => Some(Resolved::Address(*address)),
            (Symbol::Register(_) | Symbol::Address(_), Some(_)) | (Symbol::Vector(_), None) => None,
        }
    }

    fn destination(&self, operand: &Operand) -> Result<Destination, String> {
        match operand {
            Operand::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Register(register)) => Ok(Destination { register }),
                Some(Resolved::Address(_)) | None => Err(format!(
                    "destination `{}` is not a register",
                    name.name.value
                )),
            },
            other => Err(format!("destination operand {other:?} is not a register")),
        }
    }

    /// A source operand whose immediates are encoded for `ty`.
    fn source(&self, operand: &Operand, ty: Type) -> Result<Source, String> {
        match operand {
            Operand::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Register(id)) => Ok(Source::Register(id)),
                Some(Resolved::Address(address)) => Ok(Source::Immediate(u128::from(address))),
                None => Err(format!("operand `{}` cannot be resolved", name.name.value)),
            },
            Operand::Immediate(immediate) => {
                encode_immediate(&immediate.value, ty).map(Source::Immediate)
            }
            Operand::SpecialRegister(name) => special_register(name).map(Source::Special),
            Operand::Sink(_)
            | Operand::Negated(..)
            | Operand::Pair(..)
            | Operand::Vector(_)
            | Operand::Address(_)
            | Operand::AddressList(_)
            | Operand::List(_) => Err("this operand form is not executed yet".to_string()),
        }
    }

    fn mov(&self, ty: Type, operands: &[Operand]) -> Result<InstructionKind, String> {
        match operands {
            [Operand::Vector(elements), source] => {
                let elements = elements
                    .value
                    .iter()
                    .map(|element| match element {
                        Operand::Sink(_) => Ok(None),
                        other => self.destination(other).map(Some),
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                Ok(InstructionKind::MovUnpack {
                    ty,
                    elements,
                    source: self.source(source, ty)?,
                })
            }
            [destination, Operand::Vector(elements)] => {
                let count = elements.value.len().max(1) as u32;
                let element_ty = bit_type(ty.bits() / count);
                let elements = elements
                    .value
                    .iter()
                    .map(|element| self.source(element, element_ty))
                    .collect::<Result<Vec<_>, String>>()?;
                Ok(InstructionKind::MovPack {
                    ty,
                    destination: self.destination(destination)?,
                    elements,
                })
            }
            [destination, source] => Ok(InstructionKind::Mov {
                ty,
                destination: self.destination(destination)?,
                source: self.source(source, ty)?,
            }),
            _ => Err("mov takes two operands".to_string()),
        }
    }

    fn cvt(&self, op: CvtOp, operands: &[Operand]) -> Result<InstructionKind, String> {
        let Some((destination, rest)) = operands.split_first() else {
            return Err("cvt without operands".to_string());
        };
        let mut flat: Vec<&Operand> = Vec::new();
        for operand in rest {
            match operand {
                Operand::Vector(elements) => flat.extend(elements.value.iter()),
                other => flat.push(other),
            }
        }
        let widths = cvt::source_widths(&op, flat.len());
        let sources = flat
            .iter()
            .zip(&widths)
            .map(|(operand, width)| {
                // Value operands take immediates of the instruction's source type; `rbits` and
                // `scale-factor` are bit patterns.
                let ty = if *width == op.source.bits() {
                    immediate_type(op.source)
                } else {
                    bit_type(*width)
                };
                self.source(operand, ty)
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(InstructionKind::Cvt {
            op,
            destination: self.destination(destination)?,
            sources,
        })
    }

    fn cvt_pack(
        &self,
        ty: ptxsim_softfloat::pack::PackType,
        operands: &[Operand],
    ) -> Result<InstructionKind, String> {
        match operands {
            [d, a, b] => Ok(InstructionKind::CvtPack {
                ty,
                destination: self.destination(d)?,
                a: self.source(a, Type::S32)?,
                b: self.source(b, Type::S32)?,
                c: None,
            }),
            [d, a, b, c] => Ok(InstructionKind::CvtPack {
                ty,
                destination: self.destination(d)?,
                a: self.source(a, Type::S32)?,
                b: self.source(b, Type::S32)?,
                c: Some(self.source(c, Type::B32)?),
            }),
            _ => Err("cvt.pack takes three or four operands".to_string()),
        }
    }
}

enum Resolved {
    Register(RegisterId),
    Address(u64),
}

/// The element type and vector length of a declaration (`.v4 .f32` → (f32, 4)).
fn declared_type(declaration: &VariableDeclaration) -> (Option<Type>, u64) {
    let mut ty = None;
    let mut vector = 1;
    for word in declaration.words() {
        match word.value.as_str() {
            "v2" => vector = 2,
            "v4" => vector = 4,
            "v8" => vector = 8,
            other => {
                if ty.is_none() {
                    ty =
                        Type::from_name(other).filter(|t| t.is_register_type() || *t == Type::Bf16);
                }
            }
        }
    }
    (ty, vector)
}

/// The bit-size type of a width (`.b32` for 32).
pub fn bit_type(bits: u32) -> Type {
    match bits {
        0..=8 => Type::B8,
        9..=16 => Type::B16,
        17..=32 => Type::B32,
        33..=64 => Type::B64,
        _ => Type::B128,
    }
}

/// The type an immediate source of a conversion from `ty` is encoded as: the type itself for
/// scalar types, raw bits for packed ones.
fn immediate_type(ty: Type) -> Type {
    if ty.kind() == TypeKind::Packed {
        bit_type(ty.bits())
    } else {
        ty
    }
}

/// Encodes a literal for an operand of type `ty`.
///
/// * Integers are two's complement, truncated to the type's width; for floating-point types
///   they are converted to the nearest value (`.rn`), as a C compiler would; for `.pred` any
///   non-zero value is true.
/// * `0fXXXXXXXX`/`0dXXXXXXXXXXXXXXXX` are bit patterns: used as they are for bit-size and
///   integer types and for the matching float type, converted (`.rn`) for another float type.
///   A leading `-` flips the sign bit.
/// * Decimal floats are rounded once to the type (`str::parse` rounds correctly; `.f16` and
///   `.bf16` go through `f64`).
pub fn encode_immediate(immediate: &Immediate, ty: Type) -> Result<u128, String> {
    let width = ty.bits();
    let is_float = matches!(ty.kind(), TypeKind::Float);
    match &immediate.value {
        ImmediateValue::Integer { value, .. } => {
            if ty == Type::Pred {
                return Ok(u128::from(*value != 0));
            }
            let signed = if immediate.negative {
                -i128::from(*value)
            } else {
                i128::from(*value)
            };
            if is_float {
                let Some(target) = cvt::element_type(ty) else {
                    return Err(format!("an integer literal cannot be a {ty} operand"));
                };
                let (bits, from) = if signed < 0 {
                    (signed as i64 as u64, ptxsim_softfloat::Type::S64)
                } else {
                    (*value, ptxsim_softfloat::Type::U64)
                };
                return Ok(u128::from(cvt::int_to_float(bits, from, target)));
            }
            Ok((signed as u128) & mask(width))
        }
        ImmediateValue::F32Bits(bits) => {
            let bits = if immediate.negative {
                bits ^ 0x8000_0000
            } else {
                *bits
            };
            float_bits(u64::from(bits), ptxsim_softfloat::Type::F32, ty)
        }
        ImmediateValue::F64Bits(bits) => {
            let bits = if immediate.negative {
                bits ^ (1 << 63)
            } else {
                *bits
            };
            float_bits(bits, ptxsim_softfloat::Type::F64, ty)
        }
        ImmediateValue::Decimal(text) => {
            let text = if immediate.negative {
                format!("-{text}")
            } else {
                text.clone()
            };
            match ty {
                Type::F32 => text
                    .parse::<f32>()
                    .map(|v| u128::from(v.to_bits()))
                    .map_err(|e| format!("bad float literal `{text}`: {e}")),
                _ if is_float => {
                    let value = text
                        .parse::<f64>()
                        .map_err(|e| format!("bad float literal `{text}`: {e}"))?;
                    float_bits(value.to_bits(), ptxsim_softfloat::Type::F64, ty)
                }
                _ => Err(format!("a floating-point literal cannot be a {ty} operand")),
            }
        }
    }
}

fn float_bits(bits: u64, from: ptxsim_softfloat::Type, ty: Type) -> Result<u128, String> {
    match (ty.kind(), cvt::element_type(ty)) {
        (TypeKind::Float, Some(target)) if target != from => Ok(u128::from(
            ptxsim_softfloat::convert(
                bits,
                from,
                target,
                ptxsim_softfloat::Rounding::Rn,
                ptxsim_softfloat::Flags::NONE,
                None,
            )
            .bits,
        )),
        _ => Ok(u128::from(bits) & mask(ty.bits())),
    }
}

/// Resolves a special register the executor provides (PTX ISA chapter 10).
fn special_register(name: &NameRef) -> Result<SpecialRegister, String> {
    let component = name.component.as_ref().map(|c| c.value.as_str());
    let axis = match component {
        Some("x") => Some(Axis::X),
        Some("y") => Some(Axis::Y),
        Some("z") => Some(Axis::Z),
        _ => None,
    };
    let register = match (name.name.value.as_str(), axis) {
        ("%tid", Some(axis)) => SpecialRegister::Tid(axis),
        ("%ntid", Some(axis)) => SpecialRegister::Ntid(axis),
        ("%ctaid", Some(axis)) => SpecialRegister::Ctaid(axis),
        ("%nctaid", Some(axis)) => SpecialRegister::Nctaid(axis),
        ("%laneid", None) => SpecialRegister::Laneid,
        ("%warpid", None) => SpecialRegister::Warpid,
        ("%nwarpid", None) => SpecialRegister::Nwarpid,
        ("%smid", None) => SpecialRegister::Smid,
        ("%nsmid", None) => SpecialRegister::Nsmid,
        ("%gridid", None) => SpecialRegister::Gridid,
        ("%clock", None) => SpecialRegister::Clock,
        ("%clock_hi", None) => SpecialRegister::ClockHi,
        ("%clock64", None) => SpecialRegister::Clock64,
        (other, _) => {
            let shown = match component {
                Some(c) => format!("{other}.{c}"),
                None => other.to_string(),
            };
            return Err(format!("special register `{shown}` is not provided yet"));
        }
    };
    Ok(register)
}
