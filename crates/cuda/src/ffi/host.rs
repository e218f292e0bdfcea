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
use std::ffi::{c_int, c_uint, c_void};
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

/// The flags pinned allocations were made with (`cuMemHostAlloc`'s `Flags`), by address, for
/// `cuMemHostGetFlags`.
static PINNED_FLAGS: LazyLock<Mutex<HashMap<u64, c_uint>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Pinned host memory ([`allocate`]) made with `flags` (`CU_MEMHOSTALLOC_*`), which
/// `cuMemHostGetFlags` reports.
pub(super) fn allocate_pinned(bytes: usize, flags: c_uint) -> CallResult<*mut c_void> {
    let pointer = allocate(bytes, HostKind::Pinned)?;
    PINNED_FLAGS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(pointer as u64, flags);
    Ok(pointer)
}

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
    PINNED_FLAGS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&address);
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

    /// `cuMemHostGetFlags`: "the flags that were specified when allocating the pinned host
    /// buffer allocated by cuMemHostAlloc" (`cuda.h`); `CU_MEMHOSTALLOC_DEVICEMAP` for other
    /// pinned ranges (every one is mapped).
    fn cuMemHostGetFlags(flags: *mut c_uint, pointer: *mut c_void) {
        let Some(range) = driver::host_range(pointer as u64, 1) else {
            return Err(Failure::new(CudaError::InvalidValue, "not pinned host memory"));
        };
        let value = PINNED_FLAGS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&range.start)
            .copied()
            .unwrap_or(0x02);
        unsafe { put(flags, value, "pFlags") }
    }

    /// `cuMemAdvise_v2`: no effect on where the memory is (managed memory is host memory
    /// here); the advice is kept for `cuMemRangeGetAttribute` ([`Advice`]).
    fn cuMemAdvise_v2(address: CUdeviceptr, bytes: usize, advice: c_uint, location: MemLocation) {
        advise(address, bytes, advice, location.device_id())
    }

    /// `cuMemAdvise` (CUDA 8's, by device: `CU_DEVICE_CPU`, -1, for the host): as
    /// `cuMemAdvise_v2`.
    fn cuMemAdvise(address: CUdeviceptr, bytes: usize, advice: c_uint, device: i32) {
        advise(address, bytes, advice, device)
    }

    /// `cuMemPrefetchAsync` (CUDA 8's, by device): no effect on where the memory is; the
    /// location is kept as the range's last prefetch location.
    fn cuMemPrefetchAsync(address: CUdeviceptr, bytes: usize, device: i32, stream: super::Handle) {
        let _ = stream;
        advise(address, bytes, PREFETCHED, device)
    }

    /// `cuMemPrefetchAsync_v2`: as `cuMemPrefetchAsync`.
    fn cuMemPrefetchAsync_v2(address: CUdeviceptr, bytes: usize, location: MemLocation, flags: c_uint, stream: super::Handle) {
        let _ = (flags, stream);
        advise(address, bytes, PREFETCHED, location.device_id())
    }

    /// `cuStreamAttachMemAsync`: accepted (managed memory is host memory that every kernel and
    /// the host reach whatever it is attached to); the stream must exist.
    fn cuStreamAttachMemAsync(stream: super::Handle, address: CUdeviceptr, bytes: usize, flags: c_uint) {
        let _ = (address, bytes);
        if !matches!(flags, 1 | 2 | 4) {
            return Err(Failure::new(CudaError::InvalidValue, format!("attach flags {flags}")));
        }
        driver::stream_synchronize(super::number(stream))
    }

    /// `cuMemRangeGetAttribute`: the advice given for the range (`cuMemAdvise`) and its last
    /// prefetch location: `CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY` (1), `PREFERRED_LOCATION` (2),
    /// `ACCESSED_BY` (3, an array of device ids, -2 after the last), `LAST_PREFETCH_LOCATION`
    /// (4), and the `_TYPE`/`_ID` forms (5 to 8). "If any page in the memory range" differs, the
    /// answer is that of no advice (0, or `CU_DEVICE_INVALID`, -2).
    fn cuMemRangeGetAttribute(data: *mut c_void, data_size: usize, attribute: c_int, address: CUdeviceptr, bytes: usize) {
        unsafe { range_attribute(data, data_size, attribute, address, bytes) }
    }

    /// `cuMemRangeGetAttributes`: `cuMemRangeGetAttribute` for each attribute.
    fn cuMemRangeGetAttributes(
        data: *mut *mut c_void,
        data_sizes: *const usize,
        attributes: *const c_int,
        count: usize,
        address: CUdeviceptr,
        bytes: usize,
    ) {
        if data.is_null() || data_sizes.is_null() || attributes.is_null() {
            return Err(Failure::new(CudaError::InvalidValue, "NULL array"));
        }
        for i in 0..count {
            // SAFETY: `count` entries in each array, by the call's contract.
            let (out, size, attribute) =
                unsafe { (data.add(i).read(), data_sizes.add(i).read(), attributes.add(i).read()) };
            unsafe { range_attribute(out, size, attribute, address, bytes) }?;
        }
        Ok(())
    }
}

/// A pseudo advice: the range was prefetched to the location.
const PREFETCHED: c_uint = 100;

/// `CU_DEVICE_INVALID`.
const NO_DEVICE: i32 = -2;

impl MemLocation {
    /// The location as a device id: the device's ordinal, `CU_DEVICE_CPU` (-1) for the host
    /// (`CU_MEM_LOCATION_TYPE_HOST`, 2, and its NUMA forms 3 and 4), else invalid (-2).
    fn device_id(self) -> i32 {
        match self.kind {
            1 => self.id,
            2..=4 => -1,
            _ => NO_DEVICE,
        }
    }
}

/// One piece of advice: (start, end, advice, device id).
type Advised = (u64, u64, c_uint, i32);

/// The advice given to ranges of managed memory, in the order it was given.
static ADVICE: LazyLock<Mutex<Vec<Advised>>> = LazyLock::new(Mutex::default);

/// Keeps `advice` (`CUmem_advise`, or [`PREFETCHED`]) for `bytes` bytes at `address`.
fn advise(address: u64, bytes: usize, advice: c_uint, device: i32) -> CallResult<()> {
    if !(1..=6).contains(&advice) && advice != PREFETCHED {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("unknown advice {advice}"),
        ));
    }
    if bytes == 0 {
        return Err(Failure::new(CudaError::InvalidValue, "count is 0"));
    }
    let end = address.saturating_add(bytes as u64);
    ADVICE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push((address, end, advice, device));
    Ok(())
}

/// What the advice says of the range `address..address + bytes`: read mostly, the preferred
/// location, the devices that access it, the last prefetch location. Advice given for part of
/// the range only makes the range mixed: that attribute reads as not advised.
#[derive(Debug)]
struct Advice {
    read_mostly: bool,
    preferred: i32,
    accessed_by: Vec<i32>,
    prefetched: i32,
}

fn advice_of(address: u64, bytes: usize) -> Advice {
    let end = address.saturating_add(bytes as u64);
    let mut advice = Advice {
        read_mostly: false,
        preferred: NO_DEVICE,
        accessed_by: Vec::new(),
        prefetched: NO_DEVICE,
    };
    let mut mixed = [false; 4];
    for &(start, stop, kind, device) in ADVICE.lock().unwrap_or_else(PoisonError::into_inner).iter()
    {
        if stop <= address || start >= end {
            continue;
        }
        let whole = start <= address && stop >= end;
        let slot = match kind {
            1 | 2 => 0,
            3 | 4 => 1,
            5 | 6 => 2,
            _ => 3,
        };
        if !whole {
            mixed[slot] = true;
            continue;
        }
        match kind {
            1 => advice.read_mostly = true,
            2 => advice.read_mostly = false,
            3 => advice.preferred = device,
            4 => advice.preferred = NO_DEVICE,
            5 if !advice.accessed_by.contains(&device) => advice.accessed_by.push(device),
            6 => advice.accessed_by.retain(|&d| d != device),
            PREFETCHED => advice.prefetched = device,
            _ => {}
        }
    }
    if mixed[0] {
        advice.read_mostly = false;
    }
    if mixed[1] {
        advice.preferred = NO_DEVICE;
    }
    if mixed[2] {
        advice.accessed_by.clear();
    }
    if mixed[3] {
        advice.prefetched = NO_DEVICE;
    }
    advice
}

/// A device id as a `CUmemLocation`'s type and id (`_TYPE`/`_ID` attributes).
fn location_of(device: i32) -> (i32, i32) {
    match device {
        -1 => (2, 0),
        d if d >= 0 => (1, d),
        _ => (0, 0),
    }
}

/// Writes one range attribute into `data` (`data_size` bytes).
///
/// # Safety
/// `data` is NULL (an error) or `data_size` writable bytes.
unsafe fn range_attribute(
    data: *mut c_void,
    data_size: usize,
    attribute: c_int,
    address: u64,
    bytes: usize,
) -> CallResult<()> {
    if data.is_null() {
        return Err(Failure::new(CudaError::InvalidValue, "data is NULL"));
    }
    let advice = advice_of(address, bytes);
    let value: i32 = match attribute {
        1 => i32::from(advice.read_mostly),
        2 => advice.preferred,
        3 => {
            let slots = data_size / 4;
            if slots == 0 || data_size % 4 != 0 {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    "dataSize is no multiple of 4",
                ));
            }
            for slot in 0..slots {
                let device = advice.accessed_by.get(slot).copied().unwrap_or(NO_DEVICE);
                // SAFETY: `slots` ints fit in `data_size` bytes.
                unsafe { data.cast::<i32>().add(slot).write_unaligned(device) };
            }
            return Ok(());
        }
        4 => advice.prefetched,
        5 => location_of(advice.preferred).0,
        6 => location_of(advice.preferred).1,
        7 => location_of(advice.prefetched).0,
        8 => location_of(advice.prefetched).1,
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("unknown memory range attribute {attribute}"),
            ));
        }
    };
    if data_size < 4 {
        return Err(Failure::new(CudaError::InvalidValue, "dataSize below 4"));
    }
    // SAFETY: at least 4 writable bytes.
    unsafe { data.cast::<i32>().write_unaligned(value) };
    Ok(())
}

plain_names! {
    cuMemHostRegister => cuMemHostRegister_v2(pointer: *mut c_void, bytes: usize, flags: c_uint);
    cuMemHostGetDevicePointer => cuMemHostGetDevicePointer_v2(
        device: *mut CUdeviceptr, pointer: *mut c_void, flags: c_uint);
}
