//! The C ABI and the host's memory: the one module of ptxsim with `unsafe` code.
//!
//! # What is unsafe here, and why it is sound
//!
//! 1. **Reading the C arguments.** `ptx_run` reads `source` as a NUL-terminated string and
//!    `args[0..n_args]` as an array of pointers. Sound if the caller keeps gpuocelot's
//!    contract: `source` points to a NUL-terminated string and `args` to `n_args` readable
//!    pointer-sized values (both only for the duration of the call). NULL `source`, NULL
//!    `args` with `n_args > 0`, and text that is not UTF-8 are reported as errors, not read.
//!
//! 2. **Host memory** ([`ProcessMemory`]). The kernel's global addresses that no simulated
//!    buffer holds are host addresses (a pointer parameter's value is the host pointer the
//!    caller passed, as with gpuocelot). The executor never dereferences them and no Rust
//!    reference to host memory is ever made: it asks [`ProcessMemory::read`] for a copy of each
//!    4 KiB page the kernel touches, the first time it does, works on the copy for the rest
//!    of the launch, and at the end asks [`ProcessMemory::write`] to store the runs of bytes
//!    the kernel changed (unchanged bytes are never written, so host data beside the kernel's
//!    buffers is left alone even when it shares a page). Both copy with the
//!    `process_vm_readv` / `process_vm_writev` system calls on this process: the kernel
//!    checks every address, so an unmapped or unreadable page is an `EFAULT` (the access
//!    faults in the simulation, located, instead of a SIGSEGV) and a read-only page cannot be
//!    written (the launch reports it). Copies made by the operating system are not Rust
//!    memory accesses, so a host thread writing the same bytes meanwhile is no data race in
//!    Rust's sense (its effect is unspecified, as on a GPU).
//!
//!    What the caller promises, as with gpuocelot and a real GPU: the bytes a kernel *stores*
//!    belong to the buffers the caller passed. ptx_run is not told the buffers' sizes (tinygrad's
//!    mock CUDA allocates them with `cuMemAlloc` as Python `bytearray`s and passes only their
//!    addresses), so a kernel that stores out of bounds into memory that happens to be mapped
//!    and writable changes it; the write-back happens after the simulation has finished, so
//!    it can never change the simulator's own state during a launch.
//!
//! 3. **The exported symbols** (`#[unsafe(no_mangle)]`): `ptx_run` and `ptx_last_error` are
//!    the only ones, with names no Rust or C library of a tinygrad process defines.
//!
//! Every entry point runs its work under `catch_unwind`: a panic (a simulator bug) becomes an
//! error message, never an unwind into C.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use ptxsim_exec::memory::HostMemory;

use crate::Launch;

/// The host's memory, copied with `process_vm_readv` / `process_vm_writev` on this process
/// (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessMemory;

impl ProcessMemory {
    /// Copies `len` bytes from `from` to `to`, one of which is a host address of this process,
    /// with `process_vm_readv` (`read`) or `process_vm_writev`.
    fn transfer(local: *mut c_void, remote: u64, len: usize, read: bool) -> bool {
        if len == 0 {
            return true;
        }
        let Ok(remote) = usize::try_from(remote) else {
            return false;
        };
        let local = libc::iovec {
            iov_base: local,
            iov_len: len,
        };
        let remote = libc::iovec {
            iov_base: remote as *mut c_void,
            iov_len: len,
        };
        // SAFETY: `local` describes a buffer of `len` bytes that the caller holds exclusively
        // (a `&mut [u8]` for a read, a `&[u8]` for a write, which the call only reads). The
        // remote range is checked by the operating system: an address that this process has
        // not mapped with the needed access is an error (EFAULT), not a fault. No Rust
        // reference to the remote range exists.
        let done = unsafe {
            let pid = libc::getpid();
            if read {
                libc::process_vm_readv(pid, &local, 1, &remote, 1, 0)
            } else {
                libc::process_vm_writev(pid, &local, 1, &remote, 1, 0)
            }
        };
        usize::try_from(done).is_ok_and(|done| done == len)
    }
}

impl HostMemory for ProcessMemory {
    fn read(&self, address: u64, out: &mut [u8]) -> bool {
        Self::transfer(out.as_mut_ptr().cast(), address, out.len(), true)
    }

    fn write(&self, address: u64, bytes: &[u8]) -> bool {
        // process_vm_writev only reads the local buffer.
        Self::transfer(
            bytes.as_ptr().cast_mut().cast(),
            address,
            bytes.len(),
            false,
        )
    }
}

thread_local! {
    /// The message of this thread's last failed `ptx_run`, or `None` after a success.
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

fn set_last_error(message: Option<String>) {
    let message = message
        .map(|m| CString::new(m.replace('\0', "\\0")).unwrap_or_else(|_| CString::from(c"error")));
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
}

/// Converts the C arguments of `ptx_run` and runs it.
///
/// # Safety
/// As [`ptx_run`].
#[allow(clippy::too_many_arguments)]
unsafe fn run_c(
    source: *const c_char,
    n_args: c_int,
    args: *const *mut c_void,
    block: [c_int; 3],
    grid: [c_int; 3],
    shared_mem_size: c_int,
) -> Result<(), String> {
    if source.is_null() {
        return Err("source is NULL".to_string());
    }
    // SAFETY: `source` is not NULL and, by the caller's contract, NUL-terminated and readable.
    let text = unsafe { CStr::from_ptr(source) }
        .to_str()
        .map_err(|error| format!("the source is not UTF-8 text: {error}"))?;
    let count = usize::try_from(n_args).unwrap_or(0);
    let values: Vec<u64> = if count == 0 {
        Vec::new()
    } else if args.is_null() {
        return Err(format!("args is NULL but n_args is {n_args}"));
    } else {
        // SAFETY: `args` is not NULL and, by the caller's contract, points to `n_args`
        // readable pointers; they are read as values, never dereferenced.
        unsafe { std::slice::from_raw_parts(args, count) }
            .iter()
            .map(|&arg| arg as usize as u64)
            .collect()
    };
    let launch = Launch {
        source: text,
        args: &values,
        block,
        grid,
        shared_mem_size,
    };
    crate::run(&launch, Arc::new(ProcessMemory)).map(|_| ())
}

/// gpuocelot's `ptx_run`: runs the first kernel of `source` over a grid of `grid_*` CTAs of
/// `blck_*` threads, with `shared_mem_size` bytes of dynamic shared memory, and returns when
/// it has finished. A failure is printed on stderr and kept for [`ptx_last_error`].
///
/// # Safety
/// `source` is NULL or a NUL-terminated string; `args` is NULL or points to `n_args`
/// pointer-sized values; the bytes the kernel stores through pointer arguments lie in memory
/// the caller lets it write (the module documentation says why this cannot be checked).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ptx_run(
    source: *const c_char,
    n_args: c_int,
    args: *const *mut c_void,
    blck_x: c_int,
    blck_y: c_int,
    blck_z: c_int,
    grid_x: c_int,
    grid_y: c_int,
    grid_z: c_int,
    shared_mem_size: c_int,
) {
    // The simulation's `.rn` arithmetic needs the host's default rounding and subnormals.
    let _environment = ptxsim_jit::FloatEnvironment::default_for_call();
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller's contract is this function's.
        unsafe {
            run_c(
                source,
                n_args,
                args,
                [blck_x, blck_y, blck_z],
                [grid_x, grid_y, grid_z],
                shared_mem_size,
            )
        }
    }));
    let error = match result {
        Ok(Ok(())) => None,
        Ok(Err(message)) => Some(message),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Some(format!("internal error (a ptxsim bug): {what}"))
        }
    };
    if let Some(message) = &error {
        // Nothing to do if stderr is closed.
        let _ = writeln!(std::io::stderr(), "ptxsim: ptx_run: {message}");
    }
    set_last_error(error);
}

/// The message of this thread's last failed [`ptx_run`], or NULL if it succeeded (or none
/// ran). The string stays valid until this thread's next `ptx_run`.
#[unsafe(no_mangle)]
pub extern "C" fn ptx_last_error() -> *const c_char {
    LAST_ERROR.with(|last| {
        last.borrow()
            .as_ref()
            .map_or(std::ptr::null(), |message| message.as_ptr())
    })
}
