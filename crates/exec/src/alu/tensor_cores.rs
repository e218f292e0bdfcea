//! Which GPU's tensor-core arithmetic `mma.sync` and `wmma.mma` follow: the rounding of their
//! floating-point forms differs from one architecture to the next (alignment width, split-k
//! grouping, the FP8 path); the PTX ISA says only that "the mma.sync operations compute a
//! single matrix mutliply and accumulate operation per warp", D = A*B+C (9.7.14.5.14), without
//! an order of additions or intermediate roundings.
//!
//! The models are those of MMA-Sim (Microsoft, "MMA-Sim: Bit-Accurate Reference Model of Tensor
//! Cores and Matrix Cores", arXiv 2511.10909, <https://github.com/microsoft/MMA-Sim>, commit
//! `c785138`), which matches each GPU bit for bit, re-implemented on integers in
//! [`super::mma`]; Hopper's is further fitted to the H100/H200 measurements of
//! `tests/hardware/mma` and `tests/hardware/wmma`. docs/tensor-cores.md has the table.

use ptxsim_isa::Target;
use ptxsim_isa::mma::{MmaForm, MmaType};

/// A GPU generation whose tensor cores ptxsim models (MMA-Sim's architectures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorCores {
    /// sm_80 to sm_88 (A100, RTX 30 / A40 / A10, Orin; also the older targets): MMA-Sim's
    /// "Ampere" — 24 fraction bits below the largest exponent, and the `.tf32` `k8`, `.f16` /
    /// `.bf16` `k16` forms computed as two halves of `k`, the first rounded to D's type.
    Ampere,
    /// sm_89 (L40, RTX 40): MMA-Sim's "Ada Lovelace" — Ampere's, and FP8 (`QMMA`) with 13
    /// fraction bits, an `.f32` result cut to 13 fraction bits, `k32` in two halves.
    Ada,
    /// sm_90 (H100, H200): MMA-Sim's "Hopper" — 25 fraction bits, no split; fitted to the
    /// hardware data (the lowest kept bit, [`super::mma::LOWEST_BIT`]). FP8 `mma.sync` has no
    /// tensor-core instruction: ptxas runs it as two `.f16` operations and an add.
    Hopper,
    /// sm_100 to sm_119 (B200, B300, Thor): MMA-Sim's "Blackwell" — Hopper's arithmetic; FP8
    /// `mma.sync` is lowered as on sm_90 (ptxas 13 for sm_100a: `F2FP.F16.E4M3.UNPACK_B`, two
    /// `HMMA.16816.F32`, `FADD`).
    Blackwell,
    /// sm_120 and later (RTX 50, RTX PRO 6000): MMA-Sim's "RTX Blackwell" — 25 fraction bits,
    /// no split, FP8 (`QMMA.16832`) fused like the other types.
    RtxBlackwell,
}

impl TensorCores {
    /// Every model, oldest first.
    pub const ALL: [TensorCores; 5] = [
        TensorCores::Ampere,
        TensorCores::Ada,
        TensorCores::Hopper,
        TensorCores::Blackwell,
        TensorCores::RtxBlackwell,
    ];

    /// The model of a GPU of architecture `target` (`sm_80`, `sm_86`, `sm_89`, `sm_90a`,
    /// `sm_100a`, `sm_120f`, ...; the variant does not matter).
    pub fn of_target(target: Target) -> TensorCores {
        match target.canonical_number() {
            0..=88 => TensorCores::Ampere,
            89 => TensorCores::Ada,
            90..=99 => TensorCores::Hopper,
            100..=119 => TensorCores::Blackwell,
            _ => TensorCores::RtxBlackwell,
        }
    }

    /// The model a program runs on unless told otherwise: that of the architecture it was
    /// checked for, Hopper's without one.
    pub fn of_program(target: Option<Target>) -> TensorCores {
        target.map_or(TensorCores::Hopper, TensorCores::of_target)
    }

    /// Parses a device name: an architecture (`sm_80`, `sm_89`, `sm_90a`, `sm_100a`, `sm_120`,
    /// `compute_86`, ...).
    pub fn parse(text: &str) -> Result<TensorCores, String> {
        Target::parse(text)
            .map(TensorCores::of_target)
            .map_err(|error| error.to_string())
    }

    /// A short description: the generation and the GPUs it stands for.
    pub fn name(self) -> &'static str {
        match self {
            TensorCores::Ampere => "Ampere (A100, RTX 30)",
            TensorCores::Ada => "Ada Lovelace (L40, RTX 40)",
            TensorCores::Hopper => "Hopper (H100, H200)",
            TensorCores::Blackwell => "Blackwell (B200)",
            TensorCores::RtxBlackwell => "RTX Blackwell (RTX 50)",
        }
    }

    /// Fraction bits the accumulator keeps below the largest exponent of the addends (MMA-Sim's
    /// `arch_accum_fractional_bits`: 24 for Ampere and Ada Lovelace, 25 from Hopper on).
    pub fn fraction_bits(self) -> i32 {
        match self {
            TensorCores::Ampere | TensorCores::Ada => 24,
            TensorCores::Hopper | TensorCores::Blackwell | TensorCores::RtxBlackwell => 25,
        }
    }

    /// Whether the form's floating-point product is computed as two products of half the
    /// depth, the first (with C) rounded to D's type and accumulated by the second (MMA-Sim's
    /// `is_split_k`: Ampere and Ada Lovelace, `.tf32` `k8`, `.f16`/`.bf16` `k16`, FP8 `k32`).
    pub fn splits_k(self, form: &MmaForm) -> bool {
        if !matches!(self, TensorCores::Ampere | TensorCores::Ada) {
            return false;
        }
        matches!(
            (form.a, form.k),
            (MmaType::Tf32, 8)
                | (MmaType::F16 | MmaType::Bf16, 16)
                | (MmaType::E4m3 | MmaType::E5m2, 32)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_pick_their_generation() {
        let of = |name: &str| TensorCores::parse(name).unwrap();
        assert_eq!(of("sm_80"), TensorCores::Ampere);
        assert_eq!(of("sm_86"), TensorCores::Ampere);
        assert_eq!(of("sm_87"), TensorCores::Ampere);
        assert_eq!(of("sm_89"), TensorCores::Ada);
        assert_eq!(of("sm_90a"), TensorCores::Hopper);
        assert_eq!(of("sm_100a"), TensorCores::Blackwell);
        assert_eq!(of("sm_103f"), TensorCores::Blackwell);
        assert_eq!(of("sm_120a"), TensorCores::RtxBlackwell);
        assert_eq!(of("sm_121"), TensorCores::RtxBlackwell);
        assert!(TensorCores::parse("h100").is_err());
        assert_eq!(TensorCores::of_program(None), TensorCores::Hopper);
    }
}
