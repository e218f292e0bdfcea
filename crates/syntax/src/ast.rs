//! The syntax tree of a PTX module.
//!
//! The tree is structural: opcodes, modifiers and type names are kept as spanned strings exactly
//! as written (modifiers without their leading dot), as [`Text`], which stores short words inline.
//! Decoding them into typed instructions is the job of the checker, driven by the instruction
//! table in `ptxsim-isa`. Every node carries the [`Span`] of the text it came from.

use crate::span::{Span, Spanned, Text};

/// A parsed PTX module (one `.ptx` file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// The whole file.
    pub span: Span,
    /// The `.version` directive, if present.
    pub version: Option<Version>,
    /// The `.target` directive's list (`sm_90a`, `texmode_independent`, `debug`, ...), if present.
    pub target: Option<Spanned<Vec<Spanned<Text>>>>,
    /// The `.address_size` directive's value, if present.
    pub address_size: Option<Spanned<u32>>,
    /// Everything else, in source order.
    pub items: Vec<Item>,
}

/// `.version major.minor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// The directive.
    pub span: Span,
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
}

/// A module-scope item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A kernel (`.entry`) or device function (`.func`), with or without a body.
    Function(Box<Function>),
    /// A module-scope variable (`.global`, `.const`, `.shared`, `.local`).
    Variable(VariableDeclaration),
    /// `.file index "path" [, timestamp, size]`.
    File(FileDirective),
    /// `.section .debug_xxx { ... }`.
    Section(Section),
    /// `.pragma "...";`
    Pragma(Spanned<Text>),
    /// `.alias fAlias, fAliasee;`
    Alias(Alias),
}

/// `.alias fAlias, fAliasee;` (PTX ISA 9.0, 11.6.5 ".alias", PTX ISA 6.3, sm_30): the
/// prototype `fAlias` names the function defined as `fAliasee`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The whole directive.
    pub span: Span,
    /// The alias, a function declared earlier without a body.
    pub alias: Spanned<Text>,
    /// The function it names, defined earlier.
    pub aliasee: Spanned<Text>,
}

impl Item {
    /// The span of the item.
    pub fn span(&self) -> Span {
        match self {
            Item::Function(function) => function.span,
            Item::Variable(variable) => variable.span,
            Item::File(file) => file.span,
            Item::Section(section) => section.span,
            Item::Pragma(text) => text.span,
            Item::Alias(alias) => alias.span,
        }
    }
}

/// Linkage directives in front of a variable or function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// `.visible`: defined here and visible to other modules.
    Visible,
    /// `.extern`: defined in another module.
    Extern,
    /// `.weak`: visible, may be overridden by a non-weak definition.
    Weak,
    /// `.common`: merged with same-named `.common` variables.
    Common,
}

impl Linkage {
    /// The directive text without the dot.
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Visible => "visible",
            Linkage::Extern => "extern",
            Linkage::Weak => "weak",
            Linkage::Common => "common",
        }
    }
}

/// The state space a declaration starts with.
///
/// `ptxsim_isa::ops::Space` is the other state-space enum: the space a memory instruction
/// addresses, which has a generic space and no `.reg`. Both exist because this crate depends on
/// no other ptxsim crate (the syntax tree is built before the instruction table is consulted);
/// the program builder (`ptxsim_check::program`) maps a declaration's `StateSpace` to the
/// `Space` it is placed in, in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// `.reg`: registers.
    Reg,
    /// `.param`: kernel or function parameters, call arguments.
    Param,
    /// `.global`: device memory.
    Global,
    /// `.const`: constant memory.
    Const,
    /// `.shared`: memory shared by a CTA.
    Shared,
    /// `.local`: per-thread memory.
    Local,
}

impl StateSpace {
    /// The directive text without the dot.
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Param => "param",
            StateSpace::Global => "global",
            StateSpace::Const => "const",
            StateSpace::Shared => "shared",
            StateSpace::Local => "local",
        }
    }
}

/// A declaration: `[linkage] .space qualifiers name[, name...]`.
///
/// Used for module-scope variables, body declarations (`.reg .b32 %r<5>;`) and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableDeclaration {
    /// The declaration without its `;`.
    pub span: Span,
    /// Linkage directives, in source order.
    pub linkage: Vec<Spanned<Linkage>>,
    /// The state space.
    pub space: Spanned<StateSpace>,
    /// Type, vector, alignment and pointer qualifiers in source order (`.v4`, `.f32`, `.align 16`,
    /// `.ptr`, `.global`).
    pub qualifiers: Vec<Qualifier>,
    /// The declared names (at least one; parameters have exactly one).
    pub declarators: Vec<Declarator>,
}

impl VariableDeclaration {
    /// The alignment given by `.align N`, if any.
    pub fn align(&self) -> Option<u64> {
        self.qualifiers
            .iter()
            .find_map(|qualifier| match qualifier {
                Qualifier::Align(value) => Some(value.value),
                Qualifier::Word(_) | Qualifier::Attribute(_) => None,
            })
    }

    /// Whether the variable has `.attribute(.managed)`.
    pub fn is_managed(&self) -> bool {
        self.qualifiers.iter().any(
            |qualifier| matches!(qualifier, Qualifier::Attribute(name) if name.value == "managed"),
        )
    }

    /// The dotted words among the qualifiers (`["v4", "f32"]`), without their dots.
    pub fn words(&self) -> impl Iterator<Item = &Spanned<Text>> {
        self.qualifiers
            .iter()
            .filter_map(|qualifier| match qualifier {
                Qualifier::Word(word) => Some(word),
                Qualifier::Align(_) | Qualifier::Attribute(_) => None,
            })
    }
}

/// A qualifier in a declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Qualifier {
    /// `.align N`.
    Align(Spanned<u64>),
    /// Any other dotted word, without its dot: a type (`b32`), a vector (`v4`), `ptr`, or the
    /// state space of a `.ptr` parameter (`global`).
    Word(Spanned<Text>),
    /// `.attribute(.managed)` or `.attribute(.unified(uuid1, uuid2))`: the attribute's name
    /// without its dot (PTX ISA 5.4.8, "Variable Attribute Directive: `.attribute`": "Used to
    /// specify special attributes of a variable"; "`.managed` attribute specifies that variable
    /// will be allocated at a location in unified virtual memory environment where host and
    /// other devices in the system can reference the variable directly").
    Attribute(Spanned<Text>),
}

/// One declared name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declarator {
    /// The whole declarator.
    pub span: Span,
    /// The name (`%r`, `gtab`, `param0`).
    pub name: Spanned<Text>,
    /// `%r<N>`: declares `N` registers named `%r0` to `%r{N-1}`.
    pub range: Option<Spanned<u32>>,
    /// Array dimensions, outermost first; `None` for `[]` (size from the initializer or extern).
    pub dimensions: Vec<Option<Spanned<u64>>>,
    /// `= initializer`.
    pub initializer: Option<Box<Initializer>>,
}

/// The initializer of a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Initializer {
    /// A number.
    Immediate(Spanned<Immediate>),
    /// The address of a variable or function, optionally `generic(name)`, plus an offset.
    Address {
        /// The whole initializer.
        span: Span,
        /// The symbol.
        name: Spanned<Text>,
        /// Written as `generic(name)`.
        generic: bool,
        /// `+ offset`.
        offset: Option<Spanned<i64>>,
    },
    /// `{ a, b, ... }`, possibly nested.
    List(Spanned<Vec<Initializer>>),
    /// `0xFF00(generic(p)+3)`: one byte of an address or an integer, picked by a mask of the
    /// form `0xFF << 8k` and shifted down (PTX ISA 9.0, 5.4.4 "Initializers": the mask
    /// operator, for initializing a byte array with the bytes of an address; ptxas 13.5:
    /// "Feature 'mask operator in initializer' requires PTX ISA .version 7.1 or later").
    Mask {
        /// The whole initializer.
        span: Span,
        /// The mask (any integer literal; the checker reports the ones that are not a byte's).
        mask: Spanned<Immediate>,
        /// The value masked: an [`Initializer::Address`] or an [`Initializer::Immediate`].
        value: Box<Initializer>,
    },
    /// `key = value`, as in sampler initializers `{ filter_mode = nearest }`.
    Property {
        /// The whole property.
        span: Span,
        /// The key.
        key: Spanned<Text>,
        /// The value (a name or a number).
        value: Box<Initializer>,
    },
}

/// A function or kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// From the first linkage directive to the closing brace or `;`.
    pub span: Span,
    /// Linkage directives.
    pub linkage: Vec<Spanned<Linkage>>,
    /// `.entry` or `.func`.
    pub kind: Spanned<FunctionKind>,
    /// `.func (.param .b32 retval) name`: the return parameters, if written.
    pub returns: Option<Vec<VariableDeclaration>>,
    /// The name.
    pub name: Spanned<Text>,
    /// The parameter list, if written (`None` for `.func name` without parentheses).
    pub params: Option<Vec<VariableDeclaration>>,
    /// Directives between the parameters and the body: `.maxntid 256, 1, 1`, `.noreturn`,
    /// `.pragma "nounroll";`.
    pub directives: Vec<FunctionDirective>,
    /// The body; `None` for a declaration ending in `;`.
    pub body: Option<Block>,
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// A directive attached to a function header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionDirective {
    /// A performance or ABI directive with integer arguments, e.g. `.maxntid 256, 1, 1`,
    /// `.minnctapersm 2`, `.noreturn`, `.explicitcluster`.
    Performance {
        /// The directive.
        span: Span,
        /// The name without its dot (`maxntid`).
        name: Spanned<Text>,
        /// The arguments.
        values: Vec<Spanned<u64>>,
    },
    /// `.pragma "...";`
    Pragma(Spanned<Text>),
}

/// `{ statements }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// From `{` to `}`.
    pub span: Span,
    /// The statements.
    pub statements: Vec<Statement>,
}

/// A statement of a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// An instruction.
    Instruction(Instruction),
    /// `name:`.
    Label(Spanned<Text>),
    /// `.reg`, `.local`, `.shared`, `.param` (and other) declarations.
    Declaration(VariableDeclaration),
    /// A nested scope.
    Block(Block),
    /// `.loc file line column [, function_name name, inlined_at file line column]`.
    Loc(Box<Loc>),
    /// `.pragma "...";`
    Pragma(Spanned<Text>),
    /// `name: .callprototype ...;`
    Prototype(Box<Prototype>),
    /// `name: .branchtargets L1, L2;` or `name: .calltargets f, g;`
    Targets(Targets),
}

/// `label: .branchtargets ...;` (possible `brx.idx` targets) or `label: .calltargets ...;`
/// (possible targets of an indirect `call`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targets {
    /// The statement.
    pub span: Span,
    /// The label naming the list.
    pub label: Spanned<Text>,
    /// `branchtargets` or `calltargets` (without the dot; other words are kept for the checker).
    pub kind: Spanned<Text>,
    /// The labels or functions listed.
    pub targets: Vec<Spanned<Text>>,
}

/// An instruction: `[@guard] opcode.modifiers operands;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// From the guard (or opcode) to the last operand, without `;`.
    pub span: Span,
    /// `@%p` or `@!%p`.
    pub guard: Option<Box<Guard>>,
    /// The opcode (`mov`, `cvt`, `mma`), as written.
    pub opcode: Spanned<Text>,
    /// The dotted modifiers in source order, without their dots (`rn`, `f32`, `shared::cta`).
    pub modifiers: Vec<Spanned<Text>>,
    /// The operands.
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// The modifiers as written, without their dots (`cvt.rn.f16.f32` -> `rn`, `f16`, `f32`):
    /// what the instruction table decodes.
    pub fn modifier_names(&self) -> Vec<&str> {
        self.modifiers.iter().map(|m| m.value.as_str()).collect()
    }

    /// Whether the modifier list contains `modifier` (written without its dot).
    pub fn has_modifier(&self, modifier: &str) -> bool {
        self.modifiers
            .iter()
            .any(|written| written.value == modifier)
    }
}

/// A predicate guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// From `@` to the predicate.
    pub span: Span,
    /// `@!%p`.
    pub negated: bool,
    /// The predicate register.
    pub predicate: Spanned<Text>,
}

/// A reference to a name: a register, variable, parameter, label or function, with an optional
/// vector component (`%v.x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameRef {
    /// The name and its component.
    pub span: Span,
    /// The name.
    pub name: Spanned<Text>,
    /// `.x`, `.y`, `.z`, `.w` (or `.r`, `.g`, `.b`, `.a`).
    pub component: Option<Spanned<Component>>,
    /// A video instruction's byte or half-word selector (`%r1.b0`, `%r2.h10`, `%r3.b3210`).
    pub selector: Option<Spanned<VideoSelector>>,
}

/// A byte or half-word selector of the video instructions (PTX ISA 9.0, vadd: `.asel = .bsel
/// = { .b0, .b1, .b2, .b3, .h0, .h1 }`; vadd2: `.asel = .bsel = { .hxy, where x,y are from {
/// 0, 1, 2, 3 } }`, `.mask = { .h0, .h1, .h10 }`; vadd4: `.asel = .bsel = { .bxyzw, where
/// x,y,z,w are from { 0, ..., 7 } }`, the masks `.b0` … `.b3210`). The parser takes any
/// `.b` with one to four digits 0-7 and any `.h` with one or two digits 0-3 (ptxas 13.5:
/// "Unknown video selector" for others); which of them an operand takes is the instruction
/// table's rule (`ptxsim_isa::video_selector_violation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VideoSelector {
    /// `.h…` (half-words) rather than `.b…` (bytes).
    pub half: bool,
    digits: [u8; 4],
    len: u8,
}

impl VideoSelector {
    /// Parses a selector written without its dot.
    pub fn from_name(name: &str) -> Option<VideoSelector> {
        let (half, rest) = match name.as_bytes().split_first()? {
            (b'b', rest) => (false, rest),
            (b'h', rest) => (true, rest),
            _ => return None,
        };
        let (most_digits, highest) = if half { (2, b'3') } else { (4, b'7') };
        if rest.is_empty() || rest.len() > most_digits {
            return None;
        }
        let mut digits = [0; 4];
        for (slot, &c) in digits.iter_mut().zip(rest) {
            if !(b'0'..=highest).contains(&c) {
                return None;
            }
            *slot = c - b'0';
        }
        Some(VideoSelector {
            half,
            digits,
            len: rest.len() as u8,
        })
    }

    /// The digits as written (`.b3210` -> `[3, 2, 1, 0]`).
    pub fn digits(&self) -> &[u8] {
        &self.digits[..usize::from(self.len)]
    }
}

impl std::fmt::Display for VideoSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.half { "h" } else { "b" })?;
        for digit in self.digits() {
            write!(f, "{digit}")?;
        }
        Ok(())
    }
}

/// A vector component selector (`%tid.x`, `%v.w`); `.r .g .b .a` are synonyms of `.x .y .z .w`
/// and are kept as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
    /// `.w`
    W,
    /// `.r`
    R,
    /// `.g`
    G,
    /// `.b`
    B,
    /// `.a`
    A,
}

impl Component {
    /// Parses a component name written without its dot.
    pub fn from_name(name: &str) -> Option<Component> {
        Some(match name {
            "x" => Component::X,
            "y" => Component::Y,
            "z" => Component::Z,
            "w" => Component::W,
            "r" => Component::R,
            "g" => Component::G,
            "b" => Component::B,
            "a" => Component::A,
            _ => return None,
        })
    }

    /// The name without its dot.
    pub fn as_str(self) -> &'static str {
        match self {
            Component::X => "x",
            Component::Y => "y",
            Component::Z => "z",
            Component::W => "w",
            Component::R => "r",
            Component::G => "g",
            Component::B => "b",
            Component::A => "a",
        }
    }

    /// The element index: 0 for `.x`/`.r` up to 3 for `.w`/`.a`.
    pub fn index(self) -> usize {
        match self {
            Component::X | Component::R => 0,
            Component::Y | Component::G => 1,
            Component::Z | Component::B => 2,
            Component::W | Component::A => 3,
        }
    }
}

impl std::fmt::Display for Component {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A name: register, variable, parameter, label or function. The checker resolves which.
    Name(NameRef),
    /// A special register such as `%tid.x`, `%laneid` or `%clock64`.
    SpecialRegister(NameRef),
    /// A number.
    Immediate(Spanned<Immediate>),
    /// `_`: a result that is discarded.
    Sink(Span),
    /// `!%p`: a negated predicate; `-%r1`: a negated source (`vmad`'s `{-}a`, `{-}b`,
    /// `{-}c`; vmad.md: "The source operands support optional negation").
    Negated(Span, Box<Operand>, Negation),
    /// `%r|%p`: the two destinations of `setp`, `shfl`, ...
    Pair(Span, Box<Operand>, Box<Operand>),
    /// `{a, b, _}`: a vector of operands.
    Vector(Spanned<Vec<Operand>>),
    /// `[base]`, `[base+offset]`, `[imm]`.
    Address(Box<Address>),
    /// `name+offset` without brackets: the address of a variable or function plus a byte
    /// offset (`mov.u64 %rd1, table+16`; ptxas also takes `table+8+8` and `table+-4`).
    NameOffset(Box<NameOffset>),
    /// `[a, b, ...]`: a bracketed list (texture, surface and tensor-map addressing).
    AddressList(Spanned<Vec<Operand>>),
    /// `(a, b)`: the return or argument list of `call`.
    List(Spanned<Vec<Operand>>),
}

/// How an operand is negated: `!` (a predicate) or `-` (an integer source of `vmad`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Negation {
    /// `!%p`.
    Not,
    /// `-%r1`.
    Minus,
}

impl Operand {
    /// The span of the operand.
    pub fn span(&self) -> Span {
        match self {
            Operand::Name(name) | Operand::SpecialRegister(name) => name.span,
            Operand::Immediate(immediate) => immediate.span,
            Operand::Sink(span) | Operand::Negated(span, ..) | Operand::Pair(span, _, _) => *span,
            Operand::Vector(list) | Operand::AddressList(list) | Operand::List(list) => list.span,
            Operand::Address(address) => address.span,
            Operand::NameOffset(offset) => offset.span,
        }
    }
}

/// `name+offset` outside brackets (see [`Operand::NameOffset`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameOffset {
    /// From the name to the last offset.
    pub span: Span,
    /// The variable or function.
    pub name: NameRef,
    /// The sum of the `+N` terms, with the span of all of them; for `name[N]` the index.
    pub offset: Spanned<i64>,
    /// `name[N]` (PTX ISA 6.4.2, "Arrays as Operands"): the offset counts elements of the
    /// array, not bytes.
    pub indexed: bool,
}

/// A memory address `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// From `[` to `]`.
    pub span: Span,
    /// The base.
    pub base: AddressBase,
    /// The byte offset, if written (`+0` is kept).
    pub offset: Option<Spanned<i64>>,
    /// `[a].unified` (PTX ISA 9.7.9.8, ld: "The optional qualifier .unified must be specified
    /// on operand a if a is the address of a variable declared with .unified attribute").
    pub unified: bool,
}

/// The base of an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressBase {
    /// A register or a variable/parameter name.
    Name(NameRef),
    /// An absolute address.
    Immediate(Spanned<u64>),
}

/// A numeric literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Immediate {
    /// Written with a leading `-`.
    pub negative: bool,
    /// The literal.
    pub value: ImmediateValue,
}

/// How an integer literal was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Radix {
    /// `42`
    Decimal,
    /// `0x2A`
    Hexadecimal,
    /// `052`
    Octal,
    /// `0b101010`
    Binary,
}

/// The value of a numeric literal. Floats are kept as bits or text: no host floating point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImmediateValue {
    /// An integer; `value` is the magnitude (negation is in [`Immediate::negative`]).
    Integer {
        /// The magnitude (64-bit).
        value: u64,
        /// How it was written.
        radix: Radix,
        /// Written with the `U` suffix.
        unsigned: bool,
    },
    /// `0fXXXXXXXX`: the bits of an f32.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an f64.
    F64Bits(u64),
    /// A decimal floating-point literal (`1.5`, `2e-3`) as written.
    Decimal(String),
}

/// `.loc file line column [, attributes]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The directive.
    pub span: Span,
    /// The `.file` index.
    pub file: Spanned<u32>,
    /// The line.
    pub line: Spanned<u32>,
    /// The column.
    pub column: Spanned<u32>,
    /// `function_name $L__info_string0`: the inlined function's name label.
    pub function_name: Option<Spanned<Text>>,
    /// `inlined_at file line column`.
    pub inlined_at: Option<(Spanned<u32>, Spanned<u32>, Spanned<u32>)>,
}

/// `.file index "path" [, timestamp, size]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDirective {
    /// The directive.
    pub span: Span,
    /// The index used by `.loc`.
    pub index: Spanned<u32>,
    /// The path, without quotes (escapes kept as written).
    pub path: Spanned<Text>,
    /// Optional timestamp and size.
    pub extra: Vec<Spanned<u64>>,
}

/// `.section .debug_xxx { entries }`: raw debug data emitted by compilers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The directive.
    pub span: Span,
    /// The section name with its dot (`.debug_info`).
    pub name: Spanned<Text>,
    /// The contents.
    pub entries: Vec<SectionEntry>,
}

/// A line of a `.section`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionEntry {
    /// `name:`
    Label(Spanned<Text>),
    /// `.b8 1, 2, 3` / `.b32 .debug_loc+2554` / `.b64 $L__func_begin0`.
    Data {
        /// The line.
        span: Span,
        /// The data type without its dot (`b8`).
        ty: Spanned<Text>,
        /// The values.
        values: Vec<SectionValue>,
    },
}

/// A value in a section data line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionValue {
    /// A number.
    Integer(Spanned<u64>),
    /// A string.
    String(Spanned<Text>),
    /// A label or section name (with its dot) plus an optional offset.
    Symbol {
        /// The value.
        span: Span,
        /// The symbol.
        name: Spanned<Text>,
        /// `+ offset`.
        offset: Option<Spanned<i64>>,
    },
}

/// `label: .callprototype [(returns)] _ (params) [directives];`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prototype {
    /// The statement.
    pub span: Span,
    /// The label naming the prototype, used by indirect `call`.
    pub label: Spanned<Text>,
    /// Return parameters.
    pub returns: Option<Vec<VariableDeclaration>>,
    /// The name after `.callprototype` (always `_` in practice).
    pub name: Spanned<Text>,
    /// Parameters.
    pub params: Option<Vec<VariableDeclaration>>,
    /// `.noreturn` and similar.
    pub directives: Vec<FunctionDirective>,
}

/// The special registers of PTX (ISA section 10), without their vector components.
pub const SPECIAL_REGISTERS: &[&str] = &[
    "%tid",
    "%ntid",
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%ctaid",
    "%nctaid",
    "%smid",
    "%nsmid",
    "%gridid",
    "%is_explicit_cluster",
    "%clusterid",
    "%nclusterid",
    "%cluster_ctaid",
    "%cluster_nctaid",
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%clock",
    "%clock_hi",
    "%clock64",
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%total_smem_size",
    "%aggr_smem_size",
    "%dynamic_smem_size",
    "%current_graph_exec",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
];

/// Whether `name` is a special register: one of [`SPECIAL_REGISTERS`], `%pm0`..`%pm7`,
/// `%pm0_64`..`%pm7_64` or `%envreg0`..`%envreg31`.
pub fn is_special_register(name: &str) -> bool {
    // No special register is shorter than `%tid` or has a digit third (`%r1`, `%f12`, `%p3`:
    // most registers stop here).
    let bytes = name.as_bytes();
    if bytes.len() < 4 || bytes[2].is_ascii_digit() {
        return false;
    }
    // The same names as `SPECIAL_REGISTERS` (a test checks it), as a `match`: the compiler
    // dispatches on the length first, so ordinary registers cost about one comparison.
    if matches!(
        name,
        "%tid"
            | "%ntid"
            | "%laneid"
            | "%warpid"
            | "%nwarpid"
            | "%ctaid"
            | "%nctaid"
            | "%smid"
            | "%nsmid"
            | "%gridid"
            | "%is_explicit_cluster"
            | "%clusterid"
            | "%nclusterid"
            | "%cluster_ctaid"
            | "%cluster_nctaid"
            | "%cluster_ctarank"
            | "%cluster_nctarank"
            | "%lanemask_eq"
            | "%lanemask_le"
            | "%lanemask_lt"
            | "%lanemask_ge"
            | "%lanemask_gt"
            | "%clock"
            | "%clock_hi"
            | "%clock64"
            | "%globaltimer"
            | "%globaltimer_lo"
            | "%globaltimer_hi"
            | "%total_smem_size"
            | "%aggr_smem_size"
            | "%dynamic_smem_size"
            | "%current_graph_exec"
            | "%reserved_smem_offset_begin"
            | "%reserved_smem_offset_end"
            | "%reserved_smem_offset_cap"
            | "%reserved_smem_offset_0"
            | "%reserved_smem_offset_1"
    ) {
        return true;
    }
    if let Some(rest) = name.strip_prefix("%pm") {
        let digits = rest.strip_suffix("_64").unwrap_or(rest);
        return matches!(digits.parse::<u8>(), Ok(0..=7)) && digits.len() == 1;
    }
    if let Some(rest) = name.strip_prefix("%envreg") {
        return matches!(rest.parse::<u8>(), Ok(0..=31)) && !rest.starts_with('0') || rest == "0";
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_registers_are_recognized() {
        for name in SPECIAL_REGISTERS {
            assert!(is_special_register(name), "{name}");
        }
        for name in ["%pm0", "%pm7_64", "%envreg0", "%envreg31"] {
            assert!(is_special_register(name), "{name}");
        }
        for name in [
            "%r1",
            "%rd12",
            "%tid1",
            "%pm8",
            "%envreg32",
            "%envreg01",
            "tid",
            "%",
        ] {
            assert!(!is_special_register(name), "{name}");
        }
    }
}
