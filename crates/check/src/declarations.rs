//! The form of a declaration, by where it stands: rules of PTX ISA chapter 5 ("State Spaces,
//! Types, and Variables") and chapter 11 (linkage directives) that ptxas enforces on variables
//! and parameters whatever instructions use them. Found by `scripts/conformance/modgen.py` (the seventh round of docs/conformance.md);
//! every message quoted is ptxas 13.5's.

use crate::rules::ModuleSetting;
use ptxsim_syntax::ast::{
    Declarator, Function, ImmediateValue, Initializer, Linkage, Prototype, Qualifier, StateSpace,
    VariableDeclaration,
};
use ptxsim_syntax::{Diagnostic, Span, Spanned, Text};

/// Where a declaration stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// A module-scope variable.
    Module,
    /// A declaration in a function body.
    Body,
    /// A kernel's parameter.
    EntryParameter,
    /// A device function's input parameter.
    FunctionParameter,
    /// An input parameter of a prototype without a body (`.extern .func f(.param .pred p);`):
    /// ptxas 13.5 takes `.param .pred` there, and checks the rest as for a definition.
    PrototypeParameter {
        /// Whether the prototype is a kernel's.
        entry: bool,
    },
    /// A device function's return parameter.
    FunctionReturn,
}

/// The opaque types of textures, samplers and surfaces (PTX ISA 5.3, "Texture Sampler and
/// Surface Types").
fn is_opaque(word: &str) -> bool {
    matches!(word, "texref" | "samplerref" | "surfref")
}

/// A `.param` of a device function's definition (input or return) or of a body (the arguments
/// and results of a call) aligned to more than 128 bytes (ptxas 13.5: "Parameter 'r' has
/// illegal alignment (must be aligned to 1, 2, 4, 8, 16, 32, 64, or 128 bytes)"; LLVM 14
/// emits `.param .align 256` for an over-aligned return value). A kernel's parameters and a
/// prototype's without a body take more — E0231.
pub fn check_param_alignment(declaration: &VariableDeclaration, diagnostics: &mut Vec<Diagnostic>) {
    for qualifier in &declaration.qualifiers {
        if let Qualifier::Align(align) = qualifier
            && align.value > 128
        {
            diagnostics.push(
                Diagnostic::error(
                    "E0231",
                    format!(
                        "a function's `.param` cannot be aligned to {} bytes",
                        align.value
                    ),
                    align.span,
                )
                .with_help(
                    "align it to 128 bytes or less (ptxas: Parameter has illegal alignment)",
                ),
            );
        }
    }
}

/// Checks the form of `declaration` standing at `scope`. The spec's directive chapters are not
/// in `shared/spec/`, so each rule names its section of the PTX ISA and quotes ptxas 13.5's
/// message, which is what it was probed against:
///
/// * `.align N` (5.4.5, "Alignment of variables") takes a power of two, not 0 (ptxas:
///   "Alignment must be a power of two") — E0212;
/// * `.pred` (5.2.2, "Predicate registers") is a register type for scalars: "Predicate
///   variable 'g' must be in register state space" for `.global .pred g`, `.param .pred p`,
///   `.local .pred p`; "Predicate type can only be used to define scalar register variables"
///   for `.reg .v2 .pred` and arrays — E0213;
/// * `.texref`, `.samplerref` and `.surfref` (5.3, "Texture Sampler and Surface Types") are
///   module-scope `.global` variables or kernel parameters: "Texture and surface variables
///   must be declared in .global space", "Texture/surface variable must be at module or entry
///   parameter scope" in a body, "Variable 'p' cannot be allocated in .param state space" for
///   a device function's parameter — E0214; a `.samplerref` needs `.target
///   texmode_independent` (11.3.2, ".target": samplers belong to the independent mode):
///   "Instruction or declaration violates .target texmode_unified setting" — E0215;
/// * an `.extern` variable (11.6.1, ".extern") has no initializer: "No initial value is allowed
///   for external symbol 'g'"; `.common` (11.6.4, ".common") is for `.global` variables:
///   ".common variables must be declared in .global space" — E0216;
/// * a kernel's parameters are `.param` (5.1.6.1, "Kernel Function Parameters"): "Entry
///   parameter 'p1' must have .param state space"; `.ptr` (5.1.6.1.1, "Kernel Parameter
///   Attribute: .ptr") is for kernel parameters only: "Illegal placement of kernel parameter
///   attribute" on a device function's parameter; a device function's parameters are `.param`
///   or `.reg`: "Function parameter 'p' has illegal state space" — E0217;
/// * the words, declarators and initializers (`check_words`, `check_declarators`,
///   `check_initial_values`; E0221, E0226), an initializer only in `.global` and `.const`
///   ("No initial value is allowed for 'x' in this state space"; E0221), and no module-scope
///   `.local` ("Module-scoped variables in .local state space are not allowed with ABI";
///   E0223) from PTX ISA 3.0 on, the first version whose modules always use the ABI: ptxas
///   13.5 takes one below 3.0 ("Use of module scoped .local or .reg variable 'L1' found,
///   disabling ABI", a warning), as gpuocelot's PTX 2.x tests declare them.
pub fn check_form(
    setting: &ModuleSetting,
    declaration: &VariableDeclaration,
    scope: Scope,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for qualifier in &declaration.qualifiers {
        if let Qualifier::Align(align) = qualifier
            && !align.value.is_power_of_two()
        {
            diagnostics.push(
                Diagnostic::error(
                    "E0212",
                    format!("`.align {}` is not a power of two", align.value),
                    align.span,
                )
                .with_help("ptxas: Alignment must be a power of two"),
            );
        }
    }
    let space = declaration.space.value;
    if space == StateSpace::Param && matches!(scope, Scope::FunctionParameter | Scope::Body) {
        check_param_alignment(declaration, diagnostics);
    }
    check_words(
        declaration,
        matches!(
            scope,
            Scope::EntryParameter | Scope::PrototypeParameter { entry: true }
        ),
        diagnostics,
    );
    check_declarators(declaration, scope, diagnostics);
    if scope == Scope::Module
        && space == StateSpace::Local
        && setting
            .version
            .is_none_or(|version| version >= ptxsim_isa::PtxVersion::new(3, 0))
    {
        diagnostics.push(error(
            "E0223",
            "module-scope `.local` variables do not exist under the ABI; declare them in a \
             function body"
                .into(),
            declaration.space.span,
            "ptxas: Module-scoped variables in .local state space are not allowed with ABI".into(),
        ));
    }
    if let Some(declarator) = declaration
        .declarators
        .iter()
        .find(|declarator| declarator.initializer.is_some())
        && !matches!(space, StateSpace::Global | StateSpace::Const)
    {
        diagnostics.push(error(
            "E0221",
            format!(
                "`.{}` variables have no initializers; only `.global` and `.const` ones do",
                space.as_str()
            ),
            declarator.span,
            format!(
                "ptxas: No initial value is allowed for '{}' in this state space",
                declarator.name.value
            ),
        ));
    }
    check_initial_values(declaration, diagnostics);
    // `.ptr .surfref` (a kernel parameter holding a surface or texture handle, as LLVM 21
    // writes it: `.param .u64 .ptr .surfref p`): the opaque word after `.ptr` is what the
    // pointer points at, not the declaration's type (ptxas 13.5 takes it).
    let all: Vec<&str> = declaration
        .words()
        .map(|word| word.value.as_str())
        .collect();
    let words: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|&(i, word)| !(is_opaque(word) && i > 0 && all[i - 1] == "ptr"))
        .map(|(_, word)| *word)
        .collect();
    let first_name = declaration
        .declarators
        .first()
        .map_or("", |declarator| declarator.name.value.as_str());
    if words.contains(&"pred") {
        if space != StateSpace::Reg && !matches!(scope, Scope::PrototypeParameter { .. }) {
            diagnostics.push(error(
                "E0213",
                format!("predicate `{first_name}` is not in the `.reg` state space"),
                declaration.space.span,
                format!("ptxas: Predicate variable '{first_name}' must be in register state space"),
            ));
        } else if words.iter().any(|word| matches!(*word, "v2" | "v4" | "v8"))
            || declaration
                .declarators
                .iter()
                .any(|declarator| !declarator.dimensions.is_empty())
        {
            diagnostics.push(error(
                "E0213",
                "a predicate register is a scalar: no vectors or arrays of `.pred`".into(),
                declaration.span,
                "ptxas: Predicate type can only be used to define scalar register variables".into(),
            ));
        }
    }
    // ptxas 13.5: "Variable 'p' cannot be allocated in .param state space" for a `.param`
    // vector or `.f16x2` (kernel and function parameters, call arguments; a prototype's are
    // taken).
    if space == StateSpace::Param
        && words
            .iter()
            .any(|word| matches!(*word, "v2" | "v4" | "f16x2"))
        && !matches!(scope, Scope::PrototypeParameter { .. })
    {
        diagnostics.push(error(
            "E0214",
            "a `.param` variable cannot be a vector or `.f16x2`; use a `.b8` array with `.align`"
                .into(),
            declaration.span,
            format!("ptxas: Variable '{first_name}' cannot be allocated in .param state space"),
        ));
    }
    if let Some(&opaque) = words.iter().find(|word| is_opaque(word)) {
        let misplaced = match scope {
            Scope::Module => (space != StateSpace::Global)
                .then_some("Texture and surface variables must be declared in .global space"),
            Scope::Body => {
                Some("Texture/surface variable must be at module or entry parameter scope")
            }
            Scope::FunctionParameter
            | Scope::FunctionReturn
            | Scope::PrototypeParameter { entry: false } => {
                Some("Variable cannot be allocated in .param state space")
            }
            Scope::EntryParameter | Scope::PrototypeParameter { entry: true } => None,
        };
        if let Some(ptxas) = misplaced {
            diagnostics.push(error(
                "E0214",
                format!("a `.{opaque}` is a module-scope `.global` variable or a kernel parameter"),
                declaration.span,
                format!("ptxas: {ptxas}"),
            ));
        } else if opaque == "samplerref" && !setting.texmode_independent {
            diagnostics.push(error(
                "E0215",
                "a `.samplerref` needs `.target ... texmode_independent`: in the unified \
                 texture mode (the default) samplers are part of the `.texref`"
                    .into(),
                declaration.span,
                "ptxas: Instruction or declaration violates .target texmode_unified setting".into(),
            ));
        }
    }
    if let Some(second) = declaration.linkage.get(1) {
        diagnostics.push(one_linkage(second.span));
    }
    for linkage in &declaration.linkage {
        match linkage.value {
            Linkage::Extern => {
                if let Some(declarator) = declaration
                    .declarators
                    .iter()
                    .find(|declarator| declarator.initializer.is_some())
                {
                    diagnostics.push(error(
                        "E0216",
                        format!(
                            "`.extern` variable `{}` cannot have an initializer: it is defined \
                             in another module",
                            declarator.name.value
                        ),
                        declarator.span,
                        format!(
                            "ptxas: No initial value is allowed for external symbol '{}'",
                            declarator.name.value
                        ),
                    ));
                }
            }
            Linkage::Common if space != StateSpace::Global => {
                diagnostics.push(error(
                    "E0216",
                    "`.common` is only for `.global` variables".into(),
                    linkage.span,
                    "ptxas: .common variables must be declared in .global space".into(),
                ));
            }
            Linkage::Common | Linkage::Visible | Linkage::Weak => {}
        }
    }
    match scope {
        Scope::EntryParameter | Scope::PrototypeParameter { entry: true }
            if space != StateSpace::Param =>
        {
            diagnostics.push(error(
                "E0217",
                format!("kernel parameter `{first_name}` must be in the `.param` state space"),
                declaration.space.span,
                format!("ptxas: Entry parameter '{first_name}' must have .param state space"),
            ))
        }
        Scope::FunctionParameter | Scope::FunctionReturn
            if !matches!(space, StateSpace::Param | StateSpace::Reg) =>
        {
            diagnostics.push(error(
                "E0217",
                format!(
                    "a device function's parameter `{first_name}` is `.param` or `.reg`, not `.{}`",
                    space.as_str()
                ),
                declaration.space.span,
                format!("ptxas: Function parameter '{first_name}' has illegal state space"),
            ));
        }
        Scope::FunctionParameter
        | Scope::FunctionReturn
        | Scope::PrototypeParameter { entry: false }
            if words.contains(&"ptr") =>
        {
            diagnostics.push(error(
                "E0217",
                "`.ptr` describes kernel parameters only, not a device function's".into(),
                declaration.span,
                "ptxas: Illegal placement of kernel parameter attribute".into(),
            ));
        }
        _ => {}
    }
}

/// The rules of a function's header that are not about one parameter. A device function with
/// more than one return parameter returns them in `.reg` parameters
/// (5.1.6.2, "Device Function Parameters"; ptxas 13.5: "Multiple return parameters require
/// .register state space" for `.func (.param .b32 a, .param .b32 b) f()`) — E0217.
///
/// `.common` is no linkage of functions (ptxas 13.5: "Parsing error near '.func'"), and an
/// `.extern` function has no body (11.6.1, ".extern"; ptxas 13.5: "Function definition
/// conflicts with '.extern' declaration for function 'f'") — E0216.
pub fn check_function(function: &Function, diagnostics: &mut Vec<Diagnostic>) {
    if function.kind.value == ptxsim_syntax::ast::FunctionKind::Func
        && let Some(params) = &function.params
        && let Some(early) = params
            .iter()
            .take(params.len().saturating_sub(1))
            .find(|param| is_incomplete_array(param))
    {
        diagnostics.push(error(
            "E0217",
            "only a device function's last input parameter can be an array without elements".into(),
            early.span,
            "ptxas: Only the last input parameter can be an incomplete array.".into(),
        ));
    }
    if let Some(second) = function.linkage.get(1) {
        diagnostics.push(one_linkage(second.span));
    }
    for linkage in &function.linkage {
        let problem = match linkage.value {
            Linkage::Common => "`.common` is a linkage of `.global` variables, not of functions",
            Linkage::Extern if function.body.is_some() => {
                "an `.extern` function is defined in another module: it has no body here"
            }
            _ => continue,
        };
        diagnostics.push(Diagnostic::error("E0216", problem, linkage.span));
    }
    let Some(returns) = &function.returns else {
        return;
    };
    if returns.len() < 2 {
        return;
    }
    if let Some(param) = returns
        .iter()
        .find(|declaration| declaration.space.value == StateSpace::Param)
    {
        diagnostics.push(error(
            "E0217",
            "a function with several return parameters returns them in `.reg` parameters".into(),
            param.span,
            "ptxas: Multiple return parameters require .register state space".into(),
        ));
    }
}

/// The declarators (5.4, "Variables"): a `%r<N>` range declares registers only, without array
/// dimensions or an initializer (ptxas 13.5: "Parsing error near '['", "near '='"); `_`, a
/// bare `%` and `WARP_SZ` are no names ("Parsing error near '_'", "near 'WARP_SZ'"); a return parameter has a size (ptxas 13.5:
/// "Output parameter cannot be an incomplete array.") — E0221.
fn check_declarators(
    declaration: &VariableDeclaration,
    scope: Scope,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for declarator in &declaration.declarators {
        let name = declarator.name.value.as_str();
        let problem = if declarator.range.is_some()
            && (!declarator.dimensions.is_empty() || declarator.initializer.is_some())
        {
            "a register range `%r<N>` has no array dimensions or initializer"
        } else if matches!(name, "_" | "%" | "$" | "WARP_SZ") {
            "`_`, `%` and `WARP_SZ` (a constant of PTX) are not names"
        } else if scope == Scope::FunctionReturn
            && declarator
                .dimensions
                .iter()
                .any(|dimension| dimension.as_ref().is_none_or(|size| size.value == 0))
        {
            "a return parameter cannot be an array without elements"
        } else {
            continue;
        };
        diagnostics.push(Diagnostic::error("E0221", problem, declarator.span));
    }
}

/// The parameters of a `.callprototype` (9.7.12.5, call.md), whose words are those of any
/// parameter (ptxas 13.5: "Parsing error near 'r'" for `(.param r)`) — E0221; and its name,
/// which is `_` ("label: .callprototype {(ret-param)} _ {(param-list)};"; ptxas 13.5:
/// "Parsing error near 'foo'" for another) — E0232.
pub fn check_prototype(prototype: &Prototype, diagnostics: &mut Vec<Diagnostic>) {
    if prototype.name.value != "_" {
        diagnostics.push(
            Diagnostic::error(
                "E0232",
                format!(
                    "a .callprototype is written with `_` where a function's name goes, not `{}`",
                    prototype.name.value
                ),
                prototype.name.span,
            )
            .with_fix(prototype.name.span, "_"),
        );
    }
    for declaration in prototype
        .returns
        .iter()
        .chain(prototype.params.iter())
        .flatten()
    {
        check_words(declaration, false, diagnostics);
    }
}

/// The values of an initializer against the variable's type, as ptxas 13.5 takes them (PTX
/// ISA 5.4.4, "Variable Initializers"): "Initial value type mismatch" for an integer in a
/// `.f32`/`.f64`/`.f16x2` variable, a floating-point literal (decimal, `0f`, `0d`) in a signed
/// or unsigned integer one, and an address (`h`, `generic(h)`, `h+4`) in anything but `.u32`
/// or `.u64`; "No initial value is allowed for .f16 type" — E0226. `.b` types take integers
/// and floating-point literals.
fn check_initial_values(declaration: &VariableDeclaration, diagnostics: &mut Vec<Diagnostic>) {
    let Some(ty) = declaration.words().find_map(|word| {
        DECLARATION_TYPES
            .iter()
            .find(|(name, _)| *name == word.value.as_str())
            .map(|&(name, _)| name)
    }) else {
        return;
    };
    if is_opaque(ty) {
        return;
    }
    let vector = declaration
        .words()
        .any(|word| matches!(word.value.as_str(), "v2" | "v4"));
    for declarator in &declaration.declarators {
        let Some(initializer) = &declarator.initializer else {
            continue;
        };
        let depth = declarator.dimensions.len() + usize::from(vector);
        if let Some(span) = misnested(initializer, depth) {
            diagnostics.push(
                Diagnostic::error(
                    "E0226",
                    format!(
                        "the initializer's braces do not follow the variable's shape: {depth} \
                         level{} of `{{...}}` (one per array dimension, one per vector)",
                        if depth == 1 { "" } else { "s" }
                    ),
                    span,
                )
                .with_help("ptxas: Initial value type mismatch"),
            );
            return;
        }
        if let Some((span, message)) = initial_value_mismatch(ty, initializer) {
            diagnostics.push(
                Diagnostic::error(
                    "E0226",
                    format!("{message} cannot initialize a `.{ty}` variable"),
                    span,
                )
                .with_help(if ty == "f16" {
                    "ptxas: No initial value is allowed for .f16 type"
                } else {
                    "ptxas: Initial value type mismatch"
                }),
            );
            return;
        }
    }
}

/// The first value of `initializer` a `ty` variable does not take, with its description.
fn initial_value_mismatch(ty: &str, initializer: &Initializer) -> Option<(Span, &'static str)> {
    match initializer {
        Initializer::List(list) => list
            .value
            .iter()
            .find_map(|inner| initial_value_mismatch(ty, inner)),
        Initializer::Property { .. } => None,
        _ if ty == "f16" => Some((initializer_span(initializer), "a value")),
        Initializer::Address { span, .. } => {
            (!matches!(ty, "u32" | "u64")).then_some((*span, "an address"))
        }
        // ptxas 13.5 takes a byte of an address in `.u8`, `.u32` and `.u64` variables only
        // ("Initial value type mismatch" for `.b8`, `.s8`, `.u16`), and a masked integer
        // wherever the integer goes.
        Initializer::Mask { span, value, .. } => match value.as_ref() {
            Initializer::Address { .. } => {
                (!matches!(ty, "u8" | "u32" | "u64")).then_some((*span, "a byte of an address"))
            }
            inner => initial_value_mismatch(ty, inner),
        },
        Initializer::Immediate(immediate) => {
            let float = !matches!(immediate.value.value, ImmediateValue::Integer { .. });
            let integer_type = ty.starts_with('u') || ty.starts_with('s');
            let float_type = matches!(ty, "f32" | "f64" | "f16x2");
            if float && integer_type {
                Some((immediate.span, "a floating-point literal"))
            } else if !float && float_type {
                Some((immediate.span, "an integer"))
            } else {
                None
            }
        }
    }
}

/// The first value of `initializer` whose bracing does not follow the variable's shape:
/// `depth` levels of braces, one per array dimension and one for a vector, with the values
/// at the innermost (ptxas 13.5: "Initial value type mismatch" for `.b32 a = {1}`, `.b32 a[2]
/// = 1`, `.b32 a[2] = {{1}, {2}}`, `.v2 .u32 g = 1`, `.v2 .u32 g[2] = {1, 2}`; and "Greater
/// number of elements in array initializer" for a flattened `.b32 a[2][2] = {1, 2, 3, 4}`).
fn misnested(initializer: &Initializer, depth: usize) -> Option<Span> {
    match initializer {
        Initializer::Property { .. } => None,
        Initializer::List(list) if depth > 0 => list
            .value
            .iter()
            .find_map(|inner| misnested(inner, depth - 1)),
        _ if depth > 0 => Some(initializer_span(initializer)),
        Initializer::List(list) => Some(list.span),
        _ => None,
    }
}

fn initializer_span(initializer: &Initializer) -> Span {
    match initializer {
        Initializer::Immediate(immediate) => immediate.span,
        Initializer::Address { span, .. }
        | Initializer::Property { span, .. }
        | Initializer::Mask { span, .. } => *span,
        Initializer::List(list) => list.span,
    }
}

/// The types a variable or parameter can be declared with (PTX ISA 5.2.2, "Fundamental Types",
/// and 5.3, "Texture Sampler and Surface Types"), with their sizes in bits (0 for the opaque
/// types and `.pred`). ptxas 13.5 refuses the others: "Parsing error near '.bf16'" (also
/// `.bf16x2`, `.tf32`, `.f16x4`), "Type .e4m3 may only be used as an instruction type" (also
/// `.e2m1x2`, `.s16x2`, `.f32x2`).
const DECLARATION_TYPES: &[(&str, u32)] = &[
    ("b8", 8),
    ("b16", 16),
    ("b32", 32),
    ("b64", 64),
    ("b128", 128),
    ("u8", 8),
    ("u16", 16),
    ("u32", 32),
    ("u64", 64),
    ("s8", 8),
    ("s16", 16),
    ("s32", 32),
    ("s64", 64),
    ("f16", 16),
    ("f16x2", 32),
    ("f32", 32),
    ("f64", 64),
    ("pred", 0),
    ("texref", 0),
    ("samplerref", 0),
    ("surfref", 0),
];

/// The words of a declaration (5.4, "Variables": `.space {.align N} {.v2|.v4} .type name`; a
/// kernel parameter may add `.ptr{.space}` after the type, 5.1.6.1.1): at most one vector
/// `.v2`/`.v4` before exactly one type, a vector of at most 128 bits of a fundamental type,
/// a state space only after `.ptr`. ptxas 13.5: "Parsing error near '.v8'" (also `.v3`, a
/// second vector or type, a vector after the type), "Vector type too large, exceeds 128 bit
/// limit" (`.v4 .f64`, `.v2 .b128`), "Vector type only allowed over basic types" (`.v2
/// .texref`), "Multiple state spaces specified" (`.const .const`) — E0221. An opaque type right
/// after `.ptr` is the pointee (`.param .u64 .ptr .surfref p`).
///
/// A kernel parameter may be `.bf16` or `.tf32` (`kernel_parameter`), which ptxas refuses
/// ("Parsing error near '.bf16'"): ptxsim's Python binding rounds a launch argument to the
/// parameter's type, and its tests declare them (docs/divergences.md D29).
fn check_words(
    declaration: &VariableDeclaration,
    kernel_parameter: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut vector: Option<u32> = None;
    let mut ty: Option<(&str, u32)> = None;
    let mut after_ptr = false;
    for word in declaration.words() {
        let text = word.value.as_str();
        let problem = match text {
            "v2" | "v4" if vector.is_none() && ty.is_none() => {
                vector = Some(if text == "v2" { 2 } else { 4 });
                None
            }
            "ptr" if ty.is_some() && !after_ptr => {
                after_ptr = true;
                continue;
            }
            "global" | "shared" | "const" | "local" if after_ptr => None,
            // `.ptr .surfref`: what the pointer points at (ptxas 13.5 takes `.param .u64 .ptr
            // .surfref p` and `.texref`/`.samplerref`, and refuses `.ptr .global .surfref`).
            "texref" | "samplerref" | "surfref" if after_ptr => None,
            "global" | "shared" | "const" | "local" | "reg" | "param" => {
                Some("a declaration has one state space".to_string())
            }
            _ => match DECLARATION_TYPES
                .iter()
                .chain(if kernel_parameter {
                    &[("bf16", 16), ("tf32", 32)][..]
                } else {
                    &[]
                })
                .find(|(name, _)| *name == text)
            {
                Some(&found) if ty.is_none() => {
                    ty = Some(found);
                    let (name, bits) = found;
                    match vector {
                        Some(_) if bits == 0 && name != "pred" => Some(format!(
                            "`.{name}` is not a fundamental type; vectors are of fundamental types"
                        )),
                        Some(lanes) if lanes * bits > 128 => Some(format!(
                            "a vector of {lanes} `.{name}` is {} bits; vectors hold at most 128",
                            lanes * bits
                        )),
                        _ => None,
                    }
                }
                Some(_) => Some("a declaration has one type".to_string()),
                None => Some(format!(
                    "`.{text}` is not a type, vector or qualifier of a declaration"
                )),
            },
        };
        if let Some(message) = problem {
            diagnostics.push(Diagnostic::error("E0221", message, word.span));
            return;
        }
        after_ptr = false;
    }
    if ty.is_none() {
        diagnostics.push(Diagnostic::error(
            "E0221",
            "the declaration has no type",
            declaration.space.span,
        ));
    }
}

/// A `.pragma` at module scope (PTX ISA 11.4.11, ".pragma"): ptxas 13.5 takes `"nounroll"`
/// there; the function-scope pragmas are "Pragma 'used_bytes_mask 0xff' is allowed only
/// within function scope" (also `enable_smem_spilling`), others "Pragma 'foo' not supported"
/// (a warning only inside a function) — E0224.
pub fn check_module_pragma(text: &Spanned<Text>, diagnostics: &mut Vec<Diagnostic>) {
    let pragma = text.as_str().trim_matches('"');
    if pragma == "nounroll" {
        return;
    }
    diagnostics.push(Diagnostic::error(
        "E0224",
        format!("`.pragma \"{pragma}\"` is not a module-scope pragma (only \"nounroll\" is)"),
        text.span,
    ));
}

/// What a call compares of an argument and the parameter it is passed to: ptxas 13.5 takes a
/// scalar for a scalar of the same size (`.b32` for `.f32`), an array for an array with as
/// many dimensions, bytes and the same alignment (`.align 4 .b8 a[8]` for `.align 4 .b32
/// p[2]`), and says "Type of argument does not match formal parameter 'p'" or "Alignment of
/// argument does not match formal parameter 'p'" otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A scalar (or vector) of this many bits.
    Scalar(u32),
    /// An array without elements (`p[]`, `p[0]`; a device function's last parameter): any
    /// array may be passed to it, a scalar not.
    Incomplete,
    /// An array.
    Array {
        /// How many dimensions.
        dimensions: usize,
        /// Its size in bytes.
        bytes: u64,
        /// Its alignment: `.align N`, else the element's size.
        align: u64,
    },
}

/// The [`Shape`] of `declarator` of `declaration`, if its type and sizes are known.
pub(crate) fn shape(declaration: &VariableDeclaration, declarator: &Declarator) -> Option<Shape> {
    let mut lanes = 1;
    let mut bits = None;
    for word in declaration.words() {
        match word.value.as_str() {
            "v2" => lanes = 2,
            "v4" => lanes = 4,
            text => {
                if let Some(&(_, size)) = DECLARATION_TYPES.iter().find(|(name, _)| *name == text) {
                    bits = Some(size);
                }
            }
        }
    }
    let bits = bits.filter(|&bits| bits > 0)? * lanes;
    if declarator.dimensions.is_empty() {
        return Some(Shape::Scalar(bits));
    }
    let mut elements = 1u64;
    for dimension in &declarator.dimensions {
        let Some(dimension) = dimension else {
            return Some(Shape::Incomplete);
        };
        elements = elements.saturating_mul(dimension.value);
    }
    let element_bytes = u64::from(bits / 8).max(1);
    if elements == 0 {
        return Some(Shape::Incomplete);
    }
    Some(Shape::Array {
        dimensions: declarator.dimensions.len(),
        bytes: elements.saturating_mul(element_bytes),
        align: declaration.align().unwrap_or(element_bytes),
    })
}

/// Whether `declaration` is an array without elements (`p[]`, `p[0]`): a device function's
/// last input parameter may be one (ptxas 13.5 then takes calls with and without it; "Only the
/// last input parameter can be an incomplete array." elsewhere).
pub(crate) fn is_incomplete_array(declaration: &VariableDeclaration) -> bool {
    declaration.declarators.iter().any(|declarator| {
        declarator
            .dimensions
            .iter()
            .any(|dimension| dimension.as_ref().is_none_or(|size| size.value == 0))
    })
}

/// The ptxas 13.5 message for passing `argument` to `parameter`, if it refuses it.
pub(crate) fn mismatch(argument: Shape, parameter: Shape) -> Option<&'static str> {
    match (argument, parameter) {
        (Shape::Scalar(a), Shape::Scalar(p)) if a == p => None,
        (Shape::Array { .. } | Shape::Incomplete, Shape::Incomplete) | (Shape::Incomplete, _) => {
            None
        }
        (
            Shape::Array {
                dimensions,
                bytes,
                align,
            },
            Shape::Array {
                dimensions: p_dimensions,
                bytes: p_bytes,
                align: p_align,
            },
        ) if dimensions == p_dimensions && bytes == p_bytes => {
            (align != p_align).then_some("Alignment of argument does not match formal parameter")
        }
        _ => Some("Type of argument does not match formal parameter"),
    }
}

/// A second linkage directive (11.6, "Linking Directives": one of `.extern`, `.visible`,
/// `.weak`, `.common`; ptxas 13.5: "Parsing error near '.weak'" for `.visible .weak`) — E0216.
fn one_linkage(span: Span) -> Diagnostic {
    Diagnostic::error(
        "E0216",
        "a declaration has at most one linkage directive",
        span,
    )
}

fn error(code: &'static str, message: String, span: Span, help: String) -> Diagnostic {
    Diagnostic::error(code, message, span).with_help(help)
}
