//! Opcodes (PTX ISA chapter 9.7) and the modifiers with enum values.

use std::fmt;

macro_rules! opcodes {
    ($($variant:ident = $name:literal, $section:literal;)*) => {
        /// A PTX instruction opcode, the first word of an instruction without its modifiers.
        ///
        /// Lists the opcodes that nvcc-generated kernels commonly use. Layers match on it
        /// without a wildcard arm, so adding an opcode breaks the build wherever it is not yet
        /// handled (style rule 3).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(#[doc = concat!("`", $name, "` (PTX ISA ", $section, ")")] $variant,)*
        }

        impl Opcode {
            /// Every opcode, in declaration order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The PTX mnemonic.
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }

            /// The PTX ISA manual section that defines it.
            pub const fn section(self) -> &'static str {
                match self { $(Opcode::$variant => $section,)* }
            }

            /// Looks a mnemonic up.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name { $($name => Some(Opcode::$variant),)* _ => None }
            }
        }
    };
}

opcodes! {
    Add = "add", "9.7.1.1";
    Sub = "sub", "9.7.1.2";
    Mul = "mul", "9.7.1.3";
    Mad = "mad", "9.7.1.4";
    Mul24 = "mul24", "9.7.1.5";
    Mad24 = "mad24", "9.7.1.6";
    Sad = "sad", "9.7.1.7";
    Div = "div", "9.7.1.8";
    Rem = "rem", "9.7.1.9";
    Abs = "abs", "9.7.1.10";
    Neg = "neg", "9.7.1.11";
    Min = "min", "9.7.1.12";
    Max = "max", "9.7.1.13";
    Popc = "popc", "9.7.1.14";
    Clz = "clz", "9.7.1.15";
    Brev = "brev", "9.7.1.17";
    Bfe = "bfe", "9.7.1.18";
    Bfi = "bfi", "9.7.1.19";
    Fma = "fma", "9.7.3.5";
    Rcp = "rcp", "9.7.3.8";
    Sqrt = "sqrt", "9.7.3.10";
    Rsqrt = "rsqrt", "9.7.3.11";
    Sin = "sin", "9.7.3.13";
    Cos = "cos", "9.7.3.14";
    Lg2 = "lg2", "9.7.3.15";
    Ex2 = "ex2", "9.7.3.16";
    Setp = "setp", "9.7.7.2";
    Selp = "selp", "9.7.7.4";
    Slct = "slct", "9.7.7.5";
    And = "and", "9.7.8.1";
    Or = "or", "9.7.8.2";
    Xor = "xor", "9.7.8.3";
    Not = "not", "9.7.8.4";
    Cnot = "cnot", "9.7.8.5";
    Lop3 = "lop3", "9.7.8.6";
    Shf = "shf", "9.7.8.7";
    Shl = "shl", "9.7.8.8";
    Shr = "shr", "9.7.8.9";
    Mov = "mov", "9.7.9.4";
    Shfl = "shfl", "9.7.9.6";
    Prmt = "prmt", "9.7.9.7";
    Ld = "ld", "9.7.9.8";
    Ldu = "ldu", "9.7.9.9";
    St = "st", "9.7.9.10";
    Prefetch = "prefetch", "9.7.9.15";
    Cvta = "cvta", "9.7.9.20";
    Cvt = "cvt", "9.7.9.21";
    Bra = "bra", "9.7.12.2";
    Call = "call", "9.7.12.4";
    Ret = "ret", "9.7.12.5";
    Exit = "exit", "9.7.12.6";
    Bar = "bar", "9.7.13.1";
    Membar = "membar", "9.7.13.4";
    Fence = "fence", "9.7.13.4";
    Atom = "atom", "9.7.13.5";
    Red = "red", "9.7.13.6";
    Vote = "vote", "9.7.13.8";
    Activemask = "activemask", "9.7.13.12";
    Trap = "trap", "9.7.19.2";
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rounding modifier (cvt.md "Floating Point Notes" and "Integer Notes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rounding {
    /// `.rn`: to nearest, ties to even.
    Rn,
    /// `.rna`: to nearest, ties away from zero.
    Rna,
    /// `.rz`: toward zero.
    Rz,
    /// `.rm`: toward negative infinity.
    Rm,
    /// `.rp`: toward positive infinity.
    Rp,
    /// `.rs`: stochastic, from the `rbits` operand.
    Rs,
    /// `.rni`: to the nearest integer, ties to even.
    Rni,
    /// `.rzi`: to an integer toward zero.
    Rzi,
    /// `.rmi`: to an integer toward negative infinity.
    Rmi,
    /// `.rpi`: to an integer toward positive infinity.
    Rpi,
}

impl Rounding {
    /// Every rounding modifier.
    pub const ALL: &'static [Rounding] = &[
        Rounding::Rn,
        Rounding::Rna,
        Rounding::Rz,
        Rounding::Rm,
        Rounding::Rp,
        Rounding::Rs,
        Rounding::Rni,
        Rounding::Rzi,
        Rounding::Rmi,
        Rounding::Rpi,
    ];

    /// `.frnd` of the cvt syntax block: `{ .rn, .rz, .rm, .rp }`.
    pub const FLOAT: &'static [Rounding] =
        &[Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];
    /// `.irnd`: `{ .rni, .rzi, .rmi, .rpi }`.
    pub const INTEGER: &'static [Rounding] =
        &[Rounding::Rni, Rounding::Rzi, Rounding::Rmi, Rounding::Rpi];

    /// The spelling without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rna => "rna",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
            Rounding::Rs => "rs",
            Rounding::Rni => "rni",
            Rounding::Rzi => "rzi",
            Rounding::Rmi => "rmi",
            Rounding::Rpi => "rpi",
        }
    }

    /// Parses a modifier without its dot.
    pub fn from_name(name: &str) -> Option<Rounding> {
        Rounding::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// Whether this is an integer rounding (`.rni`, `.rzi`, `.rmi`, `.rpi`).
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi
        )
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}
