//! The lowered program the executor runs: registers resolved to indices, modifiers decoded once
//! through the instruction table of `ptxsim-isa`, immediates already turned into bits.
//!
//! Nothing here refers back to source text except for diagnostics and traces ([`Location`],
//! [`Instruction::text`]).

use ptxsim_isa::Type;

use crate::cvt::CvtOp;

/// The index of a register in a [`Program`]'s register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegisterId(pub u32);

impl RegisterId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A declared register of the thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterInfo {
    /// The name shown in the output: the declared name, with `#n` appended to the n-th
    /// redeclaration of the same name in a nested scope (nested-scope registers are distinct
    /// registers).
    pub name: String,
    /// The declared type (`.pred`, `.b32`, `.f16x2`, ...).
    pub ty: Type,
}

impl RegisterInfo {
    /// The register's width in bits (1 for `.pred`).
    pub fn bits(&self) -> u32 {
        self.ty.bits()
    }
}

/// Where an instruction came from, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// The line.
    pub line: u32,
    /// The column (in characters).
    pub column: u32,
}

/// A lowered kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The entry's name.
    pub entry: String,
    /// Every register of the thread, in declaration order.
    pub registers: Vec<RegisterInfo>,
    /// The instructions, in source order (nested blocks flattened).
    pub instructions: Vec<Instruction>,
}

impl Program {
    /// Looks a register up by its output name.
    pub fn register(&self, name: &str) -> Option<RegisterId> {
        self.registers
            .iter()
            .position(|register| register.name == name)
            .and_then(|index| u32::try_from(index).ok())
            .map(RegisterId)
    }
}

/// A predicate guard `@%p` / `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub predicate: RegisterId,
    /// `@!%p`.
    pub negated: bool,
}

/// One lowered instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The guard, if any.
    pub guard: Option<Guard>,
    /// What it does.
    pub kind: InstructionKind,
    /// The instruction as written (without `;`), for traces.
    pub text: String,
    /// Where it was written.
    pub location: Location,
}

/// A special register (PTX ISA chapter 10) the executor provides, with its component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialRegister {
    /// `%tid.{x,y,z}`: the thread's index in its CTA.
    Tid(Axis),
    /// `%ntid.{x,y,z}`: the CTA's size.
    Ntid(Axis),
    /// `%ctaid.{x,y,z}`: the CTA's index in the grid.
    Ctaid(Axis),
    /// `%nctaid.{x,y,z}`: the grid's size.
    Nctaid(Axis),
    /// `%laneid`.
    Laneid,
    /// `%warpid`.
    Warpid,
    /// `%nwarpid`.
    Nwarpid,
    /// `%smid`.
    Smid,
    /// `%nsmid`.
    Nsmid,
    /// `%gridid`.
    Gridid,
    /// `%clock`: the low 32 bits of the step counter.
    Clock,
    /// `%clock_hi`: the high 32 bits of the step counter.
    ClockHi,
    /// `%clock64`: the step counter.
    Clock64,
}

/// `.x`, `.y` or `.z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A register, read and chopped to the instruction type (Table 27).
    Register(RegisterId),
    /// Bits already encoded for the operand's type.
    Immediate(u128),
    /// A special register.
    Special(SpecialRegister),
}

/// A destination operand: a register, written with Table 28's extension rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    /// The register.
    pub register: RegisterId,
}

/// What an instruction does. The executor matches on this without a wildcard arm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstructionKind {
    /// `mov.type d, a` (scalar).
    Mov {
        /// The instruction type.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`.
        source: Source,
    },
    /// `mov.type d, {a, b, ...}` (pack, PTX ISA 9.7.9.4): the first element lands in the lowest
    /// bits.
    MovPack {
        /// The instruction type (`.b16` .. `.b128`).
        ty: Type,
        /// `d`.
        destination: Destination,
        /// The elements, first = lowest bits.
        elements: Vec<Source>,
    },
    /// `mov.type {d0, d1, ...}, a` (unpack): element `i` takes bits `[i*w, (i+1)*w)`; `None`
    /// is the sink `_`.
    MovUnpack {
        /// The instruction type (`.b16` .. `.b128`).
        ty: Type,
        /// The element destinations.
        elements: Vec<Option<Destination>>,
        /// `a`.
        source: Source,
    },
    /// `cvt` (PTX ISA 9.7.9.21).
    Cvt {
        /// The decoded conversion.
        op: CvtOp,
        /// `d`.
        destination: Destination,
        /// The sources in syntax order (`a`, `b`, `e`, `f`, `rbits`, `scale-factor`).
        sources: Vec<Source>,
    },
    /// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (PTX ISA 9.7.9.22).
    CvtPack {
        /// `.convertType`.
        ty: ptxsim_softfloat::pack::PackType,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
        /// `b`.
        b: Source,
        /// `c`, for the 8-, 4- and 2-bit types.
        c: Option<Source>,
    },
    /// `bra target` (single thread, so `.uni` changes nothing).
    Bra {
        /// The index of the target instruction.
        target: usize,
    },
    /// `ret` (from the entry: the thread exits).
    Ret,
    /// `exit`.
    Exit,
    /// `trap`: the program aborts (an [`crate::Outcome::Trapped`]).
    Trap,
    /// An instruction the executor does not implement; executing it stops the run with
    /// [`crate::ExecError::Unsupported`].
    Unsupported {
        /// The opcode and modifiers as written, e.g. `add.s32`.
        mnemonic: String,
        /// Why, in words.
        reason: String,
    },
}
