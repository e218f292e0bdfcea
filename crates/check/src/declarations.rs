//! The form of a declaration, by where it stands: rules of PTX ISA chapter 5 ("State Spaces,
//! Types, and Variables") and chapter 11 (linkage directives) that ptxas enforces on variables
//! and parameters whatever instructions use them. Found by `scripts/conformance/modgen.py` (the seventh round of docs/conformance.md);
//! every message quoted is ptxas 13.5's.

use crate::rules::ModuleSetting;
use ptxsim_syntax::ast::{Function, Linkage, Qualifier, StateSpace, VariableDeclaration};
use ptxsim_syntax::{Diagnostic, Span};

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
    /// A device function's return parameter.
    FunctionReturn,
}

/// The opaque types of textures, samplers and surfaces (PTX ISA 5.3, "Texture Sampler and
/// Surface Types").
fn is_opaque(word: &str) -> bool {
    matches!(word, "texref" | "samplerref" | "surfref")
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
///   attribute" on a device function's parameter — E0217.
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
    let words: Vec<&str> = declaration
        .words()
        .map(|word| word.value.as_str())
        .collect();
    let first_name = declaration
        .declarators
        .first()
        .map_or("", |declarator| declarator.name.value.as_str());
    if words.contains(&"pred") {
        if space != StateSpace::Reg {
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
    if let Some(&opaque) = words.iter().find(|word| is_opaque(word)) {
        let misplaced = match scope {
            Scope::Module => (space != StateSpace::Global)
                .then_some("Texture and surface variables must be declared in .global space"),
            Scope::Body => {
                Some("Texture/surface variable must be at module or entry parameter scope")
            }
            Scope::FunctionParameter | Scope::FunctionReturn => {
                Some("Variable cannot be allocated in .param state space")
            }
            Scope::EntryParameter => None,
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
        Scope::EntryParameter if space != StateSpace::Param => diagnostics.push(error(
            "E0217",
            format!("kernel parameter `{first_name}` must be in the `.param` state space"),
            declaration.space.span,
            format!("ptxas: Entry parameter '{first_name}' must have .param state space"),
        )),
        Scope::FunctionParameter | Scope::FunctionReturn if words.contains(&"ptr") => {
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

/// A device function with more than one return parameter returns them in `.reg` parameters
/// (5.1.6.2, "Device Function Parameters"; ptxas 13.5: "Multiple return parameters require
/// .register state space" for `.func (.param .b32 a, .param .b32 b) f()`) — E0217.
pub fn check_returns(function: &Function, diagnostics: &mut Vec<Diagnostic>) {
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

fn error(code: &'static str, message: String, span: Span, help: String) -> Diagnostic {
    Diagnostic::error(code, message, span).with_help(help)
}
