//! Declared sizes beyond what ptxas 13.5 accepts: the kernel parameter space of an entry, the
//! static shared memory an entry uses, and the module's constant bank.
//!
//! ptxas reports these after it has read the whole module (they depend on which functions a
//! kernel calls and which module-scope variables they name), without a line for the shared and
//! constant limits. The checker does the same in two steps: [`summarize`] reduces each top-level
//! item to what the limits need (sizes, the names its body uses), in source order, and
//! [`finish`] adds them up per kernel. Both the whole-module path and the piece-by-piece
//! pipeline feed the same summaries to [`finish`], so their diagnostics are identical.
//!
//! The limits and messages, from ptxas 13.5 (`ptxas -arch sm_90`, also sm_75, sm_80, sm_100,
//! sm_120):
//!
//! * kernel parameters: "Entry function 'k' uses too much parameter space (0x7ffd bytes, 0x7ffc
//!   max)." — 32,764 bytes from PTX ISA 8.1, 4,352 (0x1100) before ("Feature 'Kernel parameter
//!   size larger than 4352 bytes' requires PTX ISA .version 8.1 or later"); parameters are laid
//!   out in order, each at a multiple of its alignment;
//! * shared memory: "Entry function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)" —
//!   the `.shared` variables declared in the kernel and in every function it calls, and the
//!   module-scope `.shared` variables any of them names; at most 48 KiB of static shared memory
//!   on every target (more is only available dynamically, through `.extern .shared` arrays,
//!   which count nothing here). A module-scope variable no kernel names costs nothing (ptxas
//!   accepts `.shared .b8 sh[49153];` alone). ptxas computes the sum in 32 bits and accepts
//!   sizes of 2^31 bytes and more (`sh[9223372036854775807]`); the checker does not wrap;
//! * constant memory: "File uses too much global constant data (0x10001 bytes, 0x10000 max)" —
//!   the module's `.const` variables together, named or not, at most 64 KiB (one bank).
//!
//! `.global` and `.local` variables have no such limit in ptxas (it accepts `.global .b8
//! g[18446744073709551615]`); the executor's memory budget (crates/exec) bounds what a run may
//! allocate.

use ptxsim_isa::{PtxVersion, Type};
use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::ast::{
    AddressBase, Block, FunctionKind, Initializer, Item, Linkage, Operand, StateSpace, Statement,
    VariableDeclaration,
};
use ptxsim_syntax::span::{Span, Text};

use crate::hash::{FxHashMap, FxHashSet};
use crate::rules::ModuleSetting;

/// The most bytes of kernel parameters from PTX ISA 8.1 on (ptxas 13.5: "0x7ffc max").
pub const MAX_KERNEL_PARAM_BYTES: u64 = 0x7ffc;

/// The most bytes of kernel parameters before PTX ISA 8.1 (ptxas 13.5: "0x1100 max").
pub const MAX_KERNEL_PARAM_BYTES_BEFORE_8_1: u64 = 0x1100;

/// The most bytes of static shared memory one kernel may use (ptxas 13.5: "0xc000 max").
pub const MAX_STATIC_SHARED_BYTES: u64 = 0xc000;

/// The most bytes of `.const` variables in one module (ptxas 13.5: "0x10000 max").
pub const MAX_CONST_BYTES: u64 = 0x10000;

/// How many functions and names they use [`finish`] looks at in all while it follows the calls
/// of the kernels; past it, the remaining kernels' shared memory is not added up (a bound on
/// the work for modules with many kernels that each call long chains of functions).
const MAX_VISITS: usize = 4_000_000;

/// What the size limits need of one top-level item.
#[derive(Debug)]
pub(crate) enum ItemSummary {
    /// A function with a body (a declaration without one adds nothing).
    Function {
        /// Its name.
        name: Text,
        /// The span of its name.
        span: Span,
        /// A kernel's parameter space in bytes; `None` for a `.func`.
        kernel_params: Option<u64>,
        /// The `.shared` bytes its body declares (each variable at a multiple of its alignment).
        shared: u64,
        /// The names its instructions use (functions it calls, variables it names), each once.
        uses: Vec<Text>,
        /// Its first `tcgen05` instruction with `.cta_group::1` and with `.cta_group::2`.
        cta_groups: [Option<Span>; 2],
        /// Its `.loc` directives, in source order.
        locs: Vec<LocFact>,
    },
    /// A `.section` of DWARF data ptxas counts as debug information.
    DebugSection,
    /// A `.file` directive.
    File {
        /// Its index.
        index: u32,
        /// The directive.
        span: Span,
    },
    /// A module-scope `.shared` variable with a size.
    Shared {
        /// Its name.
        name: Text,
        /// Its size in bytes.
        bytes: u64,
        /// Its alignment.
        align: u64,
    },
    /// A module-scope `.const` variable with a size.
    Const {
        /// The declarator, where the diagnostic points when this one passes the limit.
        span: Span,
        /// Its size in bytes.
        bytes: u64,
        /// Its alignment.
        align: u64,
    },
}

/// Appends to `out` what the size limits need of `item`.
pub(crate) fn summarize(item: &Item, out: &mut Vec<ItemSummary>) {
    match item {
        Item::Function(function) => {
            let Some(body) = &function.body else {
                return;
            };
            let kernel_params = (function.kind.value == FunctionKind::Entry).then(|| {
                let mut end = 0u64;
                for declaration in function.params.iter().flatten() {
                    for (bytes, align) in sizes(declaration) {
                        end = end
                            .div_ceil(align)
                            .saturating_mul(align)
                            .saturating_add(bytes);
                    }
                }
                end
            });
            let mut walk = BodyWalk::default();
            walk.block(body);
            let BodyWalk {
                shared,
                uses,
                declared,
                cta_groups,
                locs,
            } = walk;
            let uses = uses
                .into_iter()
                .filter(|name| !declared.contains(name))
                .collect();
            out.push(ItemSummary::Function {
                name: function.name.value.clone(),
                span: function.name.span,
                kernel_params,
                shared,
                uses,
                cta_groups,
                locs,
            });
        }
        Item::Variable(declaration) => {
            let space = declaration.space.value;
            if !matches!(space, StateSpace::Shared | StateSpace::Const) {
                return;
            }
            for (declarator, (bytes, align)) in
                declaration.declarators.iter().zip(sizes(declaration))
            {
                if is_unsized(declaration, declarator) {
                    continue;
                }
                out.push(if space == StateSpace::Shared {
                    ItemSummary::Shared {
                        name: declarator.name.value.clone(),
                        bytes,
                        align,
                    }
                } else {
                    ItemSummary::Const {
                        span: declarator.span,
                        bytes,
                        align,
                    }
                });
            }
        }
        Item::File(file) => out.push(ItemSummary::File {
            index: file.index.value,
            span: file.span,
        }),
        Item::Section(section)
            if matches!(
                section.name.as_str(),
                ".debug_info" | ".debug_abbrev" | ".debug_str" | ".debug_line" | ".debug_loc"
            ) =>
        {
            out.push(ItemSummary::DebugSection);
        }
        Item::Section(_) | Item::Pragma(_) | Item::Alias(_) => {}
    }
}

/// Whether `declarator` has no size of its own: an `.extern` array without a dimension (dynamic
/// shared memory, or a variable defined in another module).
fn is_unsized(
    declaration: &VariableDeclaration,
    declarator: &ptxsim_syntax::ast::Declarator,
) -> bool {
    declarator.initializer.is_none()
        && (declarator.dimensions.iter().any(Option::is_none)
            || declaration
                .linkage
                .iter()
                .any(|linkage| linkage.value == Linkage::Extern))
}

/// The size and alignment of each declarator of `declaration` (saturating at `u64::MAX`). An
/// array `[]` takes its length from its initializer's outermost list.
fn sizes(declaration: &VariableDeclaration) -> impl Iterator<Item = (u64, u64)> + '_ {
    let mut element: Option<Type> = None;
    let mut vector = 1u64;
    for word in declaration.words() {
        match word.value.as_str() {
            "v2" => vector = 2,
            "v4" => vector = 4,
            "v8" => vector = 8,
            other => {
                if element.is_none() {
                    element = Type::from_name(other);
                }
            }
        }
    }
    let element_bytes = u64::from(element.map_or(8, |ty| ty.bits().div_ceil(8)).max(1));
    let item_bytes = element_bytes.saturating_mul(vector);
    let align = declaration
        .align()
        .unwrap_or(item_bytes)
        .clamp(1, 1 << 16)
        .next_power_of_two();
    declaration.declarators.iter().map(move |declarator| {
        let count = declarator
            .dimensions
            .iter()
            .map(
                |dimension| match (dimension, declarator.initializer.as_deref()) {
                    (Some(dimension), _) => dimension.value,
                    (None, Some(Initializer::List(list))) => list.value.len() as u64,
                    (None, _) => 0,
                },
            )
            .fold(1u64, u64::saturating_mul);
        (item_bytes.saturating_mul(count), align)
    })
}

/// What a `.loc` directive says about source locations (PTX ISA 11.8.2, ".loc": `.loc
/// file_index line_number column_position{, function_name label {+ immediate}, inlined_at
/// file_index2 line_number2 column_position2}`).
#[derive(Debug)]
pub(crate) struct LocFact {
    /// The directive.
    span: Span,
    /// Its location (file, line, column).
    location: (u32, u32, u32),
    /// Its `inlined_at` location.
    inlined_at: Option<(u32, u32, u32)>,
    /// Whether it has only one of `function_name` and `inlined_at`.
    unpaired: bool,
}

/// What a function body declares and names.
#[derive(Default)]
struct BodyWalk {
    shared: u64,
    uses: FxHashSet<Text>,
    declared: FxHashSet<Text>,
    cta_groups: [Option<Span>; 2],
    locs: Vec<LocFact>,
}

impl BodyWalk {
    fn block(&mut self, block: &Block) {
        for statement in &block.statements {
            match statement {
                // A branch names labels only (most of the names in a body).
                Statement::Instruction(instruction) if instruction.opcode.value != "bra" => {
                    if instruction.opcode.value == "tcgen05" {
                        let group =
                            instruction
                                .modifiers
                                .iter()
                                .find_map(|m| match m.value.as_str() {
                                    "cta_group::1" => Some(0),
                                    "cta_group::2" => Some(1),
                                    _ => None,
                                });
                        if let Some(group) = group {
                            self.cta_groups[group].get_or_insert(instruction.span);
                        }
                    }
                    for operand in &instruction.operands {
                        self.operand(operand);
                    }
                }
                Statement::Declaration(declaration) => {
                    let shared = declaration.space.value == StateSpace::Shared;
                    for (declarator, (bytes, align)) in
                        declaration.declarators.iter().zip(sizes(declaration))
                    {
                        if !self.declared.contains(&declarator.name.value) {
                            self.declared.insert(declarator.name.value.clone());
                        }
                        if shared && !is_unsized(declaration, declarator) {
                            self.shared = self
                                .shared
                                .div_ceil(align)
                                .saturating_mul(align)
                                .saturating_add(bytes);
                        }
                    }
                }
                Statement::Block(inner) => self.block(inner),
                Statement::Loc(loc) => self.locs.push(LocFact {
                    span: loc.span,
                    location: (loc.file.value, loc.line.value, loc.column.value),
                    inlined_at: loc
                        .inlined_at
                        .as_ref()
                        .map(|(file, line, column)| (file.value, line.value, column.value)),
                    unpaired: loc.function_name.is_some() != loc.inlined_at.is_some(),
                }),
                _ => {}
            }
        }
    }

    fn name(&mut self, name: &Text) {
        if !name.starts_with('%') && !self.uses.contains(name) {
            self.uses.insert(name.clone());
        }
    }

    fn operand(&mut self, operand: &Operand) {
        match operand {
            Operand::Name(name) => self.name(&name.name.value),
            Operand::NameOffset(offset) => self.name(&offset.name.name.value),
            Operand::Address(address) => {
                if let AddressBase::Name(name) = &address.base {
                    self.name(&name.name.value);
                }
            }
            Operand::Negated(_, inner, _) => self.operand(inner),
            Operand::Pair(_, first, second) => {
                self.operand(first);
                self.operand(second);
            }
            Operand::Vector(list) | Operand::AddressList(list) | Operand::List(list) => {
                for inner in &list.value {
                    self.operand(inner);
                }
            }
            Operand::SpecialRegister(_) | Operand::Immediate(_) | Operand::Sink(_) => {}
        }
    }
}

/// The diagnostics of the size limits for a module whose items `summaries` describe, in source
/// order.
pub(crate) fn finish(
    summaries: &[ItemSummary],
    setting: &ModuleSetting,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut constants = 0u64;
    let mut over_constants = false;
    // Module-scope shared variables by name: (size, alignment, declaration order).
    let mut shared_variables: FxHashMap<&str, (u64, u64, usize)> = FxHashMap::default();
    let mut functions: FxHashMap<&str, usize> = FxHashMap::default();
    let mut debug = DebugLines::default();
    for (index, summary) in summaries.iter().enumerate() {
        match summary {
            ItemSummary::File { index, span } => debug.file(*index, *span, diagnostics),
            ItemSummary::DebugSection => debug.sections = true,
            ItemSummary::Const { span, bytes, align } => {
                constants = constants
                    .div_ceil(*align)
                    .saturating_mul(*align)
                    .saturating_add(*bytes);
                if constants > MAX_CONST_BYTES && !over_constants {
                    over_constants = true;
                    diagnostics.push(
                        Diagnostic::error(
                            "E0207",
                            format!(
                                "the module uses too much constant memory ({} bytes with this \
                                 variable, {MAX_CONST_BYTES:#x} max)",
                                hex(constants)
                            ),
                            *span,
                        )
                        .with_help(
                            "the `.const` variables of a module share one 64 KiB bank; put large \
                             tables in `.global` memory (ptxas: File uses too much global \
                             constant data)",
                        ),
                    );
                }
            }
            ItemSummary::Shared { name, bytes, align } => {
                let order = shared_variables.len();
                shared_variables
                    .entry(name.as_str())
                    .or_insert((*bytes, *align, order));
            }
            ItemSummary::Function {
                name,
                span,
                kernel_params,
                locs,
                ..
            } => {
                debug.locs(locs, diagnostics);
                functions.entry(name.as_str()).or_insert(index);
                if let Some(bytes) = kernel_params {
                    kernel_param_limit(name, *span, *bytes, setting, diagnostics);
                }
            }
        }
    }
    shared_limit(summaries, &functions, &shared_variables, diagnostics);
    cta_group_mix(summaries, &functions, diagnostics);
    // `.target debug` needs DWARF sections (PTX ISA 11.3.2, ".target", its `debug` option;
    // ptxas 13.5: "Debug information not found in
    // presence of .target debug" without a `.debug_info`, `.debug_abbrev`, `.debug_str`,
    // `.debug_line` or `.debug_loc` section; `.file`/`.loc` are not enough) — E0223.
    if let Some(span) = setting.debug
        && !debug.sections
    {
        diagnostics.push(
            Diagnostic::error(
                "E0223",
                "`.target ... debug` says the module has debug information, but it has no \
                 `.section .debug_*` of DWARF data",
                span,
            )
            .with_help("drop `debug` from `.target`, or add the DWARF sections"),
        );
    }
}

/// The `.file` indices and `.loc` locations seen so far, in source order.
#[derive(Default)]
struct DebugLines {
    sections: bool,
    files: FxHashMap<u32, Span>,
    locations: FxHashSet<(u32, u32, u32)>,
}

impl DebugLines {
    /// A `.file` index is declared once (PTX ISA 11.8.1, ".file"; ptxas 13.5: "Duplicate file
    /// index #1") — E0220.
    fn file(&mut self, index: u32, span: Span, diagnostics: &mut Vec<Diagnostic>) {
        if let Some(&first) = self.files.get(&index) {
            diagnostics.push(
                Diagnostic::error(
                    "E0220",
                    format!("`.file` index {index} is declared twice"),
                    span,
                )
                .with_label(first, "first declared here")
                .with_help(format!("ptxas: Duplicate file index #{index}")),
            );
        } else {
            self.files.insert(index, span);
        }
    }

    /// `.loc`'s `function_name` and `inlined_at` come together (11.8.2, ".loc"; ptxas 13.5:
    /// "Parsing error near 'inlined_at'" without `function_name`, "near" the next line without
    /// `inlined_at`), and the `inlined_at` location is one an earlier `.loc` of the module
    /// gave (ptxas 13.5: "Source location 1 2 0 used in inlined_at directive must be used in a
    /// preceding .loc directive") — E0219.
    fn locs(&mut self, locs: &[LocFact], diagnostics: &mut Vec<Diagnostic>) {
        for loc in locs {
            if loc.unpaired {
                diagnostics.push(
                    Diagnostic::error(
                        "E0219",
                        "`.loc` takes `function_name` and `inlined_at` together, or neither",
                        loc.span,
                    )
                    .with_help(
                        "write `.loc 1 5 0, function_name $L__info_string0, inlined_at 1 9 0`",
                    ),
                );
            } else if let Some(at) = loc.inlined_at
                && !self.locations.contains(&at)
            {
                diagnostics.push(
                    Diagnostic::error(
                        "E0219",
                        format!(
                            "`inlined_at {} {} {}` names a location no earlier `.loc` gives",
                            at.0, at.1, at.2
                        ),
                        loc.span,
                    )
                    .with_help(format!(
                        "ptxas: Source location {} {} {} used in inlined_at directive must be used \
                         in a preceding .loc directive",
                        at.0, at.1, at.2
                    )),
                );
            }
            self.locations.insert(loc.location);
        }
    }
}

/// The kernels of the module: each one's place in `summaries`, name and the span of its name
/// (the first definition of a name only: it is the one calls reach).
fn kernels<'a>(
    summaries: &'a [ItemSummary],
    functions: &'a FxHashMap<&str, usize>,
) -> impl Iterator<Item = (usize, &'a Text, Span)> + 'a {
    summaries
        .iter()
        .enumerate()
        .filter_map(move |(index, summary)| match summary {
            ItemSummary::Function {
                name,
                span,
                kernel_params: Some(_),
                ..
            } if functions.get(name.as_str()) == Some(&index) => Some((index, name, *span)),
            _ => None,
        })
}

/// tcgen05: "all the tcgen05 instructions in a kernel must specify the same value of
/// `.cta_group`" (PTX ISA 9.7.16.3). ptxas 13.5 checks it over the kernel and the functions it
/// calls: "Function 'k' uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)
/// and that is not allowed". The diagnostic points at the first instruction of each.
fn cta_group_mix(
    summaries: &[ItemSummary],
    functions: &FxHashMap<&str, usize>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let used = |summary: &ItemSummary, group: usize| match summary {
        ItemSummary::Function { cta_groups, .. } => cta_groups[group],
        _ => None,
    };
    // Without both values anywhere in the module, no kernel mixes them.
    if (0..2).any(|group| summaries.iter().all(|s| used(s, group).is_none())) {
        return;
    }
    let mut seen: Vec<usize> = vec![usize::MAX; summaries.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (index, name, span) in kernels(summaries, functions) {
        let _ = walk_calls(summaries, functions, index, (&mut seen, &mut stack), |_| {
            true
        });
        let mut first = [None, None];
        for (at, kernel) in seen.iter().enumerate() {
            if *kernel == index {
                for (group, slot) in first.iter_mut().enumerate() {
                    if slot.is_none() {
                        *slot = summaries.get(at).and_then(|s| used(s, group));
                    }
                }
            }
        }
        if let [Some(single), Some(pair)] = first {
            diagnostics.push(
                Diagnostic::error(
                    "E0210",
                    format!(
                        "kernel `{name}` uses both `.cta_group::1` and `.cta_group::2` \
                         tcgen05 instructions (itself or through the functions it calls)"
                    ),
                    span,
                )
                .with_label(single, "`.cta_group::1` here")
                .with_label(pair, "`.cta_group::2` here")
                .with_help(
                    "all the tcgen05 instructions of a kernel must use the same `.cta_group` \
                     (ptxas: uses single CTA(.cta_group::1) and CTA pair \
                     granularity(.cta_group::2) and that is not allowed)",
                ),
            );
        }
    }
}

/// The parameter-space diagnostic of kernel `name` whose parameters take `bytes`.
fn kernel_param_limit(
    name: &str,
    span: Span,
    bytes: u64,
    setting: &ModuleSetting,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let recent = setting
        .version
        .is_none_or(|version| version >= PtxVersion::new(8, 1));
    let max = if recent {
        MAX_KERNEL_PARAM_BYTES
    } else {
        MAX_KERNEL_PARAM_BYTES_BEFORE_8_1
    };
    if bytes <= max {
        return;
    }
    let help = if !recent && bytes <= MAX_KERNEL_PARAM_BYTES {
        "PTX ISA 8.1 raised the limit to 32764 bytes: declare `.version 8.1` or later (ptxas: \
         Feature 'Kernel parameter size larger than 4352 bytes' requires PTX ISA .version 8.1 \
         or later)"
    } else {
        "pass large data in a global buffer, through a pointer parameter"
    };
    diagnostics.push(
        Diagnostic::error(
            "E0206",
            format!(
                "entry function `{name}` uses too much parameter space ({} bytes, {max:#x} max)",
                hex(bytes)
            ),
            span,
        )
        .with_help(help),
    );
}

/// The shared-memory diagnostic of every kernel whose static shared memory (see the module
/// documentation) passes [`MAX_STATIC_SHARED_BYTES`].
fn shared_limit(
    summaries: &[ItemSummary],
    functions: &FxHashMap<&str, usize>,
    shared_variables: &FxHashMap<&str, (u64, u64, usize)>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // The most any kernel could use: if even that fits, no kernel needs its calls followed.
    let mut bound = shared_variables
        .values()
        .fold(0u64, |sum, (bytes, align, _)| {
            sum.saturating_add(*bytes).saturating_add(*align)
        });
    for summary in summaries {
        if let ItemSummary::Function { shared, .. } = summary {
            bound = bound.saturating_add(*shared);
        }
    }
    if bound <= MAX_STATIC_SHARED_BYTES {
        return;
    }
    let mut visits = 0usize;
    // `seen[item] == kernel`: the item was reached from that kernel (no clearing per kernel,
    // which would cost the size of the set each time).
    let mut seen: Vec<usize> = vec![usize::MAX; summaries.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (index, name, span) in kernels(summaries, functions) {
        let mut variables: Vec<(usize, u64, u64)> = Vec::new();
        let walked = walk_calls(
            summaries,
            functions,
            index,
            (&mut seen, &mut stack),
            |used| {
                if let Some(&(bytes, align, order)) = shared_variables.get(used) {
                    variables.push((order, bytes, align));
                }
                visits = visits.saturating_add(1);
                visits <= MAX_VISITS
            },
        );
        let Some(own) = walked else {
            return;
        };
        // Module-scope variables once each, in declaration order, each at its alignment.
        variables.sort_unstable();
        variables.dedup();
        let total = variables.iter().fold(own, |end, (_, bytes, align)| {
            end.div_ceil(*align)
                .saturating_mul(*align)
                .saturating_add(*bytes)
        });
        if total > MAX_STATIC_SHARED_BYTES {
            diagnostics.push(
                Diagnostic::error(
                    "E0205",
                    format!(
                        "entry function `{name}` uses too much shared data ({} bytes, \
                         {MAX_STATIC_SHARED_BYTES:#x} max)",
                        hex(total)
                    ),
                    span,
                )
                .with_help(
                    "static shared memory is at most 48 KiB per kernel; declare larger arrays \
                     `.extern .shared` (dynamic shared memory, sized at launch)",
                ),
            );
        }
    }
}

/// Walks the functions kernel `start` reaches through calls (itself included, each once),
/// calling `used` with every name their instructions use (callees and module-scope variables
/// among them); stops, giving `None`, when `used` answers `false`.
/// Gives the `.shared` bytes the reached bodies declare. `seen` (one slot per summary) and
/// `stack` are scratch space reused between kernels: `seen[item] == start` marks an item
/// reached from this kernel.
fn walk_calls<'a>(
    summaries: &'a [ItemSummary],
    functions: &FxHashMap<&str, usize>,
    start: usize,
    (seen, stack): (&mut [usize], &mut Vec<usize>),
    mut used: impl FnMut(&'a str) -> bool,
) -> Option<u64> {
    stack.clear();
    stack.push(start);
    if let Some(slot) = seen.get_mut(start) {
        *slot = start;
    }
    let mut own = 0u64;
    while let Some(at) = stack.pop() {
        let Some(ItemSummary::Function { shared, uses, .. }) = summaries.get(at) else {
            continue;
        };
        own = own.saturating_add(*shared);
        for name in uses {
            if !used(name.as_str()) {
                return None;
            }
            if let Some(&callee) = functions.get(name.as_str())
                && seen.get(callee).is_some_and(|&kernel| kernel != start)
            {
                seen[callee] = start;
                stack.push(callee);
            }
        }
    }
    Some(own)
}

/// What the program of one kernel needs of shared memory: the names of the functions it
/// reaches through calls (itself included) and of the module-scope variables they name. Only
/// those variables take room in the kernel's static shared memory, as ptxas counts it (see the
/// module documentation): a module of many kernels, each with its own `__shared__` arrays
/// (CUB's), gives each kernel only its own, which is what CUDA's occupancy queries and
/// `cudaFuncGetAttributes` report.
#[derive(Debug, Default)]
pub(crate) struct KernelReach {
    /// The functions with a body the kernel reaches, itself included.
    pub(crate) functions: FxHashSet<String>,
    /// The names the reached functions use (module-scope variables, callees).
    pub(crate) names: FxHashSet<String>,
}

/// The [`KernelReach`] of the kernel `kernel` in the module whose items `summaries` describe.
pub(crate) fn kernel_reach(summaries: &[ItemSummary], kernel: &str) -> KernelReach {
    let mut functions: FxHashMap<&str, usize> = FxHashMap::default();
    let mut start = None;
    for (index, summary) in summaries.iter().enumerate() {
        if let ItemSummary::Function {
            name,
            kernel_params,
            ..
        } = summary
        {
            functions.entry(name.as_str()).or_insert(index);
            if kernel_params.is_some() && name.as_str() == kernel {
                start.get_or_insert(index);
            }
        }
    }
    let mut reach = KernelReach::default();
    let Some(start) = start else {
        return reach;
    };
    let mut seen = vec![usize::MAX; summaries.len()];
    let mut stack = Vec::new();
    let _ = walk_calls(
        summaries,
        &functions,
        start,
        (&mut seen, &mut stack),
        |name| {
            reach.names.insert(name.to_string());
            true
        },
    );
    for (index, kernel) in seen.iter().enumerate() {
        if *kernel == start
            && let Some(ItemSummary::Function { name, .. }) = summaries.get(index)
        {
            reach.functions.insert(name.to_string());
        }
    }
    reach
}

/// `bytes` in hexadecimal as ptxas writes sizes (`0xc001`).
fn hex(bytes: u64) -> String {
    format!("{bytes:#x}")
}
