//! Per-instruction rules, driven by the instruction table of `ptxsim-isa`.
//!
//! For the instructions the table models (`cvt`, `cvt.pack`, `mov`), [`check_instruction`]
//! decodes the opcode and modifiers ([`ptxsim_isa::decode`]), checks the modifiers and operands
//! ([`ptxsim_isa::validate`]: modifier rules, operand count and shape, the operand-size tables of
//! PTX ISA 9.4.1) and the target / PTX ISA version requirements of the form
//! ([`ptxsim_isa::requirements`], [`ptxsim_isa::satisfied`]). Every problem becomes a
//! [`Diagnostic`] whose span is the offending modifier, operand or vector element, whose message
//! is the rule in words, and whose `help:` is the fix where one exists. [`check_module`] checks
//! the `.version` / `.target` pair.
//!
//! Other opcodes are not checked here: a module that uses instructions ptxsim cannot execute yet
//! is still a valid module, and whether it runs is the executor's business.
//!
//! The name resolver calls [`check_instruction`] once for every instruction of a modelled opcode,
//! after its operands were resolved; [`InstructionContext::operands`] carries each operand's
//! declared register type.
//!
//! Diagnostic codes (docs/diagnostics.md): E03xx for modifier and operand rules, E04xx for
//! target and version requirements.

use crate::hash::FxHashMap;
use ptxsim_isa::gating::describe_targets;
use ptxsim_isa::{
    DecodeError, DecodeErrorKind, Form, Literal, Location, Opcode, Operand as IsaOperand,
    PtxVersion, RuleCode, SymbolKind, Target, Type, UnmetGate, UnmetReason, Violation,
    b128_declaration, check_module as isa_check_module, decode, requirements, satisfied, validate,
};
use ptxsim_syntax::ast::{
    AddressBase, Immediate, ImmediateValue, Initializer, Instruction, Module, Operand,
    VariableDeclaration,
};
use ptxsim_syntax::{Diagnostic, Span, Spanned, Text};
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// The `.target` and `.version` a module is checked against, with the spans of the directives
/// that declare them.
#[derive(Debug, Clone, Default)]
pub struct ModuleSetting {
    /// The target instructions are checked for: the `--target` override if there is one, else
    /// the last entry of the `.target` directive that names an architecture (`sm_XX`,
    /// `compute_XX`): ptxas 13.5 gates instructions by the last one of `.target sm_80, sm_90`.
    pub target: Option<Target>,
    /// The span of the `.target` entry (or of the whole directive when no entry names an
    /// architecture), if the module has a `.target` directive.
    pub target_span: Option<Span>,
    /// Whether `target` comes from an override (`ptxsim check --target`) rather than the module.
    pub overridden: bool,
    /// The `.version` of the module.
    pub version: Option<PtxVersion>,
    /// The span of the `.version` directive.
    pub version_span: Option<Span>,
    /// Whether the `.target` list has `texmode_independent` (the default is the unified mode:
    /// PTX ISA 11.3.2, ".target").
    pub texmode_independent: bool,
    /// The `debug` entry of the `.target` list, if there is one.
    pub debug: Option<Span>,
}

impl ModuleSetting {
    /// Reads `.target` and `.version` from a module; `target` overrides the module's `.target`.
    pub fn new(module: &Module, target: Option<Target>) -> ModuleSetting {
        let mut setting = ModuleSetting {
            version: module.version.as_ref().and_then(|version| {
                Some(PtxVersion::new(
                    u8::try_from(version.major).ok()?,
                    u8::try_from(version.minor).ok()?,
                ))
            }),
            version_span: module.version.as_ref().map(|version| version.span),
            ..ModuleSetting::default()
        };
        if let Some(list) = &module.target {
            setting.target_span = Some(list.span);
            setting.texmode_independent = list
                .value
                .iter()
                .any(|entry| entry.as_str() == "texmode_independent");
            setting.debug = list
                .value
                .iter()
                .find(|entry| entry.as_str() == "debug")
                .map(|entry| entry.span);
            if let Some(entry) = list
                .value
                .iter()
                .rfind(|entry| names_architecture(entry.as_str()))
            {
                setting.target_span = Some(entry.span);
                setting.target = Target::parse(entry.as_str()).ok();
            }
        }
        if let Some(target) = target {
            setting.target = Some(target);
            setting.overridden = true;
        }
        setting
    }

    /// "this module targets sm_90", or "this module is checked for sm_90 (`--target`)".
    fn targets_in_words(&self, target: Target) -> String {
        if self.overridden {
            format!("this module is checked for {target} (--target)")
        } else {
            format!("this module targets {target}")
        }
    }

    /// The secondary label on the `.target` directive.
    fn target_label(&self, diagnostic: Diagnostic) -> Diagnostic {
        match (self.target_span, self.target) {
            (Some(span), Some(target)) if self.overridden => {
                diagnostic.with_label(span, format!("overridden by `--target {target}`"))
            }
            (Some(span), Some(target)) => {
                diagnostic.with_label(span, format!("the module targets {target} here"))
            }
            _ => diagnostic,
        }
    }
}

/// Whether a `.target` entry is meant as an architecture (`sm_...`, `compute_...`) rather than
/// an option such as `texmode_independent` or `debug`.
fn names_architecture(entry: &str) -> bool {
    entry.starts_with("sm_") || entry.starts_with("compute_")
}

/// One register operand (or vector element) of an instruction with its declared type.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredRegister {
    /// The operand index (0 = destination).
    pub operand: usize,
    /// The element index inside a brace vector, if the register is an element.
    pub element: Option<usize>,
    /// The declared type.
    pub ty: Type,
    /// The span of its declaration.
    pub declaration: Span,
}

/// What decoding and gating say about one mnemonic (opcode and modifiers) in one module: both
/// depend only on the mnemonic and the module's target and version, so they are computed once
/// per distinct mnemonic.
///
/// What the common case reads (the mnemonic decoded, operands of kinds already validated clean)
/// is kept in a few words; the rest is boxed, so that an entry is two cache lines.
#[derive(Debug)]
struct Decoded {
    form: Box<Result<Form, DecodeError>>,
    /// Whether `form` is `Ok`.
    decoded: bool,
    /// The unmet target / version requirements of the form, if any.
    unmet: Option<Box<ptxsim_isa::Unmet>>,
    /// The [`operands_key`]s of operand lists that [`validate`] found clean for this form (a
    /// few, replaced in turn; `u64::MAX` is no key): validation depends only on the form and the
    /// operands' kinds and types.
    clean_keys: [u64; CLEAN_OPERAND_LISTS],
    /// The next element of `clean_keys` to replace.
    clean_next: usize,
    /// Clean operand lists that have no key (with brace vectors, or long), most recent last.
    clean: Vec<Vec<IsaOperand>>,
}

/// An operand list of up to five operands without brace vectors, packed exactly into a word: its
/// length, then 12 bits per operand (its kind, and the type, literal kind, width or symbol kind
/// it carries).
fn operands_key(operands: &[IsaOperand]) -> Option<u64> {
    if operands.len() > 5 {
        return None;
    }
    let mut key = operands.len() as u64;
    for operand in operands {
        let (kind, payload) = match *operand {
            IsaOperand::Register(ty) => (1, ty as u64),
            IsaOperand::Sink => (2, 0),
            IsaOperand::Immediate(literal) => (3, literal as u64),
            IsaOperand::Special(width) => (4, width as u64),
            IsaOperand::Symbol(symbol) => (5, symbol as u64),
            IsaOperand::Address => (6, 0),
            IsaOperand::Other => (7, 0),
            IsaOperand::Vector(_) | IsaOperand::PredicatePair(..) => return None,
        };
        if payload > 0xff {
            return None;
        }
        key = key << 12 | kind << 8 | payload;
    }
    Some(key)
}

/// How many clean operand lists [`Decoded`] remembers.
const CLEAN_OPERAND_LISTS: usize = 4;

/// Decoding and gating results per mnemonic of a module. Real modules repeat a few dozen
/// mnemonics thousands of times, so a small direct-mapped table (indexed by a cheap hash of the
/// modifier strings, verified by comparing them) keeps `check` close to the cost of name
/// resolution alone.
#[derive(Debug)]
pub struct FormCache {
    /// Empty until the first modelled instruction, then [`FORM_CACHE_SLOTS`] slots, each 0
    /// or one more than the index of its entry in `entries`. A table of small integers and one
    /// vector of entries: few cache lines to look a mnemonic up in.
    slots: RefCell<Vec<u32>>,
    entries: RefCell<Vec<CachedForm>>,
    /// Where the other threads checking the same module leave what they decoded.
    shared: Option<Arc<SharedForms>>,
}

/// Decoding and gating results shared by the threads that check one module (the pieces of
/// `check_source`, the runs of the whole-module check): a thread's [`FormCache`] looks a
/// mnemonic up here before decoding it, and leaves what it decoded. (The
/// same few hundred mnemonics come up in every part of a large module; decoding one and
/// gating it cost a few thousand instructions.)
#[derive(Debug, Default)]
pub struct SharedForms {
    forms: Mutex<FxHashMap<Text, DecodedForm>>,
}

/// A mnemonic decoded, and what the module does not meet of its requirements.
type DecodedForm = (Result<Form, DecodeError>, Option<ptxsim_isa::Unmet>);

/// One entry of [`FormCache`]: a mnemonic and what it decodes to.
#[derive(Debug)]
struct CachedForm {
    /// The [`mnemonic_hash`] of the mnemonic.
    hash: u64,
    /// The opcode and modifiers joined with dots, as written (`cvt.rn.f32.f16`).
    mnemonic: Text,
    decoded: Decoded,
}

/// Number of slots of [`FormCache`] (a power of two).
const FORM_CACHE_SLOTS: usize = 16384;

impl Default for FormCache {
    fn default() -> Self {
        Self::new()
    }
}

impl FormCache {
    /// An empty cache.
    pub fn new() -> Self {
        FormCache {
            slots: RefCell::new(Vec::new()),
            entries: RefCell::new(Vec::new()),
            shared: None,
        }
    }

    /// An empty cache that shares what it decodes with the other caches of `shared`.
    pub fn sharing(shared: Arc<SharedForms>) -> Self {
        FormCache {
            shared: Some(shared),
            ..FormCache::new()
        }
    }

    /// What `mnemonic` (`opcode` and `modifiers` joined with dots) decodes to and what of its
    /// requirements the module does not meet: from the shared results if another thread has
    /// decoded it already.
    fn decode(
        &self,
        setting: &ModuleSetting,
        mnemonic: &Text,
        opcode: &str,
        modifiers: &[&str],
    ) -> DecodedForm {
        let compute = || {
            let form = decode_for(setting, opcode, modifiers);
            let unmet = match (&form, setting.target, setting.version) {
                (Ok(form), Some(target), Some(version)) => {
                    satisfied(&requirements(form), target, version).err()
                }
                _ => None,
            };
            (form, unmet)
        };
        let Some(shared) = &self.shared else {
            return compute();
        };
        // A lock that a panicking thread poisoned is not used: decoding again is always right.
        if let Some(found) = shared
            .forms
            .lock()
            .ok()
            .and_then(|forms| forms.get(mnemonic).cloned())
        {
            return found;
        }
        let decoded = compute();
        if let Ok(mut forms) = shared.forms.lock() {
            forms
                .entry(mnemonic.clone())
                .or_insert_with(|| decoded.clone());
        }
        decoded
    }
}

/// [`decode`] for the module's target: an `.f32` instruction of a `.target sm_1x` module is
/// decoded as CUDA compiles it for a newer device ([`ptxsim_isa::ops::sm_1x_modifiers`]: it
/// flushes subnormals, and `mad.f32` without a rounding modifier is `mad.rn.ftz.f32`); where
/// that form does not decode, the instruction as written is decoded (and its error reported).
pub(crate) fn decode_for(
    setting: &ModuleSetting,
    opcode: &str,
    modifiers: &[&str],
) -> Result<Form, DecodeError> {
    if setting.target.is_some_and(|target| target.number < 20)
        && let Some(adjusted) = ptxsim_isa::ops::sm_1x_modifiers(opcode, modifiers)
        && let Ok(form) = decode(opcode, &adjusted)
    {
        return Ok(form);
    }
    decode(opcode, modifiers)
}

/// A cheap hash of an instruction's opcode and modifiers, reduced to a slot index from its
/// well-mixed high bits: each name contributes its length and its first, second and last bytes
/// (which tell apart the names of a syntax block: `rn`/`rz`, `u32`/`s32`, `f16`/`f32`,
/// `e4m3x2`/`e5m2x2`), not all its bytes: every instruction of a module is looked up, and
/// [`same_mnemonic`] settles the rare collision.
fn mnemonic_hash(instruction: &Instruction) -> u64 {
    let mut hash: u64 = 0;
    for word in std::iter::once(&instruction.opcode).chain(&instruction.modifiers) {
        let bytes = word.value.as_bytes();
        let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
            continue;
        };
        let second = bytes.get(1).copied().unwrap_or(0);
        let summary = (bytes.len() as u64) << 24
            | u64::from(first) << 16
            | u64::from(second) << 8
            | u64::from(last);
        hash = (hash.rotate_left(5) ^ summary).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    hash
}

/// The slot of a [`mnemonic_hash`], from its well-mixed high bits.
fn mnemonic_slot(hash: u64) -> usize {
    (hash >> 50) as usize % FORM_CACHE_SLOTS
}

/// Whether `mnemonic` is this instruction's opcode and modifiers joined with dots. Byte by byte:
/// the words are short, and `starts_with` would call `memcmp` for each.
fn same_mnemonic(mnemonic: &str, instruction: &Instruction) -> bool {
    let mut rest = mnemonic.as_bytes();
    let words = std::iter::once(&instruction.opcode).chain(&instruction.modifiers);
    for (index, word) in words.enumerate() {
        if index > 0 {
            let Some((b'.', after)) = rest.split_first() else {
                return false;
            };
            rest = after;
        }
        let word = word.as_str().as_bytes();
        match rest.get(word.len()..) {
            Some(after) if rest.iter().zip(word).all(|(a, b)| a == b) => rest = after,
            _ => return false,
        }
    }
    rest.is_empty()
}

/// What a per-instruction rule may need to know about the module around the instruction.
#[derive(Debug, Clone, Copy)]
pub struct InstructionContext<'c, 'm> {
    /// The module being checked.
    pub module: &'m Module,
    /// The target and version the module is checked against.
    pub setting: &'c ModuleSetting,
    /// Decoding and gating results already computed for this module.
    pub forms: &'c FormCache,
    /// The operands as the instruction table sees them: each register with its declared type
    /// (scalar `.reg` declarations), immediates, sinks, brace vectors, and `Other` for the rest
    /// (special registers, variables, addresses, vector registers).
    pub operands: &'c [IsaOperand],
    /// The register operands with their declarations, for secondary labels.
    pub registers: &'c [DeclaredRegister],
}

/// Whether the rules check instructions of this opcode with their operands: every opcode except
/// the control transfers (`bra`, `brx`, `call`), whose operands are labels and functions; the
/// resolver records operand types only for these. Opcodes the table knows by name only are
/// checked against their Syntax-block forms ([`ptxsim_isa::syntax`]).
pub fn is_modelled(op: Opcode) -> bool {
    !matches!(op, Opcode::Bra | Opcode::Call | Opcode::Brx)
}

/// The error for an instruction whose opcode is no PTX instruction (ptxas: "Not a name of any
/// known instruction"), with the nearest known name as help.
pub fn unknown_opcode(instruction: &Instruction) -> Diagnostic {
    let opcode = instruction.opcode.as_str();
    let diagnostic = Diagnostic::error(
        UNKNOWN_INSTRUCTION,
        format!("`{opcode}` is not the name of any PTX instruction"),
        instruction.opcode.span,
    );
    match Opcode::nearest(opcode) {
        Some(near) => diagnostic.with_help(format!("did you mean `{near}`?")),
        None => diagnostic,
    }
}

/// The code of a decoding error ([`DecodeErrorKind`]); `None` for opcodes the table does not
/// model, which are not errors.
fn decode_code(kind: DecodeErrorKind) -> Option<&'static str> {
    Some(match kind {
        DecodeErrorKind::UnknownOpcode | DecodeErrorKind::UnsupportedInstruction(_) => {
            return None;
        }
        DecodeErrorKind::UnknownModifier => "E0301",
        DecodeErrorKind::DuplicateModifier => "E0302",
        DecodeErrorKind::ConflictingModifier => "E0303",
        DecodeErrorKind::MissingType => "E0304",
        DecodeErrorKind::ExtraType => "E0305",
        DecodeErrorKind::UnsupportedTypes => "E0306",
    })
}

/// The code of a broken modifier or operand rule ([`RuleCode`]).
fn rule_code(code: RuleCode) -> &'static str {
    match code {
        RuleCode::RoundingRequired => "E0310",
        RuleCode::RoundingIllegal => "E0311",
        RuleCode::FtzIllegal => "E0312",
        RuleCode::SatIllegal => "E0313",
        RuleCode::SatRequired => "E0314",
        RuleCode::ReluIllegal => "E0315",
        RuleCode::SatfiniteIllegal => "E0316",
        RuleCode::SatfiniteRequired => "E0317",
        RuleCode::ScaledIllegal => "E0318",
        RuleCode::TypeModifier => "E0319",
        RuleCode::OperandCount => "E0320",
        RuleCode::OperandShape => "E0321",
        RuleCode::VectorLength => "E0322",
        RuleCode::RegisterType => "E0323",
        RuleCode::SinkIllegal => "E0324",
        RuleCode::LiteralKind => "E0326",
        RuleCode::SpecialRegister => "E0328",
        RuleCode::FunctionAddressType => "E0329",
        RuleCode::ConstantValue => "E0330",
    }
}

/// A variable that is not `.extern` needs a complete type: every array dimension at least 1,
/// and `[]` only with an initializer to size it (ptxas 13.5: "Non-external variable 'g' has
/// incomplete type" for `.global .b8 g[0];`, `.global .b8 g[];`, `.shared .b8 s[0];` in a
/// body, and "Array of incomplete type" for `g[2][0]`). For a kernel's parameters
/// (`parameter`), ptxas says "Parameter to entry function cannot be an incomplete array."; a
/// device function's parameters may be incomplete (`.func f(.param .b8 a[0])` passes), and are
/// not checked here.
pub fn check_complete_type(
    declaration: &VariableDeclaration,
    parameter: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if declaration
        .linkage
        .iter()
        .any(|linkage| linkage.value == ptxsim_syntax::ast::Linkage::Extern)
    {
        return;
    }
    for declarator in &declaration.declarators {
        let zero = declarator
            .dimensions
            .iter()
            .flatten()
            .find(|dimension| dimension.value == 0);
        let without_size =
            declarator.initializer.is_none() && declarator.dimensions.iter().any(Option::is_none);
        let span = match (zero, without_size) {
            (Some(dimension), _) => dimension.span,
            (None, true) => declarator.span,
            (None, false) => continue,
        };
        let name = &declarator.name.value;
        let (message, ptxas) = if parameter {
            (
                format!("kernel parameter `{name}` is an array without elements"),
                "ptxas: Parameter to entry function cannot be an incomplete array.",
            )
        } else {
            (
                format!("`{name}` is an array without elements (an incomplete type)"),
                "ptxas: Non-external variable has incomplete type",
            )
        };
        diagnostics.push(
            Diagnostic::error("E0209", message, span)
                .with_label(declarator.name.span, "declared here")
                .with_help(format!(
                    "give every dimension at least one element, or an initializer for `[]` \
                     ({ptxas})"
                )),
        );
    }
}

/// Checks what a declaration's type needs of the target and version: `.b128` (registers,
/// parameters, variables) needs PTX ISA 8.3 and sm_70, as `mov.b128` does; `.f16x2` sm_53.
pub fn check_declaration(
    setting: &ModuleSetting,
    declaration: &VariableDeclaration,
    diagnostics: &mut Vec<Diagnostic>,
) {
    check_initializer_size(declaration, diagnostics);
    for declarator in &declaration.declarators {
        if let Some(initializer) = &declarator.initializer {
            check_mask_operators(setting, initializer, diagnostics);
        }
    }
    let (Some(target), Some(version)) = (setting.target, setting.version) else {
        return;
    };
    // ptxas 13.5: "Feature '.f16x2 packed data-type' requires .target sm_53 or higher" for a
    // `.f16x2` declaration (PTX ISA 5.2.2: `.f16x2` introduced in 4.2, sm_53).
    if let Some(word) = declaration.words().find(|word| word.value == "f16x2") {
        gate_feature(
            setting,
            ".f16x2 packed data-type",
            word.span,
            53,
            PtxVersion::new(4, 2),
            diagnostics,
        );
    }
    for word in declaration.words().filter(|word| word.value == "b128") {
        if let Err(unmet) = satisfied(&b128_declaration(), target, version) {
            for gate in &unmet.gates {
                diagnostics.push(gate_diagnostic(
                    setting,
                    word.span,
                    &unmet.instruction,
                    target,
                    version,
                    gate,
                ));
            }
        }
    }
}

/// Gates `.alias` (PTX ISA 9.0, 11.6.5 ".alias": PTX ISA 6.3, sm_30; ptxas 13.5: "Feature
/// '.alias' requires PTX ISA .version 6.3 or later", "... requires .target sm_30 or higher").
pub(crate) fn check_alias_gate(
    setting: &ModuleSetting,
    span: Span,
    diagnostics: &mut Vec<Diagnostic>,
) {
    gate_feature(
        setting,
        ".alias",
        span,
        30,
        PtxVersion::new(6, 3),
        diagnostics,
    );
}

/// The mask operators of an initializer (`0xFF00(generic(p)+3)`, PTX ISA 9.0, 5.4.4
/// "Initializers": a mask of the form `0xFF << 8k` selects one byte of an address or an
/// integer). ptxas 13.5 takes a mask of any spelling whose value is `0xFF << 8k` and refuses
/// others ("Invalid mask value '0xf0' used in initializer"), a negative one ("Parsing error"),
/// and a floating-point value inside ("Integer constant expression expected") (E0229); it
/// gates the operator at PTX ISA 7.1 ("Feature 'mask operator in initializer' requires PTX
/// ISA .version 7.1 or later") and an integer inside it at 7.2 ("Feature 'Integer immediate
/// in mask operator' requires PTX ISA .version 7.2 or later") (E0402).
fn check_mask_operators(
    setting: &ModuleSetting,
    initializer: &Initializer,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match initializer {
        Initializer::List(list) => {
            for item in &list.value {
                check_mask_operators(setting, item, diagnostics);
            }
        }
        Initializer::Mask { span, mask, value } => {
            let byte_mask = match mask.value.value {
                ImmediateValue::Integer { value, .. } => {
                    !mask.value.negative
                        && value != 0
                        && value.trailing_zeros() % 8 == 0
                        && value >> value.trailing_zeros() == 0xFF
                }
                _ => false,
            };
            if !byte_mask {
                diagnostics.push(
                    Diagnostic::error(
                        "E0229",
                        format!("`{}` is not a byte mask", mask.value),
                        mask.span,
                    )
                    .with_help(
                        "a mask operator takes 0xFF, 0xFF00, ... 0xFF00000000000000 \
                         (ptxas: Invalid mask value used in initializer)",
                    ),
                );
            }
            gate_feature(
                setting,
                "mask operator in initializer",
                *span,
                0,
                PtxVersion::new(7, 1),
                diagnostics,
            );
            if let Initializer::Immediate(immediate) = value.as_ref() {
                if !matches!(immediate.value.value, ImmediateValue::Integer { .. }) {
                    diagnostics.push(
                        Diagnostic::error(
                            "E0229",
                            "a mask operator takes an address or an integer",
                            immediate.span,
                        )
                        .with_help("ptxas: Integer constant expression expected"),
                    );
                }
                gate_feature(
                    setting,
                    "integer immediate in mask operator",
                    immediate.span,
                    0,
                    PtxVersion::new(7, 2),
                    diagnostics,
                );
            }
        }
        Initializer::Immediate(_) | Initializer::Address { .. } | Initializer::Property { .. } => {}
    }
}

/// An array initializer with more elements than the array (ptxas 13.5: "Greater number of
/// elements in array initializer"); fewer are fine (the rest is zero). In a declaration of
/// vectors the braces one level inside the array's are the vectors: each must have exactly the
/// vector's length (ptxas 13.5: "Incorrect number of elements in vector initializer" for
/// `.v2 .u32 tab = {1,2,3}` and `.v4 .u32 tab[1] = {{1,2}}`), and the array's levels are
/// checked as for scalars (`.v2 .u32 tab[1][2] = {{{1,2},{3,4}},{{1,2},{3,4}}}`: "Greater
/// number of elements in array initializer").
fn check_initializer_size(declaration: &VariableDeclaration, diagnostics: &mut Vec<Diagnostic>) {
    let vector = declaration
        .words()
        .find_map(|word| match word.value.as_str() {
            "v2" => Some(2u64),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        });
    for declarator in &declaration.declarators {
        let Some(initializer) = &declarator.initializer else {
            continue;
        };
        if let Some(vector) = vector {
            if let Some((span, count)) =
                wrong_vector_length(initializer, declarator.dimensions.len(), vector)
            {
                diagnostics.push(
                    Diagnostic::error(
                        "E0208",
                        format!(
                            "this vector initializer has {count} elements; a .v{vector} vector \
                             has {vector}"
                        ),
                        span,
                    )
                    .with_label(declarator.name.span, "declared here")
                    .with_help(format!("write each vector as {vector} elements in braces")),
                );
                continue;
            }
            // The array's levels only: the vectors' braces are the elements.
            let Initializer::List(_) = initializer.as_ref() else {
                continue;
            };
            if declarator.dimensions.is_empty()
                || !nested_to(initializer, declarator.dimensions.len())
            {
                continue;
            }
        }
        // `[]` takes its size from the initializer.
        let Some(dimensions) = declarator
            .dimensions
            .iter()
            .map(|d| d.as_ref().map(|d| d.value))
            .collect::<Option<Vec<u64>>>()
        else {
            continue;
        };
        if let Some((span, count, room)) = initializer_too_long(initializer, &dimensions) {
            diagnostics.push(
                Diagnostic::error(
                    "E0204",
                    format!(
                        "this initializer has {count} elements; `{}` has room for {room}",
                        declarator.name.value
                    ),
                    span,
                )
                .with_label(declarator.name.span, "declared here")
                .with_help("drop the extra elements or make the array larger"),
            );
        }
    }
}

/// The first list of `initializer` at `depth` levels of braces below its own (the vectors of a
/// declaration of vectors with `depth` array dimensions) whose length is not `vector`: its span
/// and its length. A list of lists at that depth is left alone (another rule's).
fn wrong_vector_length(
    initializer: &Initializer,
    depth: usize,
    vector: u64,
) -> Option<(Span, u64)> {
    let Initializer::List(list) = initializer else {
        return None;
    };
    if depth == 0 {
        let nested = list
            .value
            .iter()
            .any(|element| matches!(element, Initializer::List(_)));
        let count = list.value.len() as u64;
        return (!nested && count != vector).then_some((list.span, count));
    }
    list.value
        .iter()
        .find_map(|element| wrong_vector_length(element, depth - 1, vector))
}

/// Whether `initializer` has lists down to `depth` levels below its own on its first path
/// (a declaration of vectors written with the vectors' braces, not flat).
fn nested_to(initializer: &Initializer, depth: usize) -> bool {
    match initializer {
        Initializer::List(_) if depth == 0 => true,
        Initializer::List(list) => list
            .value
            .first()
            .is_some_and(|first| nested_to(first, depth - 1)),
        _ => false,
    }
}

/// The first brace list of `initializer` with more elements than `dimensions` allow: its span,
/// its count and the room.
fn initializer_too_long(initializer: &Initializer, dimensions: &[u64]) -> Option<(Span, u64, u64)> {
    let Initializer::List(list) = initializer else {
        return None;
    };
    let (&first, rest) = dimensions.split_first()?;
    let count = list.value.len() as u64;
    let nested = list
        .value
        .iter()
        .any(|element| matches!(element, Initializer::List(_)));
    if nested && !rest.is_empty() {
        if count > first {
            return Some((list.span, count, first));
        }
        return list
            .value
            .iter()
            .find_map(|element| initializer_too_long(element, rest));
    }
    // A flat list fills the whole array in order.
    let room = dimensions
        .iter()
        .fold(1u64, |room, &d| room.saturating_mul(d));
    (count > room).then_some((list.span, count, room))
}

/// The kind of literal an immediate operand was written as, for the operand rules.
pub fn literal_kind(immediate: &Immediate) -> Literal {
    match immediate.value {
        ImmediateValue::Integer { .. } => Literal::Integer,
        ImmediateValue::F32Bits(_) => Literal::F32Bits,
        ImmediateValue::F64Bits(_) => Literal::F64Bits,
        ImmediateValue::Decimal(_) => Literal::Decimal,
    }
}

/// A negated `0f` literal.
const NEGATED_F32_BITS: &str = "E0327";

/// ptxas cannot parse a `0f` literal with a minus sign (`-0f3F800000`: "Parsing error near
/// '0f3F800000'"), although it takes `-0d...`, `-1.5` and `-0x5`. The fix writes the sign into
/// the bits.
#[inline]
pub fn check_negated_f32_bits(instruction: &Instruction, diagnostics: &mut Vec<Diagnostic>) {
    fn visit(operand: &Operand, diagnostics: &mut Vec<Diagnostic>) {
        match operand {
            Operand::Immediate(immediate) => {
                if let (true, ImmediateValue::F32Bits(bits)) =
                    (immediate.value.negative, &immediate.value.value)
                {
                    let flipped = format!("0f{:08X}", bits ^ 0x8000_0000);
                    diagnostics.push(
                        Diagnostic::error(
                            NEGATED_F32_BITS,
                            "a `0f` literal cannot take a minus sign (ptxas does not parse it)",
                            immediate.span,
                        )
                        .with_help(format!("write the sign in the bits: `{flipped}`"))
                        .with_fix(immediate.span, flipped),
                    );
                }
            }
            Operand::Vector(list) | Operand::List(list) => {
                for element in &list.value {
                    visit(element, diagnostics);
                }
            }
            _ => {}
        }
    }
    for operand in &instruction.operands {
        // Names and addresses, most operands, hold no literal.
        if matches!(
            operand,
            Operand::Immediate(_) | Operand::Vector(_) | Operand::List(_)
        ) {
            visit(operand, diagnostics);
        }
    }
}

/// An immediate address outside the `.local` state space.
const IMMEDIATE_ADDRESS: &str = "E0325";
/// A number as the handle of a `[handle, coordinates]` operand.
const ADDRESS_LIST_NUMBER: &str = "E0236";

/// The special registers that need a newer target or PTX ISA version than every module has,
/// with what they need (PTX ISA 9.0, "Special Registers": `%clusterid` etc. "Introduced in PTX
/// ISA version 7.8 ... Requires sm_90 or higher"; `%aggr_smem_size` 8.1 and sm_90;
/// `%reserved_smem_offset_*` 7.6 and sm_80; `%current_graph_exec` 8.0 and sm_50). ptxas 13.5:
/// "Feature '%cluster_ctarank' requires .target sm_90 or higher", "... requires PTX ISA
/// .version 7.8 or later".
///
/// The older ones, measured with ptxas 13.5 on sm_10-sm_30 at PTX ISA 1.0-4.0 (the ISA: "%nwarpid
/// ... Introduced in PTX ISA version 2.0. Requires sm_20 or higher", the same for `%lanemask_*`
/// and `%clock64`; `%dynamic_smem_size`, `%total_smem_size` "Introduced in PTX ISA version
/// 4.1"): "Feature '%nwarpid' requires PTX ISA .version 2.0 or later", "... requires .target
/// sm_20 or higher".
const SPECIAL_REGISTER_GATES: [(&str, u32, PtxVersion); 16] = [
    ("%nwarpid", 20, PtxVersion::new(2, 0)),
    ("%lanemask_", 20, PtxVersion::new(2, 0)),
    ("%clock64", 20, PtxVersion::new(2, 0)),
    ("%dynamic_smem_size", 20, PtxVersion::new(4, 1)),
    ("%total_smem_size", 20, PtxVersion::new(4, 1)),
    ("%cluster_ctaid", 90, PtxVersion::new(7, 8)),
    ("%cluster_nctaid", 90, PtxVersion::new(7, 8)),
    ("%cluster_ctarank", 90, PtxVersion::new(7, 8)),
    ("%cluster_nctarank", 90, PtxVersion::new(7, 8)),
    ("%clusterid", 90, PtxVersion::new(7, 8)),
    ("%nclusterid", 90, PtxVersion::new(7, 8)),
    ("%is_explicit_cluster", 90, PtxVersion::new(7, 8)),
    ("%aggr_smem_size", 90, PtxVersion::new(8, 1)),
    ("%reserved_smem_offset_", 80, PtxVersion::new(7, 6)),
    ("%current_graph_exec", 50, PtxVersion::new(8, 0)),
    ("%globaltimer", 30, PtxVersion::new(3, 1)),
];

/// Reports a special register the module's target or `.version` does not have (E0401, E0402),
/// at the register.
pub fn check_special_register(
    setting: &ModuleSetting,
    name: &str,
    span: Span,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let base = name.split('.').next().unwrap_or(name);
    let Some(&(_, sm, needed)) = SPECIAL_REGISTER_GATES.iter().find(|(register, _, _)| {
        if register.ends_with('_') {
            base.starts_with(register)
        } else {
            base == *register
                || base
                    .strip_prefix(register)
                    .is_some_and(|rest| rest == "_lo" || rest == "_hi")
        }
    }) else {
        return;
    };
    gate_feature(setting, base, span, sm, needed, diagnostics);
}

/// The directives of a function header (PTX ISA 11.4, "Performance-Tuning Directives", and
/// 11.5, "Cluster Dimension Directives"), each with the kind of function it belongs to, the
/// number of values it takes and the first target and version that have it. Probed on ptxas
/// 13.5 by `scripts/conformance/modgen.py`: a directive on the wrong kind of function, an
/// unknown one or one with too many values is "Parsing error near '.maxnreg'"; `.maxnctapersm`
/// is "Deprecated feature: '.maxnctapersm directive' not supported as of PTX version 2.1";
/// the cluster directives need sm_90 ("Introduced in PTX ISA version 7.8. Requires sm_90 or
/// higher"; ptxas: "Feature '.reqnctapercluster' requires .target sm_90 or higher"),
/// `.blocksareclusters` PTX ISA 9.0 and sm_90, `.abi_preserve` and `.abi_preserve_control`
/// PTX ISA 9.0.
struct HeaderDirective {
    name: &'static str,
    entry: bool,
    values: std::ops::RangeInclusive<usize>,
    sm: u32,
    version: PtxVersion,
}

const fn directive(
    name: &'static str,
    entry: bool,
    values: std::ops::RangeInclusive<usize>,
    sm: u32,
    version: (u8, u8),
) -> HeaderDirective {
    HeaderDirective {
        name,
        entry,
        values,
        sm,
        version: PtxVersion::new(version.0, version.1),
    }
}

const HEADER_DIRECTIVES: &[HeaderDirective] = &[
    directive("maxnreg", true, 1..=1, 0, (1, 3)),
    directive("maxntid", true, 1..=3, 0, (1, 0)),
    directive("reqntid", true, 1..=3, 0, (2, 1)),
    directive("minnctapersm", true, 1..=1, 0, (2, 0)),
    directive("noreturn", false, 0..=0, 0, (6, 4)),
    directive("reqnctapercluster", true, 1..=3, 90, (7, 0)),
    directive("explicitcluster", true, 0..=0, 90, (7, 0)),
    directive("maxclusterrank", true, 1..=1, 90, (7, 0)),
    directive("blocksareclusters", true, 0..=0, 90, (9, 0)),
    directive("abi_preserve", false, 1..=1, 0, (9, 0)),
    directive("abi_preserve_control", false, 1..=1, 0, (9, 0)),
];

/// Checks the directives of `function`'s header against `HEADER_DIRECTIVES` (E0218, and the
/// gates E0401/E0402), and the values ptxas 13.5 refuses: 0 for `.maxnreg`, `.maxntid`,
/// `.reqntid` and `.minnctapersm` ("Positive non-zero value expected for maxntid"), both
/// `.maxntid` and `.reqntid` ("Conflicting directives: .maxntid and .reqntid cannot both be
/// specified"; also `.reqnctapercluster` with `.maxclusterrank`), `.blocksareclusters` without `.reqntid` and `.reqnctapercluster` (".reqntid
/// and .reqnctapercluster directive(s) required for directive .blocksareclusters"), `.noreturn`
/// twice or on a function with return parameters ("Invalid directive '.noreturn' for function
/// 'f'"; 11.4.6, ".noreturn": "The `.noreturn` directive cannot be specified on functions
/// which have return parameters").
pub fn check_function_directives(
    setting: &ModuleSetting,
    function: &ptxsim_syntax::ast::Function,
    diagnostics: &mut Vec<Diagnostic>,
) {
    use ptxsim_syntax::ast::{FunctionDirective, FunctionKind};
    let entry = function.kind.value == FunctionKind::Entry;
    let mut seen: Vec<&str> = Vec::new();
    for item in &function.directives {
        let (span, name, values) = match item {
            FunctionDirective::Performance { span, name, values } => (span, name, values),
            // ptxas 13.5: "Parsing error near '{'" after a device function's `.pragma`;
            // "Pragma 'used_bytes_mask 0xff' is allowed only within function scope" (also
            // `enable_smem_spilling`) in a kernel's header.
            FunctionDirective::Pragma(text)
                if !entry
                    || text
                        .as_str()
                        .trim_matches('"')
                        .starts_with("used_bytes_mask")
                    || text.as_str().trim_matches('"') == "enable_smem_spilling" =>
            {
                diagnostics.push(Diagnostic::error(
                    "E0218",
                    if entry {
                        "this `.pragma` belongs in the function body"
                    } else {
                        "a `.pragma` between the parameters and the body is for kernels only"
                    },
                    text.span,
                ));
                continue;
            }
            FunctionDirective::Pragma(_) => continue,
        };
        let word = name.as_str();
        let known = HEADER_DIRECTIVES.iter().find(|known| known.name == word);
        let problem = match known {
            None if word == "maxnctapersm" && entry => Some(
                "`.maxnctapersm` is deprecated since PTX ISA 2.1 (ptxas: Deprecated feature: \
                 '.maxnctapersm directive' not supported as of PTX version 2.1)"
                    .to_string(),
            ),
            None => Some(format!("unknown function directive `.{word}`")),
            Some(known) if known.entry != entry => Some(format!(
                "`.{word}` is a directive of {}",
                if known.entry {
                    "kernels (`.entry`), not of device functions"
                } else {
                    "device functions (`.func`), not of kernels"
                }
            )),
            Some(known) if !known.values.contains(&values.len()) => Some(format!(
                "`.{word}` takes {} value{}",
                if known.values.start() == known.values.end() {
                    known.values.start().to_string()
                } else {
                    format!("{} to {}", known.values.start(), known.values.end())
                },
                if *known.values.end() == 1 { "" } else { "s" }
            )),
            Some(_)
                if matches!(word, "maxnreg" | "maxntid" | "reqntid" | "minnctapersm")
                    && values.iter().any(|value| value.value == 0) =>
            {
                Some(format!(
                    "`.{word}` takes positive values (ptxas: Positive non-zero value expected \
                     for {word})"
                ))
            }
            Some(_)
                if word == "noreturn" && (seen.contains(&word) || function.returns.is_some()) =>
            {
                Some(format!(
                    "`.noreturn` is written once, on a function without return parameters \
                     (ptxas: Invalid directive '.noreturn' for function '{}')",
                    function.name.value
                ))
            }
            Some(known) => {
                gate_feature(
                    setting,
                    &format!(".{word}"),
                    name.span,
                    known.sm,
                    known.version,
                    diagnostics,
                );
                None
            }
        };
        if let Some(message) = problem {
            diagnostics.push(Diagnostic::error("E0218", message, *span));
        }
        seen.push(word);
    }
    let conflict = if seen.contains(&"maxntid") && seen.contains(&"reqntid") {
        Some("`.maxntid` and `.reqntid` cannot both be given (ptxas: Conflicting directives)")
    } else if seen.contains(&"reqnctapercluster") && seen.contains(&"maxclusterrank") {
        Some(
            "`.reqnctapercluster` and `.maxclusterrank` cannot both be given (ptxas: \
             Conflicting directives)",
        )
    } else if seen.contains(&"blocksareclusters")
        && !(seen.contains(&"reqntid") && seen.contains(&"reqnctapercluster"))
    {
        Some(
            "`.blocksareclusters` needs `.reqntid` and `.reqnctapercluster` (ptxas: .reqntid and \
             .reqnctapercluster directive(s) required for directive .blocksareclusters)",
        )
    } else {
        None
    };
    if let Some(message) = conflict {
        diagnostics.push(Diagnostic::error("E0218", message, function.name.span));
    }
}

/// A `.section` of DWARF data (PTX ISA 11.8.3, ".section"): its data lines are `.b8`, `.b16`,
/// `.b32` or `.b64` (ptxas 13.5: "Illegal type for dwarf data" for `.u32`, `.f32`, `.b128`;
/// E0225), and labels in it need PTX ISA 7.0 (ptxas 13.5: "Feature 'Defining labels in
/// .section' requires PTX ISA .version 7.0 or later"; E0402).
pub fn check_section(
    setting: &ModuleSetting,
    section: &ptxsim_syntax::ast::Section,
    diagnostics: &mut Vec<Diagnostic>,
) {
    use ptxsim_syntax::ast::SectionEntry;
    let mut label_gated = false;
    for entry in &section.entries {
        match entry {
            SectionEntry::Label(label) if !label_gated => {
                label_gated = true;
                gate_feature(
                    setting,
                    "a label in a .section",
                    label.span,
                    0,
                    PtxVersion::new(7, 0),
                    diagnostics,
                );
            }
            SectionEntry::Data { ty, .. }
                if !matches!(ty.value.as_str(), "b8" | "b16" | "b32" | "b64") =>
            {
                diagnostics.push(
                    Diagnostic::error(
                        "E0225",
                        format!(
                            "`.{}` is no type of DWARF data: .b8, .b16, .b32 or .b64",
                            ty.value
                        ),
                        ty.span,
                    )
                    .with_help("ptxas: Illegal type for dwarf data"),
                );
            }
            SectionEntry::Data { ty, values, .. } => {
                let bits = match ty.value.as_str() {
                    "b8" => 8,
                    "b16" => 16,
                    "b32" => 32,
                    _ => 64,
                };
                // ptxas 13.5: "Value out of range for type .b8 1024".
                let too_large = values.iter().find_map(|value| match value {
                    ptxsim_syntax::ast::SectionValue::Integer(number)
                        if bits < 64 && number.value >> bits != 0 =>
                    {
                        Some(number)
                    }
                    _ => None,
                });
                if let Some(number) = too_large {
                    diagnostics.push(Diagnostic::error(
                        "E0225",
                        format!("{} does not fit `.{}`", number.value, ty.value),
                        number.span,
                    ));
                }
            }
            SectionEntry::Label(_) => {}
        }
    }
}

/// Reports `feature` (a special register, a directive) where the module's `.version` is older
/// than `needed` (E0402) or its target older than `sm_{sm}` (E0401), at `span`.
/// The operand-dependent requirements of `mbarrier.arrive` (a count below sm_90, the sink as
/// the state at PTX ISA 7.0: [`ptxsim_isa::op_layout::mbarrier_arrive_requirements`]); the
/// decoded form's gates key on modifiers, so they are checked here.
fn check_mbarrier_arrive(
    setting: &ModuleSetting,
    form: &ptxsim_isa::ops::OpForm,
    instruction: &Instruction,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let sink = matches!(instruction.operands.first(), Some(Operand::Sink(_)));
    for (feature, sm, needed) in
        ptxsim_isa::op_layout::mbarrier_arrive_requirements(form, instruction.operands.len(), sink)
    {
        gate_feature(setting, feature, instruction.span, sm, needed, diagnostics);
    }
}

/// Gates the pragmas of a function body by the module's `.version` (PTX ISA 11.4.11,
/// ".pragma"; ptxas 13.5: "Feature 'used_bytes_mask' requires PTX ISA .version 8.3 or later",
/// "Feature 'enable_smem_spilling' requires PTX ISA .version 8.7 or later"; nvcc 13.5 emits
/// `.pragma "used_bytes_mask 12";` before vector loads). `"nounroll"` has no gate.
pub fn check_body_pragma(
    setting: &ModuleSetting,
    text: &Spanned<Text>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let pragma = text.as_str().trim_matches('"');
    let needed = if pragma.starts_with("used_bytes_mask") {
        ("used_bytes_mask", PtxVersion::new(8, 3))
    } else if pragma == "enable_smem_spilling" {
        ("enable_smem_spilling", PtxVersion::new(8, 7))
    } else {
        return;
    };
    gate_feature(setting, needed.0, text.span, 0, needed.1, diagnostics);
}

fn gate_feature(
    setting: &ModuleSetting,
    feature: &str,
    span: Span,
    sm: u32,
    needed: PtxVersion,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if let Some(version) = setting.version
        && version < needed
    {
        let mut diagnostic = Diagnostic::error(
            VERSION_REQUIRED,
            format!(
                "`{feature}` needs PTX ISA version {needed} or later; this module declares \
                 .version {version}"
            ),
            span,
        )
        .with_help(format!("raise the module's version to `.version {needed}`"));
        if let Some(version_span) = setting.version_span {
            diagnostic = diagnostic
                .with_label(version_span, format!(".version {version} declared here"))
                .with_fix(version_span, format!(".version {needed}"));
        }
        diagnostics.push(diagnostic);
    }
    if let Some(target) = setting.target
        && target.number < sm
    {
        let diagnostic = Diagnostic::error(
            TARGET_REQUIRED,
            format!(
                "`{feature}` needs sm_{sm} or later; {}",
                setting.targets_in_words(target)
            ),
            span,
        );
        diagnostics.push(setting.target_label(diagnostic));
    }
}

/// ptxas: "Immediate addresses allowed only for .local state space". An instruction whose
/// memory operand is a bare number, `[imm]`, must name `.local`; the generic space and every
/// other space reject it, on every instruction with a memory operand (ptxas 13.5: `ld`, `st`,
/// `atom`, `prefetch`, `prefetchu`, `cp.async`, `cp.async.bulk`, `mbarrier`, `ldmatrix`,
/// `stmatrix`, `wmma.load`, `multimem`, `applypriority`, `discard`, `createpolicy.range`,
/// `clusterlaunchcontrol`, `tcgen05.alloc`, ...; the `tcgen05` tensor-memory address, `txq`
/// and `suq` reject it with messages of their own; tests/conformance/isagen-probes.tsv).
pub fn check_immediate_address(instruction: &Instruction, diagnostics: &mut Vec<Diagnostic>) {
    if instruction.modifiers.iter().any(|m| m.value == "local") {
        return;
    }
    for operand in &instruction.operands {
        // `[handle, coordinates]` (tex, tld4, suld, sust, sured, cp.async.bulk.tensor): the
        // first element names a texture, surface or tensor map; ptxas 13.5 stops at a number
        // there ("Parsing error near ','").
        if let Operand::AddressList(list) = operand
            && let Some(Operand::Immediate(first)) = list.value.first()
        {
            diagnostics.push(Diagnostic::error(
                ADDRESS_LIST_NUMBER,
                "the first element of `[...]` is a texture, surface or tensor-map reference (a \
                 name or a `.u64`/`.b64` register), not a number",
                first.span,
            ));
        }
        if let Operand::Address(address) = operand
            && let AddressBase::Immediate(_) = address.base
        {
            let space = instruction
                .modifiers
                .iter()
                .find(|m| {
                    let v = m.value.as_str();
                    matches!(v, "global" | "const" | "param" | "shared")
                        || v.starts_with("shared::")
                })
                .map_or("the generic address space".to_string(), |m| {
                    format!("`.{}`", m.value)
                });
            diagnostics.push(
                Diagnostic::error(
                    IMMEDIATE_ADDRESS,
                    format!(
                        "an immediate address is allowed only in the `.local` state space, not \
                         in {space}"
                    ),
                    operand.span(),
                )
                .with_help(
                    "put the address in a register (`mov.u64 %rd1, ADDRESS;` then `[%rd1]`), \
                     or address a variable by name (`[var+OFFSET]`)",
                ),
            );
        }
    }
}

/// No PTX instruction has this name.
const UNKNOWN_INSTRUCTION: &str = "E0300";
/// An instruction needs a target the module does not have.
const TARGET_REQUIRED: &str = "E0401";
/// An instruction needs a later `.version`.
const VERSION_REQUIRED: &str = "E0402";
/// The `.version` does not support the `.target`.
const MODULE_VERSION_TARGET: &str = "E0403";
/// The `.target` names no architecture ptxas knows.
const UNKNOWN_TARGET: &str = "E0404";

/// [`integer_operand`] of every operand, in order.
fn integer_operands(instruction: &Instruction) -> Vec<Option<i128>> {
    (0..instruction.operands.len())
        .map(|index| integer_operand(instruction, index))
        .collect()
}

/// The value of operand `index` when it is an integer literal (signed).
fn integer_operand(instruction: &Instruction, index: usize) -> Option<i128> {
    match instruction.operands.get(index) {
        Some(Operand::Immediate(immediate)) => match immediate.value.value {
            ImmediateValue::Integer { value, .. } => {
                let value = i128::from(value);
                Some(if immediate.value.negative {
                    -value
                } else {
                    value
                })
            }
            _ => None,
        },
        _ => None,
    }
}

/// Checks one instruction of a decoded opcode against the instruction table: its modifiers,
/// its operands (as [`InstructionContext::operands`] gives them) and what it needs of the
/// target and version. Other opcodes are accepted.
pub fn check_instruction(
    context: &InstructionContext<'_, '_>,
    instruction: &Instruction,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let (Ok(mut slots), Ok(mut entries)) = (
        context.forms.slots.try_borrow_mut(),
        context.forms.entries.try_borrow_mut(),
    ) else {
        return;
    };
    if slots.is_empty() {
        slots.resize(FORM_CACHE_SLOTS, 0);
    }
    // tex/tld4 `d|p` (9.7.10.3), on the forms ptxsim runs and those it does not: ptxas 13.5
    // "Feature 'Texture instruction with optional predicate result' requires PTX ISA .version
    // 7.1 or later".
    if matches!(instruction.opcode.as_str(), "tex" | "tld4")
        && let Some(Operand::Pair(span, ..)) = instruction.operands.first()
    {
        gate_feature(
            context.setting,
            "a texture instruction with a predicate result",
            *span,
            0,
            PtxVersion::new(7, 1),
            diagnostics,
        );
    }
    // `min`/`max` with three inputs (PTX ISA 8.8, sm_100: `min{.ftz}{.NaN}{.abs}.f32 d, a, b,
    // c`) have their own Syntax-block line: the operand count picks it, which the decoded
    // form (modifiers only) cannot.
    if matches!(instruction.opcode.as_str(), "min" | "max") && instruction.operands.len() == 4 {
        let opcode = Opcode::from_name(instruction.opcode.as_str());
        if let Some(opcode) = opcode {
            let modifiers = instruction.modifier_names();
            let mnemonic = std::iter::once(instruction.opcode.as_str())
                .chain(modifiers.iter().copied())
                .collect::<Vec<_>>()
                .join(".");
            check_syntax_form(
                context,
                instruction,
                opcode,
                &mnemonic,
                &modifiers,
                diagnostics,
            );
            return;
        }
    }
    let hash = mnemonic_hash(instruction);
    let Some(slot) = slots.get_mut(mnemonic_slot(hash)) else {
        return;
    };
    let taken = (*slot as usize)
        .checked_sub(1)
        .filter(|&index| index < entries.len());
    let found = taken.filter(|&index| {
        entries[index].hash == hash && same_mnemonic(&entries[index].mnemonic, instruction)
    });
    let index = match (found, taken) {
        (Some(index), _) => index,
        (None, taken) => {
            let modifiers = instruction.modifier_names();
            let mut mnemonic = Text::from(instruction.opcode.as_str());
            for modifier in &modifiers {
                mnemonic.push('.');
                mnemonic.push_str(modifier);
            }
            let (form, unmet) = context.forms.decode(
                context.setting,
                &mnemonic,
                instruction.opcode.as_str(),
                &modifiers,
            );
            let entry = CachedForm {
                hash,
                mnemonic,
                decoded: Decoded {
                    decoded: form.is_ok(),
                    form: Box::new(form),
                    unmet: unmet.map(Box::new),
                    clean_keys: [u64::MAX; CLEAN_OPERAND_LISTS],
                    clean_next: 0,
                    clean: Vec::new(),
                },
            };
            // Another mnemonic in the slot is replaced.
            if let Some(index) = taken {
                entries[index] = entry;
                index
            } else {
                let Ok(number) = u32::try_from(entries.len() + 1) else {
                    return;
                };
                entries.push(entry);
                *slot = number;
                entries.len() - 1
            }
        }
    };
    let Some(CachedForm {
        mnemonic, decoded, ..
    }) = entries.get_mut(index)
    else {
        return;
    };
    let key = operands_key(context.operands);
    // A value rule the operand kinds do not show (checked whatever the cache says):
    // cp.async's cp-size, mbarrier.init's count, setmaxnreg's register count, bfe/bfi's position
    // and length.
    if let Ok(Form::Op(op)) = &*decoded.form {
        let violation = match op.form {
            ptxsim_isa::ops::OpForm::CpAsync { .. } => ptxsim_isa::op_layout::cp_size_violation(
                &op.form,
                integer_operand(instruction, 2).and_then(|v| u64::try_from(v).ok()),
            )
            .or_else(|| {
                ptxsim_isa::op_layout::src_size_violation(&op.form, &integer_operands(instruction))
            }),
            ptxsim_isa::ops::OpForm::CacheAdvice | ptxsim_isa::ops::OpForm::FenceProxyAcquire => {
                ptxsim_isa::op_layout::line_size_violation(
                    &op.form,
                    integer_operand(instruction, 1).and_then(|v| u64::try_from(v).ok()),
                )
            }
            ptxsim_isa::ops::OpForm::Wmma(form) => {
                if let Some(version) = context.setting.version
                    && let Some(rule) = ptxsim_isa::wmma::version_rule(&form, version)
                {
                    diagnostics.push(
                        Diagnostic::error("E0301", rule, instruction.opcode.span)
                            .with_help("ptxas decides wmma's .aligned and .satfinite by .version"),
                    );
                }
                None
            }
            ptxsim_isa::ops::OpForm::Fma { .. } if op.opcode == ptxsim_isa::Opcode::Mad => {
                let modifiers: Vec<&str> = instruction
                    .modifiers
                    .iter()
                    .map(|m| m.value.as_str())
                    .collect();
                if let Some(version) = context.setting.version
                    && let Some(rule) = ptxsim_isa::ops::mad_rounding_rule(
                        &modifiers,
                        version,
                        context.setting.target.map(|target| target.number),
                    )
                {
                    diagnostics.push(
                        Diagnostic::error("E0306", rule, instruction.opcode.span).with_help(
                            "ptxas decides mad.f32's rounding modifier by .version and .target",
                        ),
                    );
                }
                None
            }
            ptxsim_isa::ops::OpForm::Mbarrier { .. } => {
                check_mbarrier_arrive(context.setting, &op.form, instruction, diagnostics);
                let values = integer_operands(instruction);
                ptxsim_isa::op_layout::mbarrier_count_violation(
                    &op.form,
                    integer_operand(instruction, 1),
                )
                .or_else(|| ptxsim_isa::op_layout::mbarrier_value_violation(&op.form, &values))
            }
            ptxsim_isa::ops::OpForm::TensormapReplace { .. } => {
                ptxsim_isa::op_layout::tensormap_value_violation(
                    &op.form,
                    &integer_operands(instruction),
                    context.setting.target,
                    context.setting.version,
                )
            }
            ptxsim_isa::ops::OpForm::Barrier { .. } => {
                ptxsim_isa::op_layout::barrier_number_violation(
                    &op.form,
                    &integer_operands(instruction),
                )
            }
            ptxsim_isa::ops::OpForm::Bfe { .. } | ptxsim_isa::ops::OpForm::Bfi { .. } => {
                ptxsim_isa::op_layout::bit_field_violation(&op.form, &integer_operands(instruction))
            }
            ptxsim_isa::ops::OpForm::Setmaxnreg { .. } => {
                ptxsim_isa::op_layout::setmaxnreg_count_violation(
                    &op.form,
                    integer_operand(instruction, 0),
                )
            }
            ptxsim_isa::ops::OpForm::Mma(form) if form.sparse.is_some() => {
                ptxsim_isa::op_layout::sparsity_selector_violation(
                    &op.form,
                    integer_operand(instruction, 5),
                )
            }
            ptxsim_isa::ops::OpForm::CpAsyncBulkTensor { .. }
            | ptxsim_isa::ops::OpForm::CpAsyncBulkPrefetchTensor { .. } => {
                // The coordinates of `[tensorMap, tensorCoords]`, when the operand is one.
                ptxsim_isa::op_layout::tensor_coordinates(&op.form).and_then(|(index, _)| {
                    let Some(Operand::AddressList(items)) = instruction.operands.get(index) else {
                        return None;
                    };
                    let length = match items.value.get(1)? {
                        Operand::Vector(elements) => Some(elements.value.len()),
                        _ => None,
                    };
                    ptxsim_isa::op_layout::tensor_coordinates_violation(&op.form, length)
                })
            }
            ptxsim_isa::ops::OpForm::Wgmma(ptxsim_isa::wgmma::WgmmaOp::Mma(form)) => {
                let a_from_registers =
                    matches!(instruction.operands.get(1), Some(Operand::Vector(_)));
                let values = integer_operands(instruction);
                ptxsim_isa::wgmma::immediate_violation(&form, a_from_registers, &values)
            }
            _ => None,
        };
        if let Some(violation) = violation {
            diagnostics.push(violation_diagnostic(context, instruction, &violation));
        }
    }
    // The scalar video instructions run from their decoded form, but their Syntax-block forms
    // (`d, a{.asel}, b{.bsel}{, c}` of 32-bit registers, the `.op2` and `.mode` rules) stay
    // what checks them, as ptxas 13.5 ("Arguments mismatch for instruction 'vadd'").
    // So are the sm_100a `ldmatrix`/`stmatrix` shapes (their operand counts, formats and
    // `.target`/`.version` gates are the Syntax-block table's, 9.7.14.5.15-16), which run, and
    // the sparse `.kind::f8f6f4` `mma`.
    if let Ok(Form::Op(op)) = &*decoded.form
        && match op.form {
            ptxsim_isa::ops::OpForm::VideoScalar { .. } => true,
            ptxsim_isa::ops::OpForm::Ldmatrix(form) | ptxsim_isa::ops::OpForm::Stmatrix(form) => {
                form.shape != ptxsim_isa::matrix::MatrixShape::M8n8
            }
            // The sparse `.kind::f8f6f4` `mma` too: ptxas 13.5 takes its `e` as any register or
            // even a vector, and an `.f16` D with FP8 only on sm_120a, which its Syntax-block
            // form says (`tests/conformance/inlineasm*.tsv.xz`).
            ptxsim_isa::ops::OpForm::Mma(form) => form.sparse.is_some() && form.kind_f8f6f4,
            _ => false,
        }
    {
        let modifiers: Vec<&str> = mnemonic.split('.').skip(1).collect();
        check_syntax_form(
            context,
            instruction,
            op.opcode,
            mnemonic,
            &modifiers,
            diagnostics,
        );
        return;
    }
    // The common case, from the entry's first words.
    if decoded.decoded && key.is_some_and(|key| decoded.clean_keys.contains(&key)) {
        if let Some(unmet) = &decoded.unmet {
            gate(context, instruction, unmet, diagnostics);
        }
        return;
    }
    let form = match &*decoded.form {
        Ok(form) => form,
        Err(DecodeError {
            kind: DecodeErrorKind::UnsupportedInstruction(opcode),
            ..
        }) => {
            let modifiers: Vec<&str> = mnemonic.split('.').skip(1).collect();
            check_syntax_form(
                context,
                instruction,
                *opcode,
                mnemonic,
                &modifiers,
                diagnostics,
            );
            return;
        }
        Err(error) => {
            let modifiers: Vec<&str> = mnemonic.split('.').skip(1).collect();
            let newer = newer_than_table(&modifiers);
            if newer && context.setting.version >= Some(PtxVersion::new(9, 2)) {
                // Not modelled (docs/divergences.md, "Missing"); ptxas accepts it here.
                return;
            }
            if let Some(mut diagnostic) = decode_diagnostic(instruction, error) {
                if newer && error.kind == DecodeErrorKind::UnsupportedTypes {
                    diagnostic = diagnostic.with_help(
                        "ptxas accepts this conversion from `.version 9.2` on (it is newer than \
                         the PTX ISA 9.1 text ptxsim models)",
                    );
                } else if error.kind == DecodeErrorKind::UnsupportedTypes
                    && instruction.opcode.as_str() == "mov"
                    && context
                        .operands
                        .contains(&IsaOperand::Symbol(SymbolKind::Function))
                {
                    // An address is no value to widen: the type must be an address's.
                    diagnostic = diagnostic.with_help(
                        "a function's address takes mov.u64 (mov.u32 with .address_size 32)",
                    );
                }
                diagnostics.push(diagnostic);
            }
            return;
        }
    };
    if key.is_some() || !decoded.clean.iter().any(|clean| clean == context.operands) {
        let violations = validate(form, context.operands);
        if violations.is_empty() {
            if let Some(key) = key {
                let next = decoded.clean_next;
                if let Some(place) = decoded.clean_keys.get_mut(next) {
                    *place = key;
                }
                decoded.clean_next = (next + 1) % CLEAN_OPERAND_LISTS;
            } else {
                if decoded.clean.len() == CLEAN_OPERAND_LISTS {
                    decoded.clean.remove(0);
                }
                decoded.clean.push(context.operands.to_vec());
            }
        }
        for violation in violations {
            diagnostics.push(violation_diagnostic(context, instruction, &violation));
        }
    }
    if let Some(unmet) = &decoded.unmet {
        gate(context, instruction, unmet, diagnostics);
    }
}

/// Checks an instruction the table knows by name only against its Syntax-block forms
/// ([`ptxsim_isa::syntax`]): modifiers, operands, and the gates of the opcode and its
/// modifiers. Opcodes (or sub-operations) without forms there are only gated.
fn check_syntax_form(
    context: &InstructionContext<'_, '_>,
    instruction: &Instruction,
    opcode: Opcode,
    mnemonic: &str,
    modifiers: &[&str],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let values = integer_operands(instruction);
    if let Some(violation) = ptxsim_isa::syntax::value_violation(opcode, modifiers, &values) {
        diagnostics.push(violation_diagnostic(context, instruction, &violation));
    }
    if let Some(problems) = ptxsim_isa::syntax::check(opcode, modifiers, context.operands) {
        for problem in problems {
            match problem {
                ptxsim_isa::syntax::Problem::Modifier(error) => {
                    if let Some(diagnostic) = decode_diagnostic(instruction, &error) {
                        diagnostics.push(diagnostic);
                    }
                }
                ptxsim_isa::syntax::Problem::Operand(violation) => {
                    diagnostics.push(violation_diagnostic(context, instruction, &violation));
                }
            }
        }
    }
    let (Some(target), Some(version)) = (context.setting.target, context.setting.version) else {
        return;
    };
    let requirement = ptxsim_isa::Requirement {
        instruction: mnemonic.to_string(),
        gates: ptxsim_isa::syntax::gates(opcode, modifiers)
            .into_iter()
            .map(|(gate, modifier)| ptxsim_isa::AppliedGate { gate, modifier })
            .chain(
                ptxsim_isa::syntax::operand_gates(opcode, modifiers, context.operands)
                    .into_iter()
                    .map(|gate| ptxsim_isa::AppliedGate {
                        gate,
                        modifier: None,
                    }),
            )
            .collect(),
    };
    if let Err(unmet) = satisfied(&requirement, target, version) {
        gate(context, instruction, &unmet, diagnostics);
    }
}

/// `cvt.bf16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}` and `cp.async.bulk...ignore_oob`:
/// introduced after PTX ISA 9.1, which the instruction table describes; ptxas 13.5 accepts
/// them from `.version` 9.2 ("Feature '.ignore_oob' requires PTX ISA .version 9.2 or later";
/// nvcc 13.5 emits `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob
/// [d], [s], size, left, right, [mbar]` for sm_90 and later). The table does not know them
/// (docs/divergences.md, "Missing"), so the checker stays silent on them where ptxas would
/// accept them rather than reject valid modules.
fn newer_than_table(modifiers: &[&str]) -> bool {
    if modifiers.starts_with(&["async", "bulk"]) && modifiers.contains(&"ignore_oob") {
        return true;
    }
    let mut types = modifiers.iter().filter_map(|m| Type::from_name(m));
    let (Some(destination), Some(source), None) = (types.next(), types.next(), types.next()) else {
        return false;
    };
    destination == Type::Bf16x2
        && matches!(
            source,
            Type::E4m3x2 | Type::E5m2x2 | Type::E2m3x2 | Type::E3m2x2 | Type::E2m1x2
        )
}

/// From the opcode to the last modifier: `cvt.rn.f32.s32`.
fn mnemonic_span(instruction: &Instruction) -> Span {
    instruction
        .modifiers
        .last()
        .map_or(instruction.opcode.span, |last| {
            instruction.opcode.span.to(last.span)
        })
}

fn modifier_span(instruction: &Instruction, index: Option<usize>) -> Span {
    index
        .and_then(|index| instruction.modifiers.get(index))
        .map_or_else(|| mnemonic_span(instruction), |modifier| modifier.span)
}

fn operand_span(instruction: &Instruction, index: usize, element: Option<usize>) -> Span {
    let Some(operand) = instruction.operands.get(index) else {
        return instruction.span;
    };
    match (operand, element) {
        (Operand::Vector(items), Some(element)) => {
            items.value.get(element).map_or(items.span, Operand::span)
        }
        _ => operand.span(),
    }
}

fn decode_diagnostic(instruction: &Instruction, error: &DecodeError) -> Option<Diagnostic> {
    let code = decode_code(error.kind)?;
    let diagnostic = Diagnostic::error(
        code,
        error.rule.clone(),
        modifier_span(instruction, error.modifier),
    );
    Some(match &error.fix {
        Some(fix) => diagnostic.with_help(fix.clone()),
        None => diagnostic,
    })
}

fn violation_diagnostic(
    context: &InstructionContext<'_, '_>,
    instruction: &Instruction,
    violation: &Violation,
) -> Diagnostic {
    let (span, register) = match violation.location {
        Location::Instruction if violation.code == RuleCode::OperandCount => {
            (instruction.span, None)
        }
        Location::Instruction => (mnemonic_span(instruction), None),
        Location::Modifier(index) => (modifier_span(instruction, Some(index)), None),
        Location::Operand(operand) => (
            operand_span(instruction, operand, None),
            context
                .registers
                .iter()
                .find(|r| r.operand == operand && r.element.is_none()),
        ),
        Location::Element { operand, element } => (
            operand_span(instruction, operand, Some(element)),
            context
                .registers
                .iter()
                .find(|r| r.operand == operand && r.element == Some(element)),
        ),
    };
    let code = rule_code(violation.code);
    let mut diagnostic = if violation.code.is_warning() {
        Diagnostic::warning(code, violation.rule.clone(), span)
    } else {
        Diagnostic::error(code, violation.rule.clone(), span)
    };
    if violation.code == RuleCode::RegisterType
        && let Some(register) = register
    {
        diagnostic = diagnostic.with_label(
            register.declaration,
            format!("declared `.reg .{}` here", register.ty.name()),
        );
    }
    match &violation.fix {
        Some(fix) => diagnostic.with_help(fix.clone()),
        None => diagnostic,
    }
}

/// Reports the form's unmet target and version requirements.
fn gate(
    context: &InstructionContext<'_, '_>,
    instruction: &Instruction,
    unmet: &ptxsim_isa::Unmet,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let setting = context.setting;
    let (target, version) = (unmet.target, unmet.version);
    let demotes_f64 = context.module.target.as_ref().is_some_and(|list| {
        list.value
            .iter()
            .any(|entry| entry.value == "map_f64_to_f32")
    });
    for gate in &unmet.gates {
        // `.target sm_1x, map_f64_to_f32` demotes `.f64` to `.f32` (PTX ISA 11.2): the f64 gate
        // does not apply.
        if demotes_f64 && gates_f64(gate) {
            continue;
        }
        diagnostics.push(gate_diagnostic(
            setting,
            modifier_span(instruction, gate.modifier),
            &unmet.instruction,
            target,
            version,
            gate,
        ));
    }
}

/// Whether a gate is about `.f64` operands ("cvt to or from .f64").
fn gates_f64(unmet: &UnmetGate) -> bool {
    matches!(
        unmet.gate.applies,
        ptxsim_isa::gating::Applies::Cvt { either: Some(types), .. } if types.contains(&Type::F64)
    )
}

fn gate_diagnostic(
    setting: &ModuleSetting,
    span: Span,
    text: &str,
    target: Target,
    version: PtxVersion,
    unmet: &UnmetGate,
) -> Diagnostic {
    match unmet.reason {
        UnmetReason::Target => {
            let diagnostic = Diagnostic::error(
                TARGET_REQUIRED,
                format!(
                    "{text} needs {}; {}",
                    describe_targets(unmet.gate.support),
                    setting.targets_in_words(target)
                ),
                span,
            );
            let diagnostic = setting.target_label(diagnostic);
            match retarget_help(unmet, version, setting.overridden) {
                Some(help) => diagnostic.with_help(help),
                None => diagnostic,
            }
        }
        UnmetReason::Version(needed) => {
            let mut diagnostic = Diagnostic::error(
                VERSION_REQUIRED,
                format!(
                    "{text} needs PTX ISA version {needed} or later on {target}; this module \
                     declares .version {version}"
                ),
                span,
            )
            .with_help(format!("raise the module's version to `.version {needed}`"));
            if let Some(version_span) = setting.version_span {
                diagnostic = diagnostic
                    .with_label(version_span, format!(".version {version} declared here"))
                    .with_fix(version_span, format!(".version {needed}"));
            }
            diagnostic
        }
    }
}

/// A suggestion for a target that has the feature: the first alternative of the gate, with the
/// `.version` it needs when the module's is too old.
fn retarget_help(unmet: &UnmetGate, version: PtxVersion, overridden: bool) -> Option<String> {
    use ptxsim_isa::TargetVariant;
    use ptxsim_isa::gating::TargetSet;
    let support = unmet.gate.support.first()?;
    let target = match support.targets {
        // A feature later targets dropped: the help is to use its replacement, which the
        // gate's message names.
        TargetSet::Any | TargetSet::Below(..) => return None,
        TargetSet::AtLeast(number) => Target::sm(number, TargetVariant::Generic),
        TargetSet::Specific { arch, families } => match (arch.first(), families.first()) {
            (Some(&number), _) => Target::sm(number, TargetVariant::ArchSpecific),
            (None, Some(&number)) => Target::sm(number, TargetVariant::FamilySpecific),
            (None, None) => return None,
        },
    };
    let needed = target
        .min_ptx_version()
        .map_or(support.since, |minimum| minimum.max(support.since));
    let suggestion = if overridden {
        format!("`--target {target}`")
    } else {
        format!("`.target {target}`")
    };
    Some(if needed > version {
        format!("compile for a target that has it, e.g. {suggestion} with `.version {needed}`")
    } else {
        format!("compile for a target that has it, e.g. {suggestion}")
    })
}

/// Checks the module's `.version` against its `.target` (or the override), and that the
/// `.target` names an architecture. Every architecture of a `.target` list is checked (ptxas
/// 13.5 rejects `.version 7.0` with `.target sm_90, sm_80`), the one instructions are gated by
/// last.
///
/// A module that is only its header (`.version`, `.target`, `.address_size`, nothing after
/// them: what nvcc emits for a `.cu` file without device code) is not checked for the pair:
/// ptxas 13.5 compares the `.version` with the `.target` only when the first statement after
/// the header comes, and assembles `.version 7.8` / `.target sm_90a` alone without a word, as
/// it does `.version 6.0` / `.target sm_120a` (it rejects both with one `.global` variable
/// after them: "PTX .version 7.8 does not support .target sm_90a"). The other header rules
/// (unknown versions, targets and options, `.address_size` before 2.3) still apply there.
/// `header_only` says the module is one.
pub fn check_module(
    setting: &ModuleSetting,
    module: &Module,
    header_only: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // 11.3.3 ".address_size": "Introduced in PTX ISA version 2.3"; ptxas 13.5: "Feature
    // '.address_size directive' requires PTX ISA .version 2.3 or later".
    if let (Some(version), Some(size)) = (setting.version, &module.address_size)
        && version < PtxVersion::new(2, 3)
    {
        diagnostics.push(
            Diagnostic::error(
                "E0233",
                format!(".address_size needs PTX ISA version 2.3 or later; this module declares .version {version}"),
                size.span,
            )
            .with_help(
                "ptxas: Feature '.address_size directive' requires PTX ISA .version 2.3 or later",
            ),
        );
    }
    if let (Some(version), Some(span)) = (setting.version, setting.version_span)
        && !PTX_VERSIONS.contains(&(version.major, version.minor))
    {
        diagnostics.push(
            Diagnostic::error(
                "E0227",
                format!("PTX ISA version {version} does not exist"),
                span,
            )
            .with_help(format!(
                "ptxas: Unsupported .version {version}; current version is '9.5'"
            )),
        );
    }
    if setting.overridden {
        if let (Some(target), Some(span)) = (setting.target, setting.target_span) {
            check_module_target(setting, "", Some(target), span, header_only, diagnostics);
        }
        return;
    }
    let Some(list) = &module.target else {
        return;
    };
    check_target_options(&list.value, setting.version, diagnostics);
    for entry in list
        .value
        .iter()
        .filter(|entry| names_architecture(entry.as_str()))
    {
        let target = Target::parse(entry.as_str()).ok();
        check_module_target(
            setting,
            entry.as_str(),
            target,
            entry.span,
            header_only,
            diagnostics,
        );
    }
}

/// The PTX ISA versions ptxas 13.5 knows (every `X.Y` with X, Y in 0..=9 probed: the others
/// are "Unsupported .version 6.6; current version is '9.5'").
const PTX_VERSIONS: &[(u8, u8)] = &[
    (1, 0),
    (1, 1),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 5),
    (2, 0),
    (2, 1),
    (2, 2),
    (2, 3),
    (3, 0),
    (3, 1),
    (3, 2),
    (4, 0),
    (4, 1),
    (4, 2),
    (4, 3),
    (5, 0),
    (5, 1),
    (6, 0),
    (6, 1),
    (6, 2),
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
    (8, 4),
    (8, 5),
    (8, 6),
    (8, 7),
    (8, 8),
    (9, 0),
    (9, 1),
    (9, 2),
    (9, 3),
    (9, 4),
    (9, 5),
];

/// The options of a `.target` list (PTX ISA 11.3.2, ".target": `texmode_unified`,
/// `texmode_independent`, `debug`, `map_f64_to_f32`), as ptxas 13.5 takes them: another word
/// is "Parsing error near 'texmode_raw'" (E0404), both texture modes "Conflicting .target
/// option 'texmode_independent'", and `map_f64_to_f32` "Directive map_f64_to_f32 is not
/// supported with SM 1.3 or higher" beside sm_13 and later (E0223). The list starts with an
/// architecture ("Target architecture not defined at start of file" for `.target
/// texmode_unified, sm_90` or `.target debug`, E0404), and `texmode_independent` needs PTX ISA
/// 1.5 ("Feature 'texmode_independent' requires PTX ISA .version 1.5 or later", E0402).
fn check_target_options(
    entries: &[Spanned<Text>],
    version: Option<PtxVersion>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if let Some(first) = entries.first()
        && !names_architecture(first.as_str())
    {
        diagnostics.push(
            Diagnostic::error(
                UNKNOWN_TARGET,
                format!(
                    "`.target` starts with `{}`, not with an architecture",
                    first.as_str()
                ),
                first.span,
            )
            .with_help("name the architecture first, e.g. `.target sm_90, texmode_independent`"),
        );
    }
    let mut texmode: Option<&str> = None;
    for entry in entries {
        if entry.as_str() == "texmode_independent"
            && version.is_some_and(|version| version < PtxVersion::new(1, 5))
        {
            diagnostics.push(Diagnostic::error(
                "E0402",
                "`texmode_independent` needs PTX ISA version 1.5 or later",
                entry.span,
            ));
        }
        let word = entry.as_str();
        let problem = match word {
            _ if names_architecture(word) => continue,
            "debug" => continue,
            "texmode_unified" | "texmode_independent" => match texmode {
                Some(first) if first != word => Some((
                    "E0223",
                    format!("`{word}` conflicts with `{first}`: a module has one texture mode"),
                )),
                _ => {
                    texmode = Some(word);
                    None
                }
            },
            "map_f64_to_f32"
                if !entries.iter().any(|entry| {
                    Target::parse(entry.as_str()).is_ok_and(|target| target.number >= 13)
                }) =>
            {
                continue;
            }
            "map_f64_to_f32" => Some((
                "E0223",
                "`map_f64_to_f32` is for targets below sm_13, which ptxas no longer supports"
                    .to_string(),
            )),
            _ => Some((
                UNKNOWN_TARGET,
                format!(
                    "`{word}` is no `.target` option (texmode_unified, texmode_independent, \
                     debug, map_f64_to_f32)"
                ),
            )),
        };
        if let Some((code, message)) = problem {
            diagnostics.push(Diagnostic::error(code, message, entry.span));
        }
    }
}

/// [`check_module`] for one architecture entry `name` (`target`: `None` when it does not
/// parse) at `target_span`; `header_only`: the module has nothing after its header, so the
/// `.version`/`.target` pair is not compared.
fn check_module_target(
    setting: &ModuleSetting,
    name: &str,
    target: Option<Target>,
    target_span: Span,
    header_only: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(target) = target else {
        // A `.target` entry that looks like an architecture but is none.
        diagnostics.push(
            Diagnostic::error(
                UNKNOWN_TARGET,
                format!(
                    "`{name}` is not a target architecture (expected sm_XX, sm_XXa, sm_XXf or \
                     compute_XX)"
                ),
                target_span,
            )
            .with_help("name a GPU architecture, e.g. `.target sm_90`"),
        );
        return;
    };
    let Some(version) = setting.version else {
        return;
    };
    let Err(error) = isa_check_module(target, version) else {
        return;
    };
    if header_only && error.minimum.is_some() {
        return;
    }
    let diagnostic = match error.minimum {
        Some(minimum) => {
            let mut diagnostic = Diagnostic::error(
                MODULE_VERSION_TARGET,
                format!(
                    "PTX .version {version} does not support .target {target}{}",
                    if setting.overridden {
                        " (--target)"
                    } else {
                        ""
                    }
                ),
                target_span,
            )
            .with_help(format!(
                "{target} needs `.version {minimum}` or later; raise the version or choose an \
                 older target"
            ));
            if let Some(version_span) = setting.version_span {
                diagnostic = diagnostic
                    .with_label(version_span, format!(".version {version} declared here"));
                if !setting.overridden {
                    diagnostic = diagnostic.with_fix(version_span, format!(".version {minimum}"));
                }
            }
            diagnostic
        }
        None => Diagnostic::error(
            UNKNOWN_TARGET,
            format!(".target {target} is not an architecture ptxas 13.5 knows"),
            target_span,
        )
        .with_help("use an existing architecture, e.g. `.target sm_90`"),
    };
    diagnostics.push(diagnostic);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxsim_syntax::Spanned;

    fn instruction(opcode: &str, modifiers: &[&str]) -> Instruction {
        let word = |text: &str| Spanned::new(Text::from(text), 0..text.len());
        Instruction {
            span: Span::new(0, 0),
            guard: None,
            opcode: word(opcode),
            modifiers: modifiers.iter().map(|text| word(text)).collect(),
            operands: Vec::new(),
        }
    }

    #[test]
    fn a_cached_mnemonic_matches_only_the_same_words() {
        let cvt = instruction("cvt", &["rn", "f32", "f16"]);
        assert!(same_mnemonic("cvt.rn.f32.f16", &cvt));
        for other in [
            "cvt.rna.f32.f16",
            "cvt.rn.f32",
            "cvt.rn.f32.f16.x",
            "cvt.rnf32.f16",
            "cvta.rn.f32.f16",
            "cvt",
            "",
        ] {
            assert!(!same_mnemonic(other, &cvt), "{other}");
        }
        assert!(same_mnemonic("mov", &instruction("mov", &[])));
        assert!(!same_mnemonic("mov.b32", &instruction("mov", &[])));
        assert!(!same_mnemonic("mov", &instruction("mov", &["b32"])));
        // Words are compared whole: `rn` + `a` is not `rna`.
        assert!(!same_mnemonic("cvt.rna", &instruction("cvt", &["rn", "a"])));
    }
}
