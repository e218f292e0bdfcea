//! NVRTC programs on ptxsim: a library for `LD_PRELOAD` (`libptxsim_nvrtc.so`) whose
//! `nvrtcGetCUBINSize` and `nvrtcGetCUBIN` answer with the program's PTX.
//!
//! A program that compiles CUDA C++ at run time with NVRTC and compiles it for a real GPU
//! architecture (`--gpu-architecture=sm_90`, as cuda-samples' `Common/nvrtc_helper.h` does
//! with the device's compute capability) asks NVRTC for the *cubin*, machine code (SASS)
//! that ptxsim cannot run, and hands it to `cuModuleLoadData`. NVRTC keeps the PTX it
//! compiled the cubin from: the NVRTC documentation (`nvrtc.h`, "nvrtcGetPTX") lets a
//! program ask for it after any compilation to PTX or to a cubin. With this library preloaded,
//! the program's `nvrtcGetCUBINSize` is `nvrtcGetPTXSize` and its `nvrtcGetCUBIN` is
//! `nvrtcGetPTX` — the PTX text with its terminating NUL, which is what `cuModuleLoadData`
//! takes (`cuda.h`: "a pointer to ... a NULL-terminated PTX string") — so the unmodified
//! program runs on ptxsim's `libcuda.so.1`:
//!
//! ```sh
//! cargo build --release -p ptxsim-nvrtc -p ptxsim-cuda
//! LD_PRELOAD=$PWD/target/release/libptxsim_nvrtc.so LD_LIBRARY_PATH=~/ptxsim-lib:... ./app
//! ```
//!
//! The library calls NVIDIA's functions through `dlsym(RTLD_NEXT, ...)`: the program's
//! `libnvrtc.so` stays what it is, and every other NVRTC call goes to it directly. Where no
//! `nvrtcGetPTXSize`/`nvrtcGetPTX` follows this library in the search order (the program does
//! not link NVRTC dynamically), the calls return `NVRTC_ERROR_INTERNAL_ERROR` and say so on
//! stderr. `PTXSIM_LOG=calls` prints each call on stderr, as ptxsim's `libcuda.so` does.
//!
//! Only the cubin calls are replaced: LTO-IR (`nvrtcGetLTOIR`, `-dlto`) and OptiX IR are
//! inputs to NVIDIA's linker, which ptxsim's `cuLink*` do not take.

pub mod ffi;

/// The message a call prints when the real NVRTC function it forwards to is missing.
pub fn missing_message(call: &str, real: &str) -> String {
    format!(
        "ptxsim: {call}: NVRTC_ERROR_INTERNAL_ERROR: libptxsim_nvrtc.so answers {call} with \
         the program's PTX from NVIDIA's {real}, but no {real} follows it in the library \
         search order: load it with LD_PRELOAD into a program linked with NVIDIA's libnvrtc.so"
    )
}

/// Whether `PTXSIM_LOG` asks for every call on stderr (`PTXSIM_LOG=calls`, as in
/// `crates/cuda`).
pub fn log_calls() -> bool {
    std::env::var("PTXSIM_LOG").is_ok_and(|value| value.split(',').any(|part| part == "calls"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_ptxsim_and_both_calls() {
        let message = missing_message("nvrtcGetCUBIN", "nvrtcGetPTX");
        assert!(message.starts_with("ptxsim: nvrtcGetCUBIN: NVRTC_ERROR_INTERNAL_ERROR: "));
        assert!(message.contains("nvrtcGetPTX"));
    }
}
