//! Host memory that kernels reach at its host address: managed memory
//! (`cuMemAllocManaged`), pinned host memory (`cuMemHostAlloc`, `cuMemAllocHost`) and the
//! program's memory registered with `cuMemHostRegister`; and the backend through which the
//! simulator reads and writes it.
//!
//! Each range is registered with the driver ([`driver::map_host`]) in whole pages: the
//! simulator reads host memory a 4 KiB page at a time and writes back only the bytes a kernel
//! changed, after the launch (launches are synchronous, so the host sees the kernel's stores
//! when the launch returns, and the kernel sees what the host wrote before it). Memory this
//! module allocates comes from `mmap` (page-aligned, zeroed); registered memory is the
//! program's, and its pages are reached whole.

use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use ptxsim_exec::memory::{HOST_PAGE_BYTES, HostMemory};

use super::{CUdeviceptr, CUresult, CallResult, guard, put};
use crate::driver::{self, HostKind};
use crate::status::{CudaError, Failure};

/// `CUmemLocation` (a type and an id), passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemLocation {
    kind: std::ffi::c_int,
    id: std::ffi::c_int,
}

/// Allocations of this module (address to mapped length).
static ALLOCATIONS: LazyLock<Mutex<HashMap<u64, usize>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The host memory backend of the simulator: it reads and writes only inside the ranges
/// registered with the driver.
#[derive(Debug)]
struct MappedHost;

impl HostMemory for MappedHost {
    fn read(&self, address: u64, out: &mut [u8]) -> bool {
        if driver::host_range(address, out.len() as u64).is_none() {
            return false;
        }
        // SAFETY: the range lies in a registered host range: memory this module mapped and
        // has not unmapped (it unregisters before it unmaps), or pages of the program's
        // memory it registered with cuMemHostRegister, whose contract is that the memory stays
        // valid until cuMemHostUnregister. `out` is a distinct Rust buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(
                address as usize as *const u8,
                out.as_mut_ptr(),
                out.len(),
            );
        }
        true
    }

    fn write(&self, address: u64, bytes: &[u8]) -> bool {
        if driver::host_range(address, bytes.len() as u64).is_none() {
            return false;
        }
        // SAFETY: as for `read`; the memory is writable (mapped read-write here, or the
        // program's registered memory).
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), address as usize as *mut u8, bytes.len());
        }
        true
    }
}

/// Gives the driver the backend (once).
fn install_backend() {
    driver::set_host_backend(Arc::new(MappedHost));
}

unsafe extern "C" {
    /// The C library's `stdout` stream (glibc exports it as a variable).
    static stdout: *mut libc::FILE;
}

/// Writes kernels' `printf` output to the program's C `stdout`, into the same buffer as the
/// program's own `printf` calls, so that the two keep their order; no bytes: flushes that
/// buffer (before the debugger writes, `PTXSIM_DEBUG`).
fn write_c_stdout(bytes: &[u8]) {
    // SAFETY: `stdout` is the C library's stream, valid for the life of the process (until
    // exit); `fwrite` reads `bytes.len()` bytes of `bytes`; `fflush` takes the stream.
    unsafe {
        if bytes.is_empty() {
            libc::fflush(stdout);
        } else {
            libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), stdout);
        }
    }
}

/// Sends kernels' `printf` output to the C `stdout` (called by `cuInit`).
pub(super) fn install_output() {
    driver::set_device_output(write_c_stdout);
}

/// `bytes` rounded up to whole pages (at least one).
fn whole_pages(bytes: usize) -> CallResult<usize> {
    let page = HOST_PAGE_BYTES as usize;
    bytes
        .max(1)
        .checked_next_multiple_of(page)
        .ok_or_else(|| Failure::new(CudaError::OutOfMemory, format!("{bytes} bytes")))
}

/// `bytes` of zeroed, page-aligned host memory, registered as `kind`.
pub(super) fn allocate(bytes: usize, kind: HostKind) -> CallResult<*mut c_void> {
    install_backend();
    let len = whole_pages(bytes)?;
    // SAFETY: an anonymous private mapping at an address of the system's choice: no existing
    // memory is affected.
    let pointer = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if pointer == libc::MAP_FAILED {
        return Err(Failure::new(
            CudaError::OutOfMemory,
            format!("mmap of {len} bytes failed"),
        ));
    }
    let address = pointer as u64;
    ALLOCATIONS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(address, len);
    driver::map_host(address, len as u64, kind);
    Ok(pointer)
}

/// Frees an allocation of [`allocate`] of this `kind`.
pub(super) fn free(address: u64, kind: HostKind) -> CallResult<()> {
    match driver::host_range(address, 1) {
        Some(range) if range.start == address && range.kind == kind => {}
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("{address:#x} is not the start of memory this library allocated"),
            ));
        }
    }
    let len = ALLOCATIONS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&address)
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, format!("{address:#x}")))?;
    driver::unmap_host(address);
    // SAFETY: `address` and `len` are a mapping `allocate` made and nothing freed since (it
    // was in ALLOCATIONS, and is removed now); it is no longer registered, so the simulator
    // does not reach it any more.
    unsafe { libc::munmap(address as usize as *mut c_void, len) };
    Ok(())
}

calls! {
    /// `cuMemAllocManaged`: managed memory, one address for the host and the device (the
    /// flags, global or host attachment, have no effect: the host and kernels never run at
    /// the same time).
    fn cuMemAllocManaged(address: *mut CUdeviceptr, bytes: usize, flags: c_uint) {
        let _ = flags;
        driver::context_get_device()?;
        if bytes == 0 {
            return Err(Failure::new(CudaError::InvalidValue, "bytesize is 0"));
        }
        let pointer = allocate(bytes, HostKind::Managed)?;
        unsafe { put(address, pointer as u64, "dptr") }
    }

    /// `cuMemHostRegister_v2`: kernels reach the `bytes` at `pointer` (their whole pages) at
    /// their host address until `cuMemHostUnregister`.
    fn cuMemHostRegister_v2(pointer: *mut c_void, bytes: usize, flags: c_uint) {
        let _ = flags;
        install_backend();
        if pointer.is_null() || bytes == 0 {
            return Err(Failure::new(CudaError::InvalidValue, "NULL pointer or 0 bytes"));
        }
        let page = HOST_PAGE_BYTES;
        let start = (pointer as u64) / page * page;
        let end = (pointer as u64)
            .checked_add(bytes as u64)
            .and_then(|end| end.checked_next_multiple_of(page))
            .ok_or(Failure::from(CudaError::InvalidValue))?;
        if driver::host_range(start, end - start).is_some() {
            return Err(Failure::new(
                CudaError::InvalidValue,
                "the memory is registered already (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)",
            ));
        }
        driver::map_host(start, end - start, HostKind::Registered);
        Ok(())
    }

    /// `cuMemHostUnregister`.
    fn cuMemHostUnregister(pointer: *mut c_void) {
        let start = (pointer as u64) / HOST_PAGE_BYTES * HOST_PAGE_BYTES;
        match driver::host_range(start, 1) {
            Some(range) if range.kind == HostKind::Registered => {
                driver::unmap_host(range.start);
                Ok(())
            }
            _ => Err(Failure::new(CudaError::InvalidValue, "the memory is not registered")),
        }
    }

    /// `cuMemHostGetDevicePointer_v2`: the host address itself (unified addressing).
    fn cuMemHostGetDevicePointer_v2(device: *mut CUdeviceptr, pointer: *mut c_void, flags: c_uint) {
        let _ = flags;
        if driver::host_range(pointer as u64, 1).is_none() {
            return Err(Failure::new(CudaError::InvalidValue, "not pinned or registered host memory"));
        }
        unsafe { put(device, pointer as u64, "pdptr") }
    }

    /// `cuMemHostGetFlags`: `CU_MEMHOSTALLOC_DEVICEMAP` (every pinned range is mapped).
    fn cuMemHostGetFlags(flags: *mut c_uint, pointer: *mut c_void) {
        if driver::host_range(pointer as u64, 1).is_none() {
            return Err(Failure::new(CudaError::InvalidValue, "not pinned host memory"));
        }
        unsafe { put(flags, 0x02, "pFlags") }
    }

    /// `cuMemAdvise_v2`: no effect (managed memory is host memory here).
    fn cuMemAdvise_v2(address: CUdeviceptr, bytes: usize, advice: c_uint, location: MemLocation) {
        let _ = (address, bytes, advice, location);
        Ok(())
    }

    /// `cuMemAdvise` (CUDA 8's, by device): no effect.
    fn cuMemAdvise(address: CUdeviceptr, bytes: usize, advice: c_uint, device: i32) {
        let _ = (address, bytes, advice, device);
        Ok(())
    }

    /// `cuMemPrefetchAsync` (CUDA 8's, by device): no effect.
    fn cuMemPrefetchAsync(address: CUdeviceptr, bytes: usize, device: i32, stream: super::Handle) {
        let _ = (address, bytes, device, stream);
        Ok(())
    }

    /// `cuMemPrefetchAsync_v2`: no effect.
    fn cuMemPrefetchAsync_v2(address: CUdeviceptr, bytes: usize, location: MemLocation, flags: c_uint, stream: super::Handle) {
        let _ = (address, bytes, location, flags, stream);
        Ok(())
    }
}

plain_names! {
    cuMemHostRegister => cuMemHostRegister_v2(pointer: *mut c_void, bytes: usize, flags: c_uint);
    cuMemHostGetDevicePointer => cuMemHostGetDevicePointer_v2(
        device: *mut CUdeviceptr, pointer: *mut c_void, flags: c_uint);
}
