//! The exported C functions of the driver API: the one module of the crate with `unsafe`
//! code. Each converts its C arguments and calls [`crate::driver`].
//!
//! # What is unsafe here, and why it is sound
//!
//! 1. **The caller's pointers.** Every call reads or writes memory through the pointers it is
//!    given, as NVIDIA's library does, and relies on the CUDA driver API's contract for them:
//!    an output pointer (`CUdeviceptr *dptr`, `int *count`, `CUcontext *pctx`) points to a
//!    writable object of its type; a host buffer of a copy (`srcHost`, `dstHost`) has
//!    `ByteCount` readable (writable) bytes that do not overlap memory this library holds; a
//!    string (`name`, the PTX `image`) is NUL-terminated; `kernelParams[i]` points to a
//!    readable value of the size of kernel parameter `i`; `extra` is a list of
//!    `CU_LAUNCH_PARAM_*` keys and values ending with `CU_LAUNCH_PARAM_END`, whose buffer has
//!    the bytes its size says. A NULL output pointer or string is reported
//!    (`CUDA_ERROR_INVALID_VALUE`), never dereferenced; nothing else can be checked, as with
//!    NVIDIA's library. Each pointer is used only during the call (the host addresses of
//!    graph copy nodes, 4, are the one exception).
//!
//! 2. **Device memory is not host memory.** A `CUdeviceptr` is an address in ptxsim's own
//!    device memory ([`ptxsim_exec::memory::DeviceMemory`]), never dereferenced: copies and
//!    kernels reach it through bounds-checked safe code, so a bad device pointer is an error
//!    (`CUDA_ERROR_INVALID_VALUE`, or `CUDA_ERROR_ILLEGAL_ADDRESS` in a kernel), not a crash.
//!
//! 3. **Handles** (`CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUevent`) are numbers
//!    handed out as pointers and looked up in the driver's tables; they are never
//!    dereferenced, so a stale or foreign handle is `CUDA_ERROR_INVALID_HANDLE`.
//!
//! 4. **Copy nodes of CUDA graphs** keep the host addresses they were given (as numbers) and
//!    copy through them each time the graph is launched: CUDA's contract is that this memory
//!    stays valid, with the copy's bytes, as long as the graph may run.
//!
//! 5. **Pinned host memory** (`cuMemHostAlloc`, `cuMemAllocHost`) comes from `calloc`; this
//!    module keeps the addresses it handed out and `cuMemFreeHost` frees only those.
//!
//! 6. **The exported symbols** (`#[unsafe(no_mangle)]`) are the driver API's names, which a
//!    process has only once: the program loads this library instead of NVIDIA's.
//!
//! Every call runs under `catch_unwind`: a panic (a ptxsim bug) is `CUDA_ERROR_UNKNOWN` with
//! a message on stderr, never an unwind into C. A failed call prints `ptxsim: CALL: ...` on
//! stderr. Calls this library does not implement return `CUDA_ERROR_NOT_SUPPORTED` and name
//! themselves on stderr; they are declared without parameters (the C caller's arguments are
//! in registers or on its own stack frame, which the callee need not read).
#![allow(unsafe_code)]
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_int, c_uchar, c_uint, c_ushort, c_void};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::LazyLock;

use crate::driver::{self, CallResult, GraphNode, Launch, Place, PointerValue};
use crate::status::{CudaError, Failure};

mod export_table;
mod proc_address;

/// `CUresult`.
pub type CUresult = c_int;
/// `CUdevice`.
pub type CUdevice = c_int;
/// `CUdeviceptr`.
pub type CUdeviceptr = u64;
/// `CUcontext`, `CUmodule`, `CUfunction`, `CUstream`, `CUevent`: opaque handles.
pub type Handle = *mut c_void;

/// `CU_LAUNCH_PARAM_END`, `CU_LAUNCH_PARAM_BUFFER_POINTER`, `CU_LAUNCH_PARAM_BUFFER_SIZE`.
const LAUNCH_PARAM_END: usize = 0;
const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

/// `CU_JIT_INFO_LOG_BUFFER`, `CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES`, `CU_JIT_ERROR_LOG_BUFFER`,
/// `CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES`.
const JIT_INFO_LOG_BUFFER: c_int = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
const JIT_ERROR_LOG_BUFFER: c_int = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// Whether `PTXSIM_LOG` asks for every driver call on stderr (`PTXSIM_LOG=calls`).
static LOG_CALLS: LazyLock<bool> = LazyLock::new(|| {
    std::env::var("PTXSIM_LOG").is_ok_and(|value| value.split(',').any(|part| part == "calls"))
});

/// Prints `line()` on stderr as `ptxsim: log: LINE` where `PTXSIM_LOG=calls`.
fn log_detail(line: impl FnOnce() -> String) {
    if *LOG_CALLS {
        // Nothing to do if stderr is closed.
        let _ = writeln!(std::io::stderr(), "ptxsim: log: {}", line());
    }
}

/// Runs a call: catches a panic, prints a failure on stderr, returns the code. With
/// `PTXSIM_LOG=calls`, every call and its result are printed too.
fn guard(call: &str, body: impl FnOnce() -> CallResult<()>) -> CUresult {
    let _environment = ptxsim_jit::FloatEnvironment::default_for_call();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // Launches kept on created streams run before any call that may see their results.
        if !driver::DEFERRING_CALLS.contains(&call) {
            driver::run_deferred()?;
        }
        body()
    }));
    if *LOG_CALLS {
        let result = match &outcome {
            Ok(Ok(())) => "CUDA_SUCCESS".to_string(),
            Ok(Err(failure)) => failure.error.name().to_string_lossy().into_owned(),
            Err(_) => "panic".to_string(),
        };
        let _ = writeln!(std::io::stderr(), "ptxsim: log: {call} -> {result}");
    }
    let failure = match outcome {
        Ok(Ok(())) => return 0,
        Ok(Err(failure)) => failure,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Failure::new(
                CudaError::Unknown,
                format!("internal error (a ptxsim bug): {what}"),
            )
        }
    };
    if failure.quiet {
        return failure.error.code();
    }
    let name = failure.error.name().to_string_lossy();
    let line = match &failure.message {
        Some(message) => format!("ptxsim: {call}: {name}: {message}"),
        None => format!("ptxsim: {call}: {name}"),
    };
    // Nothing to do if stderr is closed.
    let _ = writeln!(std::io::stderr(), "{line}");
    failure.error.code()
}

/// The number a handle stands for.
fn number(handle: Handle) -> u64 {
    handle as usize as u64
}

/// The handle of a number (never dereferenced).
fn handle(number: u64) -> Handle {
    std::ptr::without_provenance_mut(usize::try_from(number).unwrap_or(0))
}

fn null_argument(what: &str) -> Failure {
    Failure::new(CudaError::InvalidValue, format!("{what} is NULL"))
}

/// Writes `value` to `out`.
///
/// # Safety
/// `out` is NULL (an error) or points to a writable `T` (possibly unaligned).
unsafe fn put<T>(out: *mut T, value: T, what: &str) -> CallResult<()> {
    if out.is_null() {
        return Err(null_argument(what));
    }
    // SAFETY: `out` is not NULL and, by the caller's contract, writable.
    unsafe { out.write_unaligned(value) };
    Ok(())
}

/// The `len` bytes at `pointer`.
///
/// # Safety
/// `pointer` is NULL (an error unless `len` is 0) or has `len` readable bytes that nothing
/// writes during the call.
unsafe fn host_bytes<'a>(pointer: *const c_void, len: usize, what: &str) -> CallResult<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() {
        return Err(null_argument(what));
    }
    // SAFETY: not NULL and, by the caller's contract, `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(pointer.cast::<u8>(), len) })
}

/// The `len` bytes at `pointer`, to write.
///
/// # Safety
/// `pointer` is NULL (an error unless `len` is 0) or has `len` writable bytes that nothing
/// else accesses during the call.
unsafe fn host_bytes_mut<'a>(
    pointer: *mut c_void,
    len: usize,
    what: &str,
) -> CallResult<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if pointer.is_null() {
        return Err(null_argument(what));
    }
    // SAFETY: not NULL and, by the caller's contract, `len` writable bytes not aliased.
    Ok(unsafe { std::slice::from_raw_parts_mut(pointer.cast::<u8>(), len) })
}

/// The NUL-terminated string at `pointer`, as UTF-8.
///
/// # Safety
/// `pointer` is NULL (an error) or points to a NUL-terminated string.
unsafe fn text<'a>(pointer: *const c_char, what: &str) -> CallResult<&'a str> {
    if pointer.is_null() {
        return Err(null_argument(what));
    }
    // SAFETY: not NULL and, by the caller's contract, NUL-terminated.
    unsafe { CStr::from_ptr(pointer) }
        .to_str()
        .map_err(|error| Failure::new(CudaError::InvalidValue, format!("{what}: {error}")))
}

/// Defines exported driver API calls: each runs its body under [`guard`].
macro_rules! calls {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block
    )*) => {$(
        $(#[doc = $doc])*
        ///
        /// # Safety
        /// Its pointer arguments keep the CUDA driver API's contract for this call (see the
        /// module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> CUresult {
            guard(stringify!($name), || $body)
        }
    )*};
}

/// Defines the names without a version suffix (`cuMemAlloc`) of calls defined with one
/// (`cuMemAlloc_v2`): `cuda.h` maps the plain names to the suffixed ones, but programs that
/// bind symbols by name (Python's ctypes) sometimes use the plain ones. They behave as the
/// suffixed calls (64-bit `CUdeviceptr`, `size_t` sizes), not as the pre-CUDA-3.2 calls that
/// NVIDIA's library keeps under those names.
macro_rules! plain_names {
    ($($plain:ident => $name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("`", stringify!($name), "` under the name `", stringify!($plain), "`.")]
        ///
        /// # Safety
        /// As the call it stands for.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $plain($($arg: $ty),*) -> CUresult {
            // SAFETY: the same arguments, the same contract.
            unsafe { $name($($arg),*) }
        }
    )*};
}

/// Defines calls this library does not implement: `CUDA_ERROR_NOT_SUPPORTED`, named on
/// stderr.
macro_rules! not_supported {
    ($($name:ident)*) => {$(
        #[doc = concat!("`", stringify!($name), "`: not implemented (`CUDA_ERROR_NOT_SUPPORTED`).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> CUresult {
            guard(stringify!($name), || {
                Err(Failure::new(
                    CudaError::NotSupported,
                    "ptxsim does not implement this call",
                ))
            })
        }
    )*};
}

// The calls the library does not implement, generated from the table of entry points.
mod not_implemented;
// The calls only the CUDA runtime makes.
mod runtime;
// Managed, pinned and registered host memory.
mod host;
// Stream capture and the graph calls beyond kernel and copy nodes.
mod graph;
// CUDA arrays, texture objects and surface objects.
mod texture;
// The JIT linker (cuLink*).
mod link;
// Virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap, ...).
mod vmm;
// Tensor maps (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col, cuTensorMapEncodeIm2colWide,
// cuTensorMapReplaceAddress).
mod tensor_map;

calls! {
    /// `cuInit`: reads the environment (`PTXSIM_TARGET`, `PTXSIM_MAX_STEPS`,
    /// `PTXSIM_DEVICE_MEMORY`).
    fn cuInit(flags: c_uint) {
        host::install_output();
        driver::init(flags)
    }

    /// `cuDriverGetVersion`.
    fn cuDriverGetVersion(version: *mut c_int) {
        unsafe { put(version, driver::driver_version(), "driverVersion") }
    }

    /// `cuDeviceGet`: the ordinal, if there is such a device.
    fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) {
        let value = driver::device_get(ordinal)?;
        unsafe { put(device, value, "device") }
    }

    /// `cuDeviceGetCount`: `PTXSIM_DEVICE_COUNT` (1 unless set).
    fn cuDeviceGetCount(count: *mut c_int) {
        let value = driver::device_count()?;
        unsafe { put(count, value, "count") }
    }

    /// `cuDeviceGetName`: `ptxsim sm_90` (the simulated target), cut to `len - 1` bytes.
    fn cuDeviceGetName(name: *mut c_char, len: c_int, device: CUdevice) {
        let value = driver::device_name(device)?;
        let len = usize::try_from(len).unwrap_or(0);
        if len == 0 {
            return Err(Failure::new(CudaError::InvalidValue, "len must be positive"));
        }
        let out = unsafe { host_bytes_mut(name.cast(), len, "name") }?;
        let take = value.len().min(len - 1);
        out[..take].copy_from_slice(&value.as_bytes()[..take]);
        out[take] = 0;
        Ok(())
    }

    /// `cuDeviceGetAttribute`.
    fn cuDeviceGetAttribute(value: *mut c_int, attribute: c_int, device: CUdevice) {
        let answer = driver::device_attribute(attribute, device);
        log_detail(|| format!("cuDeviceGetAttribute({attribute}, {device}): {answer:?}"));
        unsafe { put(value, answer?, "pi") }
    }

    /// `cuDeviceComputeCapability`: from the simulated target (`sm_90`: 9.0).
    fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, device: CUdevice) {
        let (ma, mi) = driver::compute_capability(device)?;
        unsafe { put(major, ma, "major") }?;
        unsafe { put(minor, mi, "minor") }
    }

    /// `cuDeviceTotalMem_v2`.
    fn cuDeviceTotalMem_v2(bytes: *mut usize, device: CUdevice) {
        let total = driver::total_memory(device)?;
        unsafe { put(bytes, usize::try_from(total).unwrap_or(usize::MAX), "bytes") }
    }

    /// `cuDeviceCanAccessPeer`: 1 for two distinct devices, 0 for a device and itself.
    fn cuDeviceCanAccessPeer(can_access: *mut c_int, device: CUdevice, peer: CUdevice) {
        let value = driver::can_access_peer(device, peer)?;
        unsafe { put(can_access, c_int::from(value), "canAccessPeer") }
    }

    /// `cuDeviceGetP2PAttribute`: between two different devices (the same device twice is
    /// `CUDA_ERROR_INVALID_DEVICE`, as cuda.h says), peer access, native atomics and array
    /// access are supported (1) as `cuDeviceCanAccessPeer` says (every simulated device
    /// reaches every other's memory), the link's performance rank is 0 and atomics are not
    /// partial (0).
    fn cuDeviceGetP2PAttribute(value: *mut c_int, attribute: c_int, source: CUdevice, destination: CUdevice) {
        if source == destination {
            driver::device_get(source)?;
            return Err(Failure::new(
                CudaError::InvalidDevice,
                "the source and destination are the same device",
            ));
        }
        let peer = c_int::from(driver::can_access_peer(source, destination)?);
        let answer = match attribute {
            1 | 5 => 0,     // PERFORMANCE_RANK, ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED
            2..=4 => peer,  // ACCESS_SUPPORTED, NATIVE_ATOMIC_SUPPORTED, CUDA_ARRAY_ACCESS_SUPPORTED
            other => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("peer attribute {other}"),
                ));
            }
        };
        unsafe { put(value, answer, "value") }
    }

    /// `cuDeviceGetTexture1DLinearMaxWidth`: the device's widest 1D linear texture in
    /// elements (`CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH`), for a format of 1, 2
    /// or 4 channels.
    fn cuDeviceGetTexture1DLinearMaxWidth(width: *mut usize, format: c_uint, channels: c_uint, device: CUdevice) {
        let _ = format;
        if !matches!(channels, 1 | 2 | 4) {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("{channels} channels (1, 2 or 4)"),
            ));
        }
        let value = driver::device_attribute(MAXIMUM_TEXTURE1D_LINEAR_WIDTH, device)?;
        unsafe { put(width, usize::try_from(value).unwrap_or(0), "maxWidthInElements") }
    }

    /// `cuDevicePrimaryCtxRetain`: the device's primary context.
    fn cuDevicePrimaryCtxRetain(context: *mut Handle, device: CUdevice) {
        let value = driver::primary_context(device)?;
        unsafe { put(context, handle(value), "pctx") }
    }

    /// `cuDevicePrimaryCtxReset` (CUDA 7's; `cudaDeviceReset` asks for it):
    /// [`driver::primary_context_reset`].
    fn cuDevicePrimaryCtxReset(device: CUdevice) {
        driver::primary_context_reset(device)
    }

    /// `cuDevicePrimaryCtxRelease_v2`: the primary context stays.
    fn cuDevicePrimaryCtxRelease_v2(device: CUdevice) {
        driver::device_get(device).map(|_| ())
    }

    /// `cuCtxCreate_v2`: a new context, current for the calling thread (`flags` are ignored).
    fn cuCtxCreate_v2(context: *mut Handle, flags: c_uint, device: CUdevice) {
        if context.is_null() {
            return Err(null_argument("pctx"));
        }
        let value = driver::context_create(device, flags)?;
        unsafe { put(context, handle(value), "pctx") }
    }

    /// `cuCtxCreate_v4` (what `cuCtxCreate` means from CUDA 13): as `cuCtxCreate_v2`; the
    /// creation parameters are ignored.
    fn cuCtxCreate_v4(context: *mut Handle, params: *mut c_void, flags: c_uint, device: CUdevice) {
        let _ = params;
        if context.is_null() {
            return Err(null_argument("pctx"));
        }
        let value = driver::context_create(device, flags)?;
        unsafe { put(context, handle(value), "pctx") }
    }

    /// `cuCtxDestroy_v2`: the context and everything made in it.
    fn cuCtxDestroy_v2(context: Handle) {
        driver::context_destroy(number(context))
    }

    /// `cuCtxSetCurrent` (NULL unsets).
    fn cuCtxSetCurrent(context: Handle) {
        driver::context_set_current(number(context))
    }

    /// `cuCtxPushCurrent_v2`: the context becomes current; the current one stays below it.
    fn cuCtxPushCurrent_v2(context: Handle) {
        driver::context_push(number(context))
    }

    /// `cuCtxPopCurrent_v2`: the current context (to `pctx` unless NULL); the one below it
    /// becomes current.
    fn cuCtxPopCurrent_v2(context: *mut Handle) {
        let value = driver::context_pop()?;
        if context.is_null() {
            return Ok(());
        }
        unsafe { put(context, handle(value), "pctx") }
    }

    /// `cuCtxGetCurrent` (NULL if none).
    fn cuCtxGetCurrent(context: *mut Handle) {
        let value = driver::context_get_current()?;
        unsafe { put(context, handle(value), "pctx") }
    }

    /// `cuCtxGetDevice`: the current context's device.
    fn cuCtxGetDevice(device: *mut CUdevice) {
        let value = driver::context_get_device()?;
        unsafe { put(device, value, "device") }
    }

    /// `cuCtxSynchronize`: the context's sticky error, if any (everything else has finished).
    fn cuCtxSynchronize() {
        driver::context_synchronize()
    }

    /// `cuCtxEnablePeerAccess`: kernels of the current context reach the memory of the peer
    /// context's device (another device; `flags` must be 0).
    fn cuCtxEnablePeerAccess(peer: Handle, flags: c_uint) {
        driver::enable_peer_access(number(peer), flags)
    }

    /// `cuCtxDisablePeerAccess`.
    fn cuCtxDisablePeerAccess(peer: Handle) {
        driver::disable_peer_access(number(peer))
    }

    /// `cuModuleLoadData`: PTX text, checked for the simulated target (cached by content).
    fn cuModuleLoadData(module: *mut Handle, image: *const c_void) {
        if module.is_null() {
            return Err(null_argument("module"));
        }
        let image = unsafe { text_or_bytes(image) }?;
        let value = driver::module_load(image)?;
        unsafe { put(module, handle(value), "module") }
    }

    /// `cuModuleLoadDataEx`: as `cuModuleLoadData`; of the JIT options, the error log buffer
    /// (`CU_JIT_ERROR_LOG_BUFFER` with its size) receives the checker's errors and the info
    /// log buffer an empty string; the others are ignored.
    fn cuModuleLoadDataEx(
        module: *mut Handle,
        image: *const c_void,
        count: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        if module.is_null() {
            return Err(null_argument("module"));
        }
        let image = unsafe { text_or_bytes(image) }?;
        let result = driver::module_load(image);
        let log = match &result {
            Ok(_) => String::new(),
            Err(failure) => failure.message.clone().unwrap_or_default(),
        };
        unsafe { write_logs(count, options, values, &log) }?;
        unsafe { put(module, handle(result?), "module") }
    }

    /// `cuModuleLoad`: the PTX text of a file.
    fn cuModuleLoad(module: *mut Handle, path: *const c_char) {
        if module.is_null() {
            return Err(null_argument("module"));
        }
        let path = unsafe { text(path, "fname") }?;
        let image = driver::read_image(path)?;
        let value = driver::module_load(&image)?;
        unsafe { put(module, handle(value), "module") }
    }

    /// `cuModuleGetFunction`: `CUDA_ERROR_NOT_FOUND` for a name that is no kernel of the
    /// module.
    fn cuModuleGetFunction(function: *mut Handle, module: Handle, name: *const c_char) {
        if function.is_null() {
            return Err(null_argument("hfunc"));
        }
        let name = unsafe { text(name, "name") }?;
        let value = driver::module_get_function(number(module), name)?;
        unsafe { put(function, handle(value), "hfunc") }
    }

    /// `cuModuleGetGlobal_v2`: a `.global` variable's address and size (either output may be
    /// NULL); for a `__managed__` variable, its host memory.
    fn cuModuleGetGlobal_v2(
        address: *mut CUdeviceptr,
        bytes: *mut usize,
        module: Handle,
        name: *const c_char,
    ) {
        let name = unsafe { text(name, "name") }?;
        // A `__managed__` variable is host memory (driver::module_get_managed).
        let (value, size) = driver::module_get_managed(number(module), name, |size| {
            let size = usize::try_from(size).unwrap_or(usize::MAX);
            host::allocate(size, driver::HostKind::Managed).map(|pointer| pointer as u64)
        })?;
        if !address.is_null() {
            unsafe { put(address, value, "dptr") }?;
        }
        if !bytes.is_null() {
            unsafe { put(bytes, usize::try_from(size).unwrap_or(usize::MAX), "bytes") }?;
        }
        Ok(())
    }

    /// `cuModuleUnload`.
    fn cuModuleUnload(module: Handle) {
        driver::module_unload(number(module))
    }

    /// `cuMemAlloc_v2`: zeroed device memory.
    fn cuMemAlloc_v2(address: *mut CUdeviceptr, bytes: usize) {
        if address.is_null() {
            return Err(null_argument("dptr"));
        }
        let value = driver::memory_allocate(bytes as u64)?;
        unsafe { put(address, value, "dptr") }
    }

    /// `cuMemFree_v2`.
    fn cuMemFree_v2(address: CUdeviceptr) {
        if driver::host_range(address, 1).is_some_and(|r| r.kind == driver::HostKind::Managed) {
            return host::free(address, driver::HostKind::Managed);
        }
        driver::memory_free(address)
    }

    /// `cuMemGetInfo_v2`.
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) {
        let (available, all) = driver::memory_info()?;
        let size = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
        unsafe { put(free, size(available), "free") }?;
        unsafe { put(total, size(all), "total") }
    }

    /// `cuMemGetAddressRange_v2`: the allocation holding `address`; `base` and `size` are
    /// optional ("If one of them is NULL, it is ignored", cuda.h).
    fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, address: CUdeviceptr) {
        let (start, len) = driver::address_range(address)?;
        if !base.is_null() {
            unsafe { put(base, start, "pbase") }?;
        }
        if !size.is_null() {
            unsafe { put(size, usize::try_from(len).unwrap_or(usize::MAX), "psize") }?;
        }
        Ok(())
    }

    /// `cuMemcpyHtoD_v2`.
    fn cuMemcpyHtoD_v2(destination: CUdeviceptr, source: *const c_void, bytes: usize) {
        let source = unsafe { host_bytes(source, bytes, "srcHost") }?;
        driver::copy_to_device(destination, source)
    }

    /// `cuMemcpyDtoH_v2`.
    fn cuMemcpyDtoH_v2(destination: *mut c_void, source: CUdeviceptr, bytes: usize) {
        let destination = unsafe { host_bytes_mut(destination, bytes, "dstHost") }?;
        driver::copy_from_device(destination, source)
    }

    /// `cuMemcpyDtoD_v2`.
    fn cuMemcpyDtoD_v2(destination: CUdeviceptr, source: CUdeviceptr, bytes: usize) {
        driver::copy_on_device(destination, source, bytes as u64)
    }

    /// `cuMemcpyHtoDAsync_v2`: done when it returns.
    fn cuMemcpyHtoDAsync_v2(
        destination: CUdeviceptr,
        source: *const c_void,
        bytes: usize,
        stream: Handle,
    ) {
        if driver::capture(number(stream), || GraphNode::Copy {
            source: Place::Host(source.expose_provenance()),
            destination: Place::Device(destination),
            bytes,
        })? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        let source = unsafe { host_bytes(source, bytes, "srcHost") }?;
        driver::copy_to_device(destination, source)
    }

    /// `cuMemcpyDtoHAsync_v2`: done when it returns.
    fn cuMemcpyDtoHAsync_v2(
        destination: *mut c_void,
        source: CUdeviceptr,
        bytes: usize,
        stream: Handle,
    ) {
        if driver::capture(number(stream), || GraphNode::Copy {
            source: Place::Device(source),
            destination: Place::Host(destination.expose_provenance()),
            bytes,
        })? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        let destination = unsafe { host_bytes_mut(destination, bytes, "dstHost") }?;
        driver::copy_from_device(destination, source)
    }

    /// `cuMemcpyDtoDAsync_v2`: done when it returns.
    fn cuMemcpyDtoDAsync_v2(
        destination: CUdeviceptr,
        source: CUdeviceptr,
        bytes: usize,
        stream: Handle,
    ) {
        if driver::capture(number(stream), || GraphNode::Copy {
            source: Place::Device(source),
            destination: Place::Device(destination),
            bytes,
        })? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        driver::copy_on_device(destination, source, bytes as u64)
    }

    /// `cuMemcpyPeer`: a copy between the memories of two contexts (device addresses are
    /// unified, so any two devices).
    fn cuMemcpyPeer(
        destination: CUdeviceptr,
        destination_context: Handle,
        source: CUdeviceptr,
        source_context: Handle,
        bytes: usize,
    ) {
        driver::copy_peer(
            destination,
            number(destination_context),
            source,
            number(source_context),
            bytes as u64,
        )
    }

    /// `cuMemcpyPeerAsync`: done when it returns.
    fn cuMemcpyPeerAsync(
        destination: CUdeviceptr,
        destination_context: Handle,
        source: CUdeviceptr,
        source_context: Handle,
        bytes: usize,
        stream: Handle,
    ) {
        driver::stream_synchronize(number(stream))?;
        driver::copy_peer(
            destination,
            number(destination_context),
            source,
            number(source_context),
            bytes as u64,
        )
    }

    /// `cuMemsetD8_v2`.
    fn cuMemsetD8_v2(destination: CUdeviceptr, value: c_uchar, count: usize) {
        driver::memory_set(destination, &[value], count as u64)
    }

    /// `cuMemsetD16_v2`.
    fn cuMemsetD16_v2(destination: CUdeviceptr, value: c_ushort, count: usize) {
        driver::memory_set(destination, &value.to_le_bytes(), count as u64)
    }

    /// `cuMemsetD32_v2`.
    fn cuMemsetD32_v2(destination: CUdeviceptr, value: c_uint, count: usize) {
        driver::memory_set(destination, &value.to_le_bytes(), count as u64)
    }

    /// `cuMemsetD8Async`: done when it returns.
    fn cuMemsetD8Async(destination: CUdeviceptr, value: c_uchar, count: usize, stream: Handle) {
        if driver::capture(number(stream), || memset_node(destination, vec![value], count))? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        driver::memory_set(destination, &[value], count as u64)
    }

    /// `cuMemsetD16Async`: done when it returns.
    fn cuMemsetD16Async(destination: CUdeviceptr, value: c_ushort, count: usize, stream: Handle) {
        if driver::capture(number(stream), || memset_node(destination, value.to_le_bytes().to_vec(), count))? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        driver::memory_set(destination, &value.to_le_bytes(), count as u64)
    }

    /// `cuMemsetD32Async`: done when it returns.
    fn cuMemsetD32Async(destination: CUdeviceptr, value: c_uint, count: usize, stream: Handle) {
        if driver::capture(number(stream), || memset_node(destination, value.to_le_bytes().to_vec(), count))? {
            return Ok(());
        }
        driver::stream_synchronize(number(stream))?;
        driver::memory_set(destination, &value.to_le_bytes(), count as u64)
    }

    /// `cuMemsetD2D8_v2`: `height` rows of `width` bytes, `pitch` bytes apart.
    fn cuMemsetD2D8_v2(destination: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize) {
        memset_2d(destination, pitch, vec![value], width, height, None)
    }

    /// `cuMemsetD2D16_v2`: `height` rows of `width` 16-bit values, `pitch` bytes apart.
    fn cuMemsetD2D16_v2(destination: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize) {
        memset_2d(destination, pitch, value.to_le_bytes().to_vec(), width, height, None)
    }

    /// `cuMemsetD2D32_v2`: `height` rows of `width` 32-bit values, `pitch` bytes apart.
    fn cuMemsetD2D32_v2(destination: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize) {
        memset_2d(destination, pitch, value.to_le_bytes().to_vec(), width, height, None)
    }

    /// `cuMemsetD2D8Async`: as `cuMemsetD2D8_v2`, done when it returns (a memset node where
    /// the stream captures).
    fn cuMemsetD2D8Async(destination: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize, stream: Handle) {
        memset_2d(destination, pitch, vec![value], width, height, Some(number(stream)))
    }

    /// `cuMemsetD2D16Async`: as `cuMemsetD2D16_v2`, done when it returns.
    fn cuMemsetD2D16Async(destination: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize, stream: Handle) {
        memset_2d(destination, pitch, value.to_le_bytes().to_vec(), width, height, Some(number(stream)))
    }

    /// `cuMemsetD2D32Async`: as `cuMemsetD2D32_v2`, done when it returns.
    fn cuMemsetD2D32Async(destination: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize, stream: Handle) {
        memset_2d(destination, pitch, value.to_le_bytes().to_vec(), width, height, Some(number(stream)))
    }

    /// `cuMemHostAlloc`: zeroed, page-aligned host memory that kernels reach at its host
    /// address (every flag's meaning on a system with unified addressing).
    fn cuMemHostAlloc(pointer: *mut *mut c_void, bytes: usize, flags: c_uint) {
        let value = host::allocate_pinned(bytes, flags)?;
        unsafe { put(pointer, value, "pp") }
    }

    /// `cuMemAllocHost_v2`: as `cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP` (its memory is
    /// mapped for every context, as all pinned memory is here).
    fn cuMemAllocHost_v2(pointer: *mut *mut c_void, bytes: usize) {
        let value = host::allocate_pinned(bytes, 0x02)?;
        unsafe { put(pointer, value, "pp") }
    }

    /// `cuMemFreeHost`: memory from `cuMemHostAlloc` or `cuMemAllocHost`.
    fn cuMemFreeHost(pointer: *mut c_void) {
        host::free(pointer as u64, driver::HostKind::Pinned)
    }

    /// `cuLaunchKernel`: runs the kernel to completion. The parameters come from
    /// `kernelParams` (one pointer per parameter) or `extra` (`CU_LAUNCH_PARAM_BUFFER_POINTER`,
    /// `CU_LAUNCH_PARAM_BUFFER_SIZE`, `CU_LAUNCH_PARAM_END`: the parameter space as one
    /// buffer).
    fn cuLaunchKernel(
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
        extra: *mut *mut c_void,
    ) {
        let (layout, size) = driver::parameters(number(function))?;
        let params = unsafe { parameter_space(&layout, size, kernel_params, extra) }?;
        let launch = Launch {
            function: number(function),
            grid: [grid_x, grid_y, grid_z],
            block: [block_x, block_y, block_z],
            dynamic_shared: shared_bytes,
            stream: number(stream),
            params: &params,
            cooperative: false,
            cluster: None,
        };
        enqueue(&launch)
    }

    /// `cuFuncGetAttribute`.
    fn cuFuncGetAttribute(value: *mut c_int, attribute: c_int, function: Handle) {
        let attribute = driver::function_attribute(attribute, number(function))?;
        unsafe { put(value, attribute, "pi") }
    }

    /// `cuFuncSetAttribute`: the dynamic shared memory limit; other attributes have no effect.
    fn cuFuncSetAttribute(function: Handle, attribute: c_int, value: c_int) {
        driver::function_set_attribute(number(function), attribute, value)
    }

    /// `cuFuncSetCacheConfig`: no effect.
    fn cuFuncSetCacheConfig(function: Handle, config: c_int) {
        let _ = config;
        driver::parameters(number(function)).map(|_| ())
    }

    /// `cuStreamCreate`.
    fn cuStreamCreate(stream: *mut Handle, flags: c_uint) {
        if stream.is_null() {
            return Err(null_argument("phStream"));
        }
        let value = driver::stream_create_with(flags, 0)?;
        unsafe { put(stream, handle(value), "phStream") }
    }

    /// `cuStreamDestroy_v2`.
    fn cuStreamDestroy_v2(stream: Handle) {
        driver::stream_destroy(number(stream))
    }

    /// `cuStreamSynchronize`: the context's sticky error, if any.
    fn cuStreamSynchronize(stream: Handle) {
        driver::stream_synchronize(number(stream))
    }

    /// `cuStreamQuery`: done (`CUDA_SUCCESS`), or the context's sticky error.
    fn cuStreamQuery(stream: Handle) {
        driver::stream_synchronize(number(stream))
    }

    /// `cuStreamWaitEvent`: the event has completed.
    fn cuStreamWaitEvent(stream: Handle, event: Handle, flags: c_uint) {
        let _ = flags;
        if driver::capture_wait(number(stream), number(event))? {
            return Ok(());
        }
        driver::stream_wait_event(number(stream), number(event))
    }

    /// `cuEventCreate` (the flags are ignored).
    fn cuEventCreate(event: *mut Handle, flags: c_uint) {
        let _ = flags;
        if event.is_null() {
            return Err(null_argument("phEvent"));
        }
        let value = driver::event_create()?;
        unsafe { put(event, handle(value), "phEvent") }
    }

    /// `cuEventRecord`: the host time of the call.
    fn cuEventRecord(event: Handle, stream: Handle) {
        if driver::capture_event(number(event), number(stream))? {
            return Ok(());
        }
        driver::event_record(number(event), number(stream))
    }

    /// `cuEventSynchronize`.
    fn cuEventSynchronize(event: Handle) {
        driver::event_synchronize(number(event))
    }

    /// `cuEventQuery`: complete.
    fn cuEventQuery(event: Handle) {
        driver::event_synchronize(number(event))
    }

    /// `cuEventElapsedTime`: host milliseconds between the two records.
    fn cuEventElapsedTime(milliseconds: *mut f32, start: Handle, end: Handle) {
        let value = driver::event_elapsed(number(start), number(end))?;
        unsafe { put(milliseconds, value, "pMilliseconds") }
    }

    /// `cuEventDestroy_v2`.
    fn cuEventDestroy_v2(event: Handle) {
        driver::event_destroy(number(event))
    }

    /// `cuGetErrorString`: the description of a `CUresult` (`CUDA_ERROR_INVALID_VALUE`, and
    /// NULL, for a code this library never returns).
    fn cuGetErrorString(error: CUresult, string: *mut *const c_char) {
        let description = match error {
            0 => Some(c"no error"),
            _ => CudaError::from_code(error).map(CudaError::description),
        };
        error_text(description, string)
    }

    /// `cuGetErrorName`: the enumerator's name of a `CUresult`.
    fn cuGetErrorName(error: CUresult, string: *mut *const c_char) {
        let name = match error {
            0 => Some(c"CUDA_SUCCESS"),
            _ => CudaError::from_code(error).map(CudaError::name),
        };
        error_text(name, string)
    }

    /// `cuPointerGetAttribute` of a device pointer: CONTEXT, MEMORY_TYPE, DEVICE_POINTER,
    /// BUFFER_ID, DEVICE_ORDINAL, RANGE_START_ADDR, RANGE_SIZE.
    fn cuPointerGetAttribute(data: *mut c_void, attribute: c_int, pointer: CUdeviceptr) {
        let value = driver::pointer_attribute(attribute, pointer)?;
        unsafe { put_pointer_value(data, value) }
    }

    /// `cuPointerGetAttributes`: each attribute as `cuPointerGetAttribute` gives it; for a
    /// pointer that is no allocation (plain host memory), `CU_POINTER_ATTRIBUTE_MEMORY_TYPE`
    /// is 0 and the other attributes are left as they are, as NVIDIA's driver does.
    fn cuPointerGetAttributes(
        count: c_uint,
        attributes: *const c_int,
        data: *mut *mut c_void,
        pointer: CUdeviceptr,
    ) {
        if attributes.is_null() || data.is_null() {
            return Err(null_argument("attributes"));
        }
        // Whether the pointer is in memory the driver knows (an allocation, a mapping, pinned
        // or managed memory).
        let known = driver::pointer_attribute(2, pointer).is_ok();
        for i in 0..usize::try_from(count).unwrap_or(0) {
            // SAFETY: `count` attributes and data pointers, by the call's contract.
            let (attribute, out) = unsafe { (attributes.add(i).read(), data.add(i).read()) };
            if out.is_null() {
                continue;
            }
            // Memory that is neither device memory nor registered host memory: what NVIDIA's
            // driver answers for plain host memory (ZLUDA's tests on a GPU): no context,
            // memory type 0, the host pointer itself, no device pointer, not managed,
            // ordinal -2; other attributes are left as they are.
            let unknown = match attribute {
                1 => Some(PointerValue::Context(0)),
                2 => Some(PointerValue::U32(0)),
                3 => Some(PointerValue::U64(0)),
                4 => Some(PointerValue::U64(pointer)),
                8 => Some(PointerValue::U32(0)),
                9 => Some(PointerValue::I32(-2)),
                _ => None,
            };
            // Of device memory, HOST_POINTER is NULL ("the attributes are assigned default
            // NULL values" rather than an error); the values above are for unknown memory.
            let unknown = if known && attribute == 4 {
                Some(PointerValue::U64(0))
            } else if known {
                None
            } else {
                unknown
            };
            match (driver::pointer_attribute(attribute, pointer), unknown) {
                (Ok(value), _) | (Err(_), Some(value)) => unsafe { put_pointer_value(out, value) }?,
                (Err(_), None) => {}
            }
        }
        Ok(())
    }
}

plain_names! {
    cuDeviceTotalMem => cuDeviceTotalMem_v2(bytes: *mut usize, device: CUdevice);
    cuDevicePrimaryCtxRelease => cuDevicePrimaryCtxRelease_v2(device: CUdevice);
    cuCtxCreate => cuCtxCreate_v2(context: *mut Handle, flags: c_uint, device: CUdevice);
    cuCtxDestroy => cuCtxDestroy_v2(context: Handle);
    cuModuleGetGlobal => cuModuleGetGlobal_v2(
        address: *mut CUdeviceptr, bytes: *mut usize, module: Handle, name: *const c_char);
    cuMemAlloc => cuMemAlloc_v2(address: *mut CUdeviceptr, bytes: usize);
    cuMemFree => cuMemFree_v2(address: CUdeviceptr);
    cuMemGetInfo => cuMemGetInfo_v2(free: *mut usize, total: *mut usize);
    cuMemGetAddressRange => cuMemGetAddressRange_v2(
        base: *mut CUdeviceptr, size: *mut usize, address: CUdeviceptr);
    cuMemcpyHtoD => cuMemcpyHtoD_v2(destination: CUdeviceptr, source: *const c_void, bytes: usize);
    cuMemcpyDtoH => cuMemcpyDtoH_v2(destination: *mut c_void, source: CUdeviceptr, bytes: usize);
    cuMemcpyDtoD => cuMemcpyDtoD_v2(destination: CUdeviceptr, source: CUdeviceptr, bytes: usize);
    cuMemcpyHtoDAsync => cuMemcpyHtoDAsync_v2(
        destination: CUdeviceptr, source: *const c_void, bytes: usize, stream: Handle);
    cuMemcpyDtoHAsync => cuMemcpyDtoHAsync_v2(
        destination: *mut c_void, source: CUdeviceptr, bytes: usize, stream: Handle);
    cuMemcpyDtoDAsync => cuMemcpyDtoDAsync_v2(
        destination: CUdeviceptr, source: CUdeviceptr, bytes: usize, stream: Handle);
    cuMemsetD8 => cuMemsetD8_v2(destination: CUdeviceptr, value: c_uchar, count: usize);
    cuMemsetD16 => cuMemsetD16_v2(destination: CUdeviceptr, value: c_ushort, count: usize);
    cuMemsetD32 => cuMemsetD32_v2(destination: CUdeviceptr, value: c_uint, count: usize);
    cuMemsetD2D8 => cuMemsetD2D8_v2(destination: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize);
    cuMemsetD2D16 => cuMemsetD2D16_v2(destination: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize);
    cuMemsetD2D32 => cuMemsetD2D32_v2(destination: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize);
    cuMemAllocHost => cuMemAllocHost_v2(pointer: *mut *mut c_void, bytes: usize);
    cuStreamDestroy => cuStreamDestroy_v2(stream: Handle);
    cuCtxPushCurrent => cuCtxPushCurrent_v2(context: Handle);
    cuCtxPopCurrent => cuCtxPopCurrent_v2(context: *mut Handle);
    cuEventDestroy => cuEventDestroy_v2(event: Handle);
    cuEventElapsedTime_v2 => cuEventElapsedTime(milliseconds: *mut f32, start: Handle, end: Handle);
}

/// `CUDA_KERNEL_NODE_PARAMS` (`_v1`; `_v2` begins the same and adds a `CUkernel` and a
/// `CUcontext`, which this library does not read).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelNodeParams {
    func: Handle,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared_bytes: c_uint,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
}

/// `CUDA_KERNEL_NODE_PARAMS_v2`: the first version's fields, a `CUkernel` and a `CUcontext`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelNodeParamsV2 {
    first: KernelNodeParams,
    kernel: Handle,
    context: Handle,
}

/// The first version of `params`, its function the kernel where `func` is NULL.
///
/// # Safety
/// `params` is NULL (an error) or points to a readable `CUDA_KERNEL_NODE_PARAMS_v2`.
unsafe fn first_version(params: *const KernelNodeParamsV2) -> CallResult<KernelNodeParams> {
    if params.is_null() {
        return Err(null_argument("nodeParams"));
    }
    // SAFETY: not NULL and, by the contract, readable.
    let params = unsafe { params.read_unaligned() };
    let mut first = params.first;
    if first.func.is_null() {
        first.func = params.kernel;
    }
    Ok(first)
}

/// `CUDA_MEMCPY3D` (`_v2`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy3d {
    src_x_in_bytes: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_memory_type: c_int,
    src_host: *const c_void,
    src_device: CUdeviceptr,
    src_array: *mut c_void,
    reserved0: *mut c_void,
    src_pitch: usize,
    src_height: usize,
    dst_x_in_bytes: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_memory_type: c_int,
    dst_host: *mut c_void,
    dst_device: CUdeviceptr,
    dst_array: *mut c_void,
    reserved1: *mut c_void,
    dst_pitch: usize,
    dst_height: usize,
    width_in_bytes: usize,
    height: usize,
    depth: usize,
}

/// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH`.
const MAXIMUM_TEXTURE1D_LINEAR_WIDTH: c_int = 69;

/// `CU_MEMORYTYPE_HOST`, `CU_MEMORYTYPE_DEVICE`.
const MEMORYTYPE_HOST: c_int = 1;
const MEMORYTYPE_DEVICE: c_int = 2;

/// The kernel node of `params`, its parameters copied now.
///
/// # Safety
/// `params` is NULL (an error) or points to a readable `CUDA_KERNEL_NODE_PARAMS` whose
/// `kernelParams` / `extra` keep `cuLaunchKernel`'s contract.
unsafe fn kernel_node(params: *const KernelNodeParams) -> CallResult<GraphNode> {
    if params.is_null() {
        return Err(null_argument("nodeParams"));
    }
    // SAFETY: not NULL and, by the contract, readable.
    let params = unsafe { params.read_unaligned() };
    let function = number(params.func);
    let (layout, size) = driver::parameters(function)?;
    // SAFETY: by the contract, as for cuLaunchKernel.
    let bytes = unsafe { parameter_space(&layout, size, params.kernel_params, params.extra) }?;
    Ok(GraphNode::Kernel {
        function,
        grid: [params.grid_x, params.grid_y, params.grid_z],
        block: [params.block_x, params.block_y, params.block_z],
        dynamic_shared: params.shared_bytes,
        params: bytes,
    })
}

/// The copy node of `copy`: one row (`Height` and `Depth` 1) between device and host memory.
///
/// # Safety
/// `copy` is NULL (an error) or points to a readable `CUDA_MEMCPY3D`; its host pointers stay
/// valid for the copy's bytes as long as the graph may run (CUDA's contract).
unsafe fn copy_node(copy: *const Memcpy3d) -> CallResult<GraphNode> {
    if copy.is_null() {
        return Err(null_argument("copyParams"));
    }
    // SAFETY: not NULL and, by the contract, readable.
    let copy = unsafe { copy.read_unaligned() };
    let one_row = |memory_type: c_int| matches!(memory_type, MEMORYTYPE_HOST | MEMORYTYPE_DEVICE);
    if copy.height > 1
        || copy.depth > 1
        || !one_row(copy.src_memory_type)
        || !one_row(copy.dst_memory_type)
        || copy.src_y > 0
        || copy.src_z > 0
        || copy.dst_y > 0
        || copy.dst_z > 0
    {
        // SAFETY: `copy` points to a readable `CUDA_MEMCPY3D`, the struct texture.rs reads.
        return Ok(unsafe { texture::copy_3d_node(std::ptr::from_ref(&copy).cast()) });
    }
    let place = |memory_type: c_int, host: usize, device: u64, x: usize| match memory_type {
        MEMORYTYPE_HOST => Ok(Place::Host(host.wrapping_add(x))),
        MEMORYTYPE_DEVICE => Ok(Place::Device(device.wrapping_add(x as u64))),
        other => Err(Failure::new(
            CudaError::NotSupported,
            format!("copies from or to memory type {other} (only host and device)"),
        )),
    };
    Ok(GraphNode::Copy {
        source: place(
            copy.src_memory_type,
            copy.src_host as usize,
            copy.src_device,
            copy.src_x_in_bytes,
        )?,
        destination: place(
            copy.dst_memory_type,
            copy.dst_host as usize,
            copy.dst_device,
            copy.dst_x_in_bytes,
        )?,
        bytes: copy.width_in_bytes,
    })
}

/// The dependencies of a node being added.
///
/// # Safety
/// `dependencies` is NULL (none) or has `count` readable handles.
unsafe fn dependencies(dependencies: *const Handle, count: usize) -> CallResult<Vec<u64>> {
    if dependencies.is_null() || count == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: by the contract, `count` readable handles.
    let handles = unsafe { std::slice::from_raw_parts(dependencies, count) };
    Ok(handles.iter().map(|&h| number(h)).collect())
}

/// Runs an executable graph: its launch begins ([`driver::graph::launch_begin`]: graph
/// allocations of an earlier launch, conditional handles' defaults), then its nodes run.
fn launch_graph(executable: u64, stream: u64) -> CallResult<()> {
    driver::graph::launch_begin(executable)?;
    run_graph_nodes(executable, stream)
}

/// Runs an executable graph's nodes in order: kernels through the driver, copies here (host
/// memory is the caller's), conditional nodes' bodies as their handles' values say.
fn run_graph_nodes(executable: u64, stream: u64) -> CallResult<()> {
    for node in driver::graph_nodes(executable)? {
        match node {
            GraphNode::Kernel {
                function,
                grid,
                block,
                dynamic_shared,
                params,
            } => driver::launch_node(&Launch {
                function,
                grid,
                block,
                dynamic_shared,
                stream,
                params: &params,
                cooperative: false,
                cluster: None,
            })?,
            GraphNode::Copy {
                source,
                destination,
                bytes,
            } => match (source, destination) {
                (Place::Device(from), Place::Device(to)) => {
                    driver::copy_on_device(to, from, bytes as u64)?;
                }
                (Place::Host(from), Place::Device(to)) => {
                    let from = std::ptr::with_exposed_provenance::<c_void>(from);
                    // SAFETY: the host pointer of a copy node stays valid for its bytes while
                    // the graph may run (the contract of cuGraphAddMemcpyNode).
                    let bytes = unsafe { host_bytes(from, bytes, "srcHost") }?;
                    driver::copy_to_device(to, bytes)?;
                }
                (Place::Device(from), Place::Host(to)) => {
                    let to = std::ptr::with_exposed_provenance_mut::<c_void>(to);
                    // SAFETY: as above, writable.
                    let bytes = unsafe { host_bytes_mut(to, bytes, "dstHost") }?;
                    driver::copy_from_device(bytes, from)?;
                }
                (Place::Host(_), Place::Host(_)) => {
                    return Err(Failure::new(
                        CudaError::NotSupported,
                        "host-to-host copy nodes",
                    ));
                }
            },
            GraphNode::Copy3d {
                source,
                destination,
                extent,
            } => {
                // SAFETY: the host memory and arrays of a copy node stay valid while the graph
                // may run (the contract of cuGraphAddMemcpyNode and of stream capture).
                unsafe { texture::run_copy_3d(source, destination, extent) }?;
            }
            GraphNode::Memset {
                destination,
                pattern,
                width,
                height,
                pitch,
            } => driver::memory_set_2d(destination, &pattern, width, height, pitch)?,
            GraphNode::Host { function, data } => {
                // SAFETY: the `CUhostFn` and argument of a host node or of a captured
                // `cuLaunchHostFunc`, valid while the graph may run (CUDA's contract).
                let function: unsafe extern "C" fn(*mut c_void) =
                    unsafe { std::mem::transmute::<usize, _>(function) };
                unsafe { function(std::ptr::with_exposed_provenance_mut(data)) };
            }
            GraphNode::Empty => {}
            GraphNode::MemAlloc { address, bytes } => driver::graph::allocate(address, bytes)?,
            GraphNode::MemFree { address } => driver::graph::free(address)?,
            GraphNode::Conditional {
                handle,
                kind,
                bodies,
            } => loop {
                let value = driver::graph::conditional_value(handle)?;
                let body = kind.body(value, bodies.len());
                let Some(&body) = body.and_then(|index| bodies.get(index)) else {
                    break;
                };
                run_graph_nodes(body, stream)?;
                if kind != driver::ConditionalKind::While {
                    break;
                }
            },
        }
    }
    Ok(())
}

calls! {
    /// `cuGraphCreate`: an empty graph (the flags are ignored).
    fn cuGraphCreate(graph: *mut Handle, flags: c_uint) {
        let _ = flags;
        if graph.is_null() {
            return Err(null_argument("phGraph"));
        }
        let value = driver::graph_create()?;
        unsafe { put(graph, handle(value), "phGraph") }
    }

    /// `cuGraphAddKernelNode`: a launch; its parameters are copied now.
    fn cuGraphAddKernelNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        params: *const KernelNodeParams,
    ) {
        unsafe { add_kernel_node(node, graph, depends_on, count, params) }
    }

    /// `cuGraphAddKernelNode_v2`: as `cuGraphAddKernelNode`; a `CUDA_KERNEL_NODE_PARAMS_v2`
    /// begins as the first version and adds a `CUkernel`, used where `func` is NULL (the CUDA
    /// runtime fills that one); the context field is not read.
    fn cuGraphAddKernelNode_v2(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        params: *const KernelNodeParamsV2,
    ) {
        let params = unsafe { first_version(params) }?;
        unsafe { add_kernel_node(node, graph, depends_on, count, &params) }
    }

    /// `cuGraphAddMemcpyNode`: a one-row copy between host and device memory.
    fn cuGraphAddMemcpyNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        copy: *const Memcpy3d,
        context: Handle,
    ) {
        let _ = context;
        if node.is_null() {
            return Err(null_argument("phGraphNode"));
        }
        let copy = unsafe { copy_node(copy) }?;
        let after = unsafe { dependencies(depends_on, count) }?;
        let value = driver::graph_add(number(graph), &after, copy)?;
        unsafe { put(node, handle(value), "phGraphNode") }
    }

    /// `cuGraphInstantiate_v2` (`phErrorNode`, `logBuffer` and `bufferSize` are not written).
    fn cuGraphInstantiate_v2(
        executable: *mut Handle,
        graph: Handle,
        error_node: *mut Handle,
        log: *mut c_char,
        log_size: usize,
    ) {
        let _ = (error_node, log, log_size);
        unsafe { instantiate(executable, graph, 0) }
    }

    /// `cuGraphInstantiate`, the symbol (the first version, as `cuGraphInstantiate_v2`).
    fn cuGraphInstantiate(
        executable: *mut Handle,
        graph: Handle,
        error_node: *mut Handle,
        log: *mut c_char,
        log_size: usize,
    ) {
        let _ = (error_node, log, log_size);
        unsafe { instantiate(executable, graph, 0) }
    }

    /// `cuGraphInstantiateWithFlags` (what `cuGraphInstantiate` means in `cuda.h` from CUDA
    /// 12): `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH` is kept, the other flags change
    /// nothing here.
    fn cuGraphInstantiateWithFlags(executable: *mut Handle, graph: Handle, flags: u64) {
        unsafe { instantiate(executable, graph, flags) }
    }

    /// `cuGraphExecKernelNodeSetParams`: the node's launch, its parameters copied now.
    fn cuGraphExecKernelNodeSetParams(
        executable: Handle,
        node: Handle,
        params: *const KernelNodeParams,
    ) {
        let kernel = unsafe { kernel_node(params) }?;
        driver::graph_exec_set(number(executable), number(node), kernel)
    }

    /// `cuGraphExecKernelNodeSetParams_v2`: as the first version (see
    /// `cuGraphAddKernelNode_v2` on the kernel field).
    fn cuGraphExecKernelNodeSetParams_v2(
        executable: Handle,
        node: Handle,
        params: *const KernelNodeParamsV2,
    ) {
        let params = unsafe { first_version(params) }?;
        let kernel = unsafe { kernel_node(&params) }?;
        driver::graph_exec_set(number(executable), number(node), kernel)
    }

    /// `cuGraphKernelNodeSetParams`: the graph's node launches as `params` says, its
    /// parameters copied now.
    fn cuGraphKernelNodeSetParams(node: Handle, params: *const KernelNodeParams) {
        let kernel = unsafe { kernel_node(params) }?;
        driver::graph_node_set(number(node), kernel)
    }

    /// `cuGraphKernelNodeSetParams_v2`: as the first version.
    fn cuGraphKernelNodeSetParams_v2(node: Handle, params: *const KernelNodeParamsV2) {
        let params = unsafe { first_version(params) }?;
        let kernel = unsafe { kernel_node(&params) }?;
        driver::graph_node_set(number(node), kernel)
    }

    /// `cuGraphNodeGetType` ([`driver::graph_node_type`]).
    fn cuGraphNodeGetType(node: Handle, kind: *mut c_int) {
        let value = driver::graph_node_type(number(node))?;
        unsafe { put(kind, value, "type") }
    }

    /// `cuGraphExecMemcpyNodeSetParams`: the node's copy.
    fn cuGraphExecMemcpyNodeSetParams(
        executable: Handle,
        node: Handle,
        copy: *const Memcpy3d,
        context: Handle,
    ) {
        let _ = context;
        let copy = unsafe { copy_node(copy) }?;
        driver::graph_exec_set(number(executable), number(node), copy)
    }

    /// `cuGraphLaunch`: runs the nodes, each after its dependencies; done when it returns.
    fn cuGraphLaunch(executable: Handle, stream: Handle) {
        launch_graph(number(executable), number(stream))
    }

    /// `cuGraphDestroy`.
    fn cuGraphDestroy(graph: Handle) {
        let destructors = driver::graph_destroy(number(graph), false)?;
        graph::run_destructors(&destructors);
        Ok(())
    }

    /// `cuGraphExecDestroy`.
    fn cuGraphExecDestroy(executable: Handle) {
        let destructors = driver::graph_destroy(number(executable), true)?;
        graph::run_destructors(&destructors);
        Ok(())
    }
}

/// `cuGraphAddKernelNode`.
///
/// # Safety
/// `node` is NULL (an error) or writable; as [`kernel_node`] and [`dependencies`].
unsafe fn add_kernel_node(
    node: *mut Handle,
    graph: Handle,
    depends_on: *const Handle,
    count: usize,
    params: *const KernelNodeParams,
) -> CallResult<()> {
    if node.is_null() {
        return Err(null_argument("phGraphNode"));
    }
    // SAFETY: the caller's contract.
    let kernel = unsafe { kernel_node(params) }?;
    // SAFETY: the caller's contract.
    let after = unsafe { dependencies(depends_on, count) }?;
    let value = driver::graph_add(number(graph), &after, kernel)?;
    // SAFETY: not NULL, writable by the caller's contract.
    unsafe { put(node, handle(value), "phGraphNode") }
}

/// `cuGraphInstantiate` with `CUgraphInstantiate_flags` `flags`.
///
/// # Safety
/// `executable` is NULL (an error) or writable.
unsafe fn instantiate(executable: *mut Handle, graph: Handle, flags: u64) -> CallResult<()> {
    if executable.is_null() {
        return Err(null_argument("phGraphExec"));
    }
    let value = driver::graph_instantiate(number(graph), flags)?;
    // SAFETY: not NULL, writable by the caller's contract.
    unsafe { put(executable, handle(value), "phGraphExec") }
}

/// Writes a static string for `cuGetErrorString` / `cuGetErrorName`.
fn error_text(value: Option<&'static CStr>, string: *mut *const c_char) -> CallResult<()> {
    let pointer = value.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: `string` is NULL (an error) or, by the caller's contract, a writable pointer.
    unsafe { put(string, pointer, "pStr") }?;
    match value {
        Some(_) => Ok(()),
        None => Err(Failure::new(CudaError::InvalidValue, "an unknown CUresult")),
    }
}

/// The bytes of a module image up to its NUL (PTX text), or its first bytes where it is a
/// cubin or fatbin (which hold NULs): enough for the driver to tell it apart.
///
/// # Safety
/// `image` is NULL (an error) or points to a NUL-terminated string, or to an ELF image or
/// fatbin wrapper (at least 4 readable bytes).
unsafe fn text_or_bytes<'a>(image: *const c_void) -> CallResult<&'a [u8]> {
    if image.is_null() {
        return Err(null_argument("image"));
    }
    // SAFETY: by the caller's contract at least 4 readable bytes.
    let magic = unsafe { image.cast::<u32>().read_unaligned() };
    match magic {
        // SAFETY: a fatbin (its header gives its size) or a fatbin wrapper.
        export_table::FATBIN_MAGIC => unsafe { export_table::fatbin_image(image, true) },
        export_table::WRAPPER_MAGIC => unsafe { export_table::fatbin_image(image, false) },
        // SAFETY: not NULL; by the caller's contract NUL-terminated (PTX) or an image of at
        // least 4 bytes, of which only bytes up to the first NUL are read.
        _ => Ok(unsafe { CStr::from_ptr(image.cast::<c_char>()) }.to_bytes()),
    }
}

/// The kernel parameter space (`size` bytes) of a launch, from `kernel_params` (parameter
/// `i` of `layout[i].1` bytes at offset `layout[i].0`) or from `extra`.
///
/// # Safety
/// As `cuLaunchKernel`: `kernel_params` is NULL or has one readable pointer per parameter,
/// each to a value of the parameter's size; `extra` is NULL or a `CU_LAUNCH_PARAM_END`-ended
/// list whose buffer pointer has the bytes its size says, the size pointing to a `size_t`.
unsafe fn parameter_space(
    layout: &[(usize, usize)],
    size: usize,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CallResult<Vec<u8>> {
    let mut params = vec![0u8; size];
    if !kernel_params.is_null() {
        if !extra.is_null() {
            return Err(Failure::new(
                CudaError::InvalidValue,
                "both kernelParams and extra are given",
            ));
        }
        for (index, &(offset, bytes)) in layout.iter().enumerate() {
            // SAFETY: by the contract, `kernel_params` has a pointer per parameter.
            let value = unsafe { kernel_params.add(index).read() };
            let what = format!("kernelParams[{index}]");
            // SAFETY: by the contract, `value` points to `bytes` readable bytes.
            let value = unsafe { host_bytes(value, bytes, &what) }?;
            if let Some(slot) = params.get_mut(offset..offset + bytes) {
                slot.copy_from_slice(value);
            }
        }
        return Ok(params);
    }
    if extra.is_null() {
        if size == 0 {
            return Ok(params);
        }
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "the kernel has {size} bytes of parameters but kernelParams and extra are NULL"
            ),
        ));
    }
    let (mut buffer, mut buffer_size) = (None, None);
    let mut index = 0;
    loop {
        // SAFETY: by the contract, the list goes on to CU_LAUNCH_PARAM_END; every key but that
        // one is followed by its value.
        let key = unsafe { extra.add(index).read() } as usize;
        match key {
            LAUNCH_PARAM_END => break,
            LAUNCH_PARAM_BUFFER_POINTER => {
                // SAFETY: as above.
                buffer = Some(unsafe { extra.add(index + 1).read() });
            }
            LAUNCH_PARAM_BUFFER_SIZE => {
                // SAFETY: as above; the value points to a readable size_t.
                let pointer = unsafe { extra.add(index + 1).read() }.cast::<usize>();
                if pointer.is_null() {
                    return Err(null_argument("CU_LAUNCH_PARAM_BUFFER_SIZE's value"));
                }
                // SAFETY: not NULL, and by the contract a readable size_t.
                buffer_size = Some(unsafe { pointer.read_unaligned() });
            }
            other => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("unknown key {other:#x} in extra"),
                ));
            }
        }
        index += 2;
    }
    let (Some(buffer), Some(buffer_size)) = (buffer, buffer_size) else {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE",
        ));
    };
    if buffer_size < size {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("the parameter buffer has {buffer_size} bytes, the kernel's parameters {size}"),
        ));
    }
    // SAFETY: by the contract, the buffer has `buffer_size` >= `size` readable bytes.
    let bytes = unsafe { host_bytes(buffer, size, "CU_LAUNCH_PARAM_BUFFER_POINTER") }?;
    params.copy_from_slice(bytes);
    Ok(params)
}

/// Fills the log buffers of `cuModuleLoadDataEx`'s JIT options: the error log with `log`
/// (cut to the buffer's size, NUL-terminated), the info log with an empty string.
///
/// # Safety
/// `options` and `values` are NULL or have `count` entries; a log buffer option's value points
/// to as many writable bytes as the matching size option says.
unsafe fn write_logs(
    count: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
    log: &str,
) -> CallResult<()> {
    if count == 0 || options.is_null() || values.is_null() {
        return Ok(());
    }
    let count = count as usize;
    // SAFETY: by the contract, `count` readable options and values.
    let (options, values) = unsafe {
        (
            std::slice::from_raw_parts(options, count),
            std::slice::from_raw_parts(values, count),
        )
    };
    let find = |option: c_int| options.iter().position(|&o| o == option).map(|i| values[i]);
    for (buffer, size, text) in [
        (JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES, log),
        (JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE_BYTES, ""),
    ] {
        let (Some(buffer), Some(size)) = (find(buffer), find(size)) else {
            continue;
        };
        // The size option's value is the number itself, in the pointer's place.
        let size = (size as usize) & 0xffff_ffff;
        if buffer.is_null() || size == 0 {
            continue;
        }
        // SAFETY: by the contract, the buffer has `size` writable bytes.
        let out = unsafe { host_bytes_mut(buffer, size, "log buffer") }?;
        let take = text.len().min(size - 1);
        out[..take].copy_from_slice(&text.as_bytes()[..take]);
        out[take] = 0;
    }
    Ok(())
}

/// Writes a pointer attribute's value to `data`.
///
/// # Safety
/// `data` is NULL (an error) or writable for the value's type.
unsafe fn put_pointer_value(data: *mut c_void, value: PointerValue) -> CallResult<()> {
    match value {
        PointerValue::Context(value) => unsafe { put(data.cast(), handle(value), "data") },
        PointerValue::U32(value) => unsafe { put(data.cast(), value, "data") },
        PointerValue::I32(value) => unsafe { put(data.cast(), value, "data") },
        PointerValue::U64(value) => unsafe { put(data.cast(), value, "data") },
        PointerValue::Bool(value) => unsafe { put(data.cast(), value, "data") },
    }
}

/// A one-row memset node of `count` elements.
fn memset_node(destination: CUdeviceptr, pattern: Vec<u8>, count: usize) -> GraphNode {
    let width = count as u64;
    let pitch = width * pattern.len() as u64;
    GraphNode::Memset {
        destination,
        pattern,
        width,
        height: 1,
        pitch,
    }
}

/// `cuMemsetD2D8` / `16` / `32` and their `Async` forms (`stream` given): `height` rows of
/// `width` elements of `pattern`, each row `pitch` bytes after the one before. The rows must
/// not overlap (`pitch` at least a row's bytes, where there are several rows); a capturing
/// stream gets a memset node instead.
fn memset_2d(
    destination: CUdeviceptr,
    pitch: usize,
    pattern: Vec<u8>,
    width: usize,
    height: usize,
    stream: Option<u64>,
) -> CallResult<()> {
    let row = width.checked_mul(pattern.len());
    if height > 1 && row.is_none_or(|row| pitch < row) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "a pitch of {pitch} bytes for rows of {width} {}-byte elements",
                pattern.len()
            ),
        ));
    }
    let node = || GraphNode::Memset {
        destination,
        pattern: pattern.clone(),
        width: width as u64,
        height: height as u64,
        pitch: pitch as u64,
    };
    if let Some(stream) = stream {
        if driver::capture(stream, node)? {
            return Ok(());
        }
        driver::stream_synchronize(stream)?;
    }
    driver::memory_set_2d(
        destination,
        &pattern,
        width as u64,
        height as u64,
        pitch as u64,
    )
}

/// Runs a launch, or adds it to the graph its stream is capturing.
fn enqueue(launch: &Launch<'_>) -> CallResult<()> {
    driver::check_configuration(launch)?;
    if driver::capture(launch.stream, || launch.node())? {
        return Ok(());
    }
    if driver::defers(launch.stream) && !launch.cooperative && launch.cluster.is_none() {
        return driver::defer(launch);
    }
    // A launch that runs now runs after the launches kept on created streams: on the legacy
    // default stream it must ("the legacy default stream ... waits for all work in blocking
    // streams", CUDA Runtime API, "Stream synchronization behavior"), and elsewhere running
    // them first is one of the orders a GPU may take.
    driver::run_deferred()?;
    driver::launch(launch)
}
