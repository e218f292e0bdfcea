//! Building the program of one kernel from a checked module: the checker's second product.
//!
//! [`Checked::program`] walks the kernel and then each device function it calls (in the order
//! of their first call) with the checker's own resolver ([`crate::names`]): scopes, shadowing,
//! `%r<N>` ranges and labels are resolved there and nowhere else. The [`Builder`] receives each
//! declaration, label and instruction with what its names resolved to (the span of the
//! declaration, [`Found`]) and gives storage to declarations: registers numbered in declaration
//! order (a register declared in a nested block is a distinct register, even when it shadows an
//! outer name), variables and parameters an address in their state space. Instructions are
//! decoded through `ptxsim-isa`'s table once more (a cached lookup; the checker validated the
//! form and its operands) and immediates encoded for the type they are used with.
//!
//! Building never fails on a module the checker accepted: what the executor cannot run
//! becomes [`InstructionKind::Unsupported`] with the reason, so that a run stops there with a
//! located error. Only the choice of kernel and the executor's limits ([`BuildError`]) can
//! refuse a module.

use std::collections::VecDeque;

use ptxsim_isa::ops::{self, AtomOp, FloatModifiers, FloatOp, OpForm, Space};
use ptxsim_isa::{Form, Opcode, Rounding, Type, TypeKind};
use ptxsim_syntax::ast::{
    self, AddressBase, Declarator, Function, FunctionKind, Immediate, ImmediateValue, Initializer,
    Item, Module, NameRef, Negation, Operand, StateSpace, VariableDeclaration,
};
use ptxsim_syntax::diag::LineIndex;
use ptxsim_syntax::span::Span;

use super::address::{FUNCTION_BASE, FUNCTION_STRIDE, next_buffer, to_generic};
use super::cvt::{self, CvtOp};
use super::{
    Axis, BulkTensorInstruction, ClusterDirectives, ConstVariable, Destination, GlobalVariable,
    Guard, Instruction, InstructionKind, IntExtraOp, Location, MemoryOperand, Param,
    PredicateSource, Program, RegisterId, RegisterInfo, ReservedSmem, RuntimeFunction, Source,
    SourceLine, SpecialRegister, THREAD_PARAM_BASE, mask,
};
use crate::hash::{FxHashMap, FxHashSet};
use crate::names::Found;
use crate::rules::ModuleSetting;

mod tcgen05;

/// The most registers one thread may declare (a guard against `%r<4000000000>`).
pub const MAX_REGISTERS: usize = 1 << 20;

/// The most bytes one function-body `.shared` variable adds to [`function_shared`]'s bound (a
/// kernel that uses more is a check error, E0205; variable sizes are otherwise kept as
/// declared, and the executor's memory budget bounds what a launch allocates).
pub const MAX_VARIABLE_BYTES: u64 = 1 << 30;

/// Why a checked module has no program for the kernel asked for.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The module has no `.entry` with a body.
    #[error("the module has no kernel (`.entry` with a body)")]
    NoEntry,
    /// Several kernels and no `--entry`.
    #[error("the module has several kernels; choose one with --entry: {}", names(.0))]
    SeveralEntries(Vec<String>),
    /// `--entry NAME` names no kernel.
    #[error("no kernel named `{name}`; the module has: {}", if .available.is_empty() { "none".to_string() } else { names(.available) })]
    EntryNotFound {
        /// The requested name.
        name: String,
        /// The kernels there are.
        available: Vec<String>,
    },
    /// More registers than the executor allows.
    #[error("line {line}: more than {limit} registers declared")]
    TooManyRegisters {
        /// [`MAX_REGISTERS`].
        limit: usize,
        /// Where the limit was passed.
        line: u32,
    },
}

/// The kernels' names for a message: the first 20 and how many more (a module may have tens of
/// thousands).
fn names(kernels: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut text = kernels
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if kernels.len() > SHOWN {
        text.push_str(&format!(" and {} more", kernels.len() - SHOWN));
    }
    text
}

/// A module the checker accepted (no errors; warnings are in the diagnostics it came with),
/// from which the program of any of its kernels can be built. Only [`crate::compile`] makes
/// one, so a program is never built from an unchecked module.
#[derive(Debug)]
pub struct Checked<'s> {
    pub(crate) source: &'s str,
    pub(crate) module: Module,
    pub(crate) setting: ModuleSetting,
    /// What the size limits know of each top-level item, made at the first
    /// [`Checked::program`]: which functions and module-scope `.shared` variables a kernel
    /// reaches.
    pub(crate) summaries: std::sync::OnceLock<Vec<crate::limits::ItemSummary>>,
}

impl<'s> Checked<'s> {
    /// The syntax tree.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The module's text.
    pub fn source(&self) -> &'s str {
        self.source
    }

    /// The kernels (`.entry` with a body), in source order.
    pub fn entries(&self) -> Vec<&str> {
        entries(&self.module)
    }

    /// The program of the kernel `entry` (or of the only kernel, when `None`).
    pub fn program(&self, entry: Option<&str>) -> Result<Program, BuildError> {
        let kernels = self.entries();
        let name = match entry {
            Some(name) => {
                if !kernels.contains(&name) {
                    return Err(BuildError::EntryNotFound {
                        name: name.to_string(),
                        available: kernels.iter().map(|k| k.to_string()).collect(),
                    });
                }
                name
            }
            None => match kernels.as_slice() {
                [] => return Err(BuildError::NoEntry),
                [only] => only,
                several => {
                    return Err(BuildError::SeveralEntries(
                        several.iter().map(|k| k.to_string()).collect(),
                    ));
                }
            },
        };
        let mut builder = Builder::new(self.source);
        builder.kernels = kernels.iter().map(|k| k.to_string()).collect();
        builder.sm_1x = self.setting.target.is_some_and(|target| target.number < 20);
        let mut kernel = None;
        for item in &self.module.items {
            if let Item::File(file) = item {
                builder
                    .source_files
                    .push((file.index.value, file.path.value.to_string()));
            }
            if let Item::Alias(alias) = item {
                builder.aliases.insert(
                    alias.alias.value.to_string(),
                    alias.aliasee.value.to_string(),
                );
            }
            if let Item::Function(candidate) = item {
                if candidate.body.is_some() {
                    builder
                        .functions
                        .insert(candidate.name.value.to_string(), candidate);
                }
                if candidate.name.value == name
                    && candidate.kind.value == FunctionKind::Entry
                    && candidate.body.is_some()
                {
                    kernel.get_or_insert(candidate);
                }
            }
        }
        let Some(kernel) = kernel else {
            return Err(BuildError::NoEntry);
        };
        let summaries = self.summaries.get_or_init(|| {
            let mut summaries = Vec::new();
            for item in &self.module.items {
                crate::limits::summarize(item, &mut summaries);
            }
            summaries
        });
        let reach = crate::limits::kernel_reach(summaries, name);
        crate::names::build(&self.module, &self.setting, &mut builder, kernel, &reach)?;
        let mut program = builder.finish(name)?;
        program.cluster = cluster_directives(&kernel.directives);
        program.max_threads = max_threads(&kernel.directives);
        program.target = self.setting.target;
        Ok(program)
    }
}

/// The two-operand operation of `add`, `sub` or `mul`; `None` for `fma` (the forms built
/// apart from the decoder: `.f32x2`, mixed precision).
fn binary_float_op(opcode: Opcode) -> Option<FloatOp> {
    match opcode {
        Opcode::Add => Some(FloatOp::Add),
        Opcode::Sub => Some(FloatOp::Sub),
        Opcode::Mul => Some(FloatOp::Mul),
        _ => None,
    }
}

/// The rounding modifier of a floating-point instruction's modifiers, `.rn` when none is
/// written (PTX ISA 9.7.3: "The default value of rounding modifier is .rn").
fn float_rounding(names: &[&str]) -> Rounding {
    [
        ("rn", Rounding::Rn),
        ("rz", Rounding::Rz),
        ("rm", Rounding::Rm),
        ("rp", Rounding::Rp),
    ]
    .into_iter()
    .find(|(name, _)| names.contains(name))
    .map_or(Rounding::Rn, |(_, rounding)| rounding)
}

/// An upper bound of the `.shared` bytes declared in the bodies of the functions `reached`
/// (each variable with its alignment), which the static part of shared memory may need besides
/// the module's.
pub(crate) fn function_shared(module: &Module, reached: &FxHashSet<String>) -> u64 {
    fn walk(block: &ast::Block, total: &mut u64) {
        for statement in &block.statements {
            match statement {
                ast::Statement::Declaration(declaration)
                    if declaration.space.value == StateSpace::Shared =>
                {
                    let (element, vector) = declared_type(declaration);
                    let element = u64::from(element.map_or(8, |t| t.bits().div_ceil(8)).max(1));
                    let align = declaration
                        .align()
                        .unwrap_or(element * vector)
                        .clamp(1, 1 << 16);
                    for declarator in &declaration.declarators {
                        let count = declarator
                            .dimensions
                            .iter()
                            .map(|d| d.as_ref().map_or(0, |d| d.value))
                            .fold(1u64, u64::saturating_mul);
                        let size = (element * vector)
                            .saturating_mul(count)
                            .min(MAX_VARIABLE_BYTES);
                        *total = total.saturating_add(size).saturating_add(align);
                    }
                }
                ast::Statement::Block(inner) => walk(inner, total),
                _ => {}
            }
        }
    }
    let mut total = 0;
    for item in &module.items {
        if let Item::Function(function) = item
            && let Some(body) = &function.body
            && reached.contains(function.name.value.as_str())
        {
            walk(body, &mut total);
        }
    }
    total
}

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
            | Item::Pragma(_)
            | Item::Alias(_) => None,
        })
        .collect()
}

/// Indices of the allocators in `Builder::next`.
const SPACE_KERNEL_PARAM: usize = 0;
const SPACE_THREAD_PARAM: usize = 1;
const SPACE_SHARED: usize = 2;
const SPACE_LOCAL: usize = 3;
const SPACE_CONST: usize = 4;

/// A device function's parameters in the per-thread `.param` space.
#[derive(Clone, Debug, Default)]
struct FunctionInfo {
    /// (address, bytes) of each return parameter.
    returns: Vec<(u64, u64)>,
    /// (address, bytes) of each parameter.
    params: Vec<(u64, u64)>,
    /// The register of each `.reg` return value (`None` for a `.param` one).
    return_registers: Vec<Option<RegisterId>>,
    /// The register of each `.reg` parameter (`None` for a `.param` one).
    param_registers: Vec<Option<RegisterId>>,
    /// Its first instruction, once built.
    start: Option<usize>,
}

#[derive(Debug)]
struct PendingCall {
    instruction: usize,
    callee: String,
    /// For an indirect call: the index of the callee among its targets.
    slot: Option<usize>,
}

/// The storage of a declaration, by the position of its name (what [`Found::span`] gives).
#[derive(Clone, Debug)]
enum Symbol {
    Register(RegisterId),
    /// `%r<N>`: the registers `base` … `base + count - 1`, named by the prefix (of
    /// `prefix` bytes) and a decimal index.
    Range {
        prefix: usize,
        base: u32,
        count: u32,
    },
    /// A `.v2`/`.v4` register: its elements.
    Vector(Vec<RegisterId>),
    /// A variable or parameter: its address in its space, and its size in bytes.
    Address(Space, u64, u64),
    /// A label: the index of the instruction it stands before.
    Label(usize),
}

/// What the names of one instruction or declaration resolved to: per use (by the position of
/// the name), the declaration the checker found.
pub(crate) type Uses = Vec<(u32, Found)>;

/// The program being built; see the module documentation.
pub(crate) struct Builder<'m> {
    source: &'m str,
    /// Every function with a body, by name.
    functions: FxHashMap<String, &'m Function>,
    /// Device functions called so far, by name.
    called: FxHashMap<String, FunctionInfo>,
    /// Device functions still to build.
    queue: VecDeque<String>,
    calls: Vec<PendingCall>,
    /// The register-name prefix of the function being built (`""` for the kernel).
    prefix: String,
    /// The next free address of each space (see the `SPACE_*` indices).
    next: [u64; 5],
    kernel_params: Vec<Param>,
    globals: Vec<GlobalVariable>,
    constants: Vec<u8>,
    const_variables: Vec<ConstVariable>,
    lines: LineIndex,
    /// Every declaration and label seen so far, by the position of its name.
    symbols: FxHashMap<u32, Symbol>,
    /// What the names of the instruction being built resolved to.
    uses: Uses,
    registers: Vec<RegisterInfo>,
    name_counts: FxHashMap<String, usize>,
    instructions: Vec<Instruction>,
    /// Branches of the function being built to labels further down: (instruction, label).
    branches: Vec<(usize, u32)>,
    /// The `.branchtargets` lists of the function being built: the list's label (where it is
    /// declared) and the declarations of its labels (`None`: not a label).
    branch_tables: FxHashMap<u32, Vec<Option<u32>>>,
    /// `brx.idx` instructions whose labels are resolved at the function's end: the
    /// instruction, its index operand and its list's labels.
    indexed_branches: Vec<(usize, Source, Vec<Option<u32>>)>,
    /// `.extern .shared` arrays without a size (dynamic shared memory), by the position of
    /// their name, with their alignment, until [`Builder::place_dynamic_shared`].
    dynamic: Vec<(u32, u64)>,
    /// Where dynamic shared memory starts.
    dynamic_shared: Option<u64>,
    /// The condition code's carry flag (`%cc`), made at its first use.
    carry: Option<RegisterId>,
    /// The element size in bytes of each array variable, by the position of its name (for
    /// `name[N]` operands).
    element_bytes: FxHashMap<u32, u64>,
    /// The names the kernel and the functions it calls use, while the module-scope variables
    /// are declared: a module-scope `.shared` variable none of them names takes no room (see
    /// [`crate::limits::KernelReach`]).
    module_names: Option<FxHashSet<String>>,
    /// The address of each function of the module, by name ([`Builder::declare_functions`]).
    function_addresses: FxHashMap<String, u64>,
    /// `.alias fAlias, fAliasee;`: a direct call of the alias is a call of the aliasee.
    aliases: FxHashMap<String, String>,
    /// Whether the instruction being built names no state space: a variable named as its
    /// address (`[local_x]`, `[sh+4]`) is then at its generic address.
    generic_access: bool,
    /// Whether an `alloca`, `stacksave` or `stackrestore` was built: the threads get a stack.
    uses_stack: bool,
    /// The module's kernels in source order: `mov.u64 %rd, kernel;` gives kernel `i` the
    /// address [`super::cdp::kernel_address`]`(i)` (dynamic parallelism).
    kernels: Vec<String>,
    /// Where the `.local` variables of the device function being built start.
    local_start: u64,
    /// [`Program::function_locals`].
    function_locals: Vec<(usize, u64, u64)>,
    /// Whether the module is checked for an `sm_1x` target, whose `.f32` instructions run as
    /// CUDA compiles them for a newer device ([`crate::rules::decode_for`]).
    sm_1x: bool,
    /// The source line of the last `.loc` of the function being built.
    source_line: Option<SourceLine>,
    /// [`Program::source_files`].
    pub(crate) source_files: Vec<(u32, String)>,
}

impl<'m> Builder<'m> {
    fn new(source: &'m str) -> Self {
        Self {
            source,
            functions: FxHashMap::default(),
            called: FxHashMap::default(),
            queue: VecDeque::new(),
            calls: Vec::new(),
            prefix: String::new(),
            next: [0, THREAD_PARAM_BASE, 0, 0, 0],
            carry: None,
            element_bytes: FxHashMap::default(),
            kernel_params: Vec::new(),
            globals: Vec::new(),
            constants: Vec::new(),
            const_variables: Vec::new(),
            lines: LineIndex::new(source),
            symbols: FxHashMap::default(),
            uses: Vec::new(),
            registers: Vec::new(),
            name_counts: FxHashMap::default(),
            instructions: Vec::new(),
            branches: Vec::new(),
            branch_tables: FxHashMap::default(),
            indexed_branches: Vec::new(),
            dynamic: Vec::new(),
            dynamic_shared: None,
            module_names: None,
            function_addresses: FxHashMap::default(),
            aliases: FxHashMap::default(),
            sm_1x: false,
            source_line: None,
            source_files: Vec::new(),
            generic_access: false,
            kernels: Vec::new(),
            uses_stack: false,
            local_start: 0,
            function_locals: Vec::new(),
        }
    }

    /// Places the `.extern .shared` arrays of the module's variables: after the static shared
    /// variables of module scope and room for those declared in function bodies
    /// (`function_shared` bytes), aligned to 16 bytes or their `.align`. All of them start at
    /// the same address, as CUDA's `extern __shared__` arrays do.
    pub(crate) fn place_dynamic_shared(&mut self, function_shared: u64) {
        if self.dynamic.is_empty() {
            return;
        }
        let align = self
            .dynamic
            .iter()
            .map(|&(_, align)| align)
            .max()
            .unwrap_or(16)
            .max(16);
        let base = self.next[SPACE_SHARED]
            .saturating_add(function_shared)
            .div_ceil(align)
            .saturating_mul(align);
        for (name, _) in std::mem::take(&mut self.dynamic) {
            self.symbols
                .insert(name, Symbol::Address(Space::Shared, base, 0));
        }
        self.dynamic_shared = Some(base);
    }

    /// The next device function to build, if a call reached one not built yet.
    pub(crate) fn next_callee(&mut self) -> Option<&'m Function> {
        let name = self.queue.pop_front()?;
        self.functions.get(&name).copied()
    }

    fn finish(mut self, name: &str) -> Result<Program, BuildError> {
        for call in std::mem::take(&mut self.calls) {
            let start = self.called.get(&call.callee).and_then(|info| info.start);
            if let (Some(start), Some(instruction)) =
                (start, self.instructions.get_mut(call.instruction))
            {
                let kind = match (&mut instruction.kind, call.slot) {
                    (InstructionKind::CallIndirect { targets, .. }, Some(slot)) => {
                        targets.get_mut(slot).map(|(_, kind)| kind)
                    }
                    (kind, _) => Some(kind),
                };
                if let Some(InstructionKind::Call { target, .. }) = kind {
                    *target = start;
                }
            }
        }
        let has_atomics = self.instructions.iter().any(|i| {
            matches!(
                i.kind,
                InstructionKind::Atom { .. }
                    | InstructionKind::AtomVector { .. }
                    | InstructionKind::RedAsync { .. }
            )
        });
        let atomics_commute = has_atomics && atomics_commute(&self.instructions, &self.registers);
        // The stack for `alloca` sits above the `.local` variables, 16-byte aligned.
        let (local_bytes, stack_bytes) = if self.uses_stack {
            let base = self.next[SPACE_LOCAL].next_multiple_of(16);
            (base + super::STACK_BYTES, super::STACK_BYTES)
        } else {
            (self.next[SPACE_LOCAL], 0)
        };
        // The reserved shared memory is there only for kernels that ask where it is.
        let reserved_shared = self
            .instructions
            .iter()
            .any(|i| i.text.contains("%reserved_smem_offset"));
        let uses_heap = self.instructions.iter().any(|i| {
            matches!(
                i.kind,
                InstructionKind::CallRuntime { function, .. } if function.uses_heap()
            )
        });
        let polls_global = self.instructions.iter().any(polls_global);
        Ok(Program {
            entry: name.to_string(),
            registers: self.registers,
            instructions: self.instructions,
            params: self.kernel_params,
            param_bytes: self.next[SPACE_KERNEL_PARAM],
            thread_param_bytes: self.next[SPACE_THREAD_PARAM] - THREAD_PARAM_BASE,
            local_bytes,
            stack_bytes,
            function_locals: self.function_locals,
            shared_bytes: self.next[SPACE_SHARED],
            dynamic_shared: self.dynamic_shared,
            globals: self.globals,
            constants: self.constants,
            const_variables: self.const_variables,
            has_atomics,
            atomics_commute,
            uses_heap,
            polls_global,
            reserved_shared,
            source_files: self.source_files,
            cluster: ClusterDirectives::default(),
            max_threads: None,
            target: None,
        })
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

    fn new_register(&mut self, name: &str, ty: Type, span: Span) -> Result<RegisterId, BuildError> {
        if self.registers.len() >= MAX_REGISTERS {
            return Err(BuildError::TooManyRegisters {
                limit: MAX_REGISTERS,
                line: self.location(span).line,
            });
        }
        let full = format!("{}{name}", self.prefix);
        let count = self.name_counts.entry(full.clone()).or_insert(0);
        let shown = if *count == 0 {
            full
        } else {
            format!("{full}#{count}")
        };
        *count += 1;
        let id = RegisterId(self.registers.len() as u32);
        self.registers.push(RegisterInfo { name: shown, ty });
        Ok(id)
    }

    /// Gives every `.func` of `module` its address ([`FUNCTION_BASE`]): the functions in the
    /// order the module first names them (a declaration and the definition of one name share
    /// one). Kernels' addresses are dynamic parallelism's (`super::cdp`).
    pub(crate) fn declare_functions(&mut self, module: &'m Module) {
        for item in &module.items {
            if let Item::Function(function) = item
                && function.kind.value == FunctionKind::Func
            {
                let count = self.function_addresses.len() as u64;
                let address = *self
                    .function_addresses
                    .entry(function.name.value.to_string())
                    .or_insert(FUNCTION_BASE + count * FUNCTION_STRIDE);
                self.symbols.insert(
                    function.name.span.start,
                    Symbol::Address(Space::Global, address, 0),
                );
            }
        }
    }

    /// A module-scope variable, given what the names in its initializer resolved to.
    pub(crate) fn module_variable(&mut self, declaration: &VariableDeclaration, uses: Uses) {
        self.uses = uses;
        self.declare_addresses(declaration, false);
    }

    /// Sets the names the kernel reaches before its module-scope variables are declared, and
    /// clears them (`None`) after.
    pub(crate) fn set_module_names(&mut self, names: Option<FxHashSet<String>>) {
        self.module_names = names;
    }

    /// The parameters of the kernel: addresses in the kernel parameter space.
    pub(crate) fn kernel(&mut self, function: &Function) {
        for param in function.params.iter().flatten() {
            self.declare_addresses(param, true);
        }
    }

    /// Starts the body of a called device function: its registers are named `function:%r`,
    /// its parameters are the slots its first call gave them.
    pub(crate) fn callee(&mut self, function: &Function) {
        let name = function.name.value.as_str();
        let Some(info) = self.called.get_mut(name) else {
            return;
        };
        info.start = Some(self.instructions.len());
        let info = info.clone();
        self.local_start = self.next[SPACE_LOCAL];
        self.prefix = format!("{name}:");
        self.source_line = None;
        let declarations = function
            .returns
            .iter()
            .flatten()
            .chain(function.params.iter().flatten())
            .flat_map(|d| d.declarators.iter());
        let slots = info.returns.iter().chain(&info.params);
        let registers = info.return_registers.iter().chain(&info.param_registers);
        for ((declarator, (address, size)), register) in declarations.zip(slots).zip(registers) {
            let symbol = match register {
                Some(id) => Symbol::Register(*id),
                None => Symbol::Address(Space::Param, *address, *size),
            };
            self.symbols.insert(declarator.name.span.start, symbol);
        }
    }

    /// Ends a function's body: branches to labels further down get their targets; a device
    /// function that falls off its end returns.
    pub(crate) fn end_function(&mut self, function: &Function) {
        for (instruction, label) in std::mem::take(&mut self.branches) {
            let kind = match self.symbols.get(&label) {
                Some(Symbol::Label(target)) => InstructionKind::Bra { target: *target },
                _ => InstructionKind::Unsupported {
                    mnemonic: "bra".to_string(),
                    reason: "the branch target is not a label".to_string(),
                },
            };
            if let Some(instruction) = self.instructions.get_mut(instruction) {
                instruction.kind = kind;
            }
        }
        for (instruction, index, labels) in std::mem::take(&mut self.indexed_branches) {
            let targets: Option<Vec<usize>> = labels
                .iter()
                .map(|label| match self.symbols.get(&(*label)?) {
                    Some(Symbol::Label(target)) => Some(*target),
                    _ => None,
                })
                .collect();
            let kind = match targets {
                Some(targets) => InstructionKind::BranchIndexed { index, targets },
                None => InstructionKind::Unsupported {
                    mnemonic: "brx.idx".to_string(),
                    reason: "a target of the `.branchtargets` list is not a label".to_string(),
                },
            };
            if let Some(instruction) = self.instructions.get_mut(instruction) {
                instruction.kind = kind;
            }
        }
        self.branch_tables.clear();
        if function.kind.value == FunctionKind::Entry {
            return;
        }
        let Some(body) = &function.body else {
            return;
        };
        if let Some(start) = self
            .called
            .get(function.name.value.as_str())
            .and_then(|info| info.start)
        {
            self.function_locals
                .push((start, self.local_start, self.next[SPACE_LOCAL]));
        }
        self.instructions.push(Instruction {
            guard: None,
            kind: InstructionKind::Ret,
            text: "ret (end of function)".to_string(),
            location: self.location(Span::new(
                (body.span.end as usize).saturating_sub(1),
                body.span.end as usize,
            )),
            source: self.source_line,
        });
        self.prefix.clear();
    }

    /// A `.branchtargets` list named by the label declared at `label`: the declarations of
    /// its labels, in order.
    pub(crate) fn branch_targets(&mut self, label: u32, targets: Vec<Option<u32>>) {
        self.branch_tables.insert(label, targets);
    }

    /// `.loc file line column`: the instructions after it, up to the next `.loc`, come from
    /// that source line (PTX ISA 9.0, 11.6.2).
    pub(crate) fn loc(&mut self, loc: &ast::Loc) {
        self.source_line = Some(SourceLine {
            file: loc.file.value,
            line: loc.line.value,
        });
    }

    /// A label: it stands before the next instruction.
    pub(crate) fn label(&mut self, label: Span) {
        self.symbols
            .insert(label.start, Symbol::Label(self.instructions.len()));
    }

    /// A declaration in a function body, given what the names in its initializers resolved to.
    pub(crate) fn declaration(
        &mut self,
        declaration: &VariableDeclaration,
        uses: Uses,
    ) -> Result<(), BuildError> {
        self.uses = uses;
        if declaration.space.value == StateSpace::Reg {
            self.declare_registers(declaration)
        } else {
            self.declare_addresses(declaration, false);
            Ok(())
        }
    }

    /// An instruction, given what its names resolved to.
    pub(crate) fn instruction(&mut self, instruction: &ast::Instruction, uses: Uses) {
        self.uses = uses;
        // A memory instruction without a state space (a generic access) that names a variable
        // as its address takes the variable's generic address (PTX ISA 5.1.6 / 6.4.1: "if no
        // state space is given, the address is a generic address"; a variable's name stands
        // for its address in its own space, which the generic window maps).
        self.generic_access = !instruction.modifier_names().iter().any(|name| {
            matches!(
                name.split("::").next().unwrap_or(name),
                "global" | "shared" | "local" | "const" | "param" | "tex" | "surf"
            )
        });
        let text = self.text(instruction.span);
        let location = self.location(instruction.span);
        let mut kind = None;
        let guard = match &instruction.guard {
            None => None,
            Some(guard) => match self.resolve(&guard.predicate, None) {
                Some(Resolved::Register(id))
                    if self.registers.get(id.index()).map(|r| r.ty) == Some(Type::Pred) =>
                {
                    Some(Guard {
                        predicate: id,
                        negated: guard.negated,
                    })
                }
                _ => {
                    kind = Some(Self::unsupported(
                        instruction,
                        format!("`{}` is not a predicate register", guard.predicate.value),
                    ));
                    None
                }
            },
        };
        let kind = match kind {
            Some(kind) => kind,
            None => self.kind(instruction),
        };
        self.instructions.push(Instruction {
            guard,
            kind,
            text,
            location,
            source: self.source_line,
        });
    }

    /// The symbol a name resolved to.
    /// The element size of the array variable a name refers to.
    fn element_size(&self, name: &NameRef) -> Option<u64> {
        let found = self
            .uses
            .iter()
            .find(|(at, _)| *at == name.name.span.start)
            .map(|(_, found)| found)?;
        self.element_bytes.get(&found.span.start).copied()
    }

    fn lookup(&self, name: &ptxsim_syntax::Spanned<ptxsim_syntax::Text>) -> Option<&Symbol> {
        let found = self
            .uses
            .iter()
            .find(|(at, _)| *at == name.span.start)
            .map(|(_, found)| found)?;
        self.symbols.get(&found.span.start)
    }

    /// Declares the names of a non-register declaration as addresses of their state space:
    /// each gets the next address of its space, aligned to its `.align` or its element size.
    /// `kernel_param` is set for the kernel's own parameters (the read-only part of `.param`).
    /// `.global` and `.const` variables get their initial bytes.
    fn declare_addresses(&mut self, declaration: &VariableDeclaration, kernel_param: bool) {
        let (element, vector) = declared_type(declaration);
        let element_bytes = u64::from(element.map_or(8, |t| t.bits().div_ceil(8)).max(1));
        let pointer = declaration.words().any(|w| w.value == "ptr");
        // In `.param .u64 .ptr .global .align 16 p`, `.align` is the alignment of the memory
        // the pointer points to (PTX ISA 5.1.6.1), not of the parameter.
        let align = if pointer { None } else { declaration.align() }
            .unwrap_or(element_bytes * vector)
            .clamp(1, 1 << 16);
        let dynamic = declaration.space.value == StateSpace::Shared
            && declaration
                .linkage
                .iter()
                .any(|linkage| linkage.value == ast::Linkage::Extern);
        for declarator in &declaration.declarators {
            if dynamic && declarator.dimensions.iter().any(Option::is_none) {
                self.dynamic.push((declarator.name.span.start, align));
                continue;
            }
            let mut count: u64 = declarator
                .dimensions
                .iter()
                .map(|d| d.as_ref().map_or(0, |d| d.value))
                .fold(1u64, u64::saturating_mul);
            let mut initial = Vec::new();
            if let Some(initializer) = &declarator.initializer {
                let element_ty = element.unwrap_or(Type::B8);
                self.initial_bytes(initializer, element_ty, &mut initial);
                if declarator.dimensions.iter().any(Option::is_none) {
                    count = (initial.len() as u64).div_ceil(element_bytes * vector);
                }
            }
            // Not clamped: the checker bounds `.shared`, `.const` and kernel `.param` sizes
            // (crate::limits), and the executor's memory budget the others before it allocates.
            let size = element_bytes.saturating_mul(vector).saturating_mul(count);
            let space = match declaration.space.value {
                StateSpace::Param => Space::Param,
                StateSpace::Const => Space::Const,
                StateSpace::Global => Space::Global,
                StateSpace::Shared => Space::Shared,
                StateSpace::Local => Space::Local,
                StateSpace::Reg => return,
            };
            let address = if space == Space::Global {
                initial.truncate(usize::try_from(size).unwrap_or(usize::MAX));
                let previous = self.globals.last().map(|last| (last.address, last.size));
                let address = next_buffer(previous);
                self.globals.push(GlobalVariable {
                    name: declarator.name.value.to_string(),
                    address,
                    size,
                    bytes: initial,
                    managed: declaration.is_managed(),
                });
                address
            } else {
                let slot = match space {
                    Space::Param if kernel_param => SPACE_KERNEL_PARAM,
                    Space::Param => SPACE_THREAD_PARAM,
                    Space::Shared => SPACE_SHARED,
                    Space::Local => SPACE_LOCAL,
                    _ => SPACE_CONST,
                };
                let address = self.next[slot].div_ceil(align).saturating_mul(align);
                // A module-scope `.shared` variable the kernel never names takes no room.
                let unused = slot == SPACE_SHARED
                    && self
                        .module_names
                        .as_ref()
                        .is_some_and(|names| !names.contains(declarator.name.value.as_str()));
                if !unused {
                    self.next[slot] = address.saturating_add(size);
                }
                if slot == SPACE_CONST {
                    let start = usize::try_from(address).unwrap_or(0);
                    let end = usize::try_from(address.saturating_add(size)).unwrap_or(0);
                    self.constants.resize(end, 0);
                    let take = initial.len().min(end.saturating_sub(start));
                    self.constants[start..start + take].copy_from_slice(&initial[..take]);
                    self.const_variables.push(ConstVariable {
                        name: declarator.name.value.to_string(),
                        address,
                        size,
                    });
                }
                if kernel_param {
                    self.kernel_params.push(Param {
                        name: declarator.name.value.to_string(),
                        ty: element.unwrap_or(Type::B8),
                        offset: address,
                        bytes: size,
                        pointer_like: pointer
                            || matches!(element, Some(Type::U64 | Type::B64 | Type::S64)),
                    });
                }
                address
            };
            self.symbols.insert(
                declarator.name.span.start,
                Symbol::Address(space, address, size),
            );
            self.element_bytes
                .insert(declarator.name.span.start, element_bytes * vector);
        }
    }

    /// The value of an address initializer (`gtab`, `generic(x)+4`; 0 for anything else).
    fn initial_address(&self, initializer: &Initializer) -> u64 {
        let Initializer::Address {
            name,
            generic,
            offset,
            ..
        } = initializer
        else {
            return 0;
        };
        match self.lookup(name) {
            Some(Symbol::Address(space, address, _)) => {
                let address = if *generic {
                    to_generic(*space, *address)
                } else {
                    *address
                };
                address.wrapping_add(offset.as_ref().map_or(0, |o| o.value) as u64)
            }
            _ => 0,
        }
    }

    /// Appends the bytes of an initializer (`= 1`, `= {1, 2}`, `= {gtab, generic(x)+4}`).
    fn initial_bytes(&mut self, initializer: &Initializer, ty: Type, out: &mut Vec<u8>) {
        let bytes = ty.bits().div_ceil(8).max(1) as usize;
        match initializer {
            Initializer::Immediate(immediate) => {
                let value = encode_immediate(&immediate.value, ty).unwrap_or(0);
                out.extend_from_slice(&value.to_le_bytes()[..bytes.min(16)]);
            }
            Initializer::Address { .. } => {
                let address = self.initial_address(initializer);
                out.extend_from_slice(&u128::from(address).to_le_bytes()[..bytes.min(16)]);
            }
            Initializer::Mask { mask, value, .. } => {
                // PTX ISA 9.0, 5.4.4: the byte the mask selects, shifted down to bit 0 (the
                // checker takes only masks `0xFF << 8k`).
                let mask = match mask.value.value {
                    ImmediateValue::Integer { value, .. } => value,
                    _ => 0,
                };
                let whole = match value.as_ref() {
                    Initializer::Immediate(immediate) => {
                        encode_immediate(&immediate.value, Type::B64).unwrap_or(0) as u64
                    }
                    address => self.initial_address(address),
                };
                let byte = (whole & mask) >> mask.trailing_zeros().min(63);
                out.extend_from_slice(&u128::from(byte).to_le_bytes()[..bytes.min(16)]);
            }
            Initializer::List(list) => {
                for element in &list.value {
                    self.initial_bytes(element, ty, out);
                }
            }
            Initializer::Property { .. } => out.extend(std::iter::repeat_n(0, bytes)),
        }
    }

    fn declare_registers(&mut self, declaration: &VariableDeclaration) -> Result<(), BuildError> {
        let (element, vector) = declared_type(declaration);
        // The checker rejects a `.reg` declaration without a register type.
        let ty = element.unwrap_or(Type::B32);
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
    ) -> Result<(), BuildError> {
        let name = &declarator.name.value;
        if let Some(range) = &declarator.range {
            if range.value as usize > MAX_REGISTERS {
                return Err(BuildError::TooManyRegisters {
                    limit: MAX_REGISTERS,
                    line: self.location(range.span).line,
                });
            }
            let base = self.registers.len() as u32;
            for index in 0..range.value {
                self.new_register(&format!("{name}{index}"), ty, declarator.span)?;
            }
            self.symbols.insert(
                declarator.span.start,
                Symbol::Range {
                    prefix: name.len(),
                    base,
                    count: range.value,
                },
            );
        } else if vector > 1 {
            let mut elements = Vec::new();
            for component in ["x", "y", "z", "w"].iter().take(vector as usize) {
                let full = format!("{name}.{component}");
                elements.push(self.new_register(&full, ty, declarator.span)?);
            }
            self.symbols
                .insert(declarator.name.span.start, Symbol::Vector(elements));
        } else {
            let id = self.new_register(name, ty, declarator.span)?;
            self.symbols
                .insert(declarator.name.span.start, Symbol::Register(id));
        }
        Ok(())
    }

    /// The parameter layout of device function `name`, allocated in the per-thread `.param`
    /// space on first use (its body is queued for building then).
    fn function_info(&mut self, name: &str) -> Option<FunctionInfo> {
        if let Some(info) = self.called.get(name) {
            return Some(info.clone());
        }
        let function = *self.functions.get(name)?;
        let mut info = FunctionInfo::default();
        let caller_prefix = std::mem::replace(&mut self.prefix, format!("{name}:"));
        for (declarations, slots, registers) in [
            (
                &function.returns,
                &mut info.returns,
                &mut info.return_registers,
            ),
            (
                &function.params,
                &mut info.params,
                &mut info.param_registers,
            ),
        ] {
            for declaration in declarations.iter().flatten() {
                // A `.reg` parameter is a register of the callee (PTX ISA 7.1: "the function
                // parameters ... in the .reg state space"); it gets no parameter slot.
                if let (StateSpace::Reg, (Some(ty), 1)) =
                    (declaration.space.value, declared_type(declaration))
                {
                    for declarator in &declaration.declarators {
                        let register = self
                            .new_register(declarator.name.value.as_str(), ty, declarator.name.span)
                            .ok();
                        slots.push((0, 0));
                        registers.push(register);
                    }
                    continue;
                }
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
                        .map(|d| d.as_ref().map_or(0, |d| d.value))
                        .fold(1u64, u64::saturating_mul);
                    let size = (element_bytes * vector).saturating_mul(count);
                    let next = &mut self.next[SPACE_THREAD_PARAM];
                    let address = next.div_ceil(align).saturating_mul(align);
                    *next = address.saturating_add(size);
                    slots.push((address, size));
                    registers.push(None);
                }
            }
        }
        self.prefix = caller_prefix;
        self.called.insert(name.to_string(), info.clone());
        self.queue.push_back(name.to_string());
        Some(info)
    }

    fn mnemonic(instruction: &ast::Instruction) -> String {
        let mut mnemonic = instruction.opcode.value.to_string();
        for modifier in &instruction.modifiers {
            mnemonic.push('.');
            mnemonic.push_str(&modifier.value);
        }
        mnemonic
    }

    /// The thread's condition-code carry flag (PTX ISA 9.7.2: "the condition code register"
    /// `CC.CF`), one `.pred` register for the whole program, named `%cc` in traces.
    fn carry_flag(&mut self) -> Result<RegisterId, String> {
        if let Some(id) = self.carry {
            return Ok(id);
        }
        if self.registers.len() >= MAX_REGISTERS {
            return Err(format!("more than {MAX_REGISTERS} registers"));
        }
        let count = self.name_counts.entry("%cc".to_string()).or_insert(0);
        let name = if *count == 0 {
            "%cc".to_string()
        } else {
            format!("%cc#{count}")
        };
        *count += 1;
        let id = RegisterId(self.registers.len() as u32);
        self.registers.push(RegisterInfo {
            name,
            ty: Type::Pred,
        });
        self.carry = Some(id);
        Ok(id)
    }

    fn unsupported(instruction: &ast::Instruction, reason: impl Into<String>) -> InstructionKind {
        InstructionKind::Unsupported {
            mnemonic: Self::mnemonic(instruction),
            reason: reason.into(),
        }
    }

    fn kind(&mut self, instruction: &ast::Instruction) -> InstructionKind {
        let Some(opcode) = Opcode::from_name(&instruction.opcode.value) else {
            return Self::unsupported(instruction, "not a PTX instruction ptxsim knows");
        };
        if matches!(opcode, Opcode::Mov | Opcode::Cvt) {
            return self.decoded(instruction);
        }
        if opcode == Opcode::Brx {
            return self
                .indexed_branch(instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        if matches!(
            opcode,
            Opcode::Alloca | Opcode::Stacksave | Opcode::Stackrestore | Opcode::Pmevent
        ) {
            return self
                .stack_or_event(opcode, instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        if opcode == Opcode::Clusterlaunchcontrol {
            return self
                .cluster_launch_control(instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        if matches!(
            opcode,
            Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma
        ) && instruction.modifier_names().contains(&"f32x2")
        {
            return self
                .float_pair(opcode, instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        if matches!(opcode, Opcode::Add | Opcode::Sub | Opcode::Fma)
            && let Some(narrow) = ops::mixed_precision_type(&instruction.modifier_names())
        {
            return self
                .float_mixed(opcode, narrow, instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        if matches!(opcode, Opcode::Min | Opcode::Max) && instruction.operands.len() == 4 {
            return self
                .min_max_3(opcode, instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        if matches!(opcode, Opcode::St | Opcode::Red) {
            let names = instruction.modifier_names();
            if let Some(&word) = names.first()
                && matches!(word, "async" | "bulk")
            {
                return self
                    .async_store(opcode, word, &names, instruction)
                    .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
            }
        }
        if opcode == Opcode::Tcgen05 {
            return self
                .tcgen05(instruction)
                .unwrap_or_else(|reason| Self::unsupported(instruction, reason));
        }
        let written = instruction.modifier_names();
        // An `.f32` instruction of a `.target sm_1x` module runs as CUDA compiles it for the
        // device (`crate::rules::decode_for`).
        let modifiers = if self.sm_1x {
            ops::sm_1x_modifiers(opcode.name(), &written)
                .filter(|adjusted| ops::decode_op(opcode, adjusted).is_ok())
                .unwrap_or(written)
        } else {
            written
        };
        let form = match ops::decode_op(opcode, &modifiers) {
            Ok(form) => form,
            Err(error) => {
                return Self::unsupported(
                    instruction,
                    format!("`{opcode}` (PTX ISA {}): {error}", opcode.section()),
                );
            }
        };
        match self.operation(form, instruction) {
            Ok(kind) => kind,
            Err(reason) => Self::unsupported(instruction, reason),
        }
    }

    /// `brx.idx{.uni} index, tlist;` (PTX ISA 9.7.12.4): the targets are set at the
    /// function's end, when every label of the list has its place (a placeholder until then).
    fn indexed_branch(
        &mut self,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let [index, Operand::Name(NameRef { name, .. })] = instruction.operands.as_slice() else {
            return Err("`brx.idx` takes an index and a `.branchtargets` list".to_string());
        };
        let index = self.source(index, Type::U32)?;
        let list = self
            .uses
            .iter()
            .find(|(at, _)| *at == name.span.start)
            .map(|(_, found)| found.span.start)
            .ok_or_else(|| format!("`{}` is unknown", name.value))?;
        let labels = self
            .branch_tables
            .get(&list)
            .cloned()
            .ok_or_else(|| format!("`{}` is not a `.branchtargets` list", name.value))?;
        self.indexed_branches
            .push((self.instructions.len(), index, labels));
        Ok(InstructionKind::BranchIndexed {
            index,
            targets: Vec::new(),
        })
    }

    /// `alloca`, `stacksave`, `stackrestore` (PTX ISA 9.7.17; the checker has checked their
    /// forms against the Syntax blocks) and `pmevent` (9.7.19.3: "Triggers one or more of a
    /// fixed number of performance monitor events": nothing to count here, a no-op).
    fn stack_or_event(
        &mut self,
        opcode: Opcode,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        if opcode == Opcode::Pmevent {
            return Ok(InstructionKind::Fence);
        }
        self.uses_stack = true;
        let ty = match instruction.modifier_names().as_slice() {
            ["u32"] => Type::U32,
            ["u64"] => Type::U64,
            _ => return Err(format!("`{opcode}` takes `.u32` or `.u64`")),
        };
        let operands = instruction.operands.as_slice();
        Ok(match (opcode, operands) {
            (Opcode::Alloca, [ptr, size, rest @ ..]) if rest.len() <= 1 => {
                let align = match rest {
                    [Operand::Immediate(immediate)] => match immediate.value.value {
                        ImmediateValue::Integer { value, .. }
                            if !immediate.value.negative
                                && value.is_power_of_two()
                                && value <= 1 << 23 =>
                        {
                            value
                        }
                        _ => return Err("immAlign must be a power of 2 not above 2^23".to_string()),
                    },
                    [] => 8,
                    _ => return Err("immAlign must be an integer constant".to_string()),
                };
                InstructionKind::Alloca {
                    ty,
                    destination: self.destination(ptr)?,
                    size: self.source(size, ty)?,
                    align: align.max(8),
                }
            }
            (Opcode::Stacksave, [d]) => InstructionKind::StackSave {
                ty,
                destination: self.destination(d)?,
            },
            (Opcode::Stackrestore, [a]) => InstructionKind::StackRestore {
                ty,
                source: self.source(a, ty)?,
            },
            _ => return Err(format!("`{opcode}`: unexpected operands")),
        })
    }

    /// `clusterlaunchcontrol.try_cancel` and `.query_cancel` (PTX ISA 9.7.13.17; the checker
    /// has checked their forms against the Syntax block and ptxas's).
    fn cluster_launch_control(
        &mut self,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let names = instruction.modifier_names();
        let has = |word: &str| names.contains(&word);
        let operands = instruction.operands.as_slice();
        if has("try_cancel") {
            let [response, mbarrier] = operands else {
                return Err("try_cancel takes [addr], [mbar]".to_string());
            };
            return Ok(InstructionKind::ClusterCancel {
                response: self.memory_operand(response)?,
                mbarrier: self.memory_operand(mbarrier)?,
                generic: !has("shared::cta"),
                multicast: has("multicast::cluster::all"),
            });
        }
        if !has("query_cancel") {
            return Err("clusterlaunchcontrol takes .try_cancel or .query_cancel".to_string());
        }
        let (ctaid, destination, handle) = match operands {
            [d, handle] if has("is_canceled") => (None, d, handle),
            [d, handle] if has("get_first_ctaid") => (Some(None), d, handle),
            [d, handle] => {
                let axis = [
                    ("get_first_ctaid::x", Axis::X),
                    ("get_first_ctaid::y", Axis::Y),
                    ("get_first_ctaid::z", Axis::Z),
                ]
                .into_iter()
                .find(|(word, _)| has(word))
                .map(|(_, axis)| axis)
                .ok_or("query_cancel takes .is_canceled or .get_first_ctaid")?;
                (Some(Some(axis)), d, handle)
            }
            _ => return Err("query_cancel takes d, try_cancel_response".to_string()),
        };
        let destinations = match (ctaid, destination) {
            (Some(None), Operand::Vector(elements)) => self.vector_destinations(&elements.value)?,
            (Some(None), _) => return Err("get_first_ctaid.v4 writes {x, y, z, _}".to_string()),
            (_, d) => vec![Some(self.destination(d)?)],
        };
        Ok(InstructionKind::ClusterCancelQuery {
            ctaid,
            destinations,
            handle: self.source(handle, Type::B128)?,
        })
    }

    /// `min`/`max` with three inputs (PTX ISA 8.8; the checker has checked the form).
    fn min_max_3(
        &mut self,
        opcode: Opcode,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let names = instruction.modifier_names();
        let [d, a, b, c] = instruction.operands.as_slice() else {
            return Err(format!("{opcode} with three inputs takes d, a, b, c"));
        };
        Ok(InstructionKind::FloatMinMax3 {
            op: if opcode == Opcode::Min {
                FloatOp::Min
            } else {
                FloatOp::Max
            },
            modifiers: FloatModifiers {
                ftz: names.contains(&"ftz"),
                nan: names.contains(&"NaN"),
                ..FloatModifiers::RN
            },
            abs: names.contains(&"abs"),
            destination: self.destination(d)?,
            sources: [
                self.source(a, Type::F32)?,
                self.source(b, Type::F32)?,
                self.source(c, Type::F32)?,
            ],
        })
    }

    /// `add`/`sub`/`mul`/`fma` `.f32x2` (PTX ISA 9.7.3.3-6; the checker has checked the form).
    fn float_pair(
        &mut self,
        opcode: Opcode,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let names = instruction.modifier_names();
        let modifiers = FloatModifiers {
            rounding: float_rounding(&names),
            ftz: names.contains(&"ftz"),
            ..FloatModifiers::RN
        };
        let op = binary_float_op(opcode);
        let count = if op.is_some() { 3 } else { 4 };
        let operands = instruction.operands.as_slice();
        if operands.len() != count {
            return Err(format!("{opcode}.f32x2 takes {count} operands"));
        }
        Ok(InstructionKind::FloatPair {
            op,
            modifiers,
            destination: self.destination(&operands[0])?,
            sources: operands[1..]
                .iter()
                .map(|operand| self.source(operand, Type::B64))
                .collect::<Result<_, _>>()?,
        })
    }

    /// The mixed-precision `add`/`sub{.rnd}{.sat}.f32.atype d, a, c` and
    /// `fma.rnd{.sat}.f32.abtype d, a, b, c` (PTX ISA 9.7.5; the checker has checked the form):
    /// "The default value of rounding modifier is .rn".
    fn float_mixed(
        &mut self,
        opcode: Opcode,
        narrow: Type,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let names = instruction.modifier_names();
        let modifiers = FloatModifiers {
            rounding: float_rounding(&names),
            sat: names.contains(&"sat"),
            ..FloatModifiers::RN
        };
        let op = binary_float_op(opcode);
        let operands = instruction.operands.as_slice();
        let narrow_sources = if op.is_some() { 1 } else { 2 };
        if operands.len() != narrow_sources + 2 {
            return Err(format!(
                "mixed-precision {opcode} takes {} operands",
                narrow_sources + 2
            ));
        }
        let sources = operands[1..]
            .iter()
            .enumerate()
            .map(|(i, operand)| {
                let ty = if i < narrow_sources {
                    narrow
                } else {
                    Type::F32
                };
                self.source(operand, ty)
            })
            .collect::<Result<_, _>>()?;
        Ok(InstructionKind::FloatMixed {
            op,
            narrow,
            modifiers,
            destination: self.destination(&operands[0])?,
            sources,
        })
    }

    /// `st.async`, `red.async` (`word` "async") and `st.bulk` (PTX ISA 9.7.9.12, 9.7.13.7,
    /// 9.7.9.13; the checker has checked their forms against the Syntax blocks and ptxas's).
    fn async_store(
        &mut self,
        opcode: Opcode,
        word: &str,
        names: &[&str],
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let has = |modifier: &str| names.contains(&modifier);
        let operands = instruction.operands.as_slice();
        // "If .ss is not specified, Generic Addressing is used."
        let space = if has("shared::cluster") {
            Space::SharedCluster
        } else if has("shared::cta") {
            Space::Shared
        } else if has("global") {
            Space::Global
        } else {
            Space::Generic
        };
        if word == "bulk" {
            let [address, size, _initval] = operands else {
                return Err("st.bulk takes [a], size, initval".to_string());
            };
            // A 32-bit size register holds its value in the low bits of its row.
            return Ok(InstructionKind::StBulk {
                space,
                address: self.memory_operand(address)?,
                size: self.source(size, Type::U64)?,
            });
        }
        let ty = names
            .iter()
            .rev()
            .find_map(|name| Type::from_name(name))
            .ok_or_else(|| format!("{opcode}.async needs a type"))?;
        let (address, value, mbarrier) = match operands {
            [a, b] => (a, b, None),
            [a, b, mbar] => (a, b, Some(self.memory_operand(mbar)?)),
            _ => return Err(format!("{opcode}.async takes [a], b{{, [mbar]}}")),
        };
        let address = self.memory_operand(address)?;
        if opcode == Opcode::St {
            let sources = match value {
                Operand::Vector(elements) => self.vector_sources(&elements.value, ty)?,
                value => vec![self.source(value, ty)?],
            };
            return Ok(InstructionKind::StAsync {
                space,
                ty,
                address,
                sources,
                mbarrier,
            });
        }
        let op = [
            ("add", AtomOp::Add),
            ("inc", AtomOp::Inc),
            ("dec", AtomOp::Dec),
            ("min", AtomOp::Min),
            ("max", AtomOp::Max),
            ("and", AtomOp::And),
            ("or", AtomOp::Or),
            ("xor", AtomOp::Xor),
        ]
        .into_iter()
        .find(|(name, _)| has(name))
        .map(|(_, op)| op)
        .ok_or("red.async needs an operation")?;
        Ok(InstructionKind::RedAsync {
            space,
            op,
            ty,
            address,
            source: self.source(value, ty)?,
            mbarrier,
        })
    }

    /// Lowers the operands of a decoded non-conversion instruction.
    fn operation(
        &mut self,
        form: OpForm,
        instruction: &ast::Instruction,
    ) -> Result<InstructionKind, String> {
        let operands = instruction.operands.as_slice();
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
        if let Some(reason) = not_executed(&form) {
            return Err(reason.to_string());
        }
        Ok(match form {
            OpForm::Tex(_)
            | OpForm::Txq { .. }
            | OpForm::Suld(_)
            | OpForm::Sust(_)
            | OpForm::Sured(_)
            | OpForm::Suq(_) => self.texture(form, operands)?,
            OpForm::IntBinary { op, ty, sat, relu } => {
                count(3)?;
                let b_ty = match op {
                    ops::IntOp::Shl | ops::IntOp::Shr => Type::U32,
                    _ => ty,
                };
                InstructionKind::IntBinary {
                    op,
                    ty,
                    sat,
                    relu,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], ty)?,
                    b: self.source(&operands[2], b_ty)?,
                }
            }
            OpForm::IntUnary { op, ty } => {
                count(2)?;
                InstructionKind::IntUnary {
                    op,
                    ty,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], ty)?,
                }
            }
            OpForm::Mad { mode, ty, sat } => {
                count(4)?;
                let c_ty = if mode == ops::MulMode::Wide {
                    bit_type(ty.bits() * 2)
                } else {
                    ty
                };
                InstructionKind::Mad {
                    mode,
                    ty,
                    sat,
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], ty)?,
                        self.source(&operands[2], ty)?,
                        self.source(&operands[3], c_ty)?,
                    ],
                }
            }
            OpForm::FloatBinary { op, ty, modifiers } => {
                count(3)?;
                let ty_imm = immediate_type(ty);
                InstructionKind::FloatBinary {
                    op,
                    ty,
                    modifiers,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], ty_imm)?,
                    b: self.source(&operands[2], ty_imm)?,
                }
            }
            OpForm::Fma { ty, modifiers } => {
                count(4)?;
                let ty_imm = immediate_type(ty);
                InstructionKind::Fma {
                    ty,
                    modifiers,
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], ty_imm)?,
                        self.source(&operands[2], ty_imm)?,
                        self.source(&operands[3], ty_imm)?,
                    ],
                }
            }
            OpForm::FloatUnary { op, ty, modifiers } => {
                count(2)?;
                InstructionKind::FloatUnary {
                    op,
                    ty,
                    modifiers,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], immediate_type(ty))?,
                }
            }
            OpForm::Setp {
                compare,
                combine,
                ty,
                ftz,
            } => {
                let (p, q) = match operands.first() {
                    Some(Operand::Pair(_, p, q)) => {
                        let q = match q.as_ref() {
                            Operand::Sink(_) => None,
                            other => Some(self.destination(other)?),
                        };
                        (self.destination(p)?, q)
                    }
                    Some(p) => (self.destination(p)?, None),
                    None => return Err("setp without operands".to_string()),
                };
                let combine = match (combine, operands.len()) {
                    (None, 3) => None,
                    (Some(op), 4) => Some((op, self.predicate_source(&operands[3])?)),
                    _ => return Err("setp takes p[|q], a, b and, with .and/.or/.xor, c".into()),
                };
                InstructionKind::Setp {
                    compare,
                    ty,
                    ftz,
                    combine,
                    p,
                    q,
                    a: self.source(&operands[1], immediate_type(ty))?,
                    b: self.source(&operands[2], immediate_type(ty))?,
                }
            }
            OpForm::Selp { ty } => {
                count(4)?;
                InstructionKind::Selp {
                    ty,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], ty)?,
                    b: self.source(&operands[2], ty)?,
                    c: self.source(&operands[3], Type::Pred)?,
                }
            }
            OpForm::Prmt { mode } => {
                count(4)?;
                InstructionKind::Prmt {
                    mode,
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(&operands[1..], [Type::B32; 3])?,
                }
            }
            OpForm::Lop3 { .. } => {
                count(5)?;
                let lut = match self.source(&operands[4], Type::B32)? {
                    Source::Immediate(bits) => (bits & 0xff) as u8,
                    _ => return Err("lop3's immLut must be an immediate".to_string()),
                };
                InstructionKind::Lop3 {
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(&operands[1..], [Type::B32; 3])?,
                    lut,
                }
            }
            OpForm::IntTernary { op, ty } => {
                count(4)?;
                let c = match op {
                    ops::IntTernaryOp::Shf { .. } => Type::U32,
                    ops::IntTernaryOp::Mad24 { .. } | ops::IntTernaryOp::Sad => ty,
                };
                InstructionKind::IntTernary {
                    op,
                    ty,
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(&operands[1..], [ty, ty, c])?,
                }
            }
            OpForm::Carry {
                op,
                ty,
                carry_in,
                carry_out,
                ..
            } => {
                let mad = matches!(op, ops::CarryOp::Mad { .. });
                count(if mad { 4 } else { 3 })?;
                let c = if mad {
                    self.source(&operands[3], ty)?
                } else {
                    Source::Immediate(0)
                };
                InstructionKind::Carry {
                    op,
                    ty,
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], ty)?,
                        self.source(&operands[2], ty)?,
                        c,
                    ],
                    carry_in: if carry_in {
                        Some(self.carry_flag()?)
                    } else {
                        None
                    },
                    carry_out: if carry_out {
                        Some(self.carry_flag()?)
                    } else {
                        None
                    },
                }
            }
            OpForm::Bfind { ty, shiftamt } => {
                count(2)?;
                InstructionKind::IntExtra {
                    op: IntExtraOp::Bfind { ty, shiftamt },
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], ty)?,
                        Source::Immediate(0),
                        Source::Immediate(0),
                    ],
                }
            }
            OpForm::Fns => {
                count(4)?;
                InstructionKind::IntExtra {
                    op: IntExtraOp::Fns,
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(&operands[1..], [Type::B32, Type::B32, Type::S32])?,
                }
            }
            OpForm::Bmsk { clamp } => {
                count(3)?;
                InstructionKind::IntExtra {
                    op: IntExtraOp::Bmsk { clamp },
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], Type::U32)?,
                        self.source(&operands[2], Type::U32)?,
                        Source::Immediate(0),
                    ],
                }
            }
            OpForm::Szext { ty, clamp } => {
                count(3)?;
                InstructionKind::IntExtra {
                    op: IntExtraOp::Szext {
                        signed: ty == Type::S32,
                        clamp,
                    },
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], ty)?,
                        self.source(&operands[2], Type::U32)?,
                        Source::Immediate(0),
                    ],
                }
            }
            OpForm::VideoSimd {
                op,
                quad,
                d_signed,
                a_signed,
                b_signed,
                sat,
                add,
            } => {
                count(4)?;
                let selector = |operand: &Operand| match operand {
                    Operand::Name(name) => name.selector.as_ref().map(|s| s.value),
                    _ => None,
                };
                // vadd4.md: "`.asel` defaults to `.b3210`", "`.bsel` defaults to `.b7654`",
                // the mask "defaults to `.b3210`"; vadd2.md: `.h10`, `.h32` and `.h10`. The
                // lanes are written from high to low.
                let lanes = |operand: &Operand, default: [u8; 4]| match selector(operand) {
                    Some(s) => {
                        let mut out = [0; 4];
                        for (slot, &digit) in out.iter_mut().zip(s.digits().iter().rev()) {
                            *slot = digit;
                        }
                        out
                    }
                    None => default,
                };
                let (asel, bsel, all) = if quad {
                    ([0, 1, 2, 3], [4, 5, 6, 7], 0b1111)
                } else {
                    ([0, 1, 0, 0], [2, 3, 0, 0], 0b11)
                };
                let mask = match selector(&operands[0]) {
                    Some(s) => s.digits().iter().fold(0, |m, &lane| m | 1 << lane),
                    None => all,
                };
                InstructionKind::IntExtra {
                    op: IntExtraOp::Video(super::VideoSimd {
                        op,
                        quad,
                        d_signed,
                        a_signed,
                        b_signed,
                        sat,
                        add,
                        asel: lanes(&operands[1], asel),
                        bsel: lanes(&operands[2], bsel),
                        mask,
                    }),
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(&operands[1..], [Type::U32; 3])?,
                }
            }
            OpForm::VideoScalar {
                op,
                d_signed,
                a_signed,
                b_signed,
                sat,
                secondary,
            } => {
                // vadd.md: `d, a{.asel}, b{.bsel}` or, with `.op2` or `d.dsel`, `..., c`;
                // vmad.md: always `d, {-}a, {-}b, {-}c`.
                if !(3..=4).contains(&operands.len()) {
                    count(4)?;
                }
                let part = |operand: &Operand| {
                    let operand = match operand {
                        Operand::Negated(_, inner, ast::Negation::Minus) => inner.as_ref(),
                        other => other,
                    };
                    match operand {
                        Operand::Name(name) => match name.selector.as_ref().map(|s| s.value) {
                            Some(s) if s.half => {
                                super::VideoPart::Half(s.digits().first().copied().unwrap_or(0))
                            }
                            Some(s) => {
                                super::VideoPart::Byte(s.digits().first().copied().unwrap_or(0))
                            }
                            None => super::VideoPart::Word,
                        },
                        _ => super::VideoPart::Word,
                    }
                };
                let negated = |operand: &Operand| {
                    matches!(operand, Operand::Negated(_, _, ast::Negation::Minus))
                };
                let plain = |operand: &'_ Operand| -> Operand {
                    match operand {
                        Operand::Negated(_, inner, ast::Negation::Minus) => inner.as_ref().clone(),
                        other => other.clone(),
                    }
                };
                let kind = super::VideoScalar {
                    op,
                    d_signed,
                    a_signed,
                    b_signed,
                    sat,
                    secondary,
                    asel: part(&operands[1]),
                    bsel: part(&operands[2]),
                    dsel: part(&operands[0]),
                    negate_product: negated(&operands[1]) != negated(&operands[2]),
                    negate_c: operands.get(3).is_some_and(negated),
                };
                // Without `c` (the three-operand form, no `.op2`, no `.dsel`), a zero nothing
                // reads.
                let c = match operands.get(3) {
                    Some(c) => self.source(&plain(c), Type::U32)?,
                    None => Source::Immediate(0),
                };
                let resolved = [
                    self.source(&plain(&operands[1]), Type::U32)?,
                    self.source(&plain(&operands[2]), Type::U32)?,
                    c,
                ];
                InstructionKind::IntExtra {
                    op: IntExtraOp::VideoScalar(kind),
                    destination: self.destination(&plain(&operands[0]))?,
                    sources: resolved,
                }
            }
            OpForm::Dot {
                dp2a,
                a_signed,
                b_signed,
            } => {
                count(4)?;
                let int = |signed: bool| if signed { Type::S32 } else { Type::U32 };
                InstructionKind::IntExtra {
                    op: IntExtraOp::Dot {
                        dp2a,
                        a_signed,
                        b_signed,
                    },
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(
                        &operands[1..],
                        [int(a_signed), int(b_signed), int(a_signed || b_signed)],
                    )?,
                }
            }
            OpForm::Testp { op, ty } => {
                count(2)?;
                let Some(op) = op else {
                    return Err(
                        "testp without a property (.finite, .normal, ...) is accepted \
                                by ptxas but not in the ISA; not supported"
                            .to_string(),
                    );
                };
                InstructionKind::Testp {
                    op,
                    ty,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], ty)?,
                }
            }
            OpForm::Set {
                compare,
                combine,
                dtype,
                stype,
                ftz,
            } => {
                let combine = match (combine, operands.len()) {
                    (None, 3) => None,
                    (Some(op), 4) => Some((op, self.predicate_source(&operands[3])?)),
                    _ => return Err("set takes d, a, b and, with .and/.or/.xor, c".into()),
                };
                InstructionKind::Set {
                    compare,
                    dtype,
                    stype,
                    ftz,
                    combine,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], immediate_type(stype))?,
                    b: self.source(&operands[2], immediate_type(stype))?,
                }
            }
            OpForm::Mbarrier {
                op,
                shared,
                cluster,
            } => {
                let space = if cluster {
                    Space::SharedCluster
                } else if shared {
                    Space::Shared
                } else {
                    Space::Generic
                };
                let sink_or = |this: &Self, operand: &Operand| match operand {
                    Operand::Sink(_) => Ok(None),
                    other => this.destination(other).map(Some),
                };
                let (destination, address, operand) = match op {
                    ops::MbarrierOp::Init => (
                        None,
                        Some(self.memory_operand(&operands[0])?),
                        Some(self.source(&operands[1], Type::U32)?),
                    ),
                    ops::MbarrierOp::Inval | ops::MbarrierOp::CpAsyncArrive { .. } => {
                        (None, Some(self.memory_operand(&operands[0])?), None)
                    }
                    ops::MbarrierOp::Arrive { .. } => (
                        sink_or(self, &operands[0])?,
                        Some(self.memory_operand(&operands[1])?),
                        match operands.get(2) {
                            Some(count) => Some(self.source(count, Type::U32)?),
                            None => None,
                        },
                    ),
                    ops::MbarrierOp::ExpectTx | ops::MbarrierOp::CompleteTx => (
                        None,
                        Some(self.memory_operand(&operands[0])?),
                        Some(self.source(&operands[1], Type::U32)?),
                    ),
                    ops::MbarrierOp::Wait { parity, .. } => (
                        Some(self.destination(&operands[0])?),
                        Some(self.memory_operand(&operands[1])?),
                        Some(
                            self.source(&operands[2], if parity { Type::U32 } else { Type::B64 })?,
                        ),
                    ),
                    ops::MbarrierOp::PendingCount => (
                        Some(self.destination(&operands[0])?),
                        None,
                        Some(self.source(&operands[1], Type::B64)?),
                    ),
                };
                InstructionKind::Mbarrier {
                    op,
                    space,
                    destination,
                    address,
                    operand,
                }
            }
            // 9.7.19.2: "Suspends the thread for a sleep duration approximately close to the
            // delay t ... guaranteed to be in the interval [0, 2*t]": zero, a no-op here.
            OpForm::Nanosleep => {
                count(1)?;
                InstructionKind::Fence
            }
            // 9.7.13.13: `.wait` waits for the prerequisite grids, `.launch_dependents` lets
            // dependent grids start early. Every launch here runs to completion before the next
            // one starts, so both are no-ops.
            OpForm::Griddepcontrol { .. } => {
                count(0)?;
                InstructionKind::Fence
            }
            OpForm::Slct {
                ty,
                float_selector,
                ftz,
            } => {
                count(4)?;
                let c = if float_selector { Type::F32 } else { Type::S32 };
                InstructionKind::Slct {
                    ty,
                    float_selector,
                    ftz,
                    destination: self.destination(&operands[0])?,
                    sources: self
                        .sources3(&operands[1..], [immediate_type(ty), immediate_type(ty), c])?,
                }
            }
            OpForm::Bfe { ty } => {
                count(4)?;
                InstructionKind::Bfe {
                    ty,
                    destination: self.destination(&operands[0])?,
                    sources: self.sources3(&operands[1..], [ty, Type::U32, Type::U32])?,
                }
            }
            OpForm::Bfi { ty } => {
                count(5)?;
                InstructionKind::Bfi {
                    ty,
                    destination: self.destination(&operands[0])?,
                    sources: [
                        self.source(&operands[1], ty)?,
                        self.source(&operands[2], ty)?,
                        self.source(&operands[3], Type::U32)?,
                        self.source(&operands[4], Type::U32)?,
                    ],
                }
            }
            // The cache policy of `.L2::cache_hint` is a hint only (PTX ISA 9.0, ld: "treated
            // as a performance hint only, and does not change the memory consistency behavior
            // of the program"): checked by the layout, not kept.
            OpForm::Ld {
                space,
                ty,
                vector,
                cache_policy,
            } => {
                count(2 + usize::from(cache_policy))?;
                let destinations = match &operands[0] {
                    Operand::Vector(elements) => elements
                        .value
                        .iter()
                        .map(|element| match element {
                            Operand::Sink(_) => Ok(None),
                            other => self.destination(other).map(Some),
                        })
                        .collect::<Result<Vec<_>, String>>()?,
                    other => match self.vector_register(other) {
                        Some(elements) if vector > 1 => elements
                            .iter()
                            .map(|&register| Some(self.element_destination(register)))
                            .collect(),
                        _ => vec![Some(self.destination(other)?)],
                    },
                };
                if destinations.len() != usize::from(vector) {
                    return Err(format!(
                        "{} destinations for a .v{vector} load",
                        destinations.len()
                    ));
                }
                InstructionKind::Ld {
                    space,
                    ty,
                    destinations,
                    address: self.memory_operand(&operands[1])?,
                }
            }
            OpForm::St {
                space,
                ty,
                vector,
                cache_policy,
            } => {
                count(2 + usize::from(cache_policy))?;
                let element_ty = immediate_type(ty);
                // A 256-bit store with sinks writes only its other elements (PTX ISA 9.0, st:
                // "no data is being written at the corresponding destination address").
                if let Operand::Vector(elements) = &operands[1]
                    && elements.value.iter().any(|e| matches!(e, Operand::Sink(_)))
                {
                    let sources = elements
                        .value
                        .iter()
                        .map(|element| match element {
                            Operand::Sink(_) => Ok(None),
                            element => self.source(element, element_ty).map(Some),
                        })
                        .collect::<Result<Vec<_>, String>>()?;
                    return Ok(InstructionKind::StMasked {
                        space,
                        ty,
                        address: self.memory_operand(&operands[0])?,
                        sources,
                    });
                }
                let sources = match &operands[1] {
                    Operand::Vector(elements) => elements
                        .value
                        .iter()
                        .map(|element| self.source(element, element_ty))
                        .collect::<Result<Vec<_>, String>>()?,
                    other => match self.vector_register(other) {
                        Some(elements) if vector > 1 => {
                            elements.into_iter().map(Source::Register).collect()
                        }
                        _ => vec![self.source(other, element_ty)?],
                    },
                };
                if sources.len() != usize::from(vector) {
                    return Err(format!("{} sources for a .v{vector} store", sources.len()));
                }
                InstructionKind::St {
                    space,
                    ty,
                    address: self.memory_operand(&operands[0])?,
                    sources,
                }
            }
            OpForm::Cvta { to, space, ty } => {
                count(2)?;
                InstructionKind::Cvta {
                    to,
                    space,
                    ty,
                    destination: self.destination(&operands[0])?,
                    source: self.source(&operands[1], ty)?,
                }
            }
            OpForm::Atom {
                reduction,
                space,
                op,
                ty,
                vector,
                cache_policy,
            } if vector > 1 => {
                let operands =
                    &operands[..operands.len().saturating_sub(usize::from(cache_policy))];
                let (destinations, rest) = match operands.split_first() {
                    _ if reduction => (Vec::new(), operands),
                    Some((Operand::Vector(d), rest)) => (self.vector_destinations(&d.value)?, rest),
                    // `atom.v2.f32 _, [a], b`: the old values are discarded, as `red` does.
                    Some((Operand::Sink(_), rest)) => (Vec::new(), rest),
                    _ => return Err("a vector atom's d is a brace vector".to_string()),
                };
                let [address, Operand::Vector(b)] = rest else {
                    return Err("a vector atom takes [a] and a brace vector b".to_string());
                };
                InstructionKind::AtomVector {
                    space,
                    op,
                    ty,
                    destinations,
                    address: self.memory_operand(address)?,
                    sources: self.vector_sources(&b.value, immediate_type(ty))?,
                }
            }
            OpForm::Atom {
                reduction,
                space,
                op,
                ty,
                cache_policy,
                ..
            } => {
                let operands =
                    &operands[..operands.len().saturating_sub(usize::from(cache_policy))];
                let (destination, rest) = if reduction {
                    (None, operands)
                } else {
                    let Some((d, rest)) = operands.split_first() else {
                        return Err("atom without operands".to_string());
                    };
                    // `atom... _, [a], b`: the old value is discarded, as `red` does.
                    match d {
                        Operand::Sink(_) => (None, rest),
                        d => (Some(self.destination(d)?), rest),
                    }
                };
                let (address, b, c) = match rest {
                    [address, b] => (address, b, None),
                    [address, b, c] if op == ops::AtomOp::Cas => (address, b, Some(c)),
                    _ => return Err("wrong number of operands".to_string()),
                };
                let ty_imm = immediate_type(ty);
                InstructionKind::Atom {
                    space,
                    op,
                    ty,
                    destination,
                    address: self.memory_operand(address)?,
                    b: self.source(b, ty_imm)?,
                    c: c.map(|c| self.source(c, ty_imm)).transpose()?,
                }
            }
            OpForm::Shfl { mode, sync } => {
                count(if sync { 5 } else { 4 })?;
                let (destination, predicate) = self.destination_pair(&operands[0])?;
                InstructionKind::Shfl {
                    mode,
                    destination: destination.ok_or("shfl's `d` is not a register")?,
                    predicate,
                    sources: self.sources3(&operands[1..4], [Type::B32; 3])?,
                    membermask: sync
                        .then(|| self.source(&operands[4], Type::B32))
                        .transpose()?,
                }
            }
            OpForm::Vote { mode, sync } => {
                count(if sync { 3 } else { 2 })?;
                InstructionKind::Vote {
                    mode,
                    destination: self.destination(&operands[0])?,
                    a: self.predicate_source(&operands[1])?,
                    membermask: sync
                        .then(|| self.source(&operands[2], Type::B32))
                        .transpose()?,
                }
            }
            OpForm::Activemask => {
                count(1)?;
                InstructionKind::Activemask {
                    destination: self.destination(&operands[0])?,
                }
            }
            OpForm::Redux { op, ty, abs, nan } => {
                count(3)?;
                InstructionKind::Redux {
                    op,
                    ty,
                    abs,
                    nan,
                    destination: self.destination(&operands[0])?,
                    a: self.source(&operands[1], ty)?,
                    membermask: self.source(&operands[2], Type::B32)?,
                }
            }
            OpForm::Match { all, ty } => {
                count(3)?;
                let (destination, predicate) = self.destination_pair(&operands[0])?;
                InstructionKind::Match {
                    all,
                    ty,
                    destination: destination.ok_or("match's `d` is not a register")?,
                    predicate,
                    a: self.source(&operands[1], ty)?,
                    membermask: self.source(&operands[2], Type::B32)?,
                }
            }
            OpForm::Elect => {
                count(2)?;
                let (destination, predicate) = self.destination_pair(&operands[0])?;
                InstructionKind::Elect {
                    destination,
                    predicate,
                    membermask: self.source(&operands[1], Type::B32)?,
                }
            }
            OpForm::Mma(form) => {
                // `d, a, b, c`, then `e, f` (sparse), then the four block-scale operands.
                let sparse_operands = if form.sparse.is_some() { 2 } else { 0 };
                count(4 + sparse_operands + if form.block_scale.is_some() { 4 } else { 0 })?;
                fn vector(operand: &Operand) -> Result<&[Operand], String> {
                    match operand {
                        Operand::Vector(elements) => Ok(&elements.value),
                        _ => Err("mma's operands are brace vectors".to_string()),
                    }
                }
                let d = vector(&operands[0])?
                    .iter()
                    .map(|element| self.destination(element))
                    .collect::<Result<Vec<_>, _>>()?;
                let source_type = |ty: ptxsim_isa::mma::MmaType| match ty {
                    ptxsim_isa::mma::MmaType::F64 => Type::F64,
                    ptxsim_isa::mma::MmaType::F32 => Type::F32,
                    _ => Type::B32,
                };
                let a = self.vector_sources(vector(&operands[1])?, source_type(form.a))?;
                let b = self.vector_sources(vector(&operands[2])?, source_type(form.b))?;
                let c = self.vector_sources(vector(&operands[3])?, source_type(form.c))?;
                let sparse = if form.sparse.is_some() {
                    // "Operand e is a 32-bit integer and operand f is a 32-bit integer constant
                    // with values in the range 0..3".
                    Some(Box::new([
                        self.source(&operands[4], Type::B32)?,
                        self.source(&operands[5], Type::U32)?,
                    ]))
                } else {
                    None
                };
                let scales = if form.block_scale.is_some() {
                    // `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b,
                    // thread-id-b}`: ".b32" data, "unsigned 16-bit integer values" selectors.
                    let mut scales = Vec::with_capacity(6);
                    let first = 4 + sparse_operands;
                    for pair in operands[first..first + 4].chunks(2) {
                        // A register or a brace vector of one (`{%r1}`: ptxas 13.5 takes both).
                        let data = match &pair[0] {
                            Operand::Vector(elements) if elements.value.len() == 1 => {
                                &elements.value[0]
                            }
                            other => other,
                        };
                        scales.push(self.source(data, Type::B32)?);
                        let selectors = self.vector_sources(vector(&pair[1])?, Type::U16)?;
                        let [byte, thread] = selectors[..] else {
                            return Err(
                                "mma's scale selectors are {byte-id, thread-id}".to_string()
                            );
                        };
                        scales.extend([byte, thread]);
                    }
                    let scales: [Source; 6] = scales.try_into().map_err(|_| "six")?;
                    Some(Box::new(scales))
                } else {
                    None
                };
                InstructionKind::Mma {
                    form,
                    d,
                    sources: [a, b, c],
                    scales,
                    sparse,
                }
            }
            OpForm::Ldmatrix(form) => {
                count(2)?;
                self.matrix_memory(true, form, operands)?
            }
            OpForm::Stmatrix(form) => {
                count(2)?;
                self.matrix_memory(false, form, operands)?
            }
            OpForm::Wmma(form) => self.wmma(form, operands)?,
            OpForm::Wgmma(ptxsim_isa::wgmma::WgmmaOp::Mma(form)) => self.wgmma(form, operands)?,
            OpForm::Wgmma(_) => InstructionKind::Fence,
            OpForm::Movmatrix => {
                count(2)?;
                let d = match &operands[0] {
                    Operand::Sink(_) => None,
                    other => Some(self.destination(other)?),
                };
                InstructionKind::Movmatrix {
                    d,
                    a: self.source(&operands[1], Type::B32)?,
                }
            }
            OpForm::Mapa { cluster, ty } => {
                count(3)?;
                InstructionKind::Mapa {
                    cluster,
                    ty,
                    destination: self.destination(&operands[0])?,
                    address: self.address_value(&operands[1], ty, !cluster)?,
                    rank: self.source(&operands[2], Type::U32)?,
                }
            }
            OpForm::Getctarank { cluster, ty } => {
                count(2)?;
                InstructionKind::Getctarank {
                    cluster,
                    ty,
                    destination: self.destination(&operands[0])?,
                    address: self.address_value(&operands[1], ty, !cluster)?,
                }
            }
            OpForm::CpAsyncBulk {
                destination,
                source,
                mbarrier,
                multicast,
                ..
            } => InstructionKind::CpAsyncBulk {
                destination_space: destination,
                source_space: source,
                destination: self.memory_operand(&operands[0])?,
                source: self.memory_operand(&operands[1])?,
                size: self.source(&operands[2], Type::U32)?,
                mbarrier: if mbarrier {
                    Some(self.memory_operand(&operands[3])?)
                } else {
                    None
                },
                cta_mask: if multicast {
                    Some(self.source(&operands[4], Type::B16)?)
                } else {
                    None
                },
            },
            OpForm::CpAsyncBulkTensor {
                dims,
                load,
                im2col,
                wide,
                four_rows,
                cta_group,
                multicast,
                reduce,
                ..
            } => self.bulk_tensor(
                operands,
                dims,
                (load, im2col, multicast),
                (four_rows, cta_group, wide),
                reduce,
            )?,
            OpForm::CpReduceAsyncBulk { global, op, ty, .. } => {
                InstructionKind::CpReduceAsyncBulk {
                    op,
                    ty,
                    global,
                    destination: self.memory_operand(&operands[0])?,
                    source: self.memory_operand(&operands[1])?,
                    size: self.source(&operands[2], Type::U32)?,
                    mbarrier: if global {
                        None
                    } else {
                        Some(self.memory_operand(&operands[3])?)
                    },
                }
            }
            OpForm::TensormapReplace { field, space } => {
                let (ordinal, value) = if field.has_ordinal() {
                    count(3)?;
                    let Source::Immediate(ordinal) = self.source(&operands[1], Type::U32)? else {
                        return Err("ord must be an integer constant".into());
                    };
                    (ordinal as u32, &operands[2])
                } else {
                    count(2)?;
                    (0, &operands[1])
                };
                InstructionKind::TensormapReplace {
                    field,
                    space,
                    address: self.memory_operand(&operands[0])?,
                    ordinal,
                    value: self.source(value, field.value_type())?,
                }
            }
            // PTX ISA 9.0, tensormap.cp_fenceproxy: "copies the tensor-map object from source
            // ... to destination" (`.shared::cta` to `.global`) and then the release proxy
            // fence, which has nothing to order when every access takes effect at issue.
            OpForm::TensormapCpFenceproxy => {
                count(3)?;
                InstructionKind::CpAsyncBulk {
                    destination_space: Space::Global,
                    source_space: Space::Shared,
                    destination: self.memory_operand(&operands[0])?,
                    source: self.memory_operand(&operands[1])?,
                    size: self.source(&operands[2], Type::U32)?,
                    mbarrier: None,
                    cta_mask: None,
                }
            }
            // Copies complete as they are issued: nothing to commit, wait for or prefetch.
            OpForm::CpAsyncBulkPrefetchTensor { .. } => InstructionKind::Fence,
            OpForm::CpAsyncBulkGroup { .. } | OpForm::CpAsyncBulkPrefetch { .. } => {
                InstructionKind::Fence
            }
            // PTX ISA 9.0, setmaxnreg: a hint about the warp's register file, which a
            // simulator does not have; no effect.
            OpForm::Setmaxnreg { .. } => {
                count(1)?;
                InstructionKind::Fence
            }
            OpForm::BarrierCluster { arrive, .. } => {
                count(0)?;
                InstructionKind::BarrierCluster { arrive }
            }
            OpForm::Isspacep { space } => {
                count(2)?;
                InstructionKind::Isspacep {
                    space,
                    destination: self.destination(&operands[0])?,
                    address: self.source(&operands[1], Type::U64)?,
                }
            }
            OpForm::BarWarpSync => {
                count(1)?;
                InstructionKind::BarWarpSync {
                    membermask: self.source(&operands[0], Type::B32)?,
                }
            }
            OpForm::Barrier { op } => {
                // `a{, b}` after `d`/`p` for the reductions, before `{!}c`.
                let (destination, rest) = match op {
                    ops::BarrierOp::Sync | ops::BarrierOp::Arrive => (None, operands),
                    _ => {
                        let (d, rest) = operands
                            .split_first()
                            .ok_or("a barrier reduction needs d")?;
                        (Some(self.destination(d)?), rest)
                    }
                };
                let (rest, predicate) = match op {
                    ops::BarrierOp::Sync | ops::BarrierOp::Arrive => (rest, None),
                    _ => {
                        let (c, rest) = rest.split_last().ok_or("a barrier reduction needs c")?;
                        (rest, Some(self.predicate_source(c)?))
                    }
                };
                let (id, count) = match rest {
                    [a] if op != ops::BarrierOp::Arrive => (self.source(a, Type::U32)?, None),
                    [a, b] => (self.source(a, Type::U32)?, Some(self.source(b, Type::U32)?)),
                    _ => return Err("wrong number of barrier operands".to_string()),
                };
                InstructionKind::Barrier {
                    op,
                    id,
                    count,
                    destination,
                    predicate,
                }
            }
            // Ordering points and cache hints: nothing to compute without caches.
            OpForm::Fence
            | OpForm::FenceProxyAcquire
            | OpForm::Prefetch
            | OpForm::CacheAdvice
            | OpForm::CpAsyncGroup { .. } => InstructionKind::Fence,
            // The policy is opaque (PTX ISA 9.0, createpolicy: "an opaque 64-bit register"),
            // read only by `.L2::cache_hint` operands, which ptxsim checks and ignores: any
            // value will do, and ptxsim writes 0.
            OpForm::CreatePolicy(_) => {
                let Some(destination) = operands.first() else {
                    return Err("createpolicy without operands".to_string());
                };
                InstructionKind::Mov {
                    ty: Type::B64,
                    destination: self.destination(destination)?,
                    source: Source::Immediate(0),
                }
            }
            OpForm::CpAsync { cache_hint, .. } => {
                let operands = if cache_hint {
                    &operands[..operands.len().saturating_sub(1)]
                } else {
                    operands
                };
                let [destination, source, size, rest @ ..] = operands else {
                    return Err("cp.async takes [dst], [src], cp-size".to_string());
                };
                let bytes = match self.source(size, Type::U32)? {
                    Source::Immediate(bytes @ (4 | 8 | 16)) => bytes as u32,
                    _ => return Err("cp.async's cp-size must be 4, 8 or 16".to_string()),
                };
                let (source_size, ignore_source) = match rest {
                    [] => (None, None),
                    [extra] if self.is_predicate(extra) => {
                        (None, Some(self.predicate_source(extra)?))
                    }
                    [extra] => (Some(self.source(extra, Type::U32)?), None),
                    _ => return Err("cp.async takes at most one src-size or ignore-src".into()),
                };
                InstructionKind::CpAsync {
                    bytes,
                    destination: self.memory_operand(destination)?,
                    source: self.memory_operand(source)?,
                    source_size,
                    ignore_source,
                }
            }
            OpForm::Bra => match operands {
                [Operand::Name(NameRef { name, .. })] => {
                    let label = self
                        .uses
                        .iter()
                        .find(|(at, _)| *at == name.span.start)
                        .map(|(_, found)| found.span.start)
                        .ok_or_else(|| format!("branch target `{}` is unknown", name.value))?;
                    match self.symbols.get(&label) {
                        Some(Symbol::Label(target)) => InstructionKind::Bra { target: *target },
                        _ => {
                            // A label further down: the target is set at the function's end.
                            self.branches.push((self.instructions.len(), label));
                            InstructionKind::Bra { target: usize::MAX }
                        }
                    }
                }
                _ => return Err("only `bra label` is implemented".to_string()),
            },
            OpForm::Call => self.call(operands)?,
            OpForm::Ret => InstructionKind::Ret,
            OpForm::Exit => InstructionKind::Exit,
            OpForm::Trap => InstructionKind::Trap,
        })
    }

    /// `call{.uni} (ret, ...), function, (arg, ...)`: direct calls whose arguments are
    /// `.param` variables; `call (ret, ...), %rd, (arg, ...), prototype` (or `, {f, g}`, a
    /// list of targets): an indirect call through a function's address ([`FUNCTION_BASE`]).
    fn call(&mut self, operands: &[Operand]) -> Result<InstructionKind, String> {
        let mut rest = operands;
        let mut returns: &[Operand] = &[];
        if let Some((Operand::List(list), tail)) = rest.split_first() {
            returns = &list.value;
            rest = tail;
        }
        let Some((Operand::Name(callee), tail)) = rest.split_first() else {
            return Err(
                "only calls `call (r), f, (a)` and `call (r), %rd, (a), proto` are \
                        simulated"
                    .to_string(),
            );
        };
        if let Some(Resolved::Register(register)) = self.resolve_name(callee) {
            return self.indirect_call(register, returns, tail);
        }
        let arguments: &[Operand] = match tail {
            [] => &[],
            [Operand::List(list)] => &list.value,
            _ => return Err("a direct call takes a function and its argument list".to_string()),
        };
        self.direct_call(&callee.name.value, returns, arguments, None)
    }

    /// An indirect call through the address in `register`: a [`InstructionKind::CallIndirect`]
    /// whose targets are the functions the call may reach, each with the copies of a direct
    /// call of it: every `.func` of the module with a body that takes as many arguments and
    /// return values (ptxas checks them against the prototype or the targets, PTX ISA
    /// 9.7.12.3: "the call operands are type-checked against the type signature of the
    /// functions indicated by flist"; the register holds one of them).
    fn indirect_call(
        &mut self,
        register: RegisterId,
        returns: &[Operand],
        tail: &[Operand],
    ) -> Result<InstructionKind, String> {
        // The last operand names a `.callprototype`, a `.calltargets` list or a table of
        // functions: every function the register may hold is among the candidates below.
        let (arguments, named): (&[Operand], Option<&[Operand]>) = match tail {
            [Operand::List(list), Operand::Name(_)] => (&list.value, None),
            [Operand::Name(_)] => (&[], None),
            _ => return Err("an indirect call takes its arguments and a prototype".to_string()),
        };
        let candidates: Vec<String> = match named {
            Some(targets) => targets
                .iter()
                .filter_map(|target| match target {
                    Operand::Name(name) => Some(name.name.value.to_string()),
                    _ => None,
                })
                .collect(),
            None => {
                let mut names: Vec<(u64, String)> = self
                    .functions
                    .iter()
                    .filter(|(_, function)| {
                        function.kind.value == FunctionKind::Func
                            && function
                                .params
                                .iter()
                                .flatten()
                                .map(|d| d.declarators.len())
                                .sum::<usize>()
                                == arguments.len()
                            && function
                                .returns
                                .iter()
                                .flatten()
                                .map(|d| d.declarators.len())
                                .sum::<usize>()
                                == returns.len()
                    })
                    .filter_map(|(name, _)| {
                        let address = *self.function_addresses.get(name.as_str())?;
                        Some((address, name.clone()))
                    })
                    .collect();
                names.sort_unstable();
                names.into_iter().map(|(_, name)| name).collect()
            }
        };
        let mut targets = Vec::new();
        for name in candidates {
            let Some(&address) = self.function_addresses.get(name.as_str()) else {
                continue;
            };
            if !self.functions.contains_key(name.as_str()) {
                continue;
            }
            // A candidate whose parameters do not fit the call's arguments is not a target.
            if let Ok(call) = self.direct_call(&name, returns, arguments, Some(targets.len())) {
                targets.push((address, call));
            }
        }
        Ok(InstructionKind::CallIndirect {
            address: Source::Register(register),
            targets,
        })
    }

    /// A direct call of `name` (`slot`: as target `slot` of an indirect call).
    fn direct_call(
        &mut self,
        name: &str,
        returns: &[Operand],
        arguments: &[Operand],
        slot: Option<usize>,
    ) -> Result<InstructionKind, String> {
        let aliasee = self.aliases.get(name).cloned();
        let name = aliasee.as_deref().unwrap_or(name);
        let Some(info) = self.function_info(name) else {
            return self.runtime_call(name, returns, arguments);
        };
        if arguments.len() != info.params.len() || returns.len() != info.returns.len() {
            return Err(format!(
                "`{name}` takes {} argument(s) and {} return value(s)",
                info.params.len(),
                info.returns.len()
            ));
        }
        let param = |operand: &Operand| -> Result<(u64, u64), String> {
            match operand {
                Operand::Name(name) => match self.resolve_name(name) {
                    Some(Resolved::Address(Space::Param, address, size)) => Ok((address, size)),
                    _ => Err(format!(
                        "call argument `{}` is not a .param variable",
                        name.name.value
                    )),
                },
                _ => Err("call arguments must be .param variables".to_string()),
            }
        };
        let mut argument_copies = Vec::new();
        let mut register_arguments = Vec::new();
        for ((operand, (to, size)), register) in arguments
            .iter()
            .zip(&info.params)
            .zip(&info.param_registers)
        {
            if let Some(register) = register {
                let ty = self.registers[register.index()].ty;
                let destination = Destination {
                    register: *register,
                    ty,
                };
                register_arguments.push((self.source(operand, ty)?, destination));
                continue;
            }
            let (from, bytes) = param(operand)?;
            argument_copies.push((from, *to, bytes.min(*size)));
        }
        let mut return_copies = Vec::new();
        let mut register_returns = Vec::new();
        for ((operand, (from, size)), register) in returns
            .iter()
            .zip(&info.returns)
            .zip(&info.return_registers)
        {
            if let Some(register) = register {
                register_returns.push((*register, self.destination(operand)?));
                continue;
            }
            let (to, bytes) = param(operand)?;
            return_copies.push((*from, to, bytes.min(*size)));
        }
        self.calls.push(PendingCall {
            instruction: self.instructions.len(),
            callee: name.to_string(),
            slot,
        });
        Ok(InstructionKind::Call {
            target: usize::MAX,
            callee: name.to_string(),
            arguments: argument_copies,
            returns: return_copies,
            register_arguments,
            register_returns,
        })
    }

    /// A call of a function without a body: one of CUDA's device-side runtime functions
    /// ([`RuntimeFunction`]) when its arguments have the sizes nvcc declares; anything else
    /// cannot run.
    fn runtime_call(
        &self,
        name: &str,
        returns: &[Operand],
        arguments: &[Operand],
    ) -> Result<InstructionKind, String> {
        let no_body = || format!("`{name}` has no body in this module");
        let function = RuntimeFunction::from_name(name).ok_or_else(no_body)?;
        let param = |operand: &Operand| match operand {
            Operand::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Address(Space::Param, address, size)) => Some((address, size)),
                _ => None,
            },
            _ => None,
        };
        let (sizes, result_size) = function.signature();
        let mismatch = || {
            format!(
                "`{name}` has no body in this module, and this call does not have the \
                 signature of CUDA's device-side `{name}` ({} .param argument(s) of {sizes:?} \
                 bytes{})",
                sizes.len(),
                result_size.map_or(String::new(), |r| format!(", a {r}-byte result"))
            )
        };
        if arguments.len() != sizes.len() || returns.len() > usize::from(result_size.is_some()) {
            return Err(mismatch());
        }
        let mut copies = Vec::with_capacity(arguments.len());
        for (operand, &size) in arguments.iter().zip(sizes) {
            match param(operand) {
                Some((address, bytes)) if bytes == size => copies.push((address, bytes)),
                _ => return Err(mismatch()),
            }
        }
        let result = match (returns.first(), result_size) {
            (Some(operand), Some(size)) => match param(operand) {
                Some((address, bytes)) if bytes == size => Some((address, bytes)),
                _ => return Err(mismatch()),
            },
            _ => None,
        };
        Ok(InstructionKind::CallRuntime {
            function,
            arguments: copies,
            result,
        })
    }

    fn sources3(&self, operands: &[Operand], types: [Type; 3]) -> Result<[Source; 3], String> {
        Ok([
            self.source(&operands[0], types[0])?,
            self.source(&operands[1], types[1])?,
            self.source(&operands[2], types[2])?,
        ])
    }

    /// `d`, `d|p`, `_|p`: the register and the predicate (`None` for a sink).
    fn destination_pair(
        &self,
        operand: &Operand,
    ) -> Result<(Option<Destination>, Option<Destination>), String> {
        let one = |operand: &Operand| match operand {
            Operand::Sink(_) => Ok(None),
            other => self.destination(other).map(Some),
        };
        match operand {
            Operand::Pair(_, d, p) => Ok((one(d)?, one(p)?)),
            other => Ok((one(other)?, None)),
        }
    }

    /// Whether an operand is a `.pred` register (or its negation).
    fn is_predicate(&self, operand: &Operand) -> bool {
        let operand = match operand {
            Operand::Negated(_, inner, Negation::Not) => inner.as_ref(),
            other => other,
        };
        match operand {
            Operand::Name(name) => matches!(
                self.resolve_name(name),
                Some(Resolved::Register(id))
                    if self.registers.get(id.index()).map(|r| r.ty) == Some(Type::Pred)
            ),
            _ => false,
        }
    }

    /// `%p` or `!%p`.
    fn predicate_source(&self, operand: &Operand) -> Result<PredicateSource, String> {
        match operand {
            Operand::Negated(_, inner, Negation::Not) => Ok(PredicateSource {
                source: self.source(inner, Type::Pred)?,
                negated: true,
            }),
            other => Ok(PredicateSource {
                source: self.source(other, Type::Pred)?,
                negated: false,
            }),
        }
    }

    /// `wgmma.mma_async d, a-desc|a, b-desc, scale-d, imm...` (9.7.15.5.2) and
    /// `wgmma.mma_async.sp d, a-desc|a, b-desc, sp-meta, sp-sel, scale-d, imm...` (9.7.15.6.3).
    fn wgmma(
        &self,
        form: ptxsim_isa::wgmma::WgmmaForm,
        operands: &[Operand],
    ) -> Result<InstructionKind, String> {
        use super::wgmma::{Wgmma, WgmmaA, WgmmaSparse};
        fn vector(operand: &Operand) -> Option<&Vec<Operand>> {
            match operand {
                Operand::Vector(elements) => Some(&elements.value),
                _ => None,
            }
        }
        let a_from_registers = operands.get(1).and_then(vector).is_some();
        let tail = form.tail(a_from_registers);
        if operands.len() != 3 + tail.len() {
            return Err(format!(
                "wgmma.mma_async.{} takes {} operands, not {}",
                form.name(),
                3 + tail.len(),
                operands.len()
            ));
        }
        let d = vector(&operands[0])
            .ok_or("wgmma's `d` is a brace vector")?
            .iter()
            .map(|element| self.destination(element))
            .collect::<Result<Vec<_>, _>>()?;
        let a = match operands.get(1).and_then(vector) {
            Some(elements) => WgmmaA::Registers(self.vector_sources(elements, Type::B32)?),
            None => WgmmaA::Descriptor(self.source(&operands[1], Type::B64)?),
        };
        let b = self.source(&operands[2], Type::B64)?;
        let immediate = |index: usize, name: &str| match self.source(&operands[index], Type::S32)? {
            Source::Immediate(bits) => Ok(bits as u32 as i32),
            _ => Err(format!("wgmma's {name} must be an integer constant")),
        };
        let mut sparse = None;
        let mut scale_d = None;
        // The immediates: their values were checked (ptxsim_isa::wgmma::immediate_violation).
        let mut flags = [false; 4]; // negate a, negate b, trans a, trans b
        for (offset, &name) in tail.iter().enumerate() {
            let index = 3 + offset;
            let slot = match name {
                "sp-meta" => continue,
                "sp-sel" => {
                    sparse = Some(WgmmaSparse {
                        metadata: self.source(&operands[index - 1], Type::B32)?,
                        selector: immediate(index, name)? as u32,
                    });
                    continue;
                }
                "scale-d" => {
                    scale_d = Some(self.predicate_source(&operands[index])?);
                    continue;
                }
                "imm-scale-a" => 0,
                "imm-scale-b" => 1,
                "imm-trans-a" => 2,
                _ => 3,
            };
            let value = immediate(index, name)?;
            flags[slot] = if slot < 2 { value == -1 } else { value == 1 };
        }
        let scale_d = scale_d.ok_or("wgmma.mma_async takes scale-d")?;
        Ok(InstructionKind::Wgmma(Box::new(Wgmma {
            form,
            d,
            a,
            b,
            sparse,
            scale_d,
            negate_a: flags[0],
            negate_b: flags[1],
            trans_a: flags[2],
            trans_b: flags[3],
        })))
    }

    /// `ldmatrix d, [p]` (`load`) or `stmatrix [p], r`: the vector of one register per matrix
    /// and the row address.
    fn matrix_memory(
        &self,
        load: bool,
        form: ptxsim_isa::matrix::MatrixForm,
        operands: &[Operand],
    ) -> Result<InstructionKind, String> {
        let (vector, address) = if load {
            (&operands[0], &operands[1])
        } else {
            (&operands[1], &operands[0])
        };
        let Operand::Vector(elements) = vector else {
            return Err("ldmatrix's and stmatrix's registers are a brace vector".into());
        };
        let space = if form.shared {
            Space::Shared
        } else {
            Space::Generic
        };
        let address = self.memory_operand(address)?;
        Ok(if load {
            let d = elements
                .value
                .iter()
                .map(|element| match element {
                    Operand::Sink(_) => Ok(None),
                    other => self.destination(other).map(Some),
                })
                .collect::<Result<Vec<_>, _>>()?;
            InstructionKind::Ldmatrix {
                form,
                space,
                d,
                address,
            }
        } else {
            InstructionKind::Stmatrix {
                form,
                space,
                address,
                sources: self.vector_sources(&elements.value, Type::B32)?,
            }
        })
    }

    /// `wmma.load r, [p]{, stride}`, `wmma.store [p], r{, stride}`, `wmma.mma d, a, b, c`.
    fn wmma(
        &self,
        form: ptxsim_isa::wmma::WmmaForm,
        operands: &[Operand],
    ) -> Result<InstructionKind, String> {
        use ptxsim_isa::mma::MmaType;
        use ptxsim_isa::wmma::{WmmaOp, WmmaSpace};
        fn vector(operand: &Operand) -> Result<&[Operand], String> {
            match operand {
                Operand::Vector(elements) => Ok(&elements.value),
                _ => Err("wmma's fragments are brace vectors".to_string()),
            }
        }
        let source_type = |ty: MmaType| match ty {
            MmaType::F64 => Type::F64,
            MmaType::F32 => Type::F32,
            _ => Type::B32,
        };
        let space = match form.space {
            WmmaSpace::Generic => Space::Generic,
            WmmaSpace::Global => Space::Global,
            WmmaSpace::Shared => Space::Shared,
        };
        let destinations = |operand: &Operand| {
            vector(operand)?
                .iter()
                .map(|element| self.destination(element))
                .collect::<Result<Vec<_>, _>>()
        };
        let stride = |rest: &[Operand]| -> Result<Option<Source>, String> {
            rest.first()
                .map(|operand| self.source(operand, Type::U32))
                .transpose()
        };
        Ok(match form.op {
            WmmaOp::Load(_) => {
                if !(2..=3).contains(&operands.len()) {
                    return Err("wmma.load takes r, [p]{, stride}".into());
                }
                InstructionKind::WmmaLoad {
                    form,
                    space,
                    d: destinations(&operands[0])?,
                    address: self.memory_operand(&operands[1])?,
                    stride: stride(&operands[2..])?,
                }
            }
            WmmaOp::Store => {
                if !(2..=3).contains(&operands.len()) {
                    return Err("wmma.store takes [p], r{, stride}".into());
                }
                InstructionKind::WmmaStore {
                    form,
                    space,
                    address: self.memory_operand(&operands[0])?,
                    sources: self.vector_sources(vector(&operands[1])?, source_type(form.d))?,
                    stride: stride(&operands[2..])?,
                }
            }
            WmmaOp::Mma => {
                if operands.len() != 4 {
                    return Err("wmma.mma takes d, a, b, c".into());
                }
                let a = self.vector_sources(vector(&operands[1])?, source_type(form.a))?;
                let b = self.vector_sources(vector(&operands[2])?, source_type(form.b))?;
                let c = self.vector_sources(vector(&operands[3])?, source_type(form.c))?;
                InstructionKind::WmmaMma {
                    form,
                    d: destinations(&operands[0])?,
                    sources: [a, b, c],
                }
            }
        })
    }

    /// `[base]`, `[base+offset]`, `[variable+offset]`, `[immediate]`.
    fn memory_operand(&self, operand: &Operand) -> Result<MemoryOperand, String> {
        let Operand::Address(address) = operand else {
            return Err("expected an address `[...]`".to_string());
        };
        let offset = address.offset.as_ref().map_or(0, |o| o.value);
        let base = match &address.base {
            AddressBase::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Register(id)) => Source::Register(id),
                Some(Resolved::Address(space, address, _)) => {
                    Source::variable_address(space, address, self.generic_access)
                }
                None => {
                    return Err(format!(
                        "address base `{}` cannot be resolved",
                        name.name.value
                    ));
                }
            },
            AddressBase::Immediate(value) => Source::Immediate(u128::from(value.value)),
        };
        let wraps_at_32 = match base {
            Source::Register(id) => self
                .registers
                .get(id.index())
                .is_some_and(|r| r.bits() <= 32),
            Source::Immediate(_)
            | Source::Special(_)
            | Source::RegisterPlus(..)
            | Source::SharedAddress(_) => false,
        };
        Ok(MemoryOperand {
            base,
            offset,
            wraps_at_32,
        })
    }

    /// `mov`, `cvt` and `cvt.pack`, decoded through the instruction table (the checker
    /// validated the form and its operands).
    fn decoded(&mut self, instruction: &ast::Instruction) -> InstructionKind {
        let modifiers = instruction.modifier_names();
        let form = match ptxsim_isa::decode(&instruction.opcode.value, &modifiers) {
            Ok(form) => form,
            Err(error) => return Self::unsupported(instruction, error.to_string()),
        };
        let result = match &form {
            Form::Mov(form) if form.vector.is_some() => {
                self.mov_vector(form.ty.value, &instruction.operands)
            }
            Form::Mov(form) => self.mov(form.ty.value, &instruction.operands),
            Form::Cvt(form) => match cvt::lower_cvt(form) {
                Ok(op) => self.cvt(op, &instruction.operands),
                Err(reason) => Err(reason),
            },
            Form::CvtPack(form) => match cvt::lower_cvt_pack(form) {
                Ok(ty) => self.cvt_pack(ty, &instruction.operands),
                Err(reason) => Err(reason),
            },
            // Only `mov` and `cvt` come here; the other opcodes go through `operation`.
            Form::Op(op) => Err(format!("`{}` is not built here", op.text)),
        };
        match result {
            Ok(kind) => kind,
            Err(reason) => Self::unsupported(instruction, reason),
        }
    }

    /// What a name operand stands for: a register (`%v.x` picks an element of a vector
    /// register), or the address of a variable.
    fn resolve_name(&self, name: &NameRef) -> Option<Resolved> {
        self.resolve(&name.name, name.component.as_ref())
    }

    /// [`Builder::resolve_name`] of a name and its component (`.x` …).
    fn resolve(
        &self,
        name: &ptxsim_syntax::Spanned<ptxsim_syntax::Text>,
        component: Option<&ptxsim_syntax::Spanned<ast::Component>>,
    ) -> Option<Resolved> {
        match (self.lookup(name)?, component) {
            (Symbol::Register(id), None) => Some(Resolved::Register(*id)),
            (
                Symbol::Range {
                    prefix,
                    base,
                    count,
                },
                None,
            ) => {
                let index: u32 = name.value.get(*prefix..)?.parse().ok()?;
                (index < *count).then_some(Resolved::Register(RegisterId(base + index)))
            }
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
            (Symbol::Address(space, address, size), None) => {
                Some(Resolved::Address(*space, *address, *size))
            }
            (Symbol::Register(_) | Symbol::Range { .. } | Symbol::Address(..), Some(_))
            | (Symbol::Vector(_) | Symbol::Label(_), _) => None,
        }
    }

    fn destination(&self, operand: &Operand) -> Result<Destination, String> {
        match operand {
            Operand::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Register(register)) => Ok(Destination {
                    register,
                    ty: self
                        .registers
                        .get(register.index())
                        .map_or(Type::B128, |r| r.ty),
                }),
                Some(Resolved::Address(..)) | None => Err(format!(
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
            // The predefined constant `WARP_SZ` (PTX ISA 5.5): 32 threads.
            Operand::Name(name) if crate::names::is_warp_size(name) => {
                Ok(Source::Immediate(32 & mask(ty.bits())))
            }
            Operand::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Register(id)) => Ok(Source::Register(id)),
                Some(Resolved::Address(space, address, _)) => {
                    Ok(Source::variable_address(space, address, false))
                }
                None => match self
                    .kernels
                    .iter()
                    .position(|k| k == name.name.value.as_str())
                {
                    Some(index) => Ok(Source::Immediate(u128::from(super::cdp::kernel_address(
                        index,
                    )))),
                    None => Err(format!("operand `{}` cannot be resolved", name.name.value)),
                },
            },
            // The address plus the offset, as ptxas computes it at assembly time; `name[N]` is
            // the address of element N (PTX ISA 6.4.2).
            Operand::NameOffset(offset) => match self.resolve_name(&offset.name) {
                Some(Resolved::Address(space, address, _)) => {
                    let scale = if offset.indexed {
                        self.element_size(&offset.name).unwrap_or(1)
                    } else {
                        1
                    };
                    let bytes = offset.offset.value.wrapping_mul(scale as i64);
                    Ok(Source::variable_address(
                        space,
                        address.wrapping_add_signed(bytes),
                        false,
                    ))
                }
                // A register plus an immediate, which ptxas takes as an operand too.
                Some(Resolved::Register(id)) => Ok(Source::RegisterPlus(id, offset.offset.value)),
                _ => Err(format!(
                    "`{}+{}` is not the address of a variable",
                    offset.name.name.value, offset.offset.value
                )),
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

    /// An address operand as a value (`mapa`, `getctarank`): a register, or a variable's name
    /// (with an offset) standing for its address; with `generic` the variable's generic
    /// address (PTX ISA 9.0, mapa: "When the optional qualifier .space is not specified, both
    /// a and d are registers containing generic addresses pointing to shared memory").
    fn address_value(&self, operand: &Operand, ty: Type, generic: bool) -> Result<Source, String> {
        let name = match operand {
            Operand::Name(name) => Some(name),
            Operand::NameOffset(offset) => Some(&offset.name),
            _ => None,
        };
        let space = name.and_then(|name| match self.resolve_name(name) {
            Some(Resolved::Address(space, _, _)) => Some(space),
            _ => None,
        });
        match (self.source(operand, ty)?, space) {
            (Source::Immediate(address), Some(space)) if generic => {
                Ok(Source::variable_address(space, address as u64, true))
            }
            (Source::SharedAddress(address), Some(space)) if generic => {
                Ok(Source::variable_address(space, address, true))
            }
            (source, _) => Ok(source),
        }
    }

    /// The elements of a vector register (`.reg .v2 .b16 v;`) named without a component.
    fn vector_register(&self, operand: &Operand) -> Option<Vec<RegisterId>> {
        match operand {
            Operand::Name(name) if name.component.is_none() => match self.lookup(&name.name)? {
                Symbol::Vector(elements) => Some(elements.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// An element register of a vector register as a destination.
    fn element_destination(&self, register: RegisterId) -> Destination {
        Destination {
            register,
            ty: self.registers[register.index()].ty,
        }
    }

    /// `mov.type d, a` / `mov.type {d...}, a` / `mov.type d, {a...}`. A vector register
    /// (`.reg .v2 .b16 v;`) on either side stands for the brace vector of its elements, as in
    /// `mov.b32 v, %r` ("`.v2 .b16` ... in a `.b32`", the element `.x` in the low bits).
    fn mov(&self, ty: Type, operands: &[Operand]) -> Result<InstructionKind, String> {
        if let [destination, source] = operands {
            if let Some(elements) = self.vector_register(destination) {
                return Ok(InstructionKind::MovUnpack {
                    ty,
                    elements: elements
                        .iter()
                        .map(|&register| Some(self.element_destination(register)))
                        .collect(),
                    source: match self.vector_register(source) {
                        Some(_) => return Err("mov between two vector registers needs .vN".into()),
                        None => self.source(source, ty)?,
                    },
                });
            }
            if let Some(elements) = self.vector_register(source) {
                return Ok(InstructionKind::MovPack {
                    ty,
                    destination: self.destination(destination)?,
                    elements: elements.into_iter().map(Source::Register).collect(),
                });
            }
        }
        match operands {
            [Operand::Vector(elements), source] => Ok(InstructionKind::MovUnpack {
                ty,
                elements: self.vector_destinations(&elements.value)?,
                source: self.source(source, ty)?,
            }),
            [destination, Operand::Vector(elements)] => {
                let count = elements.value.len().max(1) as u32;
                Ok(InstructionKind::MovPack {
                    ty,
                    destination: self.destination(destination)?,
                    elements: self.vector_sources(&elements.value, bit_type(ty.bits() / count))?,
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

    /// `mov.vN.type {d...}, {a...}` with brace vectors (vector registers are not executed).
    fn mov_vector(&self, ty: Type, operands: &[Operand]) -> Result<InstructionKind, String> {
        let [destination, source] = operands else {
            return Err("mov.vN takes two operands".to_string());
        };
        let destinations = match (destination, self.vector_register(destination)) {
            (Operand::Vector(elements), _) => self.vector_destinations(&elements.value)?,
            (_, Some(elements)) => elements
                .iter()
                .map(|&register| Some(self.element_destination(register)))
                .collect(),
            _ => return Err("mov.vN takes a vector register or a brace vector".to_string()),
        };
        let sources = match (source, self.vector_register(source)) {
            (Operand::Vector(elements), _) => self.vector_sources(&elements.value, ty)?,
            (_, Some(elements)) => elements.into_iter().map(Source::Register).collect(),
            _ => return Err("mov.vN takes a vector register or a brace vector".to_string()),
        };
        Ok(InstructionKind::MovVector {
            ty,
            destinations,
            sources,
        })
    }

    /// The elements of a destination vector; `None` for the sink `_`.
    fn vector_destinations(
        &self,
        elements: &[Operand],
    ) -> Result<Vec<Option<Destination>>, String> {
        elements
            .iter()
            .map(|element| match element {
                Operand::Sink(_) => Ok(None),
                other => self.destination(other).map(Some),
            })
            .collect()
    }

    /// The elements of a source vector, immediates encoded for `ty`.
    /// A texture or surface instruction (9.7.10, 9.7.11): `[a, c]` is the object handle `a`
    /// (a `.u64` register; the `.texref`/`.surfref` variables of the older modes are not run)
    /// and the coordinate vector `c` (a brace vector, or one register for 1d).
    fn texture(&self, form: OpForm, operands: &[Operand]) -> Result<InstructionKind, String> {
        use crate::program::{TextureInstruction, TextureOp};
        use ptxsim_isa::texture::Mipmap;
        let list = |operand: &Operand| -> Result<(Source, Vec<Source>), String> {
            let Operand::AddressList(items) = operand else {
                return Err(
                    "the texture or surface operand must be `[a, c]` with a texture \
                            or surface object in a .u64 register"
                        .into(),
                );
            };
            let (handle, rest) = items.value.split_first().ok_or("`[a, c]` is empty")?;
            if let Operand::Name(name) = handle {
                if !matches!(self.resolve_name(name), Some(Resolved::Register(_))) {
                    return Err(format!(
                        "`{}` is a .texref/.surfref variable (not run: ptxsim runs texture and \
                         surface objects in registers)",
                        name.name.value
                    ));
                }
            }
            let handle = self.source(handle, Type::U64)?;
            let coordinates = match rest {
                [] => Vec::new(),
                [Operand::Vector(elements)] => self.vector_sources(&elements.value, Type::B32)?,
                [single] => vec![self.source(single, Type::B32)?],
                _ => {
                    return Err("an explicit sampler operand (independent mode) is not run".into());
                }
            };
            Ok((handle, coordinates))
        };
        let handle_only = |operand: &Operand| -> Result<Source, String> {
            match operand {
                Operand::Address(address) => match (&address.base, &address.offset) {
                    (ptxsim_syntax::ast::AddressBase::Name(name), None)
                        if matches!(self.resolve_name(name), Some(Resolved::Register(_))) =>
                    {
                        self.source(&Operand::Name(name.clone()), Type::U64)
                    }
                    _ => Err(
                        "a .texref/.surfref variable is not run: ptxsim runs texture and \
                              surface objects in registers"
                            .into(),
                    ),
                },
                other => list(other).map(|(handle, _)| handle),
            }
        };
        let values = |operand: &Operand, ty: Type| -> Result<Vec<Source>, String> {
            match operand {
                Operand::Vector(elements) => self.vector_sources(&elements.value, ty),
                other => Ok(vec![self.source(other, ty)?]),
            }
        };
        let results = |operand: &Operand| -> Result<Vec<Option<Destination>>, String> {
            match operand {
                Operand::Vector(elements) => self.vector_destinations(&elements.value),
                other => Ok(vec![Some(self.destination(other)?)]),
            }
        };
        let bit = |ty: Type| ty.bit_type().unwrap_or(ty);
        let instruction = match form {
            OpForm::Tex(tex) => {
                let [d, address, rest @ ..] = operands else {
                    return Err("tex takes d, [a, c]".into());
                };
                let (handle, coordinates) = list(address)?;
                let sources = match (tex.mipmap, rest) {
                    (Mipmap::Base, []) => Vec::new(),
                    (Mipmap::Level, [lod]) => vec![self.source(lod, Type::F32)?],
                    (Mipmap::Grad, [dx, dy]) => {
                        let mut sources = values(dx, Type::F32)?;
                        sources.extend(values(dy, Type::F32)?);
                        sources
                    }
                    _ => return Err("the offset and depth-compare operands are not run".into()),
                };
                TextureInstruction {
                    op: TextureOp::Tex(tex),
                    handle,
                    coordinates,
                    destinations: results(d)?,
                    sources,
                }
            }
            OpForm::Txq { query, level } => {
                let (d, address, lod) = match operands {
                    [d, a] => (d, a, None),
                    [d, a, lod] => (d, a, Some(lod)),
                    _ => return Err("txq takes d, [a]{, lod}".into()),
                };
                TextureInstruction {
                    op: TextureOp::Txq { query, level },
                    handle: handle_only(address)?,
                    coordinates: Vec::new(),
                    destinations: vec![Some(self.destination(d)?)],
                    sources: lod
                        .map(|lod| self.source(lod, Type::U32))
                        .transpose()?
                        .into_iter()
                        .collect(),
                }
            }
            OpForm::Suq(query) => {
                let [d, address] = operands else {
                    return Err("suq takes d, [a]".into());
                };
                TextureInstruction {
                    op: TextureOp::Suq(query),
                    handle: handle_only(address)?,
                    coordinates: Vec::new(),
                    destinations: vec![Some(self.destination(d)?)],
                    sources: Vec::new(),
                }
            }
            OpForm::Suld(surface) => {
                let [d, address] = operands else {
                    return Err("suld takes d, [a, b]".into());
                };
                let (handle, coordinates) = list(address)?;
                TextureInstruction {
                    op: TextureOp::Suld(surface),
                    handle,
                    coordinates,
                    destinations: results(d)?,
                    sources: Vec::new(),
                }
            }
            OpForm::Sust(surface) => {
                let [address, c] = operands else {
                    return Err("sust takes [a, b], c".into());
                };
                let (handle, coordinates) = list(address)?;
                TextureInstruction {
                    op: TextureOp::Sust(surface),
                    handle,
                    coordinates,
                    destinations: Vec::new(),
                    sources: values(c, bit(surface.ty))?,
                }
            }
            OpForm::Sured(reduction) => {
                let [address, c] = operands else {
                    return Err("sured takes [a, b], c".into());
                };
                let (handle, coordinates) = list(address)?;
                TextureInstruction {
                    op: TextureOp::Sured(reduction),
                    handle,
                    coordinates,
                    destinations: Vec::new(),
                    sources: vec![self.source(c, reduction.ty)?],
                }
            }
            _ => return Err("not a texture or surface instruction".into()),
        };
        Ok(InstructionKind::Texture(Box::new(instruction)))
    }

    /// `cp.async.bulk.tensor` (PTX ISA 9.0; `.tile::gather4`/`.tile::scatter4` with five
    /// coordinates, `.cta_group`, `.im2col::w{::128}`): a load `[dstMem], [tensorMap,
    /// tensorCoords], [mbar]{, im2colInfo}{, ctaMask}{, cache-policy}` (`im2colInfo` the
    /// im2col offsets, or `{wHalo, wOffset}`), a store (or a
    /// `cp.reduce.async.bulk.tensor`) `[tensorMap, tensorCoords], [srcMem]{, cache-policy}`.
    /// `tensorMap` is a `.u64` register holding its generic address, or the name of a variable
    /// (its generic address).
    fn bulk_tensor(
        &self,
        operands: &[Operand],
        dims: u8,
        (load, im2col, multicast): (bool, bool, bool),
        (four_rows, cta_group, wide): (bool, Option<u8>, Option<ptxsim_isa::ops::Im2colWide>),
        reduce: Option<ptxsim_isa::ops::AtomOp>,
    ) -> Result<InstructionKind, String> {
        let tensor = if load {
            operands.get(1)
        } else {
            operands.first()
        };
        let Some(Operand::AddressList(items)) = tensor else {
            return Err("the tensor operand must be `[tensorMap, tensorCoords]`".into());
        };
        let [map, coordinates] = items.value.as_slice() else {
            return Err("the tensor operand must be `[tensorMap, {c0, ...}]`".into());
        };
        let tensor_map = match map {
            Operand::Name(name) => match self.resolve_name(name) {
                Some(Resolved::Address(space, address, _)) => {
                    Source::variable_address(space, address, true)
                }
                _ => self.source(map, Type::U64)?,
            },
            other => self.source(other, Type::U64)?,
        };
        let coordinates = match coordinates {
            Operand::Vector(elements) => self.vector_sources(&elements.value, Type::S32)?,
            single => vec![self.source(single, Type::S32)?],
        };
        // `.tile::gather4` / `.tile::scatter4`: "{col_idx, row_idx0, row_idx1, row_idx2,
        // row_idx3} | Fixed length vector of size 5".
        let count = if four_rows { 5 } else { usize::from(dims) };
        if coordinates.len() != count {
            return Err(format!(
                "a .{dims}d{} copy takes {count} tensor coordinates, not {}",
                if four_rows { " four-row" } else { "" },
                coordinates.len()
            ));
        }
        let shared = self.memory_operand(&operands[if load { 0 } else { 1 }])?;
        let mut rest = operands.iter().skip(if load { 3 } else { 2 });
        let mbarrier = if load {
            Some(self.memory_operand(operands.get(2).ok_or("no [mbar] operand")?)?)
        } else {
            None
        };
        let im2col_offsets = if load && im2col {
            match rest.next() {
                Some(Operand::Vector(elements)) => {
                    self.vector_sources(&elements.value, Type::B16)?
                }
                Some(single) => vec![self.source(single, Type::B16)?],
                None => return Err("no im2colInfo operand".into()),
            }
        } else {
            Vec::new()
        };
        let cta_mask = if multicast {
            Some(self.source(rest.next().ok_or("no ctaMask operand")?, Type::B16)?)
        } else {
            None
        };
        Ok(InstructionKind::BulkTensor(Box::new(
            BulkTensorInstruction {
                dims,
                load,
                im2col,
                shared,
                tensor_map,
                coordinates,
                mbarrier,
                im2col_offsets,
                wide,
                cta_mask,
                reduce,
                four_rows,
                cta_group,
            },
        )))
    }

    fn vector_sources(&self, elements: &[Operand], ty: Type) -> Result<Vec<Source>, String> {
        elements
            .iter()
            .map(|element| self.source(element, ty))
            .collect()
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
    Address(Space, u64, u64),
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
                // ptxas takes a decimal literal for a .b64 operand as an f64: `mov.b64 %rd1,
                // 3.0` assembles to the bits 0x4008000000000000 (its SASS for sm_90).
                Type::B64 => text
                    .parse::<f64>()
                    .map(|v| u128::from(v.to_bits()))
                    .map_err(|e| format!("bad float literal `{text}`: {e}")),
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

/// The cluster directives of a kernel's header (PTX ISA 9.0, 11.5 "Cluster Dimension
/// Directives": `.reqnctapercluster nx{, ny{, nz}}`, `.explicitcluster`, `.maxclusterrank n`).
fn cluster_directives(directives: &[ast::FunctionDirective]) -> ClusterDirectives {
    let mut cluster = ClusterDirectives::default();
    for directive in directives {
        let ast::FunctionDirective::Performance { name, values, .. } = directive else {
            continue;
        };
        let value = |index: usize| {
            values
                .get(index)
                .map_or(1, |v| u32::try_from(v.value).unwrap_or(u32::MAX))
        };
        match name.value.as_str() {
            "reqnctapercluster" => cluster.required = Some([value(0), value(1), value(2)]),
            "explicitcluster" => cluster.explicit = true,
            "maxclusterrank" => cluster.max_rank = Some(value(0)),
            _ => {}
        }
    }
    cluster
}

/// The thread limit of a kernel's `.maxntid nx{, ny{, nz}}` or `.reqntid nx{, ny{, nz}}`
/// directive: the product of its extents (PTX ISA 9.0, 11.4.2 ".maxntid": "The maximum number
/// of threads is the product of the maximum extent in each dimension"), the smaller where a
/// kernel has both.
fn max_threads(directives: &[ast::FunctionDirective]) -> Option<u32> {
    directives
        .iter()
        .filter_map(|directive| match directive {
            ast::FunctionDirective::Performance { name, values, .. }
                if matches!(name.value.as_str(), "maxntid" | "reqntid") =>
            {
                let product = values
                    .iter()
                    .try_fold(1u64, |product, v| product.checked_mul(v.value))?;
                Some(u32::try_from(product).unwrap_or(u32::MAX))
            }
            _ => None,
        })
        .min()
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
    if let (Some(number), None) = (envreg(&name.name.value), component) {
        return Ok(SpecialRegister::Envreg(number));
    }
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
        ("%globaltimer", None) => SpecialRegister::GlobalTimer(None),
        ("%globaltimer_lo", None) => SpecialRegister::GlobalTimer(Some(false)),
        ("%globaltimer_hi", None) => SpecialRegister::GlobalTimer(Some(true)),
        ("%lanemask_eq", None) => SpecialRegister::Lanemask(ops::Compare::Eq),
        ("%lanemask_le", None) => SpecialRegister::Lanemask(ops::Compare::Le),
        ("%lanemask_lt", None) => SpecialRegister::Lanemask(ops::Compare::Lt),
        ("%lanemask_ge", None) => SpecialRegister::Lanemask(ops::Compare::Ge),
        ("%lanemask_gt", None) => SpecialRegister::Lanemask(ops::Compare::Gt),
        ("%dynamic_smem_size", None) => SpecialRegister::DynamicSmemSize,
        ("%total_smem_size", None) => SpecialRegister::TotalSmemSize,
        ("%cluster_ctaid", Some(axis)) => SpecialRegister::ClusterCtaid(axis),
        ("%cluster_nctaid", Some(axis)) => SpecialRegister::ClusterNctaid(axis),
        ("%clusterid", Some(axis)) => SpecialRegister::Clusterid(axis),
        ("%nclusterid", Some(axis)) => SpecialRegister::Nclusterid(axis),
        ("%cluster_ctarank", None) => SpecialRegister::ClusterCtarank,
        ("%cluster_nctarank", None) => SpecialRegister::ClusterNctarank,
        ("%is_explicit_cluster", None) => SpecialRegister::IsExplicitCluster,
        ("%aggr_smem_size", None) => SpecialRegister::AggrSmemSize,
        ("%current_graph_exec", None) => SpecialRegister::CurrentGraphExec,
        ("%reserved_smem_offset_begin", None) => SpecialRegister::ReservedSmem(ReservedSmem::Begin),
        ("%reserved_smem_offset_end", None) => SpecialRegister::ReservedSmem(ReservedSmem::End),
        ("%reserved_smem_offset_cap", None) => SpecialRegister::ReservedSmem(ReservedSmem::Cap),
        ("%reserved_smem_offset_0", None) => SpecialRegister::ReservedSmem(ReservedSmem::Offset0),
        ("%reserved_smem_offset_1", None) => SpecialRegister::ReservedSmem(ReservedSmem::Offset1),
        (pm, None) if pm.starts_with("%pm") && ast::is_special_register(pm) => {
            let wide = pm.ends_with("_64");
            SpecialRegister::Pm(pm.as_bytes()[3] - b'0', wide)
        }
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

/// The number of `%envregN` (0 to 31, no leading zero), if `name` is one.
fn envreg(name: &str) -> Option<u8> {
    let digits = name.strip_prefix("%envreg")?;
    let number: u8 = digits.parse().ok()?;
    (number < 32 && digits == number.to_string()).then_some(number)
}

/// Why a form the instruction table decodes (and the checker checks) does not run yet, if it
/// does not.
fn not_executed(form: &OpForm) -> Option<&'static str> {
    match *form {
        OpForm::Lop3 {
            bool_op: Some(_), ..
        } => Some("lop3 with a predicate output (.or, .and) is not supported"),
        OpForm::Sured(ptxsim_isa::texture::SurfaceReductionForm { sample: true, .. }) => {
            Some("sured.p (sample addressing) is not supported")
        }
        OpForm::Carry { off_spec: true, .. } => Some(
            "this carry form (a 16-bit type, or .sat) is accepted by ptxas but not in the ISA's \
             syntax; not supported",
        ),
        _ => None,
    }
}

/// Whether `instruction` is a `.volatile`, `.relaxed` or `.acquire` load from `.global` memory or
/// a generic address ([`Program::polls_global`]; PTX ISA 9.0, ld: "The qualifiers .volatile,
/// .relaxed and .acquire may be used only with .global and .shared spaces and with generic
/// addressing"). The IR keeps the space but not the qualifier, which is read from the text.
fn polls_global(instruction: &Instruction) -> bool {
    let InstructionKind::Ld { space, .. } = instruction.kind else {
        return false;
    };
    if !matches!(space, Space::Global | Space::Generic) {
        return false;
    }
    let opcode = instruction
        .text
        .split_whitespace()
        .find(|word| !word.starts_with('@'))
        .unwrap_or("");
    opcode
        .split('.')
        .any(|modifier| matches!(modifier, "volatile" | "relaxed" | "acquire"))
}

/// Whether every atomic of `instructions` leaves the same memory and registers whatever the
/// order its threads run in ([`Program::atomics_commute`]): an integer `.add`, `.min` or
/// `.max`, or an integer or bit-size `.and`, `.or` or `.xor` ("The atomic operations are
/// commutative and associative", as integer arithmetic modulo 2^n is; PTX ISA 9.7.13.5), whose
/// old value no instruction reads: `red`, or `atom` whose destination register is named by no
/// other instruction (nvcc writes `atomicAdd(p, v)` with its result unused as `atom` into a
/// register nothing reads). Floating-point additions round differently in another order, and
/// `.inc`, `.dec`, `.exch`, `.cas` and the `red.async` forms are left out.
fn atomics_commute(instructions: &[Instruction], registers: &[RegisterInfo]) -> bool {
    let commutes = |op: AtomOp, ty: Type| match op {
        AtomOp::Add | AtomOp::Min | AtomOp::Max => ty.is_integer(),
        AtomOp::And | AtomOp::Or | AtomOp::Xor => !ty.is_float() && ty != Type::Pred,
        AtomOp::Inc | AtomOp::Dec | AtomOp::Exch | AtomOp::Cas => false,
    };
    // How many instructions name each register (a name that is a register operand in the
    // text; the text's other words never start with `%` but for special registers, which are
    // not destinations).
    let mut named: FxHashMap<&str, usize> = FxHashMap::default();
    for instruction in instructions {
        for word in instruction
            .text
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '%' | '_' | '$')))
            .filter(|word| word.starts_with('%'))
        {
            *named.entry(word).or_default() += 1;
        }
    }
    // A destination nothing else reads: named once (by the atomic itself). A register renamed
    // in a nested scope (`NAME#n`) is not found by its name and counts as read.
    let unread = |register: RegisterId| {
        registers
            .get(register.index())
            .is_some_and(|info| named.get(info.name.as_str()) == Some(&1))
    };
    instructions
        .iter()
        .all(|instruction| match &instruction.kind {
            InstructionKind::Atom {
                op,
                ty,
                destination,
                ..
            } => commutes(*op, *ty) && destination.is_none_or(|d| unread(d.register)),
            InstructionKind::AtomVector {
                op,
                ty,
                destinations,
                ..
            } => commutes(*op, *ty) && destinations.iter().flatten().all(|d| unread(d.register)),
            InstructionKind::RedAsync { .. } => false,
            _ => true,
        })
}
