//! `.target` architectures and `.version` PTX ISA versions (PTX ISA 11.1 `.version`,
//! 11.2 `.target`), with the version/target compatibility that ptxas enforces.

use std::fmt;

/// A PTX ISA version as written in `.version major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    /// The major number.
    pub major: u8,
    /// The minor number.
    pub minor: u8,
}

impl PtxVersion {
    /// Builds a version.
    pub const fn new(major: u8, minor: u8) -> PtxVersion {
        PtxVersion { major, minor }
    }

    /// Parses `"9.1"`.
    pub fn parse(text: &str) -> Option<PtxVersion> {
        let (major, minor) = text.trim().split_once('.')?;
        Some(PtxVersion::new(major.parse().ok()?, minor.parse().ok()?))
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Which feature set a target name selects (PTX ISA 11.2, `.target`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetVariant {
    /// `sm_XX`: the features common to sm_XX and every later architecture.
    Generic,
    /// `sm_XXa`: architecture-specific; everything of sm_XX plus features that exist only on
    /// that exact architecture (and, since the family targets, every family feature).
    ArchSpecific,
    /// `sm_XXf`: family-specific; features shared by sm_XX and the later members of its family.
    FamilySpecific,
}

/// A `.target` architecture such as `sm_90`, `sm_100a`, `sm_120f` or `compute_90`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture number (`100` for `sm_100a`).
    pub number: u32,
    /// Generic, arch-specific (`a`) or family-specific (`f`).
    pub variant: TargetVariant,
    /// Whether it was written as a virtual `compute_XX` architecture.
    pub is_virtual: bool,
}

/// A `.target` name that is not `sm_XX`, `sm_XXa`, `sm_XXf` or `compute_XX[a|f]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetParseError {
    /// The text that was rejected.
    pub text: String,
}

impl fmt::Display for TargetParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a target architecture (expected sm_XX, sm_XXa, sm_XXf or compute_XX)",
            self.text
        )
    }
}

impl std::error::Error for TargetParseError {}

impl Target {
    /// Parses `sm_90`, `sm_100a`, `sm_120f`, `compute_90a`.
    pub fn parse(text: &str) -> Result<Target, TargetParseError> {
        let error = || TargetParseError {
            text: text.to_string(),
        };
        let (is_virtual, rest) = if let Some(rest) = text.strip_prefix("sm_") {
            (false, rest)
        } else if let Some(rest) = text.strip_prefix("compute_") {
            (true, rest)
        } else {
            return Err(error());
        };
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], TargetVariant::ArchSpecific),
            Some(b'f') => (&rest[..rest.len() - 1], TargetVariant::FamilySpecific),
            _ => (rest, TargetVariant::Generic),
        };
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(error());
        }
        let number = digits.parse().map_err(|_| error())?;
        Ok(Target {
            number,
            variant,
            is_virtual,
        })
    }

    /// A real `sm_` target.
    pub const fn sm(number: u32, variant: TargetVariant) -> Target {
        Target {
            number,
            variant,
            is_virtual: false,
        }
    }

    /// The name as written, e.g. `sm_100a`.
    pub fn name(&self) -> String {
        let prefix = if self.is_virtual { "compute_" } else { "sm_" };
        let suffix = match self.variant {
            TargetVariant::Generic => "",
            TargetVariant::ArchSpecific => "a",
            TargetVariant::FamilySpecific => "f",
        };
        format!("{prefix}{}{suffix}", self.number)
    }

    /// The architecture number after the PTX ISA 9.0 renaming of `sm_101` to `sm_110`
    /// (cvt.md Target ISA Notes: "`sm_101a` (Renamed to `sm_110a` from PTX ISA version 9.0)").
    /// ptxas 13.5 still accepts `.target sm_101*` at every version from 8.6 and treats it as
    /// sm_110 for feature checks, so the renaming applies regardless of `.version`.
    pub const fn canonical_number(&self) -> u32 {
        if self.number == 101 { 110 } else { self.number }
    }

    /// The name a target has from PTX ISA 9.0 on, if it was renamed: `sm_101*` became `sm_110*`
    /// (cvt.md Target ISA Notes). A checker can suggest the new name for modules at `.version`
    /// 9.0 or later; ptxas 13.5 still accepts the old one.
    pub fn renamed(&self, version: PtxVersion) -> Option<Target> {
        (self.number == 101 && version >= PtxVersion::new(9, 0)).then_some(Target {
            number: 110,
            ..*self
        })
    }

    /// The family an architecture belongs to: sm_100, sm_103 and sm_107 form family 10;
    /// sm_110 (formerly sm_101) family 11; sm_120 and sm_121 family 12 (ptxas `--help`:
    /// "PTX for .target sm_XYf can be compiled to GPU targets sm_XZ ... where Z >= Y").
    pub const fn family(&self) -> u32 {
        self.canonical_number() / 10
    }

    /// Whether a feature documented as "supported on `sm_<base>f` or higher in the same family"
    /// is available: the target is family- or arch-specific, in the same family, and not older.
    pub const fn in_family_of(&self, base: u32) -> bool {
        !matches!(self.variant, TargetVariant::Generic)
            && self.family() == base / 10
            && self.canonical_number() >= base
    }

    /// The oldest `.version` that ptxas 13.5 accepts together with this `.target`, or `None` for
    /// an architecture ptxas does not know. Measured by `scripts/conformance/gen.py` (see
    /// `tests/conformance/targets.tsv`); e.g. "PTX .version 8.5 does not support .target sm_100a".
    pub fn min_ptx_version(&self) -> Option<PtxVersion> {
        let entry = MIN_PTX_VERSION
            .iter()
            .find(|(number, variant, _)| *number == self.number && *variant == self.variant)?;
        Some(entry.2)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

use TargetVariant::{ArchSpecific as A, FamilySpecific as F, Generic as G};

/// The minimum `.version` for each `.target` that ptxas 13.5 accepts (tests/conformance/
/// targets.tsv, one probe per target and version; acceptance is contiguous up to 9.5).
pub const MIN_PTX_VERSION: &[(u32, TargetVariant, PtxVersion)] = &[
    // sm_1x to sm_62 are not in targets.tsv; probed by hand with ptxas 13.5 (`-arch sm_75`,
    // `.version` 1.0 to 5.0 without `.address_size`), which still accepts them as `.target`.
    (10, G, PtxVersion::new(1, 0)),
    (11, G, PtxVersion::new(1, 0)),
    (12, G, PtxVersion::new(1, 2)),
    (13, G, PtxVersion::new(1, 2)),
    (20, G, PtxVersion::new(2, 0)),
    (21, G, PtxVersion::new(2, 0)),
    (30, G, PtxVersion::new(3, 0)),
    (32, G, PtxVersion::new(4, 0)),
    (35, G, PtxVersion::new(3, 1)),
    (37, G, PtxVersion::new(4, 1)),
    (50, G, PtxVersion::new(4, 0)),
    (52, G, PtxVersion::new(4, 1)),
    (53, G, PtxVersion::new(4, 2)),
    (60, G, PtxVersion::new(5, 0)),
    (61, G, PtxVersion::new(5, 0)),
    (62, G, PtxVersion::new(5, 0)),
    (70, G, PtxVersion::new(5, 1)),
    (72, G, PtxVersion::new(6, 1)),
    (75, G, PtxVersion::new(6, 3)),
    (80, G, PtxVersion::new(7, 0)),
    (86, G, PtxVersion::new(7, 1)),
    (87, G, PtxVersion::new(7, 4)),
    (88, G, PtxVersion::new(9, 0)),
    (89, G, PtxVersion::new(7, 8)),
    (90, G, PtxVersion::new(7, 8)),
    (90, A, PtxVersion::new(8, 0)),
    (100, G, PtxVersion::new(8, 6)),
    (100, A, PtxVersion::new(8, 6)),
    (100, F, PtxVersion::new(8, 8)),
    (101, G, PtxVersion::new(8, 6)),
    (101, A, PtxVersion::new(8, 6)),
    (101, F, PtxVersion::new(8, 8)),
    (103, G, PtxVersion::new(8, 8)),
    (103, A, PtxVersion::new(8, 8)),
    (103, F, PtxVersion::new(8, 8)),
    (107, G, PtxVersion::new(9, 4)),
    (107, A, PtxVersion::new(9, 4)),
    (107, F, PtxVersion::new(9, 4)),
    (110, G, PtxVersion::new(9, 0)),
    (110, A, PtxVersion::new(9, 0)),
    (110, F, PtxVersion::new(9, 0)),
    (120, G, PtxVersion::new(8, 7)),
    (120, A, PtxVersion::new(8, 7)),
    (120, F, PtxVersion::new(8, 8)),
    (121, G, PtxVersion::new(8, 8)),
    (121, A, PtxVersion::new(8, 8)),
    (121, F, PtxVersion::new(8, 8)),
];
