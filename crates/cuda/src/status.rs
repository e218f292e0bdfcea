//! `CUresult`: the status codes the library returns, with the values, names and descriptions
//! of NVIDIA's `cuda.h` (`enum cudaError_enum`), written out for the codes this library uses.

use std::ffi::CStr;

/// A `CUresult` other than `CUDA_SUCCESS` (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CudaError {
    /// `CUDA_ERROR_INVALID_VALUE`: a NULL pointer, an unknown attribute, a bad size.
    InvalidValue,
    /// `CUDA_ERROR_OUT_OF_MEMORY`: more device memory than the device has.
    OutOfMemory,
    /// `CUDA_ERROR_NOT_INITIALIZED`: a call before `cuInit`.
    NotInitialized,
    /// `CUDA_ERROR_INVALID_DEVICE`: a device ordinal past the simulated devices.
    InvalidDevice,
    /// `CUDA_ERROR_INVALID_IMAGE`: a module image that is not PTX text (a cubin, a fatbin).
    InvalidImage,
    /// `CUDA_ERROR_INVALID_CONTEXT`: no current context, or a destroyed one.
    InvalidContext,
    /// `CUDA_ERROR_INVALID_PTX`: the module does not check for the simulated architecture.
    InvalidPtx,
    /// `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED`: peer access between a device and itself.
    PeerAccessUnsupported,
    /// `CUDA_ERROR_FILE_NOT_FOUND`: `cuModuleLoad` of a file that cannot be read.
    FileNotFound,
    /// `CUDA_ERROR_INVALID_HANDLE`: a handle this library did not hand out (or freed).
    InvalidHandle,
    /// `CUDA_ERROR_NOT_FOUND`: no kernel or global variable of that name.
    NotFound,
    /// `CUDA_ERROR_ILLEGAL_ADDRESS`: a kernel accessed memory outside every allocation
    /// (sticky).
    IllegalAddress,
    /// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`: more threads per block than the kernel allows
    /// (its `.maxntid`, CUDA C++'s `__launch_bounds__`).
    LaunchOutOfResources,
    /// 9, a value `cuda.h` does not name: an impossible launch shape (a block of more than 1024
    /// threads, a grid past its limits, a zero dimension) launched by the CUDA runtime, which
    /// passes a driver result on as the `cudaError_t` of the same value, here
    /// `cudaErrorInvalidConfiguration` (9), what a GPU gives such launches (see
    /// `driver::configuration_error`).
    InvalidConfiguration,
    /// `CUDA_ERROR_LAUNCH_TIMEOUT`: a thread ran past the step limit (sticky).
    LaunchTimeout,
    /// `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED`: `cuCtxEnablePeerAccess` again.
    PeerAccessAlreadyEnabled,
    /// `CUDA_ERROR_PEER_ACCESS_NOT_ENABLED`: `cuCtxDisablePeerAccess` of a peer not enabled.
    PeerAccessNotEnabled,
    /// `CUDA_ERROR_MISALIGNED_ADDRESS`: a kernel's access was not naturally aligned (sticky).
    MisalignedAddress,
    /// `CUDA_ERROR_LAUNCH_FAILED`: `trap`, or a barrier that can never complete (sticky).
    LaunchFailed,
    /// `CUDA_ERROR_NO_BINARY_FOR_GPU`: a fatbin without PTX for the simulated device (SASS only, or only PTX of a newer architecture).
    NoBinaryForGpu,
    /// `CUDA_ERROR_NOT_READY`: work not finished (`cuStreamQuery`, `cuEventQuery`); never returned, as every call finishes its work.
    NotReady,
    /// `CUDA_ERROR_ASSERT`: a kernel's `assert` failed (`__assertfail`; sticky).
    Assert,
    /// `CUDA_ERROR_NOT_PERMITTED`: an operation not allowed here (a call during stream capture that capture forbids).
    NotPermitted,
    /// `CUDA_ERROR_ILLEGAL_STATE`: an operation in the wrong state (ending a capture that did not begin).
    IllegalState,
    /// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`: capture on the legacy default stream.
    StreamCaptureUnsupported,
    /// `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`: `cuGraphExecUpdate` of a graph of another shape.
    GraphExecUpdateFailure,
    /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`: a cooperative grid with more CTAs than can be resident at once.
    CooperativeLaunchTooLarge,
    /// `CUDA_ERROR_NOT_SUPPORTED`: a call (or an instruction) this library does not implement.
    NotSupported,
    /// `CUDA_ERROR_UNKNOWN`: an internal error of the simulator (a caught panic).
    Unknown,
}

/// Every error, for lookups by code.
const ALL: [CudaError; 29] = [
    CudaError::InvalidValue,
    CudaError::InvalidConfiguration,
    CudaError::OutOfMemory,
    CudaError::NotInitialized,
    CudaError::InvalidDevice,
    CudaError::InvalidImage,
    CudaError::InvalidContext,
    CudaError::InvalidPtx,
    CudaError::PeerAccessUnsupported,
    CudaError::FileNotFound,
    CudaError::InvalidHandle,
    CudaError::NotFound,
    CudaError::IllegalAddress,
    CudaError::LaunchOutOfResources,
    CudaError::LaunchTimeout,
    CudaError::PeerAccessAlreadyEnabled,
    CudaError::PeerAccessNotEnabled,
    CudaError::MisalignedAddress,
    CudaError::LaunchFailed,
    CudaError::NoBinaryForGpu,
    CudaError::NotReady,
    CudaError::Assert,
    CudaError::NotPermitted,
    CudaError::IllegalState,
    CudaError::StreamCaptureUnsupported,
    CudaError::GraphExecUpdateFailure,
    CudaError::CooperativeLaunchTooLarge,
    CudaError::NotSupported,
    CudaError::Unknown,
];

impl CudaError {
    /// The `CUresult` value.
    pub const fn code(self) -> i32 {
        match self {
            CudaError::InvalidValue => 1,
            CudaError::OutOfMemory => 2,
            CudaError::NotInitialized => 3,
            CudaError::InvalidDevice => 101,
            CudaError::InvalidImage => 200,
            CudaError::InvalidContext => 201,
            CudaError::InvalidPtx => 218,
            CudaError::PeerAccessUnsupported => 217,
            CudaError::FileNotFound => 301,
            CudaError::InvalidHandle => 400,
            CudaError::NotFound => 500,
            CudaError::IllegalAddress => 700,
            CudaError::LaunchOutOfResources => 701,
            CudaError::InvalidConfiguration => 9,
            CudaError::LaunchTimeout => 702,
            CudaError::PeerAccessAlreadyEnabled => 704,
            CudaError::PeerAccessNotEnabled => 705,
            CudaError::MisalignedAddress => 716,
            CudaError::LaunchFailed => 719,
            CudaError::NoBinaryForGpu => 209,
            CudaError::NotReady => 600,
            CudaError::Assert => 710,
            CudaError::NotPermitted => 800,
            CudaError::IllegalState => 401,
            CudaError::StreamCaptureUnsupported => 900,
            CudaError::GraphExecUpdateFailure => 910,
            CudaError::CooperativeLaunchTooLarge => 720,
            CudaError::NotSupported => 801,
            CudaError::Unknown => 999,
        }
    }

    /// The error of a `CUresult` value this library returns.
    pub fn from_code(code: i32) -> Option<CudaError> {
        ALL.into_iter().find(|error| error.code() == code)
    }

    /// The enumerator's name, as `cuGetErrorName` gives it.
    pub const fn name(self) -> &'static CStr {
        match self {
            CudaError::InvalidValue => c"CUDA_ERROR_INVALID_VALUE",
            CudaError::OutOfMemory => c"CUDA_ERROR_OUT_OF_MEMORY",
            CudaError::NotInitialized => c"CUDA_ERROR_NOT_INITIALIZED",
            CudaError::InvalidDevice => c"CUDA_ERROR_INVALID_DEVICE",
            CudaError::InvalidImage => c"CUDA_ERROR_INVALID_IMAGE",
            CudaError::InvalidContext => c"CUDA_ERROR_INVALID_CONTEXT",
            CudaError::InvalidPtx => c"CUDA_ERROR_INVALID_PTX",
            CudaError::PeerAccessUnsupported => c"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
            CudaError::FileNotFound => c"CUDA_ERROR_FILE_NOT_FOUND",
            CudaError::InvalidHandle => c"CUDA_ERROR_INVALID_HANDLE",
            CudaError::NotFound => c"CUDA_ERROR_NOT_FOUND",
            CudaError::IllegalAddress => c"CUDA_ERROR_ILLEGAL_ADDRESS",
            CudaError::LaunchOutOfResources => c"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
            // The runtime's name (`cudaErrorInvalidConfiguration`) in the driver's style.
            CudaError::InvalidConfiguration => c"CUDA_ERROR_INVALID_CONFIGURATION",
            CudaError::LaunchTimeout => c"CUDA_ERROR_LAUNCH_TIMEOUT",
            CudaError::PeerAccessAlreadyEnabled => c"CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
            CudaError::PeerAccessNotEnabled => c"CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
            CudaError::MisalignedAddress => c"CUDA_ERROR_MISALIGNED_ADDRESS",
            CudaError::LaunchFailed => c"CUDA_ERROR_LAUNCH_FAILED",
            CudaError::NoBinaryForGpu => c"CUDA_ERROR_NO_BINARY_FOR_GPU",
            CudaError::NotReady => c"CUDA_ERROR_NOT_READY",
            CudaError::Assert => c"CUDA_ERROR_ASSERT",
            CudaError::NotPermitted => c"CUDA_ERROR_NOT_PERMITTED",
            CudaError::IllegalState => c"CUDA_ERROR_ILLEGAL_STATE",
            CudaError::StreamCaptureUnsupported => c"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
            CudaError::GraphExecUpdateFailure => c"CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
            CudaError::CooperativeLaunchTooLarge => c"CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
            CudaError::NotSupported => c"CUDA_ERROR_NOT_SUPPORTED",
            CudaError::Unknown => c"CUDA_ERROR_UNKNOWN",
        }
    }

    /// A description, as `cuGetErrorString` gives it.
    pub const fn description(self) -> &'static CStr {
        match self {
            CudaError::InvalidValue => c"invalid argument",
            CudaError::OutOfMemory => c"out of memory",
            CudaError::NotInitialized => c"initialization error",
            CudaError::InvalidDevice => c"invalid device ordinal",
            CudaError::InvalidImage => c"device kernel image is invalid",
            CudaError::InvalidContext => c"invalid device context",
            CudaError::InvalidPtx => c"a PTX JIT compilation failed",
            CudaError::PeerAccessUnsupported => {
                c"peer access is not supported between these two devices"
            }
            CudaError::FileNotFound => c"file not found",
            CudaError::InvalidHandle => c"invalid resource handle",
            CudaError::NotFound => c"named symbol not found",
            CudaError::IllegalAddress => c"an illegal memory access was encountered",
            CudaError::LaunchOutOfResources => c"too many resources requested for launch",
            CudaError::InvalidConfiguration => c"invalid configuration argument",
            CudaError::LaunchTimeout => c"the launch timed out and was terminated",
            CudaError::PeerAccessAlreadyEnabled => c"peer access is already enabled",
            CudaError::PeerAccessNotEnabled => c"peer access has not been enabled",
            CudaError::MisalignedAddress => c"misaligned address",
            CudaError::LaunchFailed => c"unspecified launch failure",
            CudaError::NoBinaryForGpu => {
                c"no kernel image is available for execution on the device"
            }
            CudaError::NotReady => c"device not ready",
            CudaError::Assert => c"device-side assert triggered",
            CudaError::NotPermitted => c"operation not permitted",
            CudaError::IllegalState => c"the operation cannot be performed in the present state",
            CudaError::StreamCaptureUnsupported => c"operation not permitted when stream is capturing",
            CudaError::GraphExecUpdateFailure => c"the graph update was not performed because it included changes which violated constraints specific to instantiated graph update",
            CudaError::CooperativeLaunchTooLarge => c"too many blocks in cooperative launch",
            CudaError::NotSupported => c"operation not supported",
            CudaError::Unknown => c"unknown error",
        }
    }

    /// Whether the error corrupts the context, as a fault of a kernel does in CUDA: every
    /// later call in that context returns it again, until the context is destroyed.
    pub const fn is_sticky(self) -> bool {
        matches!(
            self,
            CudaError::IllegalAddress
                | CudaError::LaunchTimeout
                | CudaError::MisalignedAddress
                | CudaError::LaunchFailed
                | CudaError::Assert
        )
    }
}

/// A failed call: the error code and, where there is more to say, a message for stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The code returned.
    pub error: CudaError,
    /// What went wrong, printed on stderr as `ptxsim: CALL: MESSAGE`.
    pub message: Option<String>,
    /// An answer the caller expects and handles, not printed (`cuGetProcAddress` of a name
    /// this library does not have): only `PTXSIM_LOG=calls` shows it.
    pub quiet: bool,
}

impl Failure {
    /// A failure with a message.
    pub fn new(error: CudaError, message: impl Into<String>) -> Self {
        Self {
            error,
            message: Some(message.into()),
            quiet: false,
        }
    }

    /// A failure that is not printed on stderr (see [`Failure::quiet`]).
    pub fn quiet(error: CudaError) -> Self {
        Self {
            error,
            message: None,
            quiet: true,
        }
    }
}

impl From<CudaError> for Failure {
    fn from(error: CudaError) -> Self {
        Self {
            error,
            message: None,
            quiet: false,
        }
    }
}

/// A call's result.
pub type CallResult<T> = Result<T, Failure>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_distinct() {
        for error in ALL {
            assert_eq!(CudaError::from_code(error.code()), Some(error));
            assert!(error.name().to_bytes().starts_with(b"CUDA_ERROR_"));
        }
        assert_eq!(CudaError::from_code(0), None);
        assert_eq!(CudaError::InvalidPtx.code(), 218);
        assert_eq!(CudaError::IllegalAddress.code(), 700);
        assert_eq!(CudaError::NotFound.code(), 500);
        assert_eq!(CudaError::NotSupported.code(), 801);
    }
}
