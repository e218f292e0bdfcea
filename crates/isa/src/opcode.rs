//! Opcodes (PTX ISA chapter 9.7) and the modifiers with enum values.
//!
//! Every instruction name of the PTX ISA (one per file of the spec's `isa/` folder) is an
//! [`Opcode`], with the number of the first section that describes it in the PTX ISA 9.1
//! documentation (`docs/ptx-sections.tsv` lists every section of each name, with its
//! address).

use std::fmt;

macro_rules! opcodes {
    ($($variant:ident = $name:literal, $section:literal;)*) => {
        /// A PTX instruction opcode, the first word of an instruction without its modifiers.
        ///
        /// Every instruction name of the PTX ISA; [`Opcode::is_decoded`] says which the table
        /// describes beyond the name. Layers match on it
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

            /// Looks a mnemonic up (a string `match`; [`Opcode::from_name`] is the fast
            /// lookup).
            #[cfg(test)]
            fn from_name_slow(name: &str) -> Option<Opcode> {
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
    Brev = "brev", "9.7.1.18";
    Bfe = "bfe", "9.7.1.19";
    Bfi = "bfi", "9.7.1.20";
    Fma = "fma", "9.7.3.6";
    Rcp = "rcp", "9.7.3.13";
    Sqrt = "sqrt", "9.7.3.15";
    Rsqrt = "rsqrt", "9.7.3.16";
    Sin = "sin", "9.7.3.18";
    Cos = "cos", "9.7.3.19";
    Lg2 = "lg2", "9.7.3.20";
    Ex2 = "ex2", "9.7.3.21";
    Setp = "setp", "9.7.6.2";
    Selp = "selp", "9.7.6.3";
    Slct = "slct", "9.7.6.4";
    And = "and", "9.7.8.1";
    Or = "or", "9.7.8.2";
    Xor = "xor", "9.7.8.3";
    Not = "not", "9.7.8.4";
    Cnot = "cnot", "9.7.8.5";
    Lop3 = "lop3", "9.7.8.6";
    Shf = "shf", "9.7.8.7";
    Shl = "shl", "9.7.8.8";
    Shr = "shr", "9.7.8.9";
    Mov = "mov", "9.7.9.3";
    Shfl = "shfl", "9.7.9.5";
    Prmt = "prmt", "9.7.9.7";
    Ld = "ld", "9.7.9.8";
    Ldu = "ldu", "9.7.9.10";
    St = "st", "9.7.9.11";
    Prefetch = "prefetch", "9.7.9.15";
    Cvta = "cvta", "9.7.9.20";
    Cvt = "cvt", "9.7.9.21";
    Bra = "bra", "9.7.12.3";
    Call = "call", "9.7.12.5";
    Ret = "ret", "9.7.12.6";
    Exit = "exit", "9.7.12.7";
    Bar = "bar", "9.7.13.1";
    Barrier = "barrier", "9.7.13.1";
    Membar = "membar", "9.7.13.4";
    Fence = "fence", "9.7.13.4";
    Atom = "atom", "9.7.13.5";
    Red = "red", "9.7.13.6";
    Vote = "vote", "9.7.13.8";
    Activemask = "activemask", "9.7.13.11";
    Trap = "trap", "9.7.19.4";
    Addc = "addc", "9.7.2.2";
    Alloca = "alloca", "9.7.17.3";
    Applypriority = "applypriority", "9.7.9.16";
    Bfind = "bfind", "9.7.1.16";
    Bmsk = "bmsk", "9.7.1.22";
    Brkpt = "brkpt", "9.7.19.1";
    Brx = "brx", "9.7.12.4";
    Clusterlaunchcontrol = "clusterlaunchcontrol", "9.7.13.17";
    Copysign = "copysign", "9.7.3.2";
    Cp = "cp", "9.7.9.25.3.1";
    Createpolicy = "createpolicy", "9.7.9.18";
    Discard = "discard", "9.7.9.17";
    Dp2a = "dp2a", "9.7.1.24";
    Dp4a = "dp4a", "9.7.1.23";
    Elect = "elect", "9.7.13.14";
    Fns = "fns", "9.7.1.17";
    Getctarank = "getctarank", "9.7.9.24";
    Griddepcontrol = "griddepcontrol", "9.7.13.13";
    Isspacep = "isspacep", "9.7.9.19";
    Istypep = "istypep", "9.7.10.6";
    Ldmatrix = "ldmatrix", "9.7.14.5.15";
    Madc = "madc", "9.7.2.6";
    Mapa = "mapa", "9.7.9.23";
    Match = "match", "9.7.13.10";
    Mbarrier = "mbarrier", "9.7.13.15";
    Mma = "mma", "9.7.14.5.14";
    Movmatrix = "movmatrix", "9.7.14.5.17";
    Multimem = "multimem", "9.7.9.14";
    Nanosleep = "nanosleep", "9.7.19.2";
    Pmevent = "pmevent", "9.7.19.3";
    Prefetchu = "prefetchu", "9.7.9.15";
    Redux = "redux", "9.7.13.12";
    Set = "set", "9.7.6.1";
    Setmaxnreg = "setmaxnreg", "9.7.19.5";
    Stackrestore = "stackrestore", "9.7.17.2";
    Stacksave = "stacksave", "9.7.17.1";
    Stmatrix = "stmatrix", "9.7.14.5.16";
    Subc = "subc", "9.7.2.4";
    Suld = "suld", "9.7.11.1";
    Suq = "suq", "9.7.11.4";
    Sured = "sured", "9.7.11.3";
    Sust = "sust", "9.7.11.2";
    Szext = "szext", "9.7.1.21";
    Tanh = "tanh", "9.7.3.22";
    Tcgen05 = "tcgen05", "9.7.16.7.1";
    Tensormap = "tensormap", "9.7.9.28";
    Testp = "testp", "9.7.3.1";
    Tex = "tex", "9.7.10.3";
    Tld4 = "tld4", "9.7.10.4";
    Txq = "txq", "9.7.10.5";
    Vabsdiff = "vabsdiff", "9.7.18.1.1";
    Vabsdiff2 = "vabsdiff2", "9.7.18.2.1";
    Vabsdiff4 = "vabsdiff4", "9.7.18.2.3";
    Vadd = "vadd", "9.7.18.1.1";
    Vadd2 = "vadd2", "9.7.18.2.1";
    Vadd4 = "vadd4", "9.7.18.2.3";
    Vavrg2 = "vavrg2", "9.7.18.2.1";
    Vavrg4 = "vavrg4", "9.7.18.2.3";
    Vmad = "vmad", "9.7.18.1.3";
    Vmax = "vmax", "9.7.18.1.1";
    Vmax2 = "vmax2", "9.7.18.2.1";
    Vmax4 = "vmax4", "9.7.18.2.3";
    Vmin = "vmin", "9.7.18.1.1";
    Vmin2 = "vmin2", "9.7.18.2.1";
    Vmin4 = "vmin4", "9.7.18.2.3";
    Vset = "vset", "9.7.18.1.4";
    Vset2 = "vset2", "9.7.18.2.2";
    Vset4 = "vset4", "9.7.18.2.4";
    Vshl = "vshl", "9.7.18.1.2";
    Vshr = "vshr", "9.7.18.1.2";
    Vsub = "vsub", "9.7.18.1.1";
    Vsub2 = "vsub2", "9.7.18.2.1";
    Vsub4 = "vsub4", "9.7.18.2.3";
    Wgmma = "wgmma", "9.7.15.5.2";
    Wmma = "wmma", "9.7.14.4.3";
}

/// Buckets of [`Opcode::from_name`]'s table.
const NAME_BUCKETS: usize = 512;

/// The bucket of a name: its length and three of its bytes, mixed.
fn name_bucket(name: &[u8]) -> usize {
    let (Some(&first), Some(&last)) = (name.first(), name.last()) else {
        return 0;
    };
    let second = name.get(1).copied().unwrap_or(0);
    let mixed = (name.len() as u32)
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add(u32::from(first).wrapping_mul(0x85eb_ca6b))
        .wrapping_add(u32::from(second).wrapping_mul(0xc2b2_ae35))
        .wrapping_add(u32::from(last).wrapping_mul(0x27d4_eb2f));
    (mixed >> 16) as usize % NAME_BUCKETS
}

impl Opcode {
    /// Looks a mnemonic up. Every instruction of a module is looked up, so this is a table
    /// indexed by a few bytes of the name (built once) rather than a chain of string compares;
    /// the test `name_lookup_agrees_with_the_match` holds it equal to the plain `match`.
    pub fn from_name(name: &str) -> Option<Opcode> {
        static TABLE: std::sync::OnceLock<Vec<Vec<Opcode>>> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut table = vec![Vec::new(); NAME_BUCKETS];
            for &op in Opcode::ALL {
                if let Some(bucket) = table.get_mut(name_bucket(op.name().as_bytes())) {
                    bucket.push(op);
                }
            }
            table
        });
        table
            .get(name_bucket(name.as_bytes()))?
            .iter()
            .copied()
            .find(|op| op.name() == name)
    }

    /// Whether the instruction table decodes this opcode's modifiers ([`crate::decode`] gives
    /// forms for it rather than [`crate::DecodeErrorKind::UnsupportedInstruction`]): the checker
    /// validates it and `ptxsim run` executes it. Other opcodes are only known by name.
    pub fn is_decoded(self) -> bool {
        static DECODED: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
        let table = DECODED.get_or_init(|| {
            Opcode::ALL
                .iter()
                .map(|op| {
                    !matches!(
                        crate::form::decode(op.name(), &[]),
                        Err(crate::form::DecodeError {
                            kind: crate::form::DecodeErrorKind::UnsupportedInstruction(_),
                            ..
                        })
                    )
                })
                .collect()
        });
        // The variants carry no data and no explicit discriminants: `self as usize` is the
        // position in `ALL` (declaration order).
        table.get(self as usize).copied().unwrap_or(false)
    }

    /// The known opcode nearest to `name` by edit distance (at most 2), for "did you mean".
    /// `frobnicate` has none; `shlf` is `shfl`, `mull` is `mul`, `addd` is `add` (not the
    /// equally near `addc`). Between equally near opcodes: a swap of two letters first (the
    /// commonest typo), then the commoner opcode ([`COMMON`]), then the one of the nearer
    /// length.
    pub fn nearest(name: &str) -> Option<Opcode> {
        let swap = |op: Opcode| {
            let (mut a, mut b): (Vec<char>, Vec<char>) =
                (name.chars().collect(), op.name().chars().collect());
            a.sort_unstable();
            b.sort_unstable();
            a == b
        };
        let rarity = |op: Opcode| COMMON.iter().position(|&c| c == op).unwrap_or(COMMON.len());
        Opcode::ALL
            .iter()
            .map(|&op| (edit_distance(name, op.name()), op))
            .filter(|&(distance, _)| distance <= 2 && distance < name.chars().count())
            .min_by_key(|&(distance, op)| {
                (
                    distance,
                    !swap(op),
                    rarity(op),
                    op.name().len().abs_diff(name.len()),
                )
            })
            .map(|(_, op)| op)
    }
}

/// The opcodes real modules use most, commonest first: the counts of instructions in the
/// bundled nvcc and Triton output (`ptx-samples/*/*.ptx`: mov 3015, cvt 2257, add 2204, ld
/// 2163, setp 1684, ... xor 10). "Did you mean" prefers these between equally near names.
const COMMON: [Opcode; 34] = [
    Opcode::Mov,
    Opcode::Cvt,
    Opcode::Add,
    Opcode::Ld,
    Opcode::Setp,
    Opcode::Bra,
    Opcode::St,
    Opcode::And,
    Opcode::Mul,
    Opcode::Cvta,
    Opcode::Shl,
    Opcode::Or,
    Opcode::Shr,
    Opcode::Ret,
    Opcode::Mad,
    Opcode::Selp,
    Opcode::Shfl,
    Opcode::Sub,
    Opcode::Max,
    Opcode::Not,
    Opcode::Fma,
    Opcode::Call,
    Opcode::Ex2,
    Opcode::Bar,
    Opcode::Dp4a,
    Opcode::Div,
    Opcode::Madc,
    Opcode::Abs,
    Opcode::Neg,
    Opcode::Atom,
    Opcode::Addc,
    Opcode::Mbarrier,
    Opcode::Prmt,
    Opcode::Xor,
];

/// Edit distance between two short words: insertions, deletions, substitutions and swaps of
/// two neighbouring letters (`shlf` is one edit from `shfl`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, row) in d.chunks_mut(width).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rounding modifier (cvt.md "Floating Point Notes" and "Integer Notes"): the type of
/// `ptxsim-softfloat`, which the table decodes to and the arithmetic rounds by.
pub use ptxsim_softfloat::Rounding;

#[cfg(test)]
mod tests {
    use super::Opcode;

    #[test]
    fn nearest_names() {
        assert_eq!(Opcode::nearest("shlf"), Some(Opcode::Shfl));
        assert_eq!(Opcode::nearest("mull"), Some(Opcode::Mul));
        // One edit from both `add` and `addc`: the commoner (issue 36).
        assert_eq!(Opcode::nearest("addd"), Some(Opcode::Add));
        assert_eq!(Opcode::nearest("subb"), Some(Opcode::Sub));
        assert_eq!(Opcode::nearest("cvta2"), Some(Opcode::Cvta));
        assert_eq!(Opcode::nearest("frobnicate"), None);
        assert_eq!(Opcode::nearest(""), None);
    }

    #[test]
    fn name_lookup_agrees_with_the_match() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
            assert_eq!(Opcode::from_name_slow(op.name()), Some(op));
        }
        for name in [
            "",
            "a",
            "ad",
            "addd",
            "frobnicate",
            "cvt.rn",
            "ADD",
            "mov ",
            "x".repeat(300).as_str(),
        ] {
            assert_eq!(
                Opcode::from_name(name),
                Opcode::from_name_slow(name),
                "{name}"
            );
        }
    }
}
