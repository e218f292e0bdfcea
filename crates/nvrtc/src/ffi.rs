//! The exported C functions: the one module of the crate with `unsafe` code.
//!
//! # What is unsafe here, and why it is sound
//!
//! 1. **Looking up NVIDIA's functions.** `dlsym(RTLD_NEXT, name)` with a NUL-terminated name
//!    is thread-safe and returns NULL or the address of the next definition of `name` after
//!    this library in the process's search order. A non-NULL address of `nvrtcGetPTXSize` /
//!    `nvrtcGetPTX` is NVIDIA's function of the type `nvrtc.h` declares
//!    (`nvrtcResult (nvrtcProgram, size_t *)`, `nvrtcResult (nvrtcProgram, char *)`), so it is
//!    transmuted to that function pointer type; NULL is reported, never called.
//!
//! 2. **The caller's arguments** are passed on unchanged: the program, the size pointer and
//!    the output buffer carry NVRTC's contract (`nvrtcGetCUBIN`'s buffer has the bytes
//!    `nvrtcGetCUBINSize` said, which here is what `nvrtcGetPTXSize` said, so `nvrtcGetPTX`
//!    fits in it). This module never dereferences them itself.
//!
//! 3. **The exported symbols** (`#[unsafe(no_mangle)]`) are NVRTC's names: preloaded, this
//!    library's definitions come before `libnvrtc.so`'s, which is the point.
//!
//! Nothing here panics (no unwinding into C): a missing function is
//! `NVRTC_ERROR_INTERNAL_ERROR` with a message on stderr.
#![allow(unsafe_code)]
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_int, c_void};
use std::io::Write;
use std::sync::OnceLock;

/// `nvrtcResult`.
pub type NvrtcResult = c_int;
/// `nvrtcProgram`: NVIDIA's opaque handle, passed on.
pub type NvrtcProgram = *mut c_void;

/// `NVRTC_ERROR_INTERNAL_ERROR` (`nvrtc.h`).
pub const NVRTC_ERROR_INTERNAL_ERROR: NvrtcResult = 11;

/// `nvrtcGetPTXSize`'s type.
type GetSize = unsafe extern "C" fn(NvrtcProgram, *mut usize) -> NvrtcResult;
/// `nvrtcGetPTX`'s type.
type Get = unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> NvrtcResult;

/// The next definition of `name` after this library, if any.
fn next(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: `name` is NUL-terminated; dlsym is thread-safe (item 1).
    let address = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    (!address.is_null()).then_some(address)
}

/// NVIDIA's `nvrtcGetPTXSize`, looked up once.
fn ptx_size() -> Option<GetSize> {
    static FUNCTION: OnceLock<Option<usize>> = OnceLock::new();
    let address = (*FUNCTION.get_or_init(|| next(c"nvrtcGetPTXSize").map(|p| p as usize)))?;
    // SAFETY: a non-NULL address dlsym gave for `nvrtcGetPTXSize`, NVIDIA's function of this
    // type (item 1).
    Some(unsafe { std::mem::transmute::<*mut c_void, GetSize>(address as *mut c_void) })
}

/// NVIDIA's `nvrtcGetPTX`, looked up once.
fn ptx() -> Option<Get> {
    static FUNCTION: OnceLock<Option<usize>> = OnceLock::new();
    let address = (*FUNCTION.get_or_init(|| next(c"nvrtcGetPTX").map(|p| p as usize)))?;
    // SAFETY: as in `ptx_size`, for `nvrtcGetPTX`.
    Some(unsafe { std::mem::transmute::<*mut c_void, Get>(address as *mut c_void) })
}

/// Prints `line` on stderr (nothing to do if stderr is closed).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Logs a forwarded call and its result where `PTXSIM_LOG=calls`.
fn log(call: &str, real: &str, result: NvrtcResult) -> NvrtcResult {
    if crate::log_calls() {
        say(&format!(
            "ptxsim: log: {call} -> {real} (the program's PTX, for ptxsim) -> {result}"
        ));
    }
    result
}

/// `nvrtcGetCUBINSize`: the size of the program's PTX with its NUL (`nvrtcGetPTXSize`).
///
/// # Safety
/// NVRTC's contract for `nvrtcGetCUBINSize` (item 2).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvrtcGetCUBINSize(program: NvrtcProgram, size: *mut usize) -> NvrtcResult {
    let Some(real) = ptx_size() else {
        say(&crate::missing_message(
            "nvrtcGetCUBINSize",
            "nvrtcGetPTXSize",
        ));
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: NVIDIA's function, with the caller's arguments under the same contract.
    let result = unsafe { real(program, size) };
    log("nvrtcGetCUBINSize", "nvrtcGetPTXSize", result)
}

/// `nvrtcGetCUBIN`: the program's PTX, NUL-terminated (`nvrtcGetPTX`), which
/// `cuModuleLoadData` takes.
///
/// # Safety
/// NVRTC's contract for `nvrtcGetCUBIN`: `cubin` has the bytes `nvrtcGetCUBINSize` gave
/// (item 2).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvrtcGetCUBIN(program: NvrtcProgram, cubin: *mut c_char) -> NvrtcResult {
    let Some(real) = ptx() else {
        say(&crate::missing_message("nvrtcGetCUBIN", "nvrtcGetPTX"));
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: NVIDIA's function, with the caller's arguments under the same contract.
    let result = unsafe { real(program, cubin) };
    log("nvrtcGetCUBIN", "nvrtcGetPTX", result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test program does not link NVIDIA's NVRTC: nothing to forward to.
    #[test]
    fn without_nvidia_nvrtc_the_calls_are_internal_errors() {
        let mut size = 0usize;
        // SAFETY: the function returns before it would use its arguments (no NVRTC here).
        let result = unsafe { nvrtcGetCUBINSize(std::ptr::null_mut(), &mut size) };
        assert_eq!(result, NVRTC_ERROR_INTERNAL_ERROR);
        // SAFETY: as above.
        let result = unsafe { nvrtcGetCUBIN(std::ptr::null_mut(), std::ptr::null_mut()) };
        assert_eq!(result, NVRTC_ERROR_INTERNAL_ERROR);
    }
}
