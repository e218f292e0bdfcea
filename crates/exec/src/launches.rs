//! CUDA Dynamic Parallelism (CDP2, CUDA 12 and later): kernels that launch kernels
//! (docs/executor.md, "Dynamic parallelism").
//!
//! A thread's launch (`cudaGetParameterBufferV2` + `cudaLaunchDeviceV2`, what `<<<...>>>` in a
//! kernel becomes), `cudaMemcpyAsync` and `cudaMemsetAsync` are *recorded* while its grid runs
//! ([`DeviceRuntime`], run by `exec/runtime.rs`); when the grid has finished, `nested::run_nested`
//! runs the recorded work in the order the threads issued it (the grid's CTAs run one at a time,
//! so that order is the same on every run), each child grid followed by its own children, depth
//! first, with launches into `cudaStreamTailLaunch` after all the grid's other work. That is one
//! of the orders the CUDA Programming Guide allows: work of one stream runs in order, work of
//! different streams may run in any order, a child grid may start at any time after its launch
//! (here: once its parent grid has finished), a parent grid is complete only when its children
//! are, and a tail launch runs after the grid and its other work have completed ("CUDA Dynamic
//! Parallelism", "Execution Environment", "Streams", "Tail Launch").

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::dim::Dim3;
use crate::ir::{Location, Program};
use crate::memory::{GlobalMemory, Words};

/// The deepest a grid may be nested: the host's launch is depth 0, its children depth 1, ...
/// ("the maximum launch depth of 24", `cudaDeviceSetLimit` in `cuda_runtime_api.h`). A launch
/// that would make a grid of depth 25 stops the launching thread with an error at the launch
/// (a GPU returns `cudaErrorLaunchMaxDepthExceeded`; a program nesting that deep is a runaway
/// recursion as a rule).
pub const MAX_NESTING_DEPTH: u32 = 24;

/// The most grids that kernels may launch during one host launch (all depths together); the
/// launch past it stops its thread with an error, so that a runaway tree of launches ends.
pub const MAX_DEVICE_GRIDS: u64 = 1 << 17;

/// Where the device runtime's memory starts: its strings ([`error_string`]), then the
/// parameter buffers of launches. Below the grid workspace, above the kernels' addresses
/// ([`ptxsim_check::program::cdp::KERNEL_ADDRESS_BASE`]).
pub const RUNTIME_BASE: u64 = 0x0000_7c00_0000_0000;

/// The bytes of the device runtime's memory: 64 KiB of strings and 4 MiB of parameter buffers
/// per grid (reused by the next grid: a grid's buffers are copied when it launches). A
/// `cudaGetParameterBuffer` that does not fit returns NULL and sets
/// `cudaErrorLaunchPendingCountExceeded`.
pub const RUNTIME_BYTES: u64 = STRINGS_BYTES + (4 << 20);

const STRINGS_BYTES: u64 = 64 << 10;

/// The alignment of a parameter buffer (at least; `cudaGetParameterBuffer` may ask for more).
pub const PARAMETER_BUFFER_ALIGN: u64 = 64;

/// `cudaStreamTailLaunch` (`cuda_device_runtime_api.h`).
pub const STREAM_TAIL_LAUNCH: u64 = 3;

/// `cudaStreamFireAndForget`.
pub const STREAM_FIRE_AND_FORGET: u64 = 4;

/// The first handle `cudaStreamCreateWithFlags` and `cudaEventCreateWithFlags` hand out.
const HANDLE_BASE: u64 = 0x0000_7c80_0000_0000;

/// The error codes the device runtime returns (`driver_types.h`, `enum cudaError`).
pub mod code {
    /// `cudaSuccess`.
    pub const SUCCESS: u32 = 0;
    /// `cudaErrorInvalidValue`.
    pub const INVALID_VALUE: u32 = 1;
    /// `cudaErrorMemoryAllocation`.
    pub const MEMORY_ALLOCATION: u32 = 2;
    /// `cudaErrorInvalidConfiguration`.
    pub const INVALID_CONFIGURATION: u32 = 9;
    /// `cudaErrorLaunchPendingCountExceeded`.
    pub const LAUNCH_PENDING_COUNT_EXCEEDED: u32 = 69;
    /// `cudaErrorInvalidDeviceFunction`.
    pub const INVALID_DEVICE_FUNCTION: u32 = 98;
    /// `cudaErrorUnsupportedLimit`.
    pub const UNSUPPORTED_LIMIT: u32 = 215;
}

/// The names and strings of `cudaGetErrorName`/`cudaGetErrorString` for the codes the device
/// runtime returns, as NVIDIA's `libcudart` 13.5 gives them; other codes are `unrecognized
/// error code`, as there.
const ERRORS: [(u32, &str, &str); 10] = [
    (0, "cudaSuccess", "no error"),
    (1, "cudaErrorInvalidValue", "invalid argument"),
    (2, "cudaErrorMemoryAllocation", "out of memory"),
    (
        9,
        "cudaErrorInvalidConfiguration",
        "invalid configuration argument",
    ),
    (
        65,
        "cudaErrorLaunchMaxDepthExceeded",
        "launch would exceed maximum depth of nested launches",
    ),
    (
        69,
        "cudaErrorLaunchPendingCountExceeded",
        "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount",
    ),
    (
        98,
        "cudaErrorInvalidDeviceFunction",
        "invalid device function",
    ),
    (
        215,
        "cudaErrorUnsupportedLimit",
        "limit is not supported on this architecture",
    ),
    (
        400,
        "cudaErrorInvalidResourceHandle",
        "invalid resource handle",
    ),
    (999, "cudaErrorUnknown", "unknown error"),
];

const UNRECOGNIZED: &str = "unrecognized error code";

/// The strings of [`ERRORS`], NUL-terminated one after the other, with the offset of each
/// (name, string) and of [`UNRECOGNIZED`].
fn strings() -> (Vec<u8>, Vec<(u32, u64, u64)>, u64) {
    let mut bytes = Vec::new();
    let mut put = |text: &str| {
        let at = bytes.len() as u64;
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
        at
    };
    let offsets = ERRORS
        .iter()
        .map(|&(code, name, string)| (code, put(name), put(string)))
        .collect();
    let unrecognized = put(UNRECOGNIZED);
    (bytes, offsets, unrecognized)
}

/// The address of `cudaGetErrorName(code)` (`name`) or `cudaGetErrorString(code)`, in the
/// device runtime's memory.
pub fn error_string(code: u32, name: bool) -> u64 {
    let (_, offsets, unrecognized) = strings();
    let offset = offsets
        .iter()
        .find(|&&(c, _, _)| c == code)
        .map_or(unrecognized, |&(_, n, s)| if name { n } else { s });
    RUNTIME_BASE + offset
}

/// What `cudaDeviceGetLimit` answers: CUDA's defaults for compute capability 9.0
/// (`cudaDeviceSetLimit` in `cuda_runtime_api.h`: a stack of 1 KiB per thread, a 1 MiB
/// `printf` FIFO, an 8 MiB heap, 2048 pending launches; `cudaLimitDevRuntimeSyncDepth` is not
/// supported from 9.0 on).
pub fn limit(limit: u32) -> Option<u64> {
    match limit {
        0 => Some(1024),
        1 => Some(crate::runtime::PRINTF_LIMIT as u64),
        2 => Some(crate::runtime::HEAP_BYTES),
        4 => Some(2048),
        _ => None,
    }
}

/// A grid launched by a kernel, as recorded at the launch.
#[derive(Clone, Debug)]
pub(crate) struct ChildLaunch {
    /// The kernel's index in the module.
    pub kernel: usize,
    pub grid: Dim3,
    pub block: Dim3,
    pub dynamic_shared: u64,
    /// The parameter space, copied from the parameter buffer at the launch.
    pub params: Vec<u8>,
}

/// One piece of work a thread enqueued.
#[derive(Clone, Debug)]
pub(crate) enum WorkKind {
    Launch(ChildLaunch),
    /// `cudaMemcpyAsync(destination, source, bytes)`.
    Copy {
        destination: u64,
        source: u64,
        bytes: u64,
    },
    /// `cudaMemsetAsync(destination, value, bytes)`.
    Set {
        destination: u64,
        value: u8,
        bytes: u64,
    },
}

/// A piece of work, the stream it went to and where it was enqueued.
#[derive(Clone, Debug)]
pub(crate) struct Work {
    pub kind: WorkKind,
    pub stream: u64,
    /// The `call` that enqueued it.
    pub location: Location,
    /// The CTA and thread that enqueued it.
    pub cta: Dim3,
    pub thread: Dim3,
}

/// A parameter buffer handed out and not launched yet.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PendingBuffer {
    /// From `cudaGetParameterBuffer` (the launch names the kernel and shape).
    Plain,
    /// From `cudaGetParameterBufferV2`: the launch's kernel and shape.
    Shaped {
        kernel: usize,
        grid: Dim3,
        block: Dim3,
        dynamic_shared: u64,
    },
}

#[derive(Debug, Default)]
struct State {
    /// The next free offset of the parameter buffers (from the end of the strings).
    next_buffer: u64,
    buffers: HashMap<u64, PendingBuffer>,
    work: Vec<Work>,
    handles: u64,
    /// Each thread's last error (`cudaGetLastError`), by (CTA, thread).
    last_error: HashMap<(Dim3, Dim3), u32>,
}

/// The device runtime of one grid: the module's kernels (which `mov.u64 %rd, kernel;`
/// addresses name), the grid's nesting depth, and what its threads enqueued.
#[derive(Debug, Default)]
pub struct DeviceRuntime<'p> {
    /// The module's kernels in source order; empty where launches cannot run (a kernel run
    /// without its module, as `ptxsim run` does).
    pub(crate) kernels: &'p [Program],
    /// The grid's depth (0 for the host's launch).
    pub(crate) depth: u32,
    /// Grids launched by kernels so far in this host launch.
    pub(crate) grids: Arc<AtomicU64>,
    state: Mutex<State>,
}

impl<'p> DeviceRuntime<'p> {
    /// The runtime of a grid of depth `depth` of a module with `kernels`.
    pub(crate) fn new(kernels: &'p [Program], depth: u32, grids: Arc<AtomicU64>) -> Self {
        Self {
            kernels,
            depth,
            grids,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A parameter buffer of `size` bytes aligned to `align`, remembered as `pending`; 0 when
    /// the parameter buffers are full.
    pub(crate) fn parameter_buffer(&self, align: u64, size: u64, pending: PendingBuffer) -> u64 {
        let align = align.clamp(PARAMETER_BUFFER_ALIGN, 1 << 12);
        let align = align.checked_next_power_of_two().unwrap_or(1 << 12);
        let mut state = self.state();
        let start = (STRINGS_BYTES + state.next_buffer).next_multiple_of(align);
        let Some(end) = start.checked_add(size.max(1)) else {
            return 0;
        };
        if end > RUNTIME_BYTES {
            return 0;
        }
        state.next_buffer = end - STRINGS_BYTES;
        let address = RUNTIME_BASE + start;
        state.buffers.insert(address, pending);
        address
    }

    /// Takes the pending buffer at `address`.
    pub(crate) fn take_buffer(&self, address: u64) -> Option<PendingBuffer> {
        self.state().buffers.remove(&address)
    }

    /// Counts one more grid launched by a kernel; `false` past [`MAX_DEVICE_GRIDS`].
    pub(crate) fn count_grid(&self) -> bool {
        self.grids.fetch_add(1, Ordering::Relaxed) < MAX_DEVICE_GRIDS
    }

    /// Records `work`.
    pub(crate) fn enqueue(&self, work: Work) {
        self.state().work.push(work);
    }

    /// A new stream or event handle.
    pub(crate) fn handle(&self) -> u64 {
        let mut state = self.state();
        state.handles += 1;
        HANDLE_BASE + state.handles * 16
    }

    /// Sets the last error of a thread (`cudaSuccess` leaves it as it is).
    pub(crate) fn set_error(&self, cta: Dim3, thread: Dim3, code: u32) {
        if code != code::SUCCESS {
            self.state().last_error.insert((cta, thread), code);
        }
    }

    /// The last error of a thread; `reset` sets it back to `cudaSuccess` (`cudaGetLastError`,
    /// where `cudaPeekAtLastError` does not).
    pub(crate) fn last_error(&self, cta: Dim3, thread: Dim3, reset: bool) -> u32 {
        let mut state = self.state();
        let code = state.last_error.get(&(cta, thread)).copied();
        if reset {
            state.last_error.remove(&(cta, thread));
        }
        code.unwrap_or(code::SUCCESS)
    }

    /// The work the grid's threads enqueued, in order; the parameter buffers are free again.
    pub(crate) fn take_work(&self) -> Vec<Work> {
        let mut state = self.state();
        state.next_buffer = 0;
        state.buffers.clear();
        std::mem::take(&mut state.work)
    }
}

/// Adds the device runtime's memory (its strings, room for parameter buffers) to `global` if
/// it is not there yet.
pub(crate) fn install(global: &mut GlobalMemory) {
    if global.buffer_at(RUNTIME_BASE).is_some() {
        return;
    }
    let (bytes, _, _) = strings();
    global.add_at(
        "device runtime",
        RUNTIME_BASE,
        Words::padded(&bytes, RUNTIME_BYTES),
    );
}
