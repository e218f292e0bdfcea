//! Driver calls the CUDA runtime (libcudart) makes beyond those a driver-API program needs:
//! found by running CUDA 12 and 13 runtimes on this library (`PTXSIM_LOG=calls`).

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::{
    CUdevice, CUresult, CudaError, Failure, Handle, guard, handle, host_bytes_mut, null_argument,
    number, put, text,
};
use crate::driver;

/// `CU_MODULE_EAGER_LOADING`, `CU_MODULE_LAZY_LOADING`.
const EAGER_LOADING: c_int = 1;
const LAZY_LOADING: c_int = 2;

/// `CU_LIMIT_STACK_SIZE`, `_PRINTF_FIFO_SIZE`, `_MALLOC_HEAP_SIZE`, `_DEV_RUNTIME_SYNC_DEPTH`,
/// `_DEV_RUNTIME_PENDING_LAUNCH_COUNT`, `_MAX_L2_FETCH_GRANULARITY`, `_PERSISTING_L2_CACHE_SIZE`.
const LIMITS: [(c_int, usize); 9] = [
    (0, 1024),
    (1, 1 << 20),
    (2, 8 << 20),
    (3, 2),
    (4, 2048),
    (5, 32),
    (6, 0),
    // `CU_LIMIT_SHMEM_SIZE`, "A maximum size in bytes of shared memory available to CUDA
    // kernels on a CIG context": ptxsim's contexts are not CIG contexts, so all of it (the
    // opt-in maximum per block, `cuDeviceGetAttribute` 97).
    (7, 227 * 1024),
    // `CU_LIMIT_CIG_ENABLED`, "A non-zero value indicates this CUDA context is a CIG-enabled
    // context": 0. cuBLAS asks at `cublasSgemm`.
    (8, 0),
];

/// The limits that "Can only be queried, cannot be set" (`cuda.h`).
const QUERY_ONLY_LIMITS: [c_int; 2] = [7, 8];

calls! {
    /// `cuLibraryLoadData`: a library from PTX text or a fatbin ([`driver::library_load`]);
    /// the JIT and library options are not read.
    fn cuLibraryLoadData(
        library: *mut Handle,
        code: *const c_void,
        jit_options: *mut c_int,
        jit_values: *mut *mut c_void,
        jit_count: c_uint,
        library_options: *mut c_int,
        library_values: *mut *mut c_void,
        library_count: c_uint,
    ) {
        let _ = (jit_options, jit_values, jit_count, library_options, library_values, library_count);
        if library.is_null() {
            return Err(null_argument("library"));
        }
        let images = unsafe { super::export_table::module_images(code) }?;
        let value = driver::library_load_images(&images)?;
        unsafe { put(library, handle(value), "library") }
    }

    /// `cuLibraryLoadFromFile`: a library from a PTX or fatbin file.
    fn cuLibraryLoadFromFile(
        library: *mut Handle,
        file: *const c_char,
        jit_options: *mut c_int,
        jit_values: *mut *mut c_void,
        jit_count: c_uint,
        library_options: *mut c_int,
        library_values: *mut *mut c_void,
        library_count: c_uint,
    ) {
        let _ = (jit_options, jit_values, jit_count, library_options, library_values, library_count);
        let path = unsafe { text(file, "fileName") }?;
        let image = driver::read_image(path)?;
        let value = driver::library_load(&image)?;
        unsafe { put(library, handle(value), "library") }
    }

    /// `cuLibraryUnload`.
    fn cuLibraryUnload(library: Handle) {
        driver::library_unload(number(library))
    }

    /// `cuLibraryGetKernel`: a kernel handle, valid in every context (and as a `CUfunction`).
    fn cuLibraryGetKernel(kernel: *mut Handle, library: Handle, name: *const c_char) {
        let name = unsafe { text(name, "name") }?;
        // The runtime of a program with relocatable device code asks for the kernels of the
        // CUDA device runtime (libcudadevrt, machine code only) and goes on without them.
        let internal = name.contains("cuda_device_runtime");
        let value = driver::library_get_kernel(number(library), name).map_err(|failure| {
            match failure.error {
                CudaError::NotFound if internal => Failure::quiet(CudaError::NotFound),
                _ => failure,
            }
        })?;
        unsafe { put(kernel, handle(value), "pKernel") }
    }

    /// `cuLibraryGetKernelCount`.
    fn cuLibraryGetKernelCount(count: *mut c_uint, library: Handle) {
        let names = driver::library_kernel_names(number(library))?;
        unsafe { put(count, c_uint::try_from(names.len()).unwrap_or(c_uint::MAX), "count") }
    }

    /// `cuLibraryEnumerateKernels`: the first `count` kernels, in the module's order.
    fn cuLibraryEnumerateKernels(kernels: *mut Handle, count: c_uint, library: Handle) {
        let names = driver::library_kernel_names(number(library))?;
        let count = usize::try_from(count).unwrap_or(0);
        if count > names.len() {
            return Err(Failure::new(CudaError::InvalidValue, "numKernels exceeds the library's kernels"));
        }
        for (i, name) in names.iter().take(count).enumerate() {
            let value = driver::library_get_kernel(number(library), name)?;
            unsafe { put(kernels.wrapping_add(i), handle(value), "kernels") }?;
        }
        Ok(())
    }

    /// `cuLibraryGetModule`: the library's module in the current context.
    fn cuLibraryGetModule(module: *mut Handle, library: Handle) {
        let value = driver::library_get_module(number(library))?;
        unsafe { put(module, handle(value), "pMod") }
    }

    /// `cuKernelGetFunction`: the kernel in the current context.
    fn cuKernelGetFunction(function: *mut Handle, kernel: Handle) {
        let value = driver::kernel_get_function(number(kernel))?;
        unsafe { put(function, handle(value), "pFunc") }
    }

    /// `cuLibraryGetGlobal`: a `.global` or `.const` variable, in the current context.
    fn cuLibraryGetGlobal(address: *mut u64, bytes: *mut usize, library: Handle, name: *const c_char) {
        unsafe { library_global(address, bytes, library, name) }
    }

    /// `cuLibraryGetManaged`: the host memory of a `__managed__` variable
    /// ([`driver::library_get_managed`]: managed memory that launches keep in step with the
    /// module's variable).
    fn cuLibraryGetManaged(address: *mut u64, bytes: *mut usize, library: Handle, name: *const c_char) {
        let name = unsafe { text(name, "name") }?;
        let (value, size) = driver::library_get_managed(number(library), name, |size| {
            let size = usize::try_from(size).unwrap_or(usize::MAX);
            super::host::allocate(size, driver::HostKind::Managed).map(|pointer| pointer as u64)
        })?;
        if !address.is_null() {
            unsafe { put(address, value, "dptr") }?;
        }
        if !bytes.is_null() {
            unsafe { put(bytes, usize::try_from(size).unwrap_or(usize::MAX), "bytes") }?;
        }
        Ok(())
    }

    /// `cuKernelGetAttribute`: as `cuFuncGetAttribute`, in the current context.
    fn cuKernelGetAttribute(value: *mut c_int, attribute: c_int, kernel: Handle, device: CUdevice) {
        let _ = device;
        let found = driver::function_attribute(attribute, number(kernel))?;
        unsafe { put(value, found, "pi") }
    }

    /// `cuKernelSetAttribute`: as `cuFuncSetAttribute`, in the current context.
    fn cuKernelSetAttribute(attribute: c_int, value: c_int, kernel: Handle, device: CUdevice) {
        let _ = device;
        driver::function_set_attribute(number(kernel), attribute, value)
    }

    /// `cuKernelSetCacheConfig`: no effect.
    fn cuKernelSetCacheConfig(kernel: Handle, config: c_int, device: CUdevice) {
        let _ = (config, device);
        driver::function_name(number(kernel)).map(|_| ())
    }

    /// `cuKernelGetName`: the kernel's (mangled) name, valid as long as the process.
    fn cuKernelGetName(name: *mut *const c_char, kernel: Handle) {
        let found = driver::function_name(number(kernel))?;
        unsafe { put(name, interned(&found), "name") }
    }

    /// `cuFuncGetName`: as `cuKernelGetName`.
    fn cuFuncGetName(name: *mut *const c_char, function: Handle) {
        let found = driver::function_name(number(function))?;
        unsafe { put(name, interned(&found), "name") }
    }

    /// `cuKernelGetParamInfo`: the offset and size of parameter `index`.
    fn cuKernelGetParamInfo(kernel: Handle, index: usize, offset: *mut usize, size: *mut usize) {
        unsafe { parameter_info(kernel, index, offset, size) }
    }

    /// `cuFuncGetParamInfo`: as `cuKernelGetParamInfo`.
    fn cuFuncGetParamInfo(function: Handle, index: usize, offset: *mut usize, size: *mut usize) {
        unsafe { parameter_info(function, index, offset, size) }
    }

    /// `cuKernelGetParamCount`.
    fn cuKernelGetParamCount(kernel: Handle, count: *mut usize) {
        let (layout, _) = driver::parameters(number(kernel))?;
        unsafe { put(count, layout.len(), "paramCount") }
    }

    /// `cuFuncGetParamCount`.
    fn cuFuncGetParamCount(function: Handle, count: *mut usize) {
        let (layout, _) = driver::parameters(number(function))?;
        unsafe { put(count, layout.len(), "paramCount") }
    }

    /// `cuModuleGetLoadingMode`: eager (every module of a program is loaded when the runtime
    /// starts), unless `CUDA_MODULE_LOADING=LAZY`.
    fn cuModuleGetLoadingMode(mode: *mut c_int) {
        let lazy = std::env::var("CUDA_MODULE_LOADING").is_ok_and(|value| value == "LAZY");
        unsafe { put(mode, if lazy { LAZY_LOADING } else { EAGER_LOADING }, "mode") }
    }

    /// `cuDeviceGetUuid`: a UUID made of the device ordinal (`ptxsim` and the ordinal).
    fn cuDeviceGetUuid(uuid: *mut [u8; 16], device: CUdevice) {
        driver::device_get(device)?;
        unsafe { put(uuid, super::export_table::device_uuid(device), "uuid") }
    }

    /// `cuDeviceGetUuid_v2`: as `cuDeviceGetUuid`.
    fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], device: CUdevice) {
        driver::device_get(device)?;
        unsafe { put(uuid, super::export_table::device_uuid(device), "uuid") }
    }

    /// `cuDeviceGetLuid`: not a Windows device (`CUDA_ERROR_NOT_SUPPORTED` as on Linux).
    fn cuDeviceGetLuid(luid: *mut c_char, mask: *mut c_uint, device: CUdevice) {
        let _ = (luid, mask);
        driver::device_get(device)?;
        Err(Failure::quiet(CudaError::NotSupported))
    }

    /// `cuDeviceGetPCIBusId`: `0000:0D:00.0` for device 0 (bus 0x0d + ordinal), cut to
    /// `len - 1` bytes.
    fn cuDeviceGetPCIBusId(bus_id: *mut c_char, len: c_int, device: CUdevice) {
        driver::device_get(device)?;
        let value = format!("0000:{:02X}:00.0", 0x0d + device);
        let len = usize::try_from(len).unwrap_or(0);
        if len == 0 {
            return Err(Failure::new(CudaError::InvalidValue, "len must be positive"));
        }
        let out = unsafe { host_bytes_mut(bus_id.cast(), len, "pciBusId") }?;
        let take = value.len().min(len - 1);
        out[..take].copy_from_slice(&value.as_bytes()[..take]);
        out[take] = 0;
        Ok(())
    }

    /// `cuDeviceGetByPCIBusId`: the device of a bus id `cuDeviceGetPCIBusId` gave.
    fn cuDeviceGetByPCIBusId(device: *mut CUdevice, bus_id: *const c_char) {
        let id = unsafe { text(bus_id, "pciBusId") }?;
        let bus = id
            .split(':')
            .nth(1)
            .and_then(|bus| i32::from_str_radix(bus, 16).ok())
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, format!("bus id `{id}`")))?;
        let ordinal = driver::device_get(bus - 0x0d)?;
        unsafe { put(device, ordinal, "dev") }
    }

    /// `cuDevicePrimaryCtxGetState`: the flags `cuDevicePrimaryCtxSetFlags` set (0 by
    /// default); active (it always exists here).
    fn cuDevicePrimaryCtxGetState(device: CUdevice, flags: *mut c_uint, active: *mut c_int) {
        let value = driver::primary_context_flags(device)?;
        unsafe { put(flags, value, "flags") }?;
        unsafe { put(active, 1, "active") }
    }

    /// `cuDevicePrimaryCtxSetFlags_v2`: kept and reported; the flags have no effect.
    fn cuDevicePrimaryCtxSetFlags_v2(device: CUdevice, flags: c_uint) {
        driver::primary_context_set_flags(device, flags)
    }

    /// `cuDevicePrimaryCtxReset_v2`: [`driver::primary_context_reset`].
    fn cuDevicePrimaryCtxReset_v2(device: CUdevice) {
        driver::primary_context_reset(device)
    }

    /// `cuCtxGetFlags`: the current context's flags.
    fn cuCtxGetFlags(flags: *mut c_uint) {
        let value = driver::context_flags()?;
        unsafe { put(flags, value, "flags") }
    }

    /// `cuCtxSetFlags`: kept and reported; the flags have no effect.
    fn cuCtxSetFlags(flags: c_uint) {
        driver::context_set_flags(flags)
    }

    /// `cuCtxGetApiVersion`: 3020, what NVIDIA's driver reports for every context.
    fn cuCtxGetApiVersion(context: Handle, version: *mut c_uint) {
        let _ = context;
        unsafe { put(version, 3020, "version") }
    }

    /// `cuCtxGetId`: the context's handle number.
    fn cuCtxGetId(context: Handle, id: *mut u64) {
        let value = match number(context) {
            0 => driver::context_get_current()?,
            value => value,
        };
        unsafe { put(id, value, "ctxId") }
    }

    /// `cuCtxGetDevice_v2` (CUDA 13): the device of `context` (NULL: the current one).
    fn cuCtxGetDevice_v2(device: *mut CUdevice, context: Handle) {
        // The runtime asks before any context is current, and handles the error: not printed.
        let value = driver::context_device(number(context)).map_err(|failure| match failure.error {
            CudaError::InvalidContext => Failure::quiet(CudaError::InvalidContext),
            _ => failure,
        })?;
        unsafe { put(device, value, "device") }
    }

    /// `cuCtxSynchronize_v2` (CUDA 13): the sticky error of `context` (NULL: the current one).
    fn cuCtxSynchronize_v2(context: Handle) {
        let _ = context;
        driver::context_synchronize()
    }

    /// `cuCtxGetLimit`: what `cuCtxSetLimit` set, else CUDA's defaults (stack 1 KiB, printf
    /// FIFO 1 MiB, malloc heap 8 MiB, ...).
    fn cuCtxGetLimit(value: *mut usize, limit: c_int) {
        let found = LIMITS.iter().find(|(key, _)| *key == limit).map(|(_, v)| *v);
        let found = found
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, format!("unknown limit {limit}")))?;
        let found = driver::context_get_limit(limit, found as u64)?;
        unsafe { put(value, found as usize, "pvalue") }
    }

    /// `cuCtxSetLimit`: kept for `cuCtxGetLimit` for the known limits; the malloc heap's size
    /// sizes the device heap ([`driver::context_set_limit`]), the others have no effect.
    fn cuCtxSetLimit(limit: c_int, value: usize) {
        if QUERY_ONLY_LIMITS.contains(&limit) {
            Err(Failure::new(CudaError::InvalidValue, format!("limit {limit} can only be queried")))
        } else if LIMITS.iter().any(|(key, _)| *key == limit) {
            driver::context_set_limit(limit, value as u64)
        } else {
            Err(Failure::new(CudaError::InvalidValue, format!("unknown limit {limit}")))
        }
    }

    /// `cuCtxGetCacheConfig`: `CU_FUNC_CACHE_PREFER_NONE`.
    fn cuCtxGetCacheConfig(config: *mut c_int) {
        unsafe { put(config, 0, "pconfig") }
    }

    /// `cuCtxSetCacheConfig`: no effect.
    fn cuCtxSetCacheConfig(config: c_int) {
        let _ = config;
        Ok(())
    }

    /// `cuCtxGetSharedMemConfig`: four-byte banks.
    fn cuCtxGetSharedMemConfig(config: *mut c_int) {
        unsafe { put(config, 1, "pConfig") }
    }

    /// `cuCtxSetSharedMemConfig`: no effect.
    fn cuCtxSetSharedMemConfig(config: c_int) {
        let _ = config;
        Ok(())
    }

    /// `cuCtxGetStreamPriorityRange`: 0 (least) to -5 (greatest), as an H100's.
    fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) {
        let (least_value, greatest_value) = driver::STREAM_PRIORITIES;
        if !least.is_null() {
            unsafe { put(least, least_value, "leastPriority") }?;
        }
        if !greatest.is_null() {
            unsafe { put(greatest, greatest_value, "greatestPriority") }?;
        }
        Ok(())
    }

    /// `cuCtxResetPersistingL2Cache`: nothing to reset.
    fn cuCtxResetPersistingL2Cache() {
        Ok(())
    }

    /// `cuStreamCreateWithPriority`: as `cuStreamCreate`, the priority kept for
    /// `cuStreamGetPriority` (it has no effect: every call finishes its work before it returns).
    fn cuStreamCreateWithPriority(stream: *mut Handle, flags: c_uint, priority: c_int) {
        if stream.is_null() {
            return Err(null_argument("phStream"));
        }
        let value = driver::stream_create_with(flags, priority)?;
        unsafe { put(stream, handle(value), "phStream") }
    }

    /// `cuStreamGetPriority`: the priority the stream was created with, clamped to the
    /// device's range (0 for the NULL stream).
    fn cuStreamGetPriority(stream: Handle, priority: *mut c_int) {
        let (_, value) = driver::stream_settings(number(stream))?;
        unsafe { put(priority, value, "priority") }
    }

    /// `cuStreamGetFlags`: the flags the stream was created with (`CU_STREAM_DEFAULT` for the
    /// NULL stream).
    fn cuStreamGetFlags(stream: Handle, flags: *mut c_uint) {
        let (value, _) = driver::stream_settings(number(stream))?;
        unsafe { put(flags, value, "flags") }
    }

    /// `cuStreamGetId`: the stream's handle number (0 for the NULL stream).
    fn cuStreamGetId(stream: Handle, id: *mut u64) {
        unsafe { put(id, number(stream), "streamId") }
    }

    /// `cuStreamGetCtx`: the current context.
    fn cuStreamGetCtx(stream: Handle, context: *mut Handle) {
        let _ = stream;
        let value = driver::context_get_current()?;
        unsafe { put(context, handle(value), "pctx") }
    }

    /// `cuStreamGetGreenCtx`: no green context ("Otherwise, \p *phCtx is set to NULL"); ptxsim
    /// makes none.
    fn cuStreamGetGreenCtx(stream: Handle, green: *mut Handle) {
        let _ = stream;
        driver::context_get_current()?;
        unsafe { put(green, std::ptr::null_mut(), "phCtx") }
    }

    /// `cuStreamGetCtx_v2`: the current context; no green context.
    fn cuStreamGetCtx_v2(stream: Handle, context: *mut Handle, green: *mut Handle) {
        let _ = stream;
        let value = driver::context_get_current()?;
        unsafe { put(context, handle(value), "pCtx") }?;
        if !green.is_null() {
            unsafe { put(green, std::ptr::null_mut(), "pGreenCtx") }?;
        }
        Ok(())
    }

    /// `cuStreamGetDevice`: the current context's device.
    fn cuStreamGetDevice(stream: Handle, device: *mut CUdevice) {
        let _ = stream;
        let value = driver::context_get_device()?;
        unsafe { put(device, value, "device") }
    }

    /// `cuStreamAddCallback`: calls `callback(stream, status, data)` at once (the stream's
    /// work has finished when the call is made).
    fn cuStreamAddCallback(
        stream: Handle,
        callback: Option<unsafe extern "C" fn(Handle, CUresult, *mut c_void)>,
        data: *mut c_void,
        flags: c_uint,
    ) {
        let _ = flags;
        let callback = callback.ok_or_else(|| null_argument("callback"))?;
        let status = match driver::stream_synchronize(number(stream)) {
            Ok(()) => 0,
            Err(failure) => failure.error.code(),
        };
        // SAFETY: the caller's callback, called as CUDA calls it.
        unsafe { callback(stream, status, data) };
        Ok(())
    }

    /// `cuLaunchHostFunc`: calls `function(data)` at once.
    fn cuLaunchHostFunc(
        stream: Handle,
        function: Option<unsafe extern "C" fn(*mut c_void)>,
        data: *mut c_void,
    ) {
        unsafe { host_function(stream, function, data) }
    }

    /// `cuLaunchHostFunc_v2` (CUDA 13.1; the flags are not read).
    fn cuLaunchHostFunc_v2(
        stream: Handle,
        function: Option<unsafe extern "C" fn(*mut c_void)>,
        data: *mut c_void,
        flags: c_uint,
    ) {
        let _ = flags;
        unsafe { host_function(stream, function, data) }
    }

    /// `cuEventRecordWithFlags`: as `cuEventRecord`.
    fn cuEventRecordWithFlags(event: Handle, stream: Handle, flags: c_uint) {
        let _ = flags;
        driver::event_record(number(event), number(stream))
    }

    /// `cuThreadExchangeStreamCaptureMode`: the mode is kept per thread and swapped.
    fn cuThreadExchangeStreamCaptureMode(mode: *mut c_int) {
        if mode.is_null() {
            return Err(null_argument("mode"));
        }
        let new = unsafe { mode.read_unaligned() };
        let old = CAPTURE_MODE.with(|cell| cell.replace(new));
        unsafe { put(mode, old, "mode") }
    }
}

thread_local! {
    /// `cuThreadExchangeStreamCaptureMode`'s mode of this thread (`CU_STREAM_CAPTURE_MODE_GLOBAL`).
    static CAPTURE_MODE: std::cell::Cell<c_int> = const { std::cell::Cell::new(0) };
}

/// Names handed out by `cuKernelGetName` / `cuFuncGetName`, each kept for the process.
static NAMES: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<String, std::ffi::CString>>,
> = std::sync::LazyLock::new(Default::default);

/// A NUL-terminated copy of `name` that lives as long as the process.
fn interned(name: &str) -> *const c_char {
    let mut names = NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    names
        .entry(name.to_string())
        .or_insert_with(|| std::ffi::CString::new(name.replace('\0', "")).unwrap_or_default())
        .as_ptr()
}

/// `CUlaunchConfig`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared_bytes: c_uint,
    stream: Handle,
    attributes: *const LaunchAttribute,
    attribute_count: c_uint,
}

/// `CUlaunchAttribute`: an id, padding, and a 64-byte value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchAttribute {
    id: c_int,
    pad: [u8; 4],
    value: [u32; 16],
}

/// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`, `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`.
const ATTRIBUTE_COOPERATIVE: c_int = 2;
const ATTRIBUTE_CLUSTER_DIMENSION: c_int = 4;
/// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`, `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT`:
/// programmatic dependent launch, which lets a kernel start before the previous one on its
/// stream has finished (`griddepcontrol.wait` then waits for it). Every launch here runs to
/// completion before the next one starts, so the order they ask for holds already.
const ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: c_int = 6;
const ATTRIBUTE_PROGRAMMATIC_EVENT: c_int = 7;

/// `CUmemLocation`: its type and id.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemLocation {
    kind: c_int,
    id: c_int,
}

/// `CUmemAccessDesc`: a location and its `CUmemAccess_flags`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemAccessDesc {
    location: MemLocation,
    flags: c_int,
}

const _: () = assert!(size_of::<MemAccessDesc>() == 12);

/// `CU_MEM_LOCATION_TYPE_DEVICE`, `CU_MEM_ALLOCATION_TYPE_PINNED`,
/// `CU_MEM_ACCESS_FLAGS_PROT_READWRITE`.
const LOCATION_DEVICE: c_int = 1;
const ALLOCATION_PINNED: c_int = 1;
const ACCESS_READ_WRITE: c_int = 3;

/// The device of a pool location (`cuMemGetMemPool` and the like): device locations of pinned
/// allocations; other locations (host, host NUMA) and types are not supported.
///
/// # Safety
/// `location` is NULL (an error) or a readable `CUmemLocation`.
unsafe fn pool_location(location: *const MemLocation, kind: c_int) -> super::CallResult<CUdevice> {
    if location.is_null() {
        return Err(null_argument("location"));
    }
    // SAFETY: by the contract.
    let location = unsafe { location.read_unaligned() };
    if location.kind != LOCATION_DEVICE || kind != ALLOCATION_PINNED {
        return Err(Failure::new(
            CudaError::NotSupported,
            format!(
                "pools of location type {} and allocation type {kind} (ptxsim has device pools of pinned memory)",
                location.kind
            ),
        ));
    }
    driver::device_get(location.id)?;
    Ok(location.id)
}

/// The portable cluster size, in CTAs (CUDA C++ Programming Guide, "Thread Block Clusters":
/// "a maximum of 8 thread blocks in a cluster is supported as a portable cluster size").
const PORTABLE_CLUSTER: c_int = 8;

/// The memory pool handle of device `device` (`cuDeviceGetDefaultMemPool`): a number, never
/// dereferenced.
fn pool_handle(device: CUdevice) -> Handle {
    handle(0x5000_0000 + u64::try_from(device).unwrap_or(0))
}

calls! {
    /// `cuMemcpy`: a copy between any two of device, managed, pinned and plain host memory,
    /// told apart by address (unified addressing).
    fn cuMemcpy(destination: u64, source: u64, bytes: usize) {
        unsafe { unified_copy(destination, source, bytes) }
    }

    /// `cuMemcpyAsync`: as `cuMemcpy`, done when it returns.
    fn cuMemcpyAsync(destination: u64, source: u64, bytes: usize, stream: Handle) {
        unsafe { memcpy_async(destination, source, bytes, stream) }
    }

    /// `cuMemcpyBatchAsync` (CUDA 12.8's, with `failIdx`): the copies one after the other
    /// ([`batch_copy`]); `*failIdx` is `SIZE_MAX` after a success ("not specific to any
    /// copy").
    fn cuMemcpyBatchAsync(
        destinations: *const u64,
        sources: *const u64,
        sizes: *const usize,
        count: usize,
        attributes: *const MemcpyAttributes,
        attribute_indices: *const usize,
        attribute_count: usize,
        fail_index: *mut usize,
        stream: Handle,
    ) {
        let result = unsafe {
            batch_copy(destinations, sources, sizes, count, attributes, attribute_indices, attribute_count, stream)
        };
        if !fail_index.is_null() {
            let index = match &result {
                Err((Some(index), _)) => *index,
                _ => usize::MAX,
            };
            unsafe { put(fail_index, index, "failIdx") }?;
        }
        result.map_err(|(_, failure)| failure)
    }

    /// `cuMemcpyBatchAsync_v2` (CUDA 13): as the first version without `failIdx`.
    fn cuMemcpyBatchAsync_v2(
        destinations: *const u64,
        sources: *const u64,
        sizes: *const usize,
        count: usize,
        attributes: *const MemcpyAttributes,
        attribute_indices: *const usize,
        attribute_count: usize,
        stream: Handle,
    ) {
        unsafe {
            batch_copy(destinations, sources, sizes, count, attributes, attribute_indices, attribute_count, stream)
        }
        .map_err(|(_, failure)| failure)
    }

    /// `cuMemcpyWithAttributesAsync` (CUDA 13): one copy of a batch.
    fn cuMemcpyWithAttributesAsync(
        destination: u64,
        source: u64,
        bytes: usize,
        attributes: *const MemcpyAttributes,
        stream: Handle,
    ) {
        let index = 0usize;
        unsafe {
            batch_copy(&destination, &source, &bytes, 1, attributes, &index, 1, stream)
        }
        .map_err(|(_, failure)| failure)
    }
}

/// `CUmemcpyAttributes`: the source access order, location hints for the source and the
/// destination (`CUmemLocation`s: type and id), flags.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemcpyAttributes {
    source_access_order: c_int,
    source_hint: [c_int; 2],
    destination_hint: [c_int; 2],
    flags: c_uint,
}

const _: () = assert!(size_of::<MemcpyAttributes>() == 24);

/// `CU_MEMCPY_SRC_ACCESS_ORDER_STREAM` .. `_ANY`: the valid access orders (`_INVALID`, 0, is
/// not).
const ACCESS_ORDERS: std::ops::RangeInclusive<c_int> = 1..=3;

/// A batch of copies (`cuMemcpyBatchAsync`): cuda.h's rules checked first (`count` copies,
/// `numAttrs` attributes from 1 to `count` whose indices start at 0 and rise below `count`,
/// each with a valid source access order, a stream that is not the legacy NULL stream:
/// `CUDA_ERROR_INVALID_VALUE`); then each copy as `cuMemcpyAsync` (done when the call returns,
/// which every access order allows; copy nodes where the stream captures). A failure carries
/// the index of the copy it is about, if any.
///
/// # Safety
/// The arrays are NULL (an error) or hold `count` (the attributes and their indices
/// `attribute_count`) readable entries; each copy keeps `cuMemcpyAsync`'s contract.
#[allow(clippy::too_many_arguments)]
unsafe fn batch_copy(
    destinations: *const u64,
    sources: *const u64,
    sizes: *const usize,
    count: usize,
    attributes: *const MemcpyAttributes,
    attribute_indices: *const usize,
    attribute_count: usize,
    stream: Handle,
) -> Result<(), (Option<usize>, Failure)> {
    let invalid = |message: &str| (None, Failure::new(CudaError::InvalidValue, message));
    if count == 0 || destinations.is_null() || sources.is_null() || sizes.is_null() {
        return Err(invalid("no copies, or NULL dsts/srcs/sizes"));
    }
    if attribute_count == 0
        || attribute_count > count
        || attributes.is_null()
        || attribute_indices.is_null()
    {
        return Err(invalid(
            "numAttrs must be from 1 to count, with attrs and attrsIdxs",
        ));
    }
    if stream.is_null() {
        return Err(invalid("the legacy NULL stream (hStream must not be it)"));
    }
    // SAFETY: by the contract, the lengths given.
    let (destinations, sources, sizes, attributes, indices) = unsafe {
        (
            std::slice::from_raw_parts(destinations, count),
            std::slice::from_raw_parts(sources, count),
            std::slice::from_raw_parts(sizes, count),
            std::slice::from_raw_parts(attributes, attribute_count),
            std::slice::from_raw_parts(attribute_indices, attribute_count),
        )
    };
    if indices[0] != 0
        || indices.windows(2).any(|w| w[1] <= w[0])
        || indices[attribute_count - 1] >= count
    {
        return Err(invalid("attrsIdxs must start at 0 and rise, below count"));
    }
    for (k, attribute) in attributes.iter().enumerate() {
        if !ACCESS_ORDERS.contains(&attribute.source_access_order) {
            return Err((
                Some(indices[k]),
                Failure::new(
                    CudaError::InvalidValue,
                    format!(
                        "srcAccessOrder {} of attrs[{k}]",
                        attribute.source_access_order
                    ),
                ),
            ));
        }
    }
    let copies = destinations.iter().zip(sources).zip(sizes).enumerate();
    for (i, ((&destination, &source), &bytes)) in copies {
        // SAFETY: by the contract.
        unsafe { memcpy_async(destination, source, bytes, stream) }
            .map_err(|failure| (Some(i), failure))?;
    }
    Ok(())
}

/// `cuMemcpyAsync`: a copy node where the stream captures; else, after the stream's work, a
/// copy between any two of device, managed, pinned and plain host memory.
///
/// # Safety
/// As `cuMemcpy`: host addresses have the bytes the copy reads or writes.
unsafe fn memcpy_async(
    destination: u64,
    source: u64,
    bytes: usize,
    stream: Handle,
) -> super::CallResult<()> {
    {
        let place = |address: u64| {
            if driver::is_device_address(address) {
                driver::Place::Device(address)
            } else {
                driver::Place::Host(address as usize)
            }
        };
        // The places are found before `capture` takes the driver's state (the closure runs
        // with it held).
        let (source_place, destination_place) = (place(source), place(destination));
        if driver::capture(number(stream), || driver::GraphNode::Copy {
            source: source_place,
            destination: destination_place,
            bytes,
        })? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        unsafe { unified_copy(destination, source, bytes) }
    }
}

calls! {

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor` ([`driver::occupancy`]'s model).
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks: *mut c_int,
        function: Handle,
        block: c_int,
        dynamic_shared: usize,
    ) {
        unsafe { active_blocks(blocks, function, block, dynamic_shared) }
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: the flags do not matter.
    fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        blocks: *mut c_int,
        function: Handle,
        block: c_int,
        dynamic_shared: usize,
        flags: c_uint,
    ) {
        let _ = flags;
        unsafe { active_blocks(blocks, function, block, dynamic_shared) }
    }

    /// `cuOccupancyMaxActiveClusters`: cuda.h, "return the maximum number of clusters that
    /// could co-exist on the target device"; "If the function has required cluster size
    /// already set ..., the cluster size from config must either be unspecified or match the
    /// required size. Without required sizes, the cluster size must be specified in config,
    /// else the function will return an error" (`CUDA_ERROR_INVALID_VALUE` here, as a launch
    /// with such a shape). The model: [`driver::occupancy`]'s resident CTAs on each of the
    /// [`MULTIPROCESSORS`], pooled, over the cluster's CTAs (at most 8, the portable size);
    /// the GPU's division into processing clusters is not modelled.
    fn cuOccupancyMaxActiveClusters(
        clusters: *mut c_int,
        function: Handle,
        config: *const LaunchConfig,
    ) {
        if config.is_null() {
            return Err(null_argument("config"));
        }
        let config = unsafe { config.read_unaligned() };
        let mut shape = None;
        for i in 0..usize::try_from(config.attribute_count).unwrap_or(0) {
            if config.attributes.is_null() {
                return Err(null_argument("config->attrs"));
            }
            // SAFETY: `attribute_count` attributes, by the call's contract.
            let attribute = unsafe { config.attributes.add(i).read_unaligned() };
            if attribute.id == ATTRIBUTE_CLUSTER_DIMENSION {
                shape = Some([attribute.value[0], attribute.value[1], attribute.value[2]]);
            }
        }
        let required = driver::required_cluster(number(function))?;
        let shape = match (shape, required) {
            (Some(given), Some(required)) if given != required => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!(
                        "the cluster shape {given:?} is not the kernel's .reqnctapercluster \
                         {required:?}"
                    ),
                ));
            }
            (Some(shape), _) | (None, Some(shape)) => shape,
            (None, None) => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    "no cluster shape: neither the configuration's \
                     CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION nor the kernel's .reqnctapercluster",
                ));
            }
        };
        let ctas: u64 = shape.iter().map(|&d| u64::from(d)).product();
        if !(1..=8).contains(&ctas) {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("a cluster of {ctas} CTAs (1 to 8, the portable cluster size)"),
            ));
        }
        let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
        let block = c_int::try_from(threads).unwrap_or(c_int::MAX);
        let per_multiprocessor =
            driver::occupancy(number(function), block, u64::from(config.shared_bytes))?;
        let resident = u64::try_from(per_multiprocessor).unwrap_or(0)
            * u64::try_from(MULTIPROCESSORS).unwrap_or(0);
        let value = c_int::try_from(resident / ctas).unwrap_or(c_int::MAX);
        super::log_detail(|| format!("active clusters: {ctas} CTAs each: {value}"));
        unsafe { put(clusters, value, "numClusters") }
    }

    /// `cuOccupancyMaxPotentialClusterSize`: cuda.h, "return the maximum cluster size in
    /// *clusterSize. The cluster dimensions in config are ignored. If func has a required
    /// cluster size set ..., *clusterSize will reflect the required cluster size. By default
    /// this function will always return a value that's portable on future hardware" (8 CTAs).
    /// The model: the portable size where [`driver::occupancy`] lets a CTA of the
    /// configuration be resident on each multiprocessor (a cluster's CTAs run on different
    /// multiprocessors of one processing cluster, which has more than 8), 0 where none can.
    fn cuOccupancyMaxPotentialClusterSize(
        size: *mut c_int,
        function: Handle,
        config: *const LaunchConfig,
    ) {
        if config.is_null() {
            return Err(null_argument("config"));
        }
        let config = unsafe { config.read_unaligned() };
        let value = match driver::required_cluster(number(function))? {
            Some(required) => {
                let ctas: u64 = required.iter().map(|&d| u64::from(d)).product();
                c_int::try_from(ctas).unwrap_or(c_int::MAX)
            }
            None => {
                let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
                let block = c_int::try_from(threads).unwrap_or(c_int::MAX);
                let per_multiprocessor =
                    driver::occupancy(number(function), block, u64::from(config.shared_bytes))?;
                if per_multiprocessor > 0 { PORTABLE_CLUSTER } else { 0 }
            }
        };
        super::log_detail(|| format!("potential cluster size: {value}"));
        unsafe { put(size, value, "clusterSize") }
    }

    /// `cuOccupancyAvailableDynamicSMemPerBlock`: what is left of 227 KiB after the kernel's
    /// static shared memory, when `count` CTAs share a multiprocessor.
    fn cuOccupancyAvailableDynamicSMemPerBlock(
        available: *mut usize,
        function: Handle,
        count: c_int,
        block: c_int,
    ) {
        let _ = block;
        let static_bytes = driver::function_attribute(1, number(function))?;
        let count = usize::try_from(count.max(1)).unwrap_or(1);
        let per_block = (228 * 1024 / count).saturating_sub(1024).min(227 * 1024);
        let value = per_block.saturating_sub(usize::try_from(static_bytes).unwrap_or(0));
        unsafe { put(available, value, "dynamicSmemSize") }
    }

    /// `cuFuncGetModule`.
    fn cuFuncGetModule(module: *mut Handle, function: Handle) {
        let value = driver::function_module(number(function))?;
        unsafe { put(module, handle(value), "hmod") }
    }

    /// `cuLaunchKernelEx`: `cuLaunchKernel` with attributes. Attributes that change nothing
    /// on a simulator that runs each launch to completion (priorities, access policy windows,
    /// programmatic dependent launch, memory sync domains) are accepted;
    /// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE` makes a cooperative launch and
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` (`value.clusterDim.x, y, z`) gives the
    /// thread-block cluster shape (a shape the kernel or the grid does not allow is
    /// `CUDA_ERROR_INVALID_VALUE`, as the launch's other shape errors).
    fn cuLaunchKernelEx(
        config: *const LaunchConfig,
        function: Handle,
        kernel_params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) {
        if config.is_null() {
            return Err(null_argument("config"));
        }
        let config = unsafe { config.read_unaligned() };
        let mut cooperative = false;
        let mut cluster = None;
        for i in 0..usize::try_from(config.attribute_count).unwrap_or(0) {
            if config.attributes.is_null() {
                return Err(null_argument("config->attrs"));
            }
            // SAFETY: `attribute_count` attributes, by the call's contract.
            let attribute = unsafe { config.attributes.add(i).read_unaligned() };
            match attribute.id {
                ATTRIBUTE_COOPERATIVE => cooperative = attribute.value[0] != 0,
                ATTRIBUTE_CLUSTER_DIMENSION => {
                    cluster = Some([attribute.value[0], attribute.value[1], attribute.value[2]]);
                }
                ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION | ATTRIBUTE_PROGRAMMATIC_EVENT => {}
                _ => {}
            }
        }
        let (layout, size) = driver::parameters(number(function))?;
        let params = unsafe { super::parameter_space(&layout, size, kernel_params, extra) }?;
        let launch = super::Launch {
            function: number(function),
            grid: config.grid,
            block: config.block,
            dynamic_shared: config.shared_bytes,
            stream: number(config.stream),
            params: &params,
            cooperative,
            cluster,
        };
        super::enqueue(&launch)
    }

    /// `cuLaunchCooperativeKernel`: a launch whose CTAs are all resident at once, so that the
    /// grid may synchronize (`cooperative_groups::this_grid().sync()`); a grid larger than
    /// what can be resident (`cuOccupancyMaxActiveBlocksPerMultiprocessor` x 16
    /// multiprocessors) is `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`.
    fn cuLaunchCooperativeKernel(
        function: Handle,
        grid_x: c_uint,
        grid_y: c_uint,
        grid_z: c_uint,
        block_x: c_uint,
        block_y: c_uint,
        block_z: c_uint,
        shared_bytes: c_uint,
        stream: Handle,
        kernel_params: *mut *mut c_void,
    ) {
        let (layout, size) = driver::parameters(number(function))?;
        let params =
            unsafe { super::parameter_space(&layout, size, kernel_params, std::ptr::null_mut()) }?;
        let launch = super::Launch {
            function: number(function),
            grid: [grid_x, grid_y, grid_z],
            block: [block_x, block_y, block_z],
            dynamic_shared: shared_bytes,
            stream: number(stream),
            params: &params,
            cooperative: true,
            cluster: None,
        };
        super::enqueue(&launch)
    }

    /// `cuMemAllocAsync`: device memory, at once (stream-ordered allocation is immediate),
    /// counted in the device's default pool ([`Pools`]); on a capturing stream, an allocation
    /// node of the graph and its address ([`driver::graph`]).
    fn cuMemAllocAsync(address: *mut u64, bytes: usize, stream: Handle) {
        let device = driver::context_get_device()?;
        let value = stream_allocate(bytes, stream)?;
        let mut pools = pools();
        let current = pools.current(device);
        pools.allocated(current, value, bytes as u64);
        unsafe { put(address, value, "dptr") }
    }

    /// `cuMemAllocFromPoolAsync`: as `cuMemAllocAsync`, counted in `pool`'s used memory.
    fn cuMemAllocFromPoolAsync(address: *mut u64, bytes: usize, pool: Handle, stream: Handle) {
        if !pools().known(number(pool)) {
            return Err(Failure::new(CudaError::InvalidValue, "not a memory pool"));
        }
        let value = stream_allocate(bytes, stream)?;
        pools().allocated(number(pool), value, bytes as u64);
        unsafe { put(address, value, "dptr") }
    }

    /// `cuMemFreeAsync`: frees at once (a graph allocation too); on a capturing stream, a
    /// free node of the graph (of a graph allocation).
    fn cuMemFreeAsync(address: u64, stream: Handle) {
        if driver::graph::capture_free(number(stream), address)? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        driver::memory_free(address)?;
        pools().freed(address);
        Ok(())
    }

    /// `cuDeviceGetDefaultMemPool`: the device's one pool.
    fn cuDeviceGetDefaultMemPool(pool: *mut Handle, device: CUdevice) {
        driver::device_get(device)?;
        unsafe { put(pool, pool_handle(device), "pool_out") }
    }

    /// `cuDeviceGetMemPool`: the device's current pool ("the last pool provided to
    /// cuDeviceSetMemPool for this device or the device's default memory pool").
    fn cuDeviceGetMemPool(pool: *mut Handle, device: CUdevice) {
        driver::device_get(device)?;
        let current = pools().current(device);
        unsafe { put(pool, handle(current), "pool") }
    }

    /// `cuDeviceSetMemPool`: the pool, which must be of the device, becomes its current pool
    /// (`cuMemAllocAsync` allocates from it).
    fn cuDeviceSetMemPool(device: CUdevice, pool: Handle) {
        driver::device_get(device)?;
        pools().set_current(device, number(pool))
    }

    /// `cuMemGetDefaultMemPool` (CUDA 13): the default pool of a device location
    /// (`CU_MEM_LOCATION_TYPE_DEVICE`, pinned allocations); host pools are not supported.
    fn cuMemGetDefaultMemPool(pool: *mut Handle, location: *const MemLocation, kind: c_int) {
        let device = unsafe { pool_location(location, kind) }?;
        unsafe { put(pool, pool_handle(device), "pool_out") }
    }

    /// `cuMemGetMemPool` (CUDA 13): the current pool of a device location, as
    /// `cuDeviceGetMemPool`.
    fn cuMemGetMemPool(pool: *mut Handle, location: *const MemLocation, kind: c_int) {
        let device = unsafe { pool_location(location, kind) }?;
        let current = pools().current(device);
        unsafe { put(pool, handle(current), "pool") }
    }

    /// `cuMemSetMemPool` (CUDA 13): the current pool of a device location, as
    /// `cuDeviceSetMemPool`.
    fn cuMemSetMemPool(location: *const MemLocation, kind: c_int, pool: Handle) {
        let device = unsafe { pool_location(location, kind) }?;
        pools().set_current(device, number(pool))
    }

    /// `cuMemPoolSetAccess`: each descriptor's device location and flags (none, read,
    /// read-write) are kept. With one simulated device of each pool's own, every access is the
    /// device's own, which cuda.h says is always read-write: other flags for it are
    /// `CUDA_ERROR_INVALID_VALUE`.
    fn cuMemPoolSetAccess(pool: Handle, map: *const MemAccessDesc, count: usize) {
        if map.is_null() && count > 0 {
            return Err(null_argument("map"));
        }
        for i in 0..count {
            // SAFETY: `count` descriptors, by the contract.
            let access = unsafe { map.add(i).read_unaligned() };
            if access.location.kind != LOCATION_DEVICE {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("access from location type {}", access.location.kind),
                ));
            }
            driver::device_get(access.location.id)?;
            let pools = pools();
            if pools.device_of(number(pool))? == access.location.id
                && access.flags != ACCESS_READ_WRITE
            {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    "the owning device's access to its pool is always read-write",
                ));
            }
        }
        Ok(())
    }

    /// `cuMemPoolGetAccess`: read-write for the pool's own device, none for another.
    fn cuMemPoolGetAccess(flags: *mut c_int, pool: Handle, location: *const MemLocation) {
        if location.is_null() {
            return Err(null_argument("location"));
        }
        // SAFETY: a readable `CUmemLocation` by the contract.
        let location = unsafe { location.read_unaligned() };
        if location.kind != LOCATION_DEVICE {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("access from location type {}", location.kind),
            ));
        }
        driver::device_get(location.id)?;
        let owner = pools().device_of(number(pool))?;
        let value = if owner == location.id { ACCESS_READ_WRITE } else { 0 };
        unsafe { put(flags, value, "flags") }
    }

    /// `cuMemPoolCreate`: a pool of device memory. Its allocations are made and freed at once
    /// (stream-ordered allocation is immediate here), so it holds no memory beyond what is in
    /// use; its attributes are kept ([`Pools`]).
    fn cuMemPoolCreate(pool: *mut Handle, properties: *const super::graph::PoolProps) {
        if properties.is_null() {
            return Err(null_argument("poolProps"));
        }
        // SAFETY: a `CUmemPoolProps`, by the call's contract.
        let props = unsafe { properties.read() };
        let (location_type, device) = props.location();
        if location_type != 1 {
            return Err(Failure::new(
                CudaError::NotSupported,
                format!("memory pools of location type {location_type} (only device memory, 1)"),
            ));
        }
        driver::device_get(device)?;
        let value = pools().create(device);
        unsafe { put(pool, handle(value), "pool") }
    }

    /// `cuMemPoolDestroy`: forgets the pool (its live allocations stay valid until freed, as
    /// "the pool's memory is released when all allocations are freed").
    fn cuMemPoolDestroy(pool: Handle) {
        if pools().destroy(number(pool)) {
            Ok(())
        } else {
            Err(Failure::new(CudaError::InvalidValue, "not a memory pool made by cuMemPoolCreate"))
        }
    }

    /// `cuMemPoolSetAttribute`: the reuse flags and the release threshold are kept; the high
    /// watermarks may be reset (to 0).
    fn cuMemPoolSetAttribute(pool: Handle, attribute: c_int, value: *mut c_void) {
        if value.is_null() {
            return Err(null_argument("value"));
        }
        // SAFETY: an `int` (attributes 1 to 3) or a `cuuint64_t`, by the call's contract.
        let value = match attribute {
            1..=3 => u64::from(unsafe { value.cast::<c_int>().read() } as u32),
            _ => unsafe { value.cast::<u64>().read() },
        };
        pools().set(number(pool), attribute, value)
    }

    /// `cuMemPoolGetAttribute`: the reuse flags (`int`: 1 unless set), the release threshold,
    /// and the reserved and used memory (current and high watermark) of the pool's live
    /// allocations (`cuuint64_t`).
    fn cuMemPoolGetAttribute(pool: Handle, attribute: c_int, value: *mut c_void) {
        let found = pools().get(number(pool), attribute)?;
        match attribute {
            1..=3 => unsafe { put(value.cast::<c_int>(), found as c_int, "value") },
            _ => unsafe { put(value.cast::<u64>(), found, "value") },
        }
    }

    /// `cuMemPoolTrimTo`: nothing to trim.
    fn cuMemPoolTrimTo(pool: Handle, keep: usize) {
        let _ = (pool, keep);
        Ok(())
    }
}

/// `cuMemAllocAsync` of `bytes` on `stream`: an allocation node where the stream captures,
/// else device memory at once.
fn stream_allocate(bytes: usize, stream: Handle) -> super::CallResult<u64> {
    if let Some(address) = driver::graph::capture_allocation(number(stream), bytes as u64)? {
        return Ok(address);
    }
    driver::stream_synchronize(number(stream))?;
    driver::memory_allocate(bytes as u64)
}

/// A `cuMemcpy` between `source` and `destination`, each device or host memory by address.
///
/// # Safety
/// A host address among them has `bytes` readable (source) or writable (destination) bytes,
/// as `cuMemcpy`'s contract says.
unsafe fn unified_copy(destination: u64, source: u64, bytes: usize) -> super::CallResult<()> {
    if bytes == 0 {
        return Ok(());
    }
    match (
        driver::is_device_address(destination),
        driver::is_device_address(source),
    ) {
        (true, true) => driver::copy_on_device(destination, source, bytes as u64),
        (true, false) => {
            let from =
                unsafe { super::host_bytes(source as usize as *const c_void, bytes, "src") }?;
            driver::copy_to_device(destination, from)
        }
        (false, true) => {
            let to = unsafe { host_bytes_mut(destination as usize as *mut c_void, bytes, "dst") }?;
            driver::copy_from_device(to, source)
        }
        (false, false) => {
            if destination == 0 || source == 0 {
                return Err(null_argument("dst or src"));
            }
            // SAFETY: both are host memory of `bytes` bytes by the contract; they may overlap.
            unsafe {
                std::ptr::copy(
                    source as usize as *const u8,
                    destination as usize as *mut u8,
                    bytes,
                );
            }
            Ok(())
        }
    }
}

calls! {
    /// `cuProfilerStart`: nothing to start (there is no profiler).
    fn cuProfilerStart() {
        Ok(())
    }

    /// `cuProfilerStop`: nothing to stop.
    fn cuProfilerStop() {
        Ok(())
    }

    /// `cuFlushGPUDirectRDMAWrites`: nothing to wait for (no device writes are in flight
    /// when a call runs). The target must be `CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX`
    /// (0) and the scope `_TO_OWNER` (100) or `_TO_ALL_DEVICES` (200), the values `cuda.h`
    /// defines.
    fn cuFlushGPUDirectRDMAWrites(target: c_int, scope: c_int) {
        if target != 0 || !matches!(scope, 100 | 200) {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("target {target}, scope {scope}"),
            ));
        }
        driver::context_get_current().map(|_| ())
    }

    /// `cuProfilerInitialize`: nothing to set up.
    fn cuProfilerInitialize(config: *const c_char, output: *const c_char, mode: c_int) {
        let _ = (config, output, mode);
        Ok(())
    }

    /// `cuStreamSetAttribute`: accepted, with no effect (access policy windows and
    /// synchronization policies change no result).
    fn cuStreamSetAttribute(stream: Handle, attribute: c_int, value: *const c_void) {
        let _ = (attribute, value);
        driver::stream_synchronize(number(stream))
    }

    /// `cuStreamGetAttribute`: the attribute's value as a stream has it by default (zero).
    fn cuStreamGetAttribute(stream: Handle, attribute: c_int, value: *mut [u32; 16]) {
        let _ = attribute;
        driver::stream_synchronize(number(stream))?;
        unsafe { put(value, [0; 16], "value_out") }
    }

    /// `cuStreamCopyAttributes`: nothing to copy.
    fn cuStreamCopyAttributes(destination: Handle, source: Handle) {
        let _ = (destination, source);
        Ok(())
    }

    /// `cuOccupancyMaxPotentialBlockSize`: the block size (a multiple of 32, at most
    /// `limit` or 1024) with the most resident threads per multiprocessor, the largest such,
    /// and the grid that fills the device with it (16 multiprocessors).
    fn cuOccupancyMaxPotentialBlockSize(
        grid: *mut c_int,
        block: *mut c_int,
        function: Handle,
        shared_of_block: Option<unsafe extern "C" fn(c_int) -> usize>,
        dynamic_shared: usize,
        limit: c_int,
    ) {
        unsafe { potential_block_size(grid, block, function, shared_of_block, dynamic_shared, limit) }
    }

    /// `cuOccupancyMaxPotentialBlockSizeWithFlags`: as `cuOccupancyMaxPotentialBlockSize`.
    fn cuOccupancyMaxPotentialBlockSizeWithFlags(
        grid: *mut c_int,
        block: *mut c_int,
        function: Handle,
        shared_of_block: Option<unsafe extern "C" fn(c_int) -> usize>,
        dynamic_shared: usize,
        limit: c_int,
        flags: c_uint,
    ) {
        let _ = flags;
        unsafe { potential_block_size(grid, block, function, shared_of_block, dynamic_shared, limit) }
    }
}

/// The multiprocessors the device reports (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
const MULTIPROCESSORS: c_int = 16;

/// `cuOccupancyMaxPotentialBlockSize`'s search, written to `grid` and `block`.
///
/// # Safety
/// `shared_of_block` is NULL or a function the caller gave for this purpose.
/// `grid` and `block` are NULL (an error) or writable.
unsafe fn potential_block_size(
    grid: *mut c_int,
    block: *mut c_int,
    function: Handle,
    shared_of_block: Option<unsafe extern "C" fn(c_int) -> usize>,
    dynamic_shared: usize,
    limit: c_int,
) -> super::CallResult<()> {
    let limit = if limit <= 0 { 1024 } else { limit.min(1024) };
    let mut best = (0, 0, 0); // (resident threads, block, blocks per multiprocessor)
    let mut size = limit / 32 * 32;
    while size >= 32 {
        let shared = match shared_of_block {
            // SAFETY: the caller's callback, called as CUDA calls it.
            Some(callback) => unsafe { callback(size) },
            None => dynamic_shared,
        };
        let blocks = driver::occupancy(number(function), size, shared as u64)?;
        let threads = blocks * size;
        if threads > best.0 {
            best = (threads, size, blocks);
        }
        size -= 32;
    }
    if best.1 == 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "no block size lets one CTA fit",
        ));
    }
    unsafe { put(grid, best.2 * MULTIPROCESSORS, "minGridSize") }?;
    unsafe { put(block, best.1, "blockSize") }
}

/// `cuKernelGetParamInfo` / `cuFuncGetParamInfo`: the offset and size of parameter `index`.
///
/// # Safety
/// `offset` and `size` are NULL or writable.
unsafe fn parameter_info(
    function: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> super::CallResult<()> {
    let (layout, _) = driver::parameters(number(function))?;
    let (at, bytes) = *layout
        .get(index)
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, format!("no parameter {index}")))?;
    if !offset.is_null() {
        unsafe { put(offset, at, "paramOffset") }?;
    }
    if !size.is_null() {
        unsafe { put(size, bytes, "paramSize") }?;
    }
    Ok(())
}

/// `cuLibraryGetGlobal` / `cuLibraryGetManaged`: the address and size of a variable.
///
/// # Safety
/// `address` and `bytes` are NULL or writable; `name` is NULL or NUL-terminated.
unsafe fn library_global(
    address: *mut u64,
    bytes: *mut usize,
    library: Handle,
    name: *const c_char,
) -> super::CallResult<()> {
    let name = unsafe { text(name, "name") }?;
    let (value, size) = driver::library_get_global(number(library), name)?;
    if !address.is_null() {
        unsafe { put(address, value, "dptr") }?;
    }
    if !bytes.is_null() {
        unsafe { put(bytes, usize::try_from(size).unwrap_or(usize::MAX), "bytes") }?;
    }
    Ok(())
}

/// The pitch `cuMemAllocPitch` gives rows: a multiple of 512 bytes
/// (`CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT` is 32; NVIDIA's driver pads rows to 512).
const PITCH_ALIGNMENT: usize = 512;

calls! {
    /// `cuMemAllocPitch_v2`: `height` rows of `width` bytes, each row starting a multiple of
    /// 512 bytes after the first; the pitch is written to `pitch`.
    fn cuMemAllocPitch_v2(
        address: *mut u64,
        pitch: *mut usize,
        width: usize,
        height: usize,
        element_size: c_uint,
    ) {
        if !matches!(element_size, 4 | 8 | 16) {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("element size {element_size} (4, 8 or 16)"),
            ));
        }
        if width == 0 || height == 0 {
            return Err(Failure::new(CudaError::InvalidValue, "a width or height of 0"));
        }
        let row = width
            .checked_next_multiple_of(PITCH_ALIGNMENT)
            .ok_or(Failure::from(CudaError::InvalidValue))?;
        let bytes = row
            .checked_mul(height)
            .ok_or(Failure::from(CudaError::OutOfMemory))?;
        let value = driver::memory_allocate(bytes as u64)?;
        unsafe { put(pitch, row, "pPitch") }?;
        unsafe { put(address, value, "dptr") }
    }
}

/// `cuLaunchHostFunc`: calls `function(data)` now (the stream's work has finished), or adds it
/// to the graph the stream is capturing.
///
/// # Safety
/// `function` is the caller's host function, callable with `data`.
unsafe fn host_function(
    stream: Handle,
    function: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> super::CallResult<()> {
    let function = function.ok_or_else(|| null_argument("fn"))?;
    if driver::capture(number(stream), || driver::GraphNode::Host {
        function: function as usize,
        data: data.expose_provenance(),
    })? {
        return Ok(());
    }
    driver::stream_synchronize(number(stream))?;
    // SAFETY: the caller's host function, called as CUDA calls it.
    unsafe { function(data) };
    Ok(())
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor` ([`driver::occupancy`]), logged with
/// `PTXSIM_LOG=calls`.
///
/// # Safety
/// `blocks` is NULL (an error) or writable.
unsafe fn active_blocks(
    blocks: *mut c_int,
    function: Handle,
    block: c_int,
    dynamic_shared: usize,
) -> super::CallResult<()> {
    let value = driver::occupancy(number(function), block, dynamic_shared as u64)?;
    super::log_detail(|| {
        format!("occupancy: block {block}, {dynamic_shared} dynamic shared bytes: {value}")
    });
    unsafe { put(blocks, value, "numBlocks") }
}

/// The memory pools: each device's default pool ([`pool_handle`]) and those of
/// `cuMemPoolCreate`, with their attributes and live allocations.
#[derive(Default)]
struct Pools {
    pools: std::collections::HashMap<u64, Pool>,
    /// The device of each pool `cuMemPoolCreate` made.
    devices: std::collections::HashMap<u64, CUdevice>,
    /// Each device's current pool where `cuDeviceSetMemPool` set one.
    current: std::collections::HashMap<CUdevice, u64>,
    /// The pool of each live allocation.
    owner: std::collections::HashMap<u64, (u64, u64)>,
    next: u64,
}

/// A memory pool's attributes and counters.
#[derive(Clone, Debug)]
struct Pool {
    /// `CU_MEMPOOL_ATTR_REUSE_*` (attributes 1 to 3).
    reuse: [u64; 3],
    /// `CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`.
    threshold: u64,
    used: u64,
    high: u64,
}

impl Default for Pool {
    fn default() -> Self {
        Self {
            reuse: [1; 3],
            threshold: 0,
            used: 0,
            high: 0,
        }
    }
}

/// The process's [`Pools`].
fn pools() -> std::sync::MutexGuard<'static, Pools> {
    static POOLS: std::sync::OnceLock<std::sync::Mutex<Pools>> = std::sync::OnceLock::new();
    POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pools {
    /// Whether `pool` is a default pool or one `cuMemPoolCreate` made.
    fn known(&self, pool: u64) -> bool {
        (0x5000_0000..0x5000_1000).contains(&pool) || self.pools.contains_key(&pool)
    }

    fn create(&mut self, device: CUdevice) -> u64 {
        self.next += 1;
        let handle = 0x5100_0000 + self.next;
        self.pools.insert(handle, Pool::default());
        self.devices.insert(handle, device);
        handle
    }

    /// Destroys a pool `cuMemPoolCreate` made; where it was a device's current pool, the
    /// default pool is current again ("If the pool is the current pool of a device, ... the
    /// default memory pool of that device becomes the current pool", cuMemPoolDestroy).
    fn destroy(&mut self, pool: u64) -> bool {
        let gone = (0x5100_0000..0x5200_0000).contains(&pool) && self.pools.remove(&pool).is_some();
        if gone {
            self.devices.remove(&pool);
            self.current.retain(|_, current| *current != pool);
        }
        gone
    }

    /// The device a pool's memory is on.
    fn device_of(&self, pool: u64) -> super::CallResult<CUdevice> {
        if (0x5000_0000..0x5000_1000).contains(&pool) {
            return Ok(CUdevice::try_from(pool - 0x5000_0000).unwrap_or(0));
        }
        self.devices
            .get(&pool)
            .copied()
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, "not a memory pool"))
    }

    /// The current pool of `device` (its default pool until `cuDeviceSetMemPool`).
    fn current(&self, device: CUdevice) -> u64 {
        self.current
            .get(&device)
            .copied()
            .unwrap_or_else(|| number(pool_handle(device)))
    }

    /// `cuDeviceSetMemPool`: the pool must be of the device (`CUDA_ERROR_INVALID_VALUE`).
    fn set_current(&mut self, device: CUdevice, pool: u64) -> super::CallResult<()> {
        if self.device_of(pool)? != device {
            return Err(Failure::new(
                CudaError::InvalidValue,
                "the pool is another device's",
            ));
        }
        self.current.insert(device, pool);
        Ok(())
    }

    fn pool(&mut self, pool: u64) -> super::CallResult<&mut Pool> {
        if !self.known(pool) {
            return Err(Failure::new(CudaError::InvalidValue, "not a memory pool"));
        }
        Ok(self.pools.entry(pool).or_default())
    }

    fn allocated(&mut self, pool: u64, address: u64, bytes: u64) {
        if let Ok(entry) = self.pool(pool) {
            entry.used += bytes;
            entry.high = entry.high.max(entry.used);
            self.owner.insert(address, (pool, bytes));
        }
    }

    fn freed(&mut self, address: u64) {
        if let Some((pool, bytes)) = self.owner.remove(&address) {
            if let Some(entry) = self.pools.get_mut(&pool) {
                entry.used = entry.used.saturating_sub(bytes);
            }
        }
    }

    fn set(&mut self, pool: u64, attribute: c_int, value: u64) -> super::CallResult<()> {
        let entry = self.pool(pool)?;
        match attribute {
            1..=3 => entry.reuse[attribute as usize - 1] = value,
            4 => entry.threshold = value,
            // the high watermarks: "it is illegal to set this attribute to a non-zero value"
            6 | 8 if value == 0 => entry.high = entry.used,
            _ => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("memory pool attribute {attribute} cannot be set to {value}"),
                ));
            }
        }
        Ok(())
    }

    fn get(&mut self, pool: u64, attribute: c_int) -> super::CallResult<u64> {
        let entry = self.pool(pool)?;
        Ok(match attribute {
            1..=3 => entry.reuse[attribute as usize - 1],
            4 => entry.threshold,
            5 | 7 => entry.used,
            6 | 8 => entry.high,
            _ => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("unknown memory pool attribute {attribute}"),
                ));
            }
        })
    }
}
