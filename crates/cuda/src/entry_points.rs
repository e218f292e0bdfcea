//! Which exported symbol `cuGetProcAddress` hands out for a name and a CUDA version.
//!
//! The CUDA runtime (libcudart, static or shared) opens `libcuda.so.1`, looks up only
//! `cuDriverGetVersion` and `cuGetProcAddress_v2` by name, and asks `cuGetProcAddress` for every
//! other entry point by its plain name (`cuMemAlloc`) and the CUDA version it was built for
//! (13050). The driver answers with the newest ABI variant of that name introduced at or before
//! that version: `cuMemAlloc` at 13050 is `cuMemAlloc_v2` (introduced in CUDA 3.2, 64-bit
//! sizes), `cuCtxCreate` is `cuCtxCreate_v4` (12.5).
//!
//! The variants come from `data/entry-points.tsv` (name, version, exported symbol), generated
//! by `scripts/cuda/entry-points.py` from the `PFN_<name>_v<version>` typedefs of NVIDIA's
//! `cudaTypedefs.h`. The runtime asks for each name at the version of the variant it was written
//! against (`cuInit` at 2000, `cuMemAlloc` at 3020, `cuCtxCreate` at 12050). The 32-bit CUDA
//! 2.x variants that CUDA 3.2 replaced (`cuMemAlloc` at 2000, which NVIDIA's library keeps
//! under the plain name) are never handed out: this library's plain names have the 64-bit
//! meaning, so such a request is answered "version not sufficient".
//! The per-thread default-stream variants (`_ptsz`/`_ptds`, asked for with
//! `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`) are the same functions here: every call
//! runs on the calling thread before it returns, so the legacy and the per-thread default
//! streams order work alike.

use std::collections::HashMap;
use std::sync::LazyLock;

/// CUDA 3.2, which made `CUdeviceptr` and sizes 64 bits wide: the calls it changed got a `_v2`
/// variant of that version, and their plain-named CUDA 2.x variants are the 32-bit ones.
const SIXTY_FOUR_BIT: u32 = 3020;

/// The answer to a `cuGetProcAddress` request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The exported symbol of the variant the request means.
    Symbol(&'static str),
    /// The name exists, but no variant this library has is as old as the version asked for.
    VersionNotSufficient,
    /// No driver entry point has this name.
    NotFound,
}

/// Each name's variants, oldest first: (version, symbol).
static VARIANTS: LazyLock<HashMap<&'static str, Vec<(u32, &'static str)>>> = LazyLock::new(|| {
    let mut variants: HashMap<&str, Vec<(u32, &str)>> = HashMap::new();
    for line in include_str!("../data/entry-points.tsv").lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut fields = line.split('\t');
        let (Some(name), Some(version), Some(symbol)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Ok(version) = version.parse::<u32>() else {
            continue;
        };
        variants.entry(name).or_default().push((version, symbol));
    }
    for list in variants.values_mut() {
        list.sort_unstable();
    }
    variants
});

/// The variant of `name` that a caller built for CUDA `version` (`13050` for 13.5) means.
///
/// A name the table does not list but that ends in `_ptsz`/`_ptds` or a `_vN` suffix, or is
/// otherwise an exported symbol, is not resolved here: the runtime asks by plain names only.
pub fn resolve(name: &str, version: i32) -> Resolution {
    let Some(list) = VARIANTS.get(name) else {
        return Resolution::NotFound;
    };
    let version = u32::try_from(version).unwrap_or(0);
    let Some(index) = list
        .iter()
        .rposition(|(introduced, _)| *introduced <= version)
    else {
        return Resolution::VersionNotSufficient;
    };
    let replaced_by_64_bit =
        list[index].0 < SIXTY_FOUR_BIT && list.iter().any(|(v, _)| *v == SIXTY_FOUR_BIT);
    if replaced_by_64_bit {
        return Resolution::VersionNotSufficient;
    }
    Resolution::Symbol(list[index].1)
}

/// How many names the table knows (for the documentation's count and the tests).
pub fn names() -> usize {
    VARIANTS.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from `cuda.h` of CUDA 13.5: `#define cuCtxCreate cuCtxCreate_v4`,
    /// `#define cuMemAlloc cuMemAlloc_v2`, `#define cuEventElapsedTime cuEventElapsedTime_v2`,
    /// `#define cuGetProcAddress cuGetProcAddress_v2` (the names a program built against CUDA
    /// 13.5 calls).
    #[test]
    fn newest_variants_are_those_of_cuda_h() {
        for (name, symbol) in [
            ("cuCtxCreate", "cuCtxCreate_v4"),
            ("cuMemAlloc", "cuMemAlloc_v2"),
            ("cuEventElapsedTime", "cuEventElapsedTime_v2"),
            ("cuGetProcAddress", "cuGetProcAddress_v2"),
            ("cuLaunchKernel", "cuLaunchKernel"),
            ("cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2"),
        ] {
            assert_eq!(resolve(name, 13050), Resolution::Symbol(symbol), "{name}");
        }
    }

    /// `cuEventElapsedTime_v2` came with CUDA 12.8 (`PFN_cuEventElapsedTime_v12080`): a CUDA
    /// 12.4 runtime gets the first one; `cuCtxCreate_v4` came with 12.5.
    #[test]
    fn older_callers_get_older_variants() {
        assert_eq!(
            resolve("cuEventElapsedTime", 12040),
            Resolution::Symbol("cuEventElapsedTime")
        );
        assert_eq!(
            resolve("cuCtxCreate", 12040),
            Resolution::Symbol("cuCtxCreate_v3")
        );
        assert_eq!(
            resolve("cuMemAlloc", 3000),
            Resolution::VersionNotSufficient
        );
        assert_eq!(resolve("cuInit", 2000), Resolution::Symbol("cuInit"));
        assert_eq!(
            resolve("cuCtxGetApiVersion", 3020),
            Resolution::Symbol("cuCtxGetApiVersion")
        );
        assert_eq!(
            resolve("cuLaunchKernel", 3020),
            Resolution::VersionNotSufficient
        );
        assert_eq!(resolve("cuNoSuchCall", 13050), Resolution::NotFound);
        assert!(names() > 450);
    }
}
