//! The state space of a variable named by an address operand against the state space the
//! instruction addresses (D13 of docs/divergences.md).
//!
//! PTX ISA 9.0, 6.4.1 "Addresses as Operands": "The address must be naturally aligned ... When
//! used as an address, a variable or parameter name ... refers to the location of the variable in
//! the state space of the instruction"; ptxas 13.5 requires that space to be the variable's own
//! ("State space mismatch between instruction and address in instruction 'ld'"). Every rule
//! below was probed with ptxas 13.5 (the lines are in `scripts/conformance/syntax-examples.txt`):
//!
//! * an explicit space takes variables of that space only (`.shared::cta` and `.shared::cluster`
//!   take `.shared` variables, `.param` and `.param::entry` parameters);
//! * a generic address (no space written) takes `.global`, `.shared` and `.local` variables, not
//!   `.const` or `.param` ones;
//! * `mbarrier`, `mapa` and `getctarank` take `.shared` variables only, whatever is written;
//!   `prefetchu` takes `.global` variables only ("Non-generic address is not supported as
//!   operand for prefetchu instruction");
//! * an instruction with several addresses (`cp.async`, `cp.async.bulk`, `cp.reduce.async.bulk`,
//!   `st.async`, `red.async`) gives its space modifiers to its addresses in order (destination,
//!   then source), and its `mbarrier` operand is `.shared`;
//! * `cvta.to` and `isspacep` take a register, not a variable ("Argument 1 of instruction
//!   'cvta.to': must be register");
//! * parameters: a store to an input parameter is "Illegal to write to function input
//!   parameter", a load of a `.func`'s return parameter "Illegal to read function return
//!   parameter", `.param::func` in a kernel addresses only a `.param` declared in its body (not
//!   a register's address either) and `.param::entry` cannot address a `.param` declared in a
//!   body ("Illegal state space for address operand"), and the
//!   address of a `.param` declared in a body cannot be taken ("Illegal to take address of
//!   parameter").

use ptxsim_syntax::ast::StateSpace;

/// Where a variable lives, as the state-space rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Home {
    /// `.global`, `.shared`, `.const` or `.local` (not `.reg`, not `.param`).
    Memory(StateSpace),
    /// A `.param` declared in a body (the argument or result of a `call`).
    BodyParam,
    /// An input parameter of a kernel.
    KernelParam,
    /// An input `.param` of a `.func`.
    FunctionParam,
    /// A return `.param` of a `.func`.
    ReturnParam,
    /// A function or kernel (ptxas 13.5: "Illegal to use symbol 'k' of type unexpected as
    /// address operand").
    Function,
}

impl Home {
    /// The home of a variable declared with `space` and the qualifier words `words` in a body or
    /// at module scope; `None` for registers and the opaque types (`.texref`, `.samplerref`,
    /// `.surfref`), which the texture rules check.
    pub(crate) fn of<'w>(
        space: StateSpace,
        mut words: impl Iterator<Item = &'w str>,
    ) -> Option<Home> {
        if words.any(|word| matches!(word, "texref" | "samplerref" | "surfref")) {
            return None;
        }
        match space {
            StateSpace::Reg => None,
            StateSpace::Param => Some(Home::BodyParam),
            other => Some(Home::Memory(other)),
        }
    }

    fn is_param(self) -> bool {
        !matches!(self, Home::Memory(_) | Home::Function)
    }

    fn in_words(self) -> &'static str {
        match self {
            Home::Memory(StateSpace::Global) => "a `.global` variable",
            Home::Memory(StateSpace::Shared) => "a `.shared` variable",
            Home::Memory(StateSpace::Const) => "a `.const` variable",
            Home::Memory(StateSpace::Local) => "a `.local` variable",
            Home::Memory(_) => "a variable",
            Home::BodyParam => "a `.param` variable",
            Home::KernelParam => "a kernel parameter",
            Home::FunctionParam => "a function parameter",
            Home::ReturnParam => "a function's return parameter",
            Home::Function => "a function",
        }
    }
}

/// How an operand names a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Naming {
    /// `[var]`, `[var+4]`, `[var, {..}]`: the `n`th address operand of the instruction.
    Address(usize),
    /// `var` or `var+4` as an operand (`cvta`, `mapa`, `getctarank`, `isspacep`, `mov`).
    Value,
}

/// A state space a modifier names.
fn modifier_space(modifier: &str) -> Option<&'static str> {
    Some(match modifier {
        "global" => "global",
        "shared" | "shared::cta" | "shared::cluster" => "shared",
        "const" => "const",
        "local" => "local",
        "param" | "param::entry" | "param::func" => "param",
        _ => return None,
    })
}

/// The problem with naming a variable of `home` in an operand of an instruction (`opcode`,
/// `modifiers` without their dots), if there is one: the diagnostic code and message.
pub(crate) fn violation(
    opcode: &str,
    modifiers: &[&str],
    naming: Naming,
    name: &str,
    home: Home,
) -> Option<(&'static str, String)> {
    // Textures and surfaces take handles: a `.texref`, `.samplerref` or `.surfref` variable
    // (which has no home here) or a 64-bit register; ptxas 13.5: "Arguments mismatch for
    // instruction 'txq'" for any other variable.
    if matches!(
        opcode,
        "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" | "istypep"
    ) {
        return (home != Home::Function).then(|| {
            (
                "E0331",
                format!(
                    "`{name}` is {}, not a texture, sampler or surface handle",
                    home.in_words()
                ),
            )
        });
    }
    // `bra` takes a label (ptxas 13.5: "Arguments mismatch for instruction 'bra'", "Label
    // expected for argument 0 of instruction 'bra'"); `brx.idx` and `call` are checked
    // elsewhere.
    if opcode == "bra" {
        return Some((
            "E0331",
            format!("`{name}` is {}; {opcode} takes a label", home.in_words()),
        ));
    }
    if matches!(opcode, "brx" | "call") {
        return None;
    }
    let mismatch = || {
        Some((
            "E0331",
            format!(
                "`{name}` is {}, which {opcode} does not address here",
                home.in_words()
            ),
        ))
    };
    let is = |m: &str| modifiers.contains(&m);
    let spaces: Vec<&str> = modifiers
        .iter()
        .copied()
        .filter(|m| modifier_space(m).is_some())
        .collect();
    let nth = match naming {
        Naming::Value => {
            return match opcode {
                "cvta" if is("to") => Some((
                    "E0331",
                    format!(
                        "`cvta.to` converts an address in a register, not the variable `{name}`"
                    ),
                )),
                "isspacep" => Some((
                    "E0331",
                    format!("`isspacep` tests an address in a register, not the variable `{name}`"),
                )),
                "mov" | "cvta" if home == Home::BodyParam => Some((
                    "E0332",
                    format!("the address of the `.param` variable `{name}` cannot be taken"),
                )),
                "cvta" => match spaces.first() {
                    Some(space) if !admits(modifier_space(space), home) => mismatch(),
                    _ => None,
                },
                "mapa" | "getctarank" if home != Home::Memory(StateSpace::Shared) => mismatch(),
                _ => None,
            };
        }
        Naming::Address(_) if home == Home::Function => {
            return Some((
                "E0331",
                format!("`{name}` is a function; an address names a variable or a register"),
            ));
        }
        Naming::Address(nth) => nth,
    };
    // Parameters: reads and writes the direction of the parameter forbids.
    let store = matches!(opcode, "st");
    if home.is_param() {
        if store && matches!(home, Home::KernelParam | Home::FunctionParam) {
            return Some((
                "E0332",
                format!("`{name}` is an input parameter: it cannot be written"),
            ));
        }
        if opcode == "ld" && home == Home::ReturnParam {
            return Some((
                "E0332",
                format!("`{name}` is a return parameter: it cannot be read"),
            ));
        }
        if is("param::func") && home == Home::KernelParam {
            return mismatch();
        }
        if is("param::entry") && home == Home::BodyParam {
            return mismatch();
        }
    }
    let expected = match opcode {
        "mbarrier" | "mapa" | "getctarank" => Some("shared"),
        "prefetchu" => Some("global"),
        // `clusterlaunchcontrol.try_cancel.async{.space}...` (clusterlaunchcontrol.md: ".space
        // = { .shared::cta }"): without the space both `[addr]` and `[mbar]` are generic
        // addresses (ptxas 13.5 takes `.global`, `.shared` and `.local` variables there, not
        // `.const` or `.param` ones; tests/conformance/isagen-probes.tsv).
        "clusterlaunchcontrol" if spaces.is_empty() => None,
        _ => match spaces.get(nth) {
            Some(space) => modifier_space(space),
            // The barrier of the asynchronous copies.
            None if nth > 0 && modifiers.iter().any(|m| m.starts_with("mbarrier::")) => {
                Some("shared")
            }
            // More addresses than spaces: not a rule ptxas was probed for.
            None if !spaces.is_empty() => return None,
            None => None,
        },
    };
    if admits(expected, home) {
        None
    } else {
        mismatch()
    }
}

/// Whether an address in the space `expected` (`None`: a generic address) may name a variable
/// of `home`.
fn admits(expected: Option<&str>, home: Home) -> bool {
    match (expected, home) {
        (None, Home::Memory(StateSpace::Global | StateSpace::Shared | StateSpace::Local)) => true,
        (None, _) => false,
        (Some("param"), home) => home.is_param(),
        (Some(space), Home::Memory(declared)) => declared.as_str() == space,
        (Some(_), _) => false,
    }
}
