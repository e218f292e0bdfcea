//! CUDA Dynamic Parallelism as nvcc's PTX reaches it: the functions of the device runtime
//! (`libcudadevrt`, machine code only) that a kernel compiled with `-rdc=true` calls as
//! `.extern .func`s without a body, and the addresses `mov.u64 %rd, kernel;` gives a kernel
//! (docs/executor.md, "Dynamic parallelism").
//!
//! With CUDA 12 and later (CDP2, `__CUDA_INTERNAL_USE_CDP2` in `cuda_device_runtime_api.h`),
//! the runtime API a kernel calls (`cudaMalloc`, `cudaStreamCreateWithFlags`,
//! `cudaGetLastError`, ...) is made of inline wrappers of `__cudaCDP2*` functions, and a launch
//! `k<<<grid, block, shared, stream>>>(args)` becomes `cudaGetParameterBufferV2(k, grid, block,
//! shared)`, stores of the arguments into the buffer at their offsets in `k`'s parameter space,
//! and `cudaLaunchDeviceV2(buffer, stream)` (CUDA Programming Guide, "Device-side Launch from
//! PTX"; the header's declarations).

/// A function of CUDA's device runtime (CDP2) that the executor runs as a built-in; each has
/// the signature nvcc 13 declares for it (`.param` sizes in bytes, see
/// [`DeviceRuntimeFunction::signature`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceRuntimeFunction {
    /// `__cudaCDP2GetParameterBuffer(size_t alignment, size_t size) -> void *`
    /// (`cudaGetParameterBuffer`): a parameter buffer for [`Self::LaunchDevice`].
    GetParameterBuffer,
    /// `__cudaCDP2GetParameterBufferV2(void *func, dim3 grid, dim3 block, unsigned shared) ->
    /// void *`: a parameter buffer of `func`'s parameter size, remembering the launch's shape
    /// for [`Self::LaunchDeviceV2`].
    GetParameterBufferV2,
    /// `__cudaCDP2LaunchDevice[_ptsz](void *func, void *buffer, dim3 grid, dim3 block,
    /// unsigned shared, cudaStream_t stream) -> cudaError_t`.
    LaunchDevice,
    /// `__cudaCDP2LaunchDeviceV2[_ptsz](void *buffer, cudaStream_t stream) -> cudaError_t`:
    /// what `<<<...>>>` in a kernel becomes.
    LaunchDeviceV2,
    /// `__cudaCDP2Malloc(void **pointer, size_t size) -> cudaError_t` (`cudaMalloc` in a
    /// kernel: the device heap, as `malloc`).
    Malloc,
    /// `__cudaCDP2Free(void *pointer) -> cudaError_t`.
    Free,
    /// `__cudaCDP2StreamCreateWithFlags(cudaStream_t *stream, unsigned flags)`.
    StreamCreateWithFlags,
    /// `__cudaCDP2StreamDestroy(cudaStream_t stream)`.
    StreamDestroy,
    /// `__cudaCDP2StreamWaitEvent[_ptsz](cudaStream_t, cudaEvent_t, unsigned flags)`.
    StreamWaitEvent,
    /// `__cudaCDP2EventCreateWithFlags(cudaEvent_t *event, unsigned flags)`.
    EventCreateWithFlags,
    /// `__cudaCDP2EventRecord[_ptsz](cudaEvent_t, cudaStream_t)`.
    EventRecord,
    /// `__cudaCDP2EventRecordWithFlags[_ptsz](cudaEvent_t, cudaStream_t, unsigned flags)`.
    EventRecordWithFlags,
    /// `__cudaCDP2EventDestroy(cudaEvent_t)`.
    EventDestroy,
    /// `__cudaCDP2GetLastError() -> cudaError_t`: the thread's last error, reset.
    GetLastError,
    /// `__cudaCDP2PeekAtLastError() -> cudaError_t`: the thread's last error.
    PeekAtLastError,
    /// `__cudaCDP2GetErrorString(cudaError_t) -> const char *`.
    GetErrorString,
    /// `__cudaCDP2GetErrorName(cudaError_t) -> const char *`.
    GetErrorName,
    /// `__cudaCDP2GetDevice(int *device)`.
    GetDevice,
    /// `__cudaCDP2GetDeviceCount(int *count)`.
    GetDeviceCount,
    /// `__cudaCDP2RuntimeGetVersion(int *version)`.
    RuntimeGetVersion,
    /// `__cudaCDP2DeviceGetLimit(size_t *value, enum cudaLimit limit)`.
    DeviceGetLimit,
    /// `__cudaCDP2MemcpyAsync[_ptsz](void *dst, const void *src, size_t count, enum
    /// cudaMemcpyKind kind, cudaStream_t stream)`.
    MemcpyAsync,
    /// `__cudaCDP2MemsetAsync[_ptsz](void *pointer, int value, size_t count, cudaStream_t
    /// stream)`.
    MemsetAsync,
}

impl DeviceRuntimeFunction {
    /// The function called `name` (with or without `_ptsz`, the per-thread default stream
    /// form, which is the same call here), if it is one.
    ///
    /// The launch functions are also taken by the names PTX ISA 9 and `libcudadevrt` give them
    /// without the `__cudaCDP2` prefix (`cudaGetParameterBuffer{,V2}`, `cudaLaunchDevice{,V2}`,
    /// what libNVVM's PTX calls): NVIDIA's `cuda_device_runtime_api.h` defines each of them as
    /// the `__cudaCDP2` function of the same parameters ("return
    /// __cudaCDP2GetParameterBufferV2(func, gridDimension, blockDimension, sharedMemSize);").
    pub fn from_name(name: &str) -> Option<Self> {
        let base = name.strip_suffix("_ptsz").unwrap_or(name);
        let unprefixed = match base {
            "cudaGetParameterBuffer" => Some(Self::GetParameterBuffer),
            "cudaGetParameterBufferV2" => Some(Self::GetParameterBufferV2),
            "cudaLaunchDevice" => Some(Self::LaunchDevice),
            "cudaLaunchDeviceV2" => Some(Self::LaunchDeviceV2),
            _ => None,
        };
        if unprefixed.is_some() {
            return unprefixed;
        }
        Some(match base.strip_prefix("__cudaCDP2")? {
            "GetParameterBuffer" => Self::GetParameterBuffer,
            "GetParameterBufferV2" => Self::GetParameterBufferV2,
            "LaunchDevice" => Self::LaunchDevice,
            "LaunchDeviceV2" => Self::LaunchDeviceV2,
            "Malloc" => Self::Malloc,
            "Free" => Self::Free,
            "StreamCreateWithFlags" => Self::StreamCreateWithFlags,
            "StreamDestroy" => Self::StreamDestroy,
            "StreamWaitEvent" => Self::StreamWaitEvent,
            "EventCreateWithFlags" => Self::EventCreateWithFlags,
            "EventRecord" => Self::EventRecord,
            "EventRecordWithFlags" => Self::EventRecordWithFlags,
            "EventDestroy" => Self::EventDestroy,
            "GetLastError" => Self::GetLastError,
            "PeekAtLastError" => Self::PeekAtLastError,
            "GetErrorString" => Self::GetErrorString,
            "GetErrorName" => Self::GetErrorName,
            "GetDevice" => Self::GetDevice,
            "GetDeviceCount" => Self::GetDeviceCount,
            "RuntimeGetVersion" => Self::RuntimeGetVersion,
            "DeviceGetLimit" => Self::DeviceGetLimit,
            "MemcpyAsync" => Self::MemcpyAsync,
            "MemsetAsync" => Self::MemsetAsync,
            _ => return None,
        })
        .filter(|function| base == name || function.has_ptsz())
    }

    /// Whether the header declares a `_ptsz` form of it.
    fn has_ptsz(self) -> bool {
        matches!(
            self,
            Self::LaunchDevice
                | Self::LaunchDeviceV2
                | Self::StreamWaitEvent
                | Self::EventRecord
                | Self::EventRecordWithFlags
                | Self::MemcpyAsync
                | Self::MemsetAsync
        )
    }

    /// Its name (without `_ptsz`).
    pub fn name(self) -> &'static str {
        match self {
            Self::GetParameterBuffer => "__cudaCDP2GetParameterBuffer",
            Self::GetParameterBufferV2 => "__cudaCDP2GetParameterBufferV2",
            Self::LaunchDevice => "__cudaCDP2LaunchDevice",
            Self::LaunchDeviceV2 => "__cudaCDP2LaunchDeviceV2",
            Self::Malloc => "__cudaCDP2Malloc",
            Self::Free => "__cudaCDP2Free",
            Self::StreamCreateWithFlags => "__cudaCDP2StreamCreateWithFlags",
            Self::StreamDestroy => "__cudaCDP2StreamDestroy",
            Self::StreamWaitEvent => "__cudaCDP2StreamWaitEvent",
            Self::EventCreateWithFlags => "__cudaCDP2EventCreateWithFlags",
            Self::EventRecord => "__cudaCDP2EventRecord",
            Self::EventRecordWithFlags => "__cudaCDP2EventRecordWithFlags",
            Self::EventDestroy => "__cudaCDP2EventDestroy",
            Self::GetLastError => "__cudaCDP2GetLastError",
            Self::PeekAtLastError => "__cudaCDP2PeekAtLastError",
            Self::GetErrorString => "__cudaCDP2GetErrorString",
            Self::GetErrorName => "__cudaCDP2GetErrorName",
            Self::GetDevice => "__cudaCDP2GetDevice",
            Self::GetDeviceCount => "__cudaCDP2GetDeviceCount",
            Self::RuntimeGetVersion => "__cudaCDP2RuntimeGetVersion",
            Self::DeviceGetLimit => "__cudaCDP2DeviceGetLimit",
            Self::MemcpyAsync => "__cudaCDP2MemcpyAsync",
            Self::MemsetAsync => "__cudaCDP2MemsetAsync",
        }
    }

    /// The sizes in bytes of its `.param` parameters and of its return value, as nvcc 13.5
    /// declares them (`cudaError_t`, `int`, `unsigned` and the enums are `.b32`, pointers and
    /// `size_t` `.b64`, `dim3` a `.b8[12]` array).
    pub fn signature(self) -> (&'static [u64], Option<u64>) {
        match self {
            Self::GetParameterBuffer => (&[8, 8], Some(8)),
            Self::GetParameterBufferV2 => (&[8, 12, 12, 4], Some(8)),
            Self::LaunchDevice => (&[8, 8, 12, 12, 4, 8], Some(4)),
            Self::LaunchDeviceV2 | Self::EventRecord => (&[8, 8], Some(4)),
            Self::Malloc => (&[8, 8], Some(4)),
            Self::Free
            | Self::StreamDestroy
            | Self::EventDestroy
            | Self::GetDevice
            | Self::GetDeviceCount
            | Self::RuntimeGetVersion => (&[8], Some(4)),
            Self::StreamCreateWithFlags | Self::EventCreateWithFlags | Self::DeviceGetLimit => {
                (&[8, 4], Some(4))
            }
            Self::StreamWaitEvent | Self::EventRecordWithFlags => (&[8, 8, 4], Some(4)),
            Self::GetLastError | Self::PeekAtLastError => (&[], Some(4)),
            Self::GetErrorString | Self::GetErrorName => (&[4], Some(8)),
            Self::MemcpyAsync => (&[8, 8, 8, 4, 8], Some(4)),
            Self::MemsetAsync => (&[8, 4, 8, 8], Some(4)),
        }
    }
}

/// Where the addresses of kernels start (`mov.u64 %rd, kernel;`): kernel `i` of the module (in
/// source order, [`super::entries`]) is at `KERNEL_ADDRESS_BASE + i * KERNEL_ADDRESS_STRIDE`.
/// Nothing is mapped there, so a load from a kernel's address faults.
pub const KERNEL_ADDRESS_BASE: u64 = 0x0000_7b00_0000_0000;

/// The distance between two kernels' addresses.
pub const KERNEL_ADDRESS_STRIDE: u64 = 0x100;

/// The address of the module's kernel number `index` (source order).
pub fn kernel_address(index: usize) -> u64 {
    KERNEL_ADDRESS_BASE + index as u64 * KERNEL_ADDRESS_STRIDE
}

/// The index of the kernel at `address`, if it is a kernel's address.
pub fn kernel_index(address: u64) -> Option<usize> {
    let offset = address.checked_sub(KERNEL_ADDRESS_BASE)?;
    if offset % KERNEL_ADDRESS_STRIDE != 0 || offset >= 1 << 32 {
        return None;
    }
    usize::try_from(offset / KERNEL_ADDRESS_STRIDE).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_and_without_ptsz() {
        assert_eq!(
            DeviceRuntimeFunction::from_name("__cudaCDP2LaunchDeviceV2_ptsz"),
            Some(DeviceRuntimeFunction::LaunchDeviceV2)
        );
        assert_eq!(
            DeviceRuntimeFunction::from_name("__cudaCDP2Malloc_ptsz"),
            None
        );
        assert_eq!(DeviceRuntimeFunction::from_name("cudaMalloc"), None);
        assert_eq!(kernel_index(kernel_address(3)), Some(3));
        assert_eq!(kernel_index(kernel_address(3) + 8), None);
        assert_eq!(kernel_index(0), None);
    }
}
