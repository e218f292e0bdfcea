//! The driver's state and the calls on it, in safe Rust: simulated devices (one, or
//! `PTXSIM_DEVICE_COUNT`), contexts, modules (checked once per text), kernels, device memory
//! (ptxsim's own, bounds-checked), streams and events. [`crate::ffi`] converts the C arguments and calls these.
//!
//! Everything runs synchronously: a launch or a copy has finished when its call returns, so
//! streams and events only keep order trivially (an event records the time of its call).
//! Handles are numbers (from [`FIRST_HANDLE`], never reused) that the C ABI hands out as
//! pointers; the library never dereferences them.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Instant;

use ptxsim_exec::Outcome;
use ptxsim_exec::alu::tensor_cores::TensorCores;
use ptxsim_exec::api::{Error as ApiError, LaunchOptions, Module, Options};
use ptxsim_exec::ir::ConstVariable;
use ptxsim_exec::memory::{ALLOCATION_BASE, CONST_WINDOW, DeviceMemory, HostMemory};
use ptxsim_isa::{Target, TargetVariant};

use crate::status::{CudaError, Failure};

pub mod graph;
pub mod topology;
pub use graph::ConditionalKind;
pub mod vmm;

pub use crate::status::CallResult;

/// The first handle handed out: below it are the special stream handles of `cuda.h`
/// (`CU_STREAM_LEGACY` = 1, `CU_STREAM_PER_THREAD` = 2), which mean the default stream.
pub const FIRST_HANDLE: u64 = 0x100;

/// The device memory the device reports (`cuDeviceTotalMem`, `cuMemGetInfo`), unless
/// `PTXSIM_DEVICE_MEMORY` says otherwise; allocations beyond it fail with
/// `CUDA_ERROR_OUT_OF_MEMORY`. The memory is the host's, allocated when `cuMemAlloc` is called.
pub const DEFAULT_DEVICE_MEMORY: u64 = 16 << 30;

/// The architecture simulated unless `PTXSIM_TARGET` names another.
pub const DEFAULT_TARGET: &str = "sm_90";

/// Dynamic shared memory a kernel may use without `cuFuncSetAttribute`
/// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`): 48 KiB, as in CUDA.
pub const DEFAULT_DYNAMIC_SHARED: u64 = 48 * 1024;

/// The most modules the content cache keeps; it starts over when full.
pub const CACHE_ENTRIES: usize = 256;

/// The most devices `PTXSIM_DEVICE_COUNT` may ask for.
pub const MAX_DEVICES: i32 = 8;

/// The addresses of each device's allocations: device `d` hands out addresses from
/// `ALLOCATION_BASE + d * DEVICE_ADDRESS_SPAN` (1 TiB each), so that every device pointer
/// names one device (unified addressing).
pub const DEVICE_ADDRESS_SPAN: u64 = 1 << 40;

/// The driver version `cuDriverGetVersion` reports: CUDA 13.5, the newest whose entry points
/// `cuGetProcAddress` knows (`data/entry-points.tsv`). The CUDA 13 runtime refuses a driver
/// older than 13.0 ("CUDA driver version is insufficient for CUDA runtime version"); a CUDA 12
/// runtime takes any newer driver.
pub const DRIVER_VERSION: i32 = 13050;

/// The step limit of each simulated thread in a program's launches (`PTXSIM_MAX_STEPS`
/// overrides it): far above the executor's default, because unmodified programs run long
/// kernels (a grid-stride loop over a large array in a small grid; a `clock()` spin of 10 ms,
/// which is 10 million steps at [`CLOCK_RATE_KHZ`]; HeCBench's concurrentKernels spins one
/// thread for 1.85·10^8 instructions), and still a bound: one thread in an endless loop ends
/// with `CUDA_ERROR_LAUNCH_TIMEOUT` (in about a second in compiled code, which `auto` switches
/// to while such a launch runs; a warp the interpreter runs takes longer).
pub const DRIVER_MAX_STEPS: u64 = 1_000_000_000;

/// How far past the end of a `cuMemAlloc` allocation kernels may load and store
/// (`PTXSIM_ALLOCATION_SLACK` overrides it; 0 makes every access past the end fault): up to the
/// allocation's size rounded up to 64 KiB, a GPU's small page. A GPU maps device memory in
/// pages (`cuMemGetAllocationGranularity`: 2 MiB) and places `cudaMalloc`'s small allocations
/// side by side in them, so a kernel that runs a little past the end of a buffer (a bound
/// checked with `>` instead of `>=`, a grid rounded up without a check) reads and writes mapped
/// memory and does not fault; real programs do this (HeCBench's histogram, bezier-surface,
/// quantAQLM, threadcpy). ptxsim gives each allocation the rest of its 64 KiB granule
/// ([`DeviceMemory::with_slack`]; docs/divergences.md, D40).
pub const ALLOCATION_SLACK: u64 = 64 * 1024;

/// The SM clock the device reports (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`, kHz): 1 GHz, because a
/// simulated thread's `%clock` advances by one per issued instruction and `%globaltimer` by one
/// nanosecond per issued instruction, so a program that turns cycles into time with this rate
/// (`clock_block(ms * clockRate)`) gets the time `%globaltimer` shows.
pub const CLOCK_RATE_KHZ: i32 = 1_000_000;

/// What the environment configures, read once by `cuInit`.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The simulated architecture (`PTXSIM_TARGET`, default `sm_90`).
    pub target: Target,
    /// The step limit of each thread (`PTXSIM_MAX_STEPS`).
    pub max_steps: u64,
    /// The device memory in bytes (`PTXSIM_DEVICE_MEMORY`).
    pub device_memory: u64,
    /// The granule kernels may run past the end of a `cuMemAlloc` allocation up to, and past
    /// a module's last `.global` variable (`PTXSIM_ALLOCATION_SLACK`, bytes, default
    /// [`ALLOCATION_SLACK`]; 0: an access past the end faults).
    pub allocation_slack: u64,
    /// Host threads a launch of several CTAs runs on (`PTXSIM_HOST_THREADS`, 0: all cores).
    pub host_threads: usize,
    /// The number of simulated devices (`PTXSIM_DEVICE_COUNT`, 1 to [`MAX_DEVICES`]).
    pub device_count: i32,
    /// Where each launch's trace is written (`PTXSIM_TRACE`), if anywhere.
    pub trace_directory: Option<std::path::PathBuf>,
    /// The trace's form (`PTXSIM_TRACE_FORMAT`: `jsonl`, the default, or `text`).
    pub trace_format: ptxsim_trace::Format,
    /// The launch to stop at in the debugger (`PTXSIM_DEBUG=KERNEL[:LAUNCH]`), if any.
    pub debug: Option<crate::debug::Request>,
    /// The GPU whose tensor-core arithmetic `mma` and `wmma` follow (`PTXSIM_DEVICE=sm_XX`),
    /// when not the simulated target's (`PTXSIM_TARGET`: the modules are checked for it, so
    /// their programs model its tensor cores).
    pub tensor_cores: Option<ptxsim_exec::alu::tensor_cores::TensorCores>,
    /// Which tier runs the kernels (`PTXSIM_ENGINE`: `auto`, the default, `interp` or
    /// `compiled`; docs/compiled-tier.md).
    pub engine: ptxsim_jit::Engine,
}

impl Settings {
    /// The settings from the environment, or what is wrong with it.
    pub fn from_environment() -> Result<Settings, String> {
        let variable = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let target_name = variable("PTXSIM_TARGET").unwrap_or_else(|| DEFAULT_TARGET.into());
        let target = Target::parse(&target_name)
            .map_err(|error| format!("PTXSIM_TARGET=`{target_name}`: {error}"))?;
        let number = |name: &str, default: u64| -> Result<u64, String> {
            variable(name).map_or(Ok(default), |text| {
                text.parse()
                    .map_err(|_| format!("{name}=`{text}` is not a number"))
            })
        };
        let device_count = number("PTXSIM_DEVICE_COUNT", 1)?;
        let device_count = i32::try_from(device_count)
            .ok()
            .filter(|count| (1..=MAX_DEVICES).contains(count))
            .ok_or_else(|| {
                format!("PTXSIM_DEVICE_COUNT=`{device_count}`: 1 to {MAX_DEVICES} devices")
            })?;
        Ok(Settings {
            target,
            max_steps: number("PTXSIM_MAX_STEPS", DRIVER_MAX_STEPS)?,
            device_memory: number("PTXSIM_DEVICE_MEMORY", DEFAULT_DEVICE_MEMORY)?,
            allocation_slack: number("PTXSIM_ALLOCATION_SLACK", ALLOCATION_SLACK)?,
            host_threads: usize::try_from(number("PTXSIM_HOST_THREADS", 0)?).unwrap_or(0),
            device_count,
            trace_directory: variable("PTXSIM_TRACE").map(std::path::PathBuf::from),
            trace_format: match variable("PTXSIM_TRACE_FORMAT").as_deref() {
                None | Some("jsonl") => ptxsim_trace::Format::Jsonl,
                Some("text") => ptxsim_trace::Format::Text,
                Some(other) => {
                    return Err(format!("PTXSIM_TRACE_FORMAT=`{other}`: jsonl or text"));
                }
            },
            debug: variable("PTXSIM_DEBUG")
                .map(|text| crate::debug::Request::parse(&text))
                .transpose()?,
            tensor_cores: variable("PTXSIM_DEVICE")
                .map(|name| {
                    ptxsim_exec::alu::tensor_cores::TensorCores::parse(&name)
                        .map_err(|error| format!("PTXSIM_DEVICE=`{name}`: {error}"))
                })
                .transpose()?,
            engine: ptxsim_jit::Engine::from_env()?.unwrap_or(ptxsim_jit::Engine::Auto),
        })
    }

    /// The compute capability of the target: `sm_90` is 9.0, `sm_86` 8.6, `sm_100a` 10.0.
    pub fn compute_capability(&self) -> (i32, i32) {
        let number = i32::try_from(self.target.number).unwrap_or(0);
        (number / 10, number % 10)
    }
}

/// What a host range that kernels reach is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    /// `cuMemAllocManaged`: managed (unified) memory.
    Managed,
    /// `cuMemHostAlloc` / `cuMemAllocHost`: pinned host memory, mapped for the device.
    Pinned,
    /// `cuMemHostRegister`: the program's own memory, registered.
    Registered,
}

/// A host range that kernels and copies reach at its host address (unified addressing):
/// its length, kind and context.
#[derive(Clone, Copy, Debug)]
pub struct HostRange {
    /// The first address.
    pub start: u64,
    /// The length in bytes.
    pub len: u64,
    /// What it is.
    pub kind: HostKind,
    /// The context that made it (0: none was current).
    pub context: u64,
}

/// The host ranges kernels reach, by start address. Kept apart from [`State`]: the host
/// memory backend reads it during a launch, while the state is locked.
static HOST_RANGES: LazyLock<Mutex<BTreeMap<u64, HostRange>>> =
    LazyLock::new(|| Mutex::new(BTreeMap::new()));

fn host_ranges() -> MutexGuard<'static, BTreeMap<u64, HostRange>> {
    HOST_RANGES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes `len` bytes of host memory at `start` reachable by kernels and copies (the caller,
/// the C boundary, vouches that they stay valid until [`unmap_host`]).
pub fn map_host(start: u64, len: u64, kind: HostKind) {
    let context = CURRENT.with(Cell::get);
    host_ranges().insert(
        start,
        HostRange {
            start,
            len,
            kind,
            context,
        },
    );
}

/// Removes the host range that starts at `start`; its length, if there was one.
pub fn unmap_host(start: u64) -> Option<HostRange> {
    host_ranges().remove(&start)
}

/// The host range that holds `len` bytes at `address`, if one does.
pub fn host_range(address: u64, len: u64) -> Option<HostRange> {
    let ranges = host_ranges();
    let (_, range) = ranges.range(..=address).next_back()?;
    let end = address.checked_add(len)?;
    (end <= range.start + range.len).then_some(*range)
}

/// The backend through which kernels and copies reach host ranges (set once by the C
/// boundary, which owns the raw memory accesses).
static HOST_BACKEND: OnceLock<Arc<dyn HostMemory>> = OnceLock::new();

/// Sets the host memory backend ([`HOST_BACKEND`]); later calls keep the first.
pub fn set_host_backend(backend: Arc<dyn HostMemory>) {
    let _ = HOST_BACKEND.set(backend);
}

/// Writes `bytes` to a host range at `address`; false if no host range holds them.
fn host_write(address: u64, bytes: &[u8]) -> bool {
    host_range(address, bytes.len() as u64).is_some()
        && HOST_BACKEND
            .get()
            .is_some_and(|backend| backend.write(address, bytes))
}

/// Reads a host range at `address` into `out`; false if no host range holds them.
fn host_read(address: u64, out: &mut [u8]) -> bool {
    host_range(address, out.len() as u64).is_some()
        && HOST_BACKEND
            .get()
            .is_some_and(|backend| backend.read(address, out))
}

/// A context: its device, the contexts whose memory its kernels may reach
/// (`cuCtxEnablePeerAccess`) and the error that made it unusable, if any.
#[derive(Debug)]
struct Context {
    device: i32,
    /// Peer contexts (on other devices) whose device's memory its kernels reach.
    peers: HashSet<u64>,
    /// A sticky error (a kernel fault): every later call in the context returns it.
    sticky: Option<CudaError>,
    /// The device heap of kernels' `malloc`/`free` (its memory and its allocations), made at
    /// the first launch of a kernel that uses it: what one launch allocates, later ones read
    /// and free, as on a GPU.
    heap: Option<(DeviceMemory, Arc<ptxsim_exec::runtime::Heap>)>,
    /// The limits `cuCtxSetLimit` set (`CUlimit` values), by limit.
    limits: HashMap<i32, u64>,
    /// The `CUctx_flags` it was made with or given since (`cuCtxCreate`,
    /// `cuDevicePrimaryCtxSetFlags`, `cuCtxSetFlags`): kept and reported, with no effect
    /// (scheduling, mapping host memory and the others change no result here).
    flags: u32,
}

impl Context {
    fn on(device: i32, flags: u32) -> Self {
        Self {
            device,
            peers: HashSet::new(),
            sticky: None,
            heap: None,
            limits: HashMap::new(),
            flags,
        }
    }
}

/// `CU_LIMIT_MALLOC_HEAP_SIZE`.
const LIMIT_MALLOC_HEAP_SIZE: i32 = 2;

/// The value of limit `limit` (a `CUlimit`) in the current context: what `cuCtxSetLimit` set,
/// else `default`.
pub fn context_get_limit(limit: i32, default: u64) -> CallResult<u64> {
    let state = state();
    let current = state.current()?;
    Ok(state
        .contexts
        .get(&current)
        .and_then(|context| context.limits.get(&limit).copied())
        .unwrap_or(default))
}

/// `cuCtxSetLimit(limit, value)` in the current context. `CU_LIMIT_MALLOC_HEAP_SIZE` sizes the
/// device heap, which the first launch of a kernel calling `malloc` makes; once it is made,
/// the size is fixed ("cudaLimitMallocHeapSize ... must be set before any kernel that uses
/// malloc() or free() is launched": a later value is kept for `cuCtxGetLimit` but the heap
/// keeps its size).
pub fn context_set_limit(limit: i32, value: u64) -> CallResult<()> {
    let mut state = state();
    let current = state.current()?;
    if let Some(context) = state.contexts.get_mut(&current) {
        context.limits.insert(limit, value);
    }
    Ok(())
}

/// A loaded module: its checked kernels (shared with the cache), its `.global` variables
/// and its `.const` space, which persist across its launches.
#[derive(Debug)]
struct LoadedModule {
    context: u64,
    module: Arc<Module>,
    globals: DeviceMemory,
    /// The `.const` space of its kernels (at generic addresses from `CONST_WINDOW`, which
    /// `cuModuleGetGlobal` hands out), as the host last wrote it.
    constants: Arc<Vec<u8>>,
    /// Its `.const` variables.
    const_variables: Vec<ConstVariable>,
    /// The library it is the module of in its context, if it is one's
    /// ([`library_module_in`]): the library's `__managed__` variables are its too.
    library: Option<u64>,
    /// The `__managed__` variables the host asked for of a module that is no library's
    /// ([`module_get_managed`]).
    managed: Vec<ManagedVariable>,
}

/// A `.attribute(.managed)` variable of a library as the host sees it: host memory (managed
/// memory, [`HostKind::Managed`]), one for every context as with NVIDIA's driver, that
/// mirrors the variable in the `globals` of the library's module in each context. Launches are
/// synchronous, so copying the host memory into the variable before each launch of the
/// module's kernels and back after it gives the host and the kernels one variable.
#[derive(Clone, Copy, Debug)]
struct ManagedVariable {
    /// Its address in the module's `.global` space.
    address: u64,
    /// Its size in bytes.
    size: u64,
    /// The host memory.
    host: u64,
}

/// Copies the host memory of each of `managed` into its variable in `globals` (`to_device`,
/// before a launch) or the variable into its host memory (after it).
fn sync_managed(globals: &mut DeviceMemory, managed: &[ManagedVariable], to_device: bool) {
    for variable in managed {
        let mut bytes = vec![0; usize::try_from(variable.size).unwrap_or(0)];
        if to_device {
            if host_read(variable.host, &mut bytes) {
                let _ = globals.write(variable.address, &bytes);
            }
        } else if globals.read(variable.address, &mut bytes).is_ok() {
            host_write(variable.host, &bytes);
        }
    }
}

impl LoadedModule {
    /// Whether `len` bytes at `address` (a generic address in the `.const` window) lie in one
    /// of its `.const` variables; their offset in the `.const` space.
    fn constant_at(&self, address: u64, len: usize) -> Option<usize> {
        let offset = address.checked_sub(CONST_WINDOW)?;
        let end = offset.checked_add(len as u64)?;
        let inside = self
            .const_variables
            .iter()
            .any(|v| v.address <= offset && end <= v.address.saturating_add(v.size));
        let start = usize::try_from(offset).ok()?;
        (inside && start.saturating_add(len) <= self.constants.len()).then_some(start)
    }
}

/// A kernel of a loaded module.
#[derive(Debug)]
struct Function {
    module: u64,
    entry: String,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
    max_dynamic_shared: u64,
}

/// A library (`cuLibraryLoadData`): checked PTX, loaded into each context that uses it.
#[derive(Debug)]
struct Library {
    text: String,
    module: Arc<Module>,
    /// Why the library has no code ptxsim can run (a fatbin of SASS only, or of PTX for other
    /// architectures): it loads empty, and asking for its kernels, globals or module fails
    /// with `CUDA_ERROR_NO_BINARY_FOR_GPU` and this message ([`library_load`]).
    unavailable: Option<String>,
    /// Its module in each context it was loaded into, by context.
    loaded: HashMap<u64, u64>,
    /// Its `__managed__` variables the host has asked for ([`library_get_managed`]).
    managed: Vec<ManagedVariable>,
}

/// A kernel of a library (`cuLibraryGetKernel`), valid in every context.
#[derive(Debug)]
struct Kernel {
    library: u64,
    entry: String,
}

/// An event: its context and when it was last recorded.
#[derive(Debug)]
struct Event {
    context: u64,
    recorded: Option<Instant>,
}

/// Everything the driver holds.
#[derive(Debug)]
struct State {
    settings: Option<Settings>,
    next_handle: u64,
    contexts: HashMap<u64, Context>,
    /// The primary context of each device, once retained.
    primary: HashMap<i32, u64>,
    /// The flags of each device's primary context (`cuDevicePrimaryCtxSetFlags`), also before
    /// it is made.
    primary_flags: HashMap<i32, u32>,
    modules: HashMap<u64, LoadedModule>,
    functions: HashMap<u64, Function>,
    /// Streams, with their contexts.
    streams: HashMap<u64, u64>,
    /// The flags and priority each stream was created with (`cuStreamCreateWithPriority`).
    stream_settings: HashMap<u64, (u32, i32)>,
    events: HashMap<u64, Event>,
    /// Each device's allocations (of all its contexts), indexed by device, at process-wide
    /// unique addresses (unified addressing: [`DEVICE_ADDRESS_SPAN`]). Made by `cuInit`.
    memory: Vec<DeviceMemory>,
    /// The context of each allocation, by its address.
    owners: HashMap<u64, u64>,
    /// Checked modules by their text (the content cache).
    cache: HashMap<String, Arc<Module>>,
    /// CUDA graphs being built (`cuGraphCreate`).
    graphs: HashMap<u64, Graph>,
    /// Instantiated graphs (`cuGraphInstantiate`): copies of their graphs' nodes.
    executables: HashMap<u64, Graph>,
    /// Libraries (`cuLibraryLoadData`).
    libraries: HashMap<u64, Library>,
    /// Kernels of libraries (`cuLibraryGetKernel`).
    kernels: HashMap<u64, Kernel>,
    /// Capturing streams and the graph each captures into.
    capture: HashMap<u64, u64>,
    /// Events recorded in a capture, and its graph.
    captured_events: HashMap<u64, u64>,
    /// The nodes the next node captured on each capturing stream depends on.
    capture_tails: HashMap<u64, Vec<u64>>,
    /// The nodes an event recorded in a capture stands for (a stream waiting on it depends
    /// on them).
    event_tails: HashMap<u64, Vec<u64>>,
    /// User objects (`cuUserObjectCreate`) and their references ([`topology`]).
    user_objects: HashMap<u64, topology::UserObject>,
    /// Graph memory (allocation nodes' addresses, live graph allocations, each device's pool)
    /// and conditional handles ([`graph`]).
    graph_state: graph::GraphState,
    /// Address reservations, physical allocations and their mappings ([`vmm`]).
    vmm: vmm::Vmm,
}

impl State {
    fn new() -> Self {
        Self {
            settings: None,
            next_handle: FIRST_HANDLE,
            contexts: HashMap::new(),
            primary: HashMap::new(),
            primary_flags: HashMap::new(),
            modules: HashMap::new(),
            functions: HashMap::new(),
            streams: HashMap::new(),
            stream_settings: HashMap::new(),
            events: HashMap::new(),
            memory: Vec::new(),
            owners: HashMap::new(),
            cache: HashMap::new(),
            graphs: HashMap::new(),
            executables: HashMap::new(),
            libraries: HashMap::new(),
            kernels: HashMap::new(),
            capture: HashMap::new(),
            captured_events: HashMap::new(),
            capture_tails: HashMap::new(),
            event_tails: HashMap::new(),
            user_objects: HashMap::new(),
            graph_state: graph::GraphState::default(),
            vmm: vmm::Vmm::default(),
        }
    }

    fn handle(&mut self) -> u64 {
        let handle = self.next_handle;
        self.next_handle += 1;
        handle
    }

    fn settings(&self) -> CallResult<&Settings> {
        self.settings
            .as_ref()
            .ok_or_else(|| Failure::new(CudaError::NotInitialized, "cuInit has not been called"))
    }

    /// The calling thread's current context, usable (no sticky error).
    fn current(&self) -> CallResult<u64> {
        self.settings()?;
        let current = CURRENT.with(Cell::get);
        let context = self.contexts.get(&current).ok_or_else(|| {
            Failure::new(
                CudaError::InvalidContext,
                "no current context (cuCtxCreate or cuCtxSetCurrent first)",
            )
        })?;
        match context.sticky {
            Some(error) => Err(error.into()),
            None => Ok(current),
        }
    }

    /// Checks that context `handle` exists and is usable.
    fn usable(&self, handle: u64) -> CallResult<()> {
        match self.contexts.get(&handle) {
            None => Err(CudaError::InvalidContext.into()),
            Some(Context {
                sticky: Some(error),
                ..
            }) => Err((*error).into()),
            Some(_) => Ok(()),
        }
    }

    fn device(&self, ordinal: i32) -> CallResult<&Settings> {
        let settings = self.settings()?;
        if !(0..settings.device_count).contains(&ordinal) {
            let count = settings.device_count;
            return Err(Failure::new(
                CudaError::InvalidDevice,
                format!(
                    "device {ordinal}: ptxsim simulates {count} device(s), 0 to {} \
                     (PTXSIM_DEVICE_COUNT)",
                    count - 1
                ),
            ));
        }
        Ok(settings)
    }

    /// The device of context `handle` (which exists).
    fn device_of(&self, handle: u64) -> CallResult<i32> {
        self.contexts
            .get(&handle)
            .map(|context| context.device)
            .ok_or(Failure::from(CudaError::InvalidContext))
    }

    /// The device whose allocations hold `address`, with the allocation's start, length and
    /// name.
    fn allocation(&self, address: u64) -> Option<(usize, (u64, u64, &str))> {
        self.memory
            .iter()
            .enumerate()
            .find_map(|(device, memory)| Some((device, memory.find(address)?)))
    }

    /// The loaded module of `handle`, in a usable context.
    fn module(&self, handle: u64) -> CallResult<&LoadedModule> {
        self.settings()?;
        let module = self
            .modules
            .get(&handle)
            .ok_or(Failure::from(CudaError::InvalidHandle))?;
        self.usable(module.context)?;
        Ok(module)
    }

    /// The kernel of `handle` and its module, in a usable context.
    fn function(&self, handle: u64) -> CallResult<(&Function, &LoadedModule)> {
        self.settings()?;
        let function = self
            .functions
            .get(&handle)
            .ok_or(Failure::from(CudaError::InvalidHandle))?;
        Ok((function, self.module(function.module)?))
    }

    /// Checks a stream handle: the default stream (0, `CU_STREAM_LEGACY`,
    /// `CU_STREAM_PER_THREAD`) or one made by `cuStreamCreate`.
    fn stream(&self, handle: u64) -> CallResult<()> {
        if handle < FIRST_HANDLE || self.streams.contains_key(&handle) {
            Ok(())
        } else {
            Err(CudaError::InvalidHandle.into())
        }
    }

    /// The loaded module of the current context whose `.const` variables hold `len` bytes at
    /// `address` (the most recently loaded one: modules' constants share addresses), and the
    /// offset in its `.const` space.
    fn constant_at(&mut self, address: u64, len: usize) -> CallResult<Option<(u64, usize)>> {
        let context = self.current()?;
        Ok(self
            .modules
            .iter()
            .filter(|(_, module)| module.context == context)
            .filter_map(|(handle, module)| Some((*handle, module.constant_at(address, len)?)))
            .max_by_key(|(handle, _)| *handle))
    }

    /// Device memory holding `len` bytes at `address` in the current context: an allocation,
    /// or the `.global` variables of a module (the most recently loaded one with a variable
    /// there: modules' variables share addresses).
    fn memory_at(&mut self, address: u64, len: usize) -> CallResult<&mut DeviceMemory> {
        let context = self.current()?;
        let fits = |memory: &DeviceMemory| {
            memory
                .find(address)
                .is_some_and(|(base, size, _)| address - base + len as u64 <= size)
        };
        if let Some(device) = self.memory.iter().position(fits) {
            return Ok(&mut self.memory[device]);
        }
        // Mapped memory (side by side mappings too) that a device may access, the current
        // context's device first.
        let device = self.device_of(context)?;
        if let Some(device) = self.vmm.accessible_by(device, address, len as u64) {
            return self
                .vmm
                .view_of(device)
                .ok_or(Failure::from(CudaError::InvalidValue));
        }
        let newest = self
            .modules
            .iter()
            .filter(|(_, module)| module.context == context && fits(&module.globals))
            .map(|(handle, _)| *handle)
            .max();
        match newest.and_then(|handle| self.modules.get_mut(&handle)) {
            Some(module) => Ok(&mut module.globals),
            None => Err(Failure::new(
                CudaError::InvalidValue,
                format!("{len} bytes at {address:#x} are not in one device allocation"),
            )),
        }
    }
}

static STATE: LazyLock<Mutex<State>> = LazyLock::new(|| Mutex::new(State::new()));

thread_local! {
    /// The calling thread's current context (0: none): the top of its context stack.
    static CURRENT: Cell<u64> = const { Cell::new(0) };
    /// The rest of the calling thread's context stack (`cuCtxPushCurrent`), top last.
    static BELOW: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Makes `context` the calling thread's current context, keeping the one it replaces below it
/// on the context stack (if any).
fn push_current(context: u64) {
    let previous = CURRENT.with(|current| current.replace(context));
    if previous != 0 {
        BELOW.with(|below| below.borrow_mut().push(previous));
    }
}

/// The state. A panic while it was held (a simulator bug, reported as `CUDA_ERROR_UNKNOWN`)
/// leaves it as it was at that point; later calls go on with it.
fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `cuInit`: reads the environment ([`Settings`]).
pub fn init(flags: u32) -> CallResult<()> {
    if flags != 0 {
        return Err(Failure::new(CudaError::InvalidValue, "flags must be 0"));
    }
    let mut state = state();
    if state.settings.is_none() {
        let settings = Settings::from_environment()
            .map_err(|message| Failure::new(CudaError::InvalidValue, message))?;
        state.memory = (0..u64::from(settings.device_count.unsigned_abs()))
            .map(|device| {
                let start = ALLOCATION_BASE + device * DEVICE_ADDRESS_SPAN;
                DeviceMemory::allocations_in(start..start + DEVICE_ADDRESS_SPAN)
                    .with_slack(settings.allocation_slack)
            })
            .collect();
        state.settings = Some(settings);
    }
    Ok(())
}

/// `cuDriverGetVersion`.
pub fn driver_version() -> i32 {
    DRIVER_VERSION
}

/// `cuDeviceGet`.
pub fn device_get(ordinal: i32) -> CallResult<i32> {
    state().device(ordinal)?;
    Ok(ordinal)
}

/// `cuDeviceGetCount`: `PTXSIM_DEVICE_COUNT` (1 unless set).
pub fn device_count() -> CallResult<i32> {
    Ok(state().settings()?.device_count)
}

/// `cuDeviceCanAccessPeer`: whether kernels on `device` can reach `peer`'s memory once
/// `cuCtxEnablePeerAccess` allows it: for any two distinct devices (not for a device and
/// itself, as in CUDA).
pub fn can_access_peer(device: i32, peer: i32) -> CallResult<bool> {
    let state = state();
    state.device(device)?;
    state.device(peer)?;
    Ok(device != peer)
}

/// `cuCtxEnablePeerAccess`: kernels of the current context reach the memory of
/// `peer_context`'s device from now on.
pub fn enable_peer_access(peer_context: u64, flags: u32) -> CallResult<()> {
    let mut state = state();
    let current = state.current()?;
    if flags != 0 {
        return Err(Failure::new(CudaError::InvalidValue, "flags must be 0"));
    }
    state.usable(peer_context)?;
    if state.device_of(peer_context)? == state.device_of(current)? {
        return Err(Failure::new(
            CudaError::PeerAccessUnsupported,
            "the peer context is on the current context's device",
        ));
    }
    let Some(context) = state.contexts.get_mut(&current) else {
        return Err(CudaError::InvalidContext.into());
    };
    if !context.peers.insert(peer_context) {
        return Err(CudaError::PeerAccessAlreadyEnabled.into());
    }
    Ok(())
}

/// `cuCtxDisablePeerAccess`.
pub fn disable_peer_access(peer_context: u64) -> CallResult<()> {
    let mut state = state();
    let current = state.current()?;
    let Some(context) = state.contexts.get_mut(&current) else {
        return Err(CudaError::InvalidContext.into());
    };
    if !context.peers.remove(&peer_context) {
        return Err(CudaError::PeerAccessNotEnabled.into());
    }
    Ok(())
}

/// `cuDeviceGetName`.
pub fn device_name(device: i32) -> CallResult<String> {
    let state = state();
    let settings = state.device(device)?;
    Ok(format!("ptxsim {}", settings.target.name()))
}

/// `cuDeviceComputeCapability`.
pub fn compute_capability(device: i32) -> CallResult<(i32, i32)> {
    Ok(state().device(device)?.compute_capability())
}

/// `cuDeviceTotalMem`.
pub fn total_memory(device: i32) -> CallResult<u64> {
    Ok(state().device(device)?.device_memory)
}

/// `cuDeviceGetAttribute`: values of an sm_90-class device (H100), the compute capability of
/// the simulated target, 0 for features the simulator does not model.
pub fn device_attribute(attribute: i32, device: i32) -> CallResult<i32> {
    let state = state();
    let settings = state.device(device)?;
    let (major, minor) = settings.compute_capability();
    // The values of CUdevice_attribute (cuda.h).
    Ok(match attribute {
        1 => 1024,              // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,          // MAX_BLOCK_DIM_X, _Y
        4 => 64,                // MAX_BLOCK_DIM_Z
        5 => i32::MAX,          // MAX_GRID_DIM_X
        6 | 7 => 65535,         // MAX_GRID_DIM_Y, _Z
        8 => 48 * 1024,         // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,         // TOTAL_CONSTANT_MEMORY
        10 => 32,               // WARP_SIZE
        11 => i32::MAX,         // MAX_PITCH
        12 | 82 => 65536,       // MAX_REGISTERS_PER_BLOCK, _PER_MULTIPROCESSOR
        13 => CLOCK_RATE_KHZ,   // CLOCK_RATE (kHz)
        14 => 512,              // TEXTURE_ALIGNMENT
        16 => 16,               // MULTIPROCESSOR_COUNT (small, so grids sized by it stay small)
        31 => 1,                // CONCURRENT_KERNELS
        36 => 2_619_000,        // MEMORY_CLOCK_RATE (kHz)
        37 => 5120,             // GLOBAL_MEMORY_BUS_WIDTH
        38 => 50 * 1024 * 1024, // L2_CACHE_SIZE
        39 => 2048,             // MAX_THREADS_PER_MULTIPROCESSOR
        41 => 1,                // UNIFIED_ADDRESSING
        75 => major,            // COMPUTE_CAPABILITY_MAJOR
        76 => minor,            // COMPUTE_CAPABILITY_MINOR
        81 => 228 * 1024,       // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        97 => 227 * 1024,       // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => 32,              // MAX_BLOCKS_PER_MULTIPROCESSOR
        // What the CUDA runtime reads when it starts and what cudaDeviceProp reports: an
        // H100 SXM's values (CUDA 13.5's `cuda.h` names), where ptxsim has the feature.
        15 | 19 | 44 | 78 | 79 | 80 | 90 | 99 => 1, // GPU_OVERLAP, CAN_MAP_HOST_MEMORY, CAN_TEX2D_GATHER,
        // STREAM_PRIORITIES, GLOBAL_ / LOCAL_L1_CACHE, COMPUTE_PREEMPTION, HOST_REGISTER
        83 | 89 | 95 | 115 => 1, // MANAGED_MEMORY, CONCURRENT_MANAGED_ACCESS, COOPERATIVE_LAUNCH,
        // MEMORY_POOLS_SUPPORTED
        // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
        // GENERIC_COMPRESSION_SUPPORTED (an H100's; compressible memory is kept as asked for
        // and changes no value): `driver::vmm`.
        102 | 103 | 107 => 1,
        21 | 22 | 56 | 70 => 131_072, // MAXIMUM_TEXTURE1D_WIDTH, 2D_WIDTH, SURFACE2D_WIDTH, ...
        23 | 57 => 65_536,            // MAXIMUM_TEXTURE2D_HEIGHT, SURFACE2D_HEIGHT
        24..=26 | 58..=60 => 16_384,  // MAXIMUM_TEXTURE3D_*, SURFACE3D_*
        27 | 28 | 42 | 45 | 46 | 52 | 53 | 55 | 61 | 63 | 64 | 66 | 67 | 73 | 74 | 77 => 32_768,
        29 | 43 | 62 | 65 => 2048, // the layered textures' and surfaces' layers
        54 | 68 => 2046,           // cubemap layered layers
        47 | 48 => 8192,           // MAXIMUM_TEXTURE3D_*_ALTERNATE
        49 => 32_768,
        30 => 512,           // SURFACE_ALIGNMENT
        32 => 1,             // ECC_ENABLED
        33 => 0x0d + device, // PCI_BUS_ID (cuDeviceGetPCIBusId's)
        40 => 3,             // ASYNC_ENGINE_COUNT
        51 => 32,            // TEXTURE_PITCH_ALIGNMENT
        69 => 1 << 28,       // MAXIMUM_TEXTURE1D_LINEAR_WIDTH
        71 => 65_000,        // MAXIMUM_TEXTURE2D_LINEAR_HEIGHT
        72 => 2_097_120,     // MAXIMUM_TEXTURE2D_LINEAR_PITCH
        87 => 2,             // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        108 => 30 << 20,     // MAX_PERSISTING_L2_CACHE_SIZE
        109 => 128 << 20,    // MAX_ACCESS_POLICY_WINDOW_SIZE
        111 => 1024,         // RESERVED_SHARED_MEMORY_PER_BLOCK
        126 => 4,            // MEM_SYNC_DOMAIN_COUNT
        131 | 134 => -1,     // NUMA_ID, HOST_NUMA_ID: none
        // A feature the simulator does not model (139 is no attribute of cuda.h, but the
        // runtime asks for it and stops on an error).
        _ if (1..=161).contains(&attribute) => 0,
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("unknown device attribute {attribute}"),
            ));
        }
    })
}

/// `cuCtxCreate`: a new context with `flags`, current for the calling thread.
pub fn context_create(device: i32, flags: u32) -> CallResult<u64> {
    let mut state = state();
    state.device(device)?;
    let handle = state.handle();
    state.contexts.insert(handle, Context::on(device, flags));
    push_current(handle);
    Ok(handle)
}

/// `cuDevicePrimaryCtxRetain`: the device's primary context (made on the first call).
pub fn primary_context(device: i32) -> CallResult<u64> {
    let mut state = state();
    state.device(device)?;
    if let Some(&handle) = state
        .primary
        .get(&device)
        .filter(|h| state.contexts.contains_key(h))
    {
        return Ok(handle);
    }
    let handle = state.handle();
    let flags = state.primary_flags.get(&device).copied().unwrap_or(0);
    state.contexts.insert(handle, Context::on(device, flags));
    state.primary.insert(device, handle);
    Ok(handle)
}

/// `cuCtxDestroy`: the context and everything made in it (modules, kernels, streams, events,
/// allocations, graphs). It leaves the calling thread's context stack.
pub fn context_destroy(handle: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    if state.contexts.remove(&handle).is_none() {
        return Err(CudaError::InvalidContext.into());
    }
    let modules: Vec<u64> = state
        .modules
        .iter()
        .filter(|(_, m)| m.context == handle)
        .map(|(h, _)| *h)
        .collect();
    for module in modules {
        state.modules.remove(&module);
        state.functions.retain(|_, f| f.module != module);
    }
    release_context_objects(&mut state, handle);
    for context in state.contexts.values_mut() {
        context.peers.remove(&handle);
    }
    BELOW.with(|below| below.borrow_mut().retain(|&context| context != handle));
    CURRENT.with(|current| {
        if current.get() == handle {
            let below = BELOW.with(|below| below.borrow_mut().pop()).unwrap_or(0);
            current.set(below);
        }
    });
    Ok(())
}

/// Destroys the streams, events and graphs of context `handle` and frees its allocations
/// (what `cuCtxDestroy` and `cuDevicePrimaryCtxReset` both do).
fn release_context_objects(state: &mut State, handle: u64) {
    state.streams.retain(|_, context| *context != handle);
    state.events.retain(|_, event| event.context != handle);
    state.graphs.retain(|_, graph| graph.context != handle);
    state.executables.retain(|_, graph| graph.context != handle);
    let allocations: Vec<u64> = state
        .owners
        .iter()
        .filter(|(_, context)| **context == handle)
        .map(|(address, _)| *address)
        .collect();
    for address in allocations {
        state.owners.remove(&address);
        for memory in &mut state.memory {
            memory.free(address);
        }
        graph::released(state, address);
    }
}

/// `cuDevicePrimaryCtxReset` (`cudaDeviceReset`): "destroy all allocations and reset all
/// state on the primary context" of `device`. Its allocations are freed, its streams, events
/// and graphs destroyed, its sticky error, device heap and limits cleared; the context itself
/// stays (the same handle, still current where it was), with its modules loaded, so the
/// program goes on using the device as CUDA lets it after a reset (module variables keep
/// their values rather than being initialized again). Without a primary context, nothing.
pub fn primary_context_reset(device: i32) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    state.device(device)?;
    let Some(&handle) = state.primary.get(&device) else {
        return Ok(());
    };
    release_context_objects(&mut state, handle);
    if let Some(context) = state.contexts.get_mut(&handle) {
        context.sticky = None;
        context.heap = None;
        context.limits.clear();
    }
    Ok(())
}

/// The `CUctx_flags` of the flags arguments: the scheduling choice (`CU_CTX_SCHED_MASK`, 0x07),
/// `CU_CTX_MAP_HOST` (0x08), `CU_CTX_LMEM_RESIZE_TO_MAX` (0x10), `CU_CTX_COREDUMP_ENABLE`
/// (0x20), `CU_CTX_USER_COREDUMP_ENABLE` (0x40), `CU_CTX_SYNC_MEMOPS` (0x80) (`cuda.h`,
/// `CUctx_flags_enum`); a scheduling value past `CU_CTX_SCHED_BLOCKING_SYNC` (4) or another
/// bit is `CUDA_ERROR_INVALID_VALUE`.
fn valid_context_flags(flags: u32) -> CallResult<u32> {
    if flags & !0xff != 0 || flags & 0x07 > 4 || flags & 0x07 == 3 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("context flags {flags:#x}"),
        ));
    }
    Ok(flags)
}

/// `cuDevicePrimaryCtxSetFlags`: the flags of the device's primary context, now and when it
/// is made.
pub fn primary_context_set_flags(device: i32, flags: u32) -> CallResult<()> {
    let mut state = state();
    state.device(device)?;
    let flags = valid_context_flags(flags)?;
    state.primary_flags.insert(device, flags);
    if let Some(handle) = state.primary.get(&device).copied()
        && let Some(context) = state.contexts.get_mut(&handle)
    {
        context.flags = flags;
    }
    Ok(())
}

/// `cuDevicePrimaryCtxGetState`'s flags: those [`primary_context_set_flags`] set (0 by
/// default).
pub fn primary_context_flags(device: i32) -> CallResult<u32> {
    let state = state();
    state.device(device)?;
    Ok(state.primary_flags.get(&device).copied().unwrap_or(0))
}

/// `cuCtxGetFlags`: the current context's flags.
pub fn context_flags() -> CallResult<u32> {
    let state = state();
    let current = state.current()?;
    Ok(state
        .contexts
        .get(&current)
        .map_or(0, |context| context.flags))
}

/// `cuCtxSetFlags`: the current context's flags (and, for a primary context, its device's).
pub fn context_set_flags(flags: u32) -> CallResult<()> {
    let mut state = state();
    let current = state.current()?;
    let flags = valid_context_flags(flags)?;
    let Some(context) = state.contexts.get_mut(&current) else {
        return Err(CudaError::InvalidContext.into());
    };
    context.flags = flags;
    let device = context.device;
    if state.primary.get(&device) == Some(&current) {
        state.primary_flags.insert(device, flags);
    }
    Ok(())
}

/// `cuCtxSetCurrent` (0 unsets).
pub fn context_set_current(handle: u64) -> CallResult<()> {
    let state = state();
    state.settings()?;
    if handle != 0 && !state.contexts.contains_key(&handle) {
        return Err(CudaError::InvalidContext.into());
    }
    CURRENT.with(|current| current.set(handle));
    Ok(())
}

/// `cuCtxPushCurrent`: `context` becomes current, the current one stays below it.
pub fn context_push(context: u64) -> CallResult<()> {
    let state = state();
    state.settings()?;
    if !state.contexts.contains_key(&context) {
        return Err(CudaError::InvalidContext.into());
    }
    push_current(context);
    Ok(())
}

/// `cuCtxPopCurrent`: the current context, which the one below it replaces.
pub fn context_pop() -> CallResult<u64> {
    state().settings()?;
    let popped = CURRENT.with(Cell::get);
    if popped == 0 {
        return Err(Failure::new(
            CudaError::InvalidContext,
            "no current context to pop",
        ));
    }
    let below = BELOW.with(|below| below.borrow_mut().pop()).unwrap_or(0);
    CURRENT.with(|current| current.set(below));
    Ok(popped)
}

/// `cuCtxGetCurrent` (0: none).
pub fn context_get_current() -> CallResult<u64> {
    state().settings()?;
    Ok(CURRENT.with(Cell::get))
}

/// `cuCtxGetDevice`: the current context's device.
pub fn context_get_device() -> CallResult<i32> {
    let state = state();
    let current = state.current()?;
    state.device_of(current)
}

/// The device of `context` (0: the current context), as `cuCtxGetDevice_v2` reports it.
pub fn context_device(context: u64) -> CallResult<i32> {
    if context == 0 {
        return context_get_device();
    }
    let state = state();
    state.settings()?;
    state
        .contexts
        .get(&context)
        .map(|found| found.device)
        .ok_or_else(|| Failure::new(CudaError::InvalidContext, "not a context"))
}

/// `cuCtxSynchronize`: nothing is pending; returns the context's sticky error, if any.
pub fn context_synchronize() -> CallResult<()> {
    state().current().map(|_| ())
}

/// The checked module of `text`, from the cache or checked now.
fn checked(state: &mut State, text: &str) -> CallResult<Arc<Module>> {
    if let Some(module) = state.cache.get(text) {
        return Ok(Arc::clone(module));
    }
    let device = state.settings()?.target;
    let options = Options {
        target: Some(device),
    };
    let module = match Module::load(text, &options) {
        Ok(module) => Arc::new(module),
        Err(ApiError::Check { .. }) if let Some(module) = as_own_target(text, device) => {
            Arc::new(module)
        }
        Err(ApiError::Check { rendered, .. }) => {
            return Err(Failure::new(
                CudaError::InvalidPtx,
                format!("the module does not check:\n{rendered}"),
            ));
        }
        Err(error) => {
            return Err(Failure::new(
                CudaError::InvalidPtx,
                format!("the module does not load: {error}"),
            ));
        }
    };
    if state.cache.len() >= CACHE_ENTRIES {
        state.cache.clear();
    }
    state.cache.insert(text.to_string(), Arc::clone(&module));
    Ok(module)
}

/// A module the device runs although it does not check for the device's target, checked as
/// its own `.target` says. ptxas `--help` (13.5, `--gpu-name`) gives the rule: "PTX for .target
/// sm_XY can be compiled to all GPU targets sm_MN, sm_MNa, SM_MNf where MN >= XY. PTX for
/// .target sm_XYf can be compiled to GPU targets sm_XZ, sm_XZf, sm_XZa where Z >= Y and sm_XY
/// and sm_XZ belong in same family. PTX with .target sm_XYa can only be compiled to GPU target
/// sm_XYa." The device is a GPU of its number, which has its arch-specific features (an H100
/// runs `compute_90a` PTX, which CUTLASS's sm_90 kernels are), so:
/// * an older architecture: CUDA's JIT checks its instructions against the module's
///   `.target` (a `.version 1.4` module for `sm_10` does not know `sm_90` at all, and its
///   `mad.f32` is the `sm_1x` form);
/// * `sm_XYa` of the device's own number (`sm_90a` PTX on the sm_90 device);
/// * `sm_XYf` of the device's family, not newer than the device.
///
/// `None` when the module names no architecture, one the device cannot run, or does not check
/// as its own target either.
fn as_own_target(text: &str, device: Target) -> Option<Module> {
    let declared = declared_target(text)?;
    let runs = match declared.variant {
        TargetVariant::Generic => declared.number < device.number,
        TargetVariant::ArchSpecific => declared.canonical_number() == device.canonical_number(),
        TargetVariant::FamilySpecific => {
            declared.family() == device.family()
                && declared.canonical_number() <= device.canonical_number()
        }
    };
    if !runs {
        return None;
    }
    Module::load(text, &Options { target: None }).ok()
}

/// The last architecture the `.target` directive of `text` names (ptxas gates by the last of
/// `.target sm_80, sm_90`), read from the directive's line; comments before it are skipped.
fn declared_target(text: &str) -> Option<Target> {
    let line = text
        .lines()
        .map(str::trim_start)
        .find(|line| line.starts_with(".target"))?;
    let line = line.split("//").next().unwrap_or(line);
    line.trim_start_matches(".target")
        .split([',', ' ', '\t', ';'])
        .rev()
        .find_map(|entry| Target::parse(entry.trim()).ok())
}

/// The PTX text of a module image: PTX text (up to its NUL), or a fatbin's PTX for the
/// simulated target ([`crate::fatbin::select_ptx`]). An ELF cubin is
/// `CUDA_ERROR_INVALID_IMAGE`; a fatbin without PTX the device can run
/// `CUDA_ERROR_NO_BINARY_FOR_GPU`.
fn ptx_text(state: &State, image: &[u8]) -> CallResult<String> {
    if image.starts_with(&[0x50, 0xed, 0x55, 0xba]) {
        let number = state.settings()?.target.number;
        return crate::fatbin::select_ptx(image, number)
            .map_err(|error| Failure::new(CudaError::NoBinaryForGpu, error.to_string()));
    }
    if image.starts_with(b"\x7fELF") {
        return Err(Failure::new(
            CudaError::InvalidImage,
            "the image is an ELF cubin (machine code); ptxsim runs PTX only: build with \
             -gencode arch=compute_XX,code=compute_XX so the program carries PTX",
        ));
    }
    let text = std::str::from_utf8(image).map_err(|error| {
        Failure::new(
            CudaError::InvalidImage,
            format!("the image is not PTX text (not UTF-8: {error})"),
        )
    })?;
    Ok(text.to_string())
}

/// The bytes of the file at `path` for `cuModuleLoad`, `cuLibraryLoadFromFile` and
/// `cuLinkAddFile` (PTX, a fatbin, a cubin): a file that cannot be opened is
/// `CUDA_ERROR_FILE_NOT_FOUND`, one larger than 1 GiB (the largest image ptxsim takes, as for a
/// fatbin's decompressed payload) `CUDA_ERROR_INVALID_IMAGE` without reading past the limit, so
/// that `/dev/zero` or an endless FIFO costs at most the limit in memory.
pub fn read_image(path: &str) -> CallResult<Vec<u8>> {
    use ptxsim_syntax::input::{Contents, read_file};
    let limit = crate::fatbin::MAX_DECOMPRESSED_SIZE as u64;
    read_file(std::path::Path::new(path), limit, Contents::Binary, "").map_err(|error| {
        let code = if error.kind() == std::io::ErrorKind::InvalidData {
            CudaError::InvalidImage
        } else {
            CudaError::FileNotFound
        };
        Failure::new(code, format!("{path}: {error}"))
    })
}

/// `cuModuleLoadData`: `image` is the PTX text (up to its NUL) or a fatbin ([`ptx_text`]); a
/// module that does not check for the simulated target is `CUDA_ERROR_INVALID_PTX`, with the
/// checker's located errors in the message.
pub fn module_load(image: &[u8]) -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    let text = ptx_text(&state, image)?;
    load_in(&mut state, context, &text)
}

/// A module from the images of a fatbin wrapper ([`ptx_of_images`]).
pub fn module_load_images(images: &[&[u8]]) -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    let text = ptx_of_images(&state, images)?;
    load_in(&mut state, context, &text)
}

/// A library from the images of a fatbin wrapper ([`ptx_of_images`]).
pub fn library_load_images(images: &[&[u8]]) -> CallResult<u64> {
    let mut state = state();
    let text = ptx_of_images(&state, images);
    library_of(&mut state, text)
}

/// The PTX of a program's fatbin and, for relocatable device code (`-rdc=true`), of its
/// translation units' own fatbins: the fatbins without PTX for the device are passed over
/// (the device link's, which holds machine code or nothing); one module is taken as it is;
/// several are linked by [`link_ptx`].
fn ptx_of_images(state: &State, images: &[&[u8]]) -> CallResult<String> {
    if let [image] = images {
        return ptx_text(state, image);
    }
    let mut modules = Vec::new();
    let mut first_error = None;
    for image in images {
        match ptx_text(state, image) {
            Ok(text) => modules.push(text),
            Err(failure) => {
                first_error.get_or_insert(failure);
            }
        }
    }
    match modules.len() {
        0 => Err(first_error.unwrap_or_else(|| Failure::from(CudaError::NoBinaryForGpu))),
        1 => Ok(modules.remove(0)),
        _ => Ok(link_ptx(&modules)),
    }
}

/// Links the PTX modules of relocatable device code into one: the first module's header
/// (`.version`, `.target`, `.address_size`), then every module's body, less its header and
/// less the `.extern` declarations of functions and variables that another module defines.
/// The definitions of such variables come first, after the header, so that every use follows
/// them whatever the order of the modules; a function's `.extern` declaration before its
/// definition becomes a prototype with the definition's linkage (PTX requires a function to be
/// declared before a call names it).
/// (A textual link: it serves the programs whose translation units share functions and
/// variables by name, the common case of `-rdc=true` and of `cuLink*`.)
pub(crate) fn link_ptx(modules: &[String]) -> String {
    let is_header = |line: &str| {
        let line = line.trim_start();
        line.starts_with(".version")
            || line.starts_with(".target")
            || line.starts_with(".address_size")
    };
    let mut out = String::new();
    if let Some(first) = modules.first() {
        for line in first.lines().filter(|line| is_header(line)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    // Statements are cut at `;` and `}`: a declaration `.extern ... NAME(...);` is dropped as a
    // whole when NAME is defined (an `.entry`/`.func` with a body, or a variable) elsewhere.
    // Each name defined by some module, and the first module that defines it.
    // With the definition's linkage directive (`.visible` or `.weak`).
    let mut defined: HashMap<String, usize> = HashMap::new();
    let mut linkage: HashMap<String, &str> = HashMap::new();
    for (index, module) in modules.iter().enumerate() {
        let definitions = module.lines().map(str::trim_start).filter(|line| {
            (line.starts_with(".visible") || line.starts_with(".weak")) && !line.contains(".extern")
        });
        for line in definitions {
            if let Some(name) = declared_name(line) {
                let directive = if line.starts_with(".weak") {
                    ".weak"
                } else {
                    ".visible"
                };
                linkage.entry(name.clone()).or_insert(directive);
                defined.entry(name).or_insert(index);
            }
        }
    }
    // The variables some module declares `.extern` and another defines.
    let shared: HashSet<String> = modules
        .iter()
        .flat_map(|module| module.lines())
        .map(str::trim_start)
        .filter(|line| line.starts_with(".extern") && !line.contains(".func"))
        .filter_map(declared_name)
        .filter(|name| defined.contains_key(name))
        .collect();
    let mut hoisted = String::new();
    let mut body = String::new();
    // Each module numbers its `.file`s from 1 and names its `.debug_str` strings
    // `$L__info_string0`...: the later modules' indices are moved past the earlier ones'.
    let mut file_offset = 0;
    for (index, module) in modules.iter().enumerate() {
        let renamed;
        let module = if index > 0 && (file_offset > 0 || module.contains("$L__info_string")) {
            renamed = debug_names_moved(module, file_offset, index);
            &renamed
        } else {
            module
        };
        file_offset = file_offset.max(largest_file_index(module));
        // Where the lines of the statement under way go: dropped, hoisted, or the body.
        let mut statement: Option<Option<&mut String>> = None;
        for line in module.lines() {
            if is_header(line) {
                continue;
            }
            let trimmed = line.trim_start();
            if statement.is_none() {
                let name = declared_name(trimmed);
                let is_shared = name.as_ref().is_some_and(|name| shared.contains(name));
                let defined_at = name.as_ref().and_then(|name| defined.get(name)).copied();
                let function =
                    trimmed.starts_with(".extern .entry") || trimmed.starts_with(".extern .func");
                if function && defined_at.is_some_and(|at| at > index) {
                    // A kernel whose address this module takes (`mov.u64 %rd, kernel;`,
                    // dynamic parallelism) or a function it calls must be declared before the
                    // use: where its definition comes later, the declaration becomes a
                    // prototype with the definition's linkage, `.visible .func (...) f(...);`,
                    // which ptxas accepts before the definition (not after it, and not with
                    // another linkage: "does not match its prototype's linkage").
                    let directive = name
                        .as_ref()
                        .and_then(|name| linkage.get(name))
                        .copied()
                        .unwrap_or(".visible");
                    body.push_str(&line.replacen(".extern", directive, 1));
                    body.push('\n');
                    continue;
                }
                if trimmed.starts_with(".extern") && defined_at.is_some() {
                    statement = Some(None);
                } else if is_shared
                    && (trimmed.starts_with(".visible") || trimmed.starts_with(".weak"))
                    && !trimmed.contains(".func")
                    && !trimmed.contains(".entry")
                {
                    statement = Some(Some(&mut hoisted));
                }
            }
            let ends = trimmed.trim_end().ends_with(';');
            match statement.as_mut() {
                Some(Some(target)) => {
                    target.push_str(line);
                    target.push('\n');
                }
                Some(None) => {}
                None => {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            if statement.is_some() && ends {
                statement = None;
            }
        }
    }
    out.push_str(&hoisted);
    out.push_str(&body);
    out
}

/// The largest index a `.file` directive of `module` declares (0 if none).
fn largest_file_index(module: &str) -> u32 {
    module
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix(".file"))
        .filter_map(|rest| rest.split_whitespace().next()?.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
}

/// `module` with its source-file indices moved up by `offset` and its debug-string labels
/// made its own, for linking it after modules that declare the same ones.
///
/// A `.file` index is declared once in a module (PTX ISA 11.8.1, ".file"; ptxas: "Duplicate
/// file index"), and each translation unit nvcc compiles with `-lineinfo` numbers its files
/// from 1, so two units linked as they are declare `.file 1` twice (E0220). The index is
/// the first operand of `.file` and of `.loc` and the file of a `.loc`'s `inlined_at`
/// (11.8.2, ".loc": `.loc file_index line_number column_position`, `inlined_at file_index
/// line_number column_position`). `function_name` names a label of the module's
/// `.section .debug_str` (`$L__info_string0`...), which every unit names alike: module
/// `index`'s become `$L__info_string_m{index}_...`.
fn debug_names_moved(module: &str, offset: u32, index: usize) -> String {
    let moved = |number: &str| -> Option<String> {
        number
            .parse::<u32>()
            .ok()
            .map(|n| (n.saturating_add(offset)).to_string())
    };
    let mut out = String::with_capacity(module.len() + 64);
    for line in module.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let mut rewritten = None;
        for directive in [".file", ".loc"] {
            let Some(rest) = trimmed.strip_prefix(directive) else {
                continue;
            };
            let after = rest.trim_start();
            if rest.len() == after.len() {
                continue; // `.filesomething`: not the directive
            }
            let number_end = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            let Some(number) = moved(&after[..number_end]) else {
                continue;
            };
            let mut text = format!(
                "{indent}{directive}{}{number}{}",
                &rest[..rest.len() - after.len()],
                &after[number_end..]
            );
            if directive == ".loc"
                && let Some(at) = text.find("inlined_at")
            {
                let tail = &text[at + "inlined_at".len()..];
                let digits = tail.trim_start();
                let space = tail.len() - digits.len();
                let end = digits
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(digits.len());
                if let Some(file) = moved(&digits[..end]) {
                    let start = at + "inlined_at".len() + space;
                    text.replace_range(start..start + end, &file);
                }
            }
            rewritten = Some(text);
            break;
        }
        let line = rewritten.as_deref().unwrap_or(line);
        out.push_str(&line.replace("$L__info_string", &format!("$L__info_string_m{index}_")));
        out.push('\n');
    }
    out
}

/// The name a declaration line declares: the identifier before its first `(`, `[`, `;` or
/// `=`, past the directive and type words.
fn declared_name(line: &str) -> Option<String> {
    // `.func (.param .b32 r) name(` has its result in parentheses before the name: the name
    // comes after them.
    let line = match line.find(".func") {
        Some(at) => {
            let rest = line[at + ".func".len()..].trim_start();
            match rest
                .strip_prefix('(')
                .and_then(|inner| inner.split_once(')'))
            {
                Some((_, after)) => after,
                None => rest,
            }
        }
        None => line,
    };
    let cut = line.find(['(', '[', ';', '=', '{']).unwrap_or(line.len());
    let name = line[..cut].split_whitespace().last()?;
    (!name.starts_with('.')).then(|| name.to_string())
}

/// Checks the PTX `text` for the simulated target, as loading it would (and caches it, so
/// that loading it next costs a lookup): what `cuLinkComplete` does with the linked PTX
/// ([`crate::link`]).
pub fn check_text(text: &str) -> CallResult<()> {
    let mut state = state();
    checked(&mut state, text).map(|_| ())
}

/// A new handle number, unique among all the driver's handles (a `CUlinkState`).
pub fn new_handle() -> CallResult<u64> {
    let mut state = state();
    state.settings()?;
    Ok(state.handle())
}

/// Loads the module of `text` in `context`.
fn load_in(state: &mut State, context: u64, text: &str) -> CallResult<u64> {
    let module = checked(state, text)?;
    let bytes = module.globals_bytes();
    if bytes > ptxsim_exec::budget::DEFAULT_MEMORY_LIMIT {
        return Err(Failure::new(
            CudaError::OutOfMemory,
            format!(
                "the module's .global variables take {bytes} bytes, more than the {} bytes \
                 ptxsim gives a module's variables",
                ptxsim_exec::budget::DEFAULT_MEMORY_LIMIT
            ),
        ));
    }
    // The module's variables lie side by side in a GPU's mapped data segment: kernels may run
    // a little past one (docs/divergences.md, D51), as past an allocation (D40).
    let globals = module.globals_with_slack(state.settings()?.allocation_slack);
    // Every kernel of the module has the module's `.const` variables at the same addresses.
    let (constants, const_variables) = module
        .variables()
        .map(|program| (program.constants.clone(), program.const_variables.clone()))
        .unwrap_or_default();
    let handle = state.handle();
    state.modules.insert(
        handle,
        LoadedModule {
            context,
            module,
            globals,
            constants: Arc::new(constants),
            const_variables,
            library: None,
            managed: Vec::new(),
        },
    );
    Ok(handle)
}

/// `cuLibraryLoadData`: a library, a module not bound to a context (CUDA 12's context-free
/// loading, which the runtime uses for every fatbin it registers). Its PTX is checked now;
/// it is loaded into a context when a kernel, module or global of it is asked for there.
///
/// A fatbin without PTX ptxsim can run loads as an empty library whose kernels and globals
/// are `CUDA_ERROR_NO_BINARY_FOR_GPU` when asked for: as with lazy loading on a GPU
/// (`CUDA_MODULE_LOADING=LAZY`, the default), a program fails only if it uses such code.
/// Libraries built on the runtime load every fatbin they carry at start-up (cuBLAS, some of
/// whose fatbins are SASS only, while the kernels it launches carry PTX).
pub fn library_load(image: &[u8]) -> CallResult<u64> {
    let mut state = state();
    let text = ptx_text(&state, image);
    library_of(&mut state, text)
}

/// A library of the PTX `text`, or an empty one where the image has no PTX ptxsim can run
/// ([`library_load`]).
fn library_of(state: &mut State, text: CallResult<String>) -> CallResult<u64> {
    match text {
        Ok(text) => library_from_text(state, text, None),
        Err(failure) if failure.error == CudaError::NoBinaryForGpu => {
            let target = state.settings()?.target;
            let version = target
                .min_ptx_version()
                .map_or_else(|| "9.0".to_string(), |version| version.to_string());
            let empty = format!(".version {version}\n.target {target}\n.address_size 64\n");
            let why = failure
                .message
                .unwrap_or_else(|| "the fatbin has no PTX for the device".to_string());
            library_from_text(state, empty, Some(why))
        }
        Err(failure) => Err(failure),
    }
}

/// A library of the PTX `text` (`unavailable`: see [`Library::unavailable`]).
fn library_from_text(
    state: &mut State,
    text: String,
    unavailable: Option<String>,
) -> CallResult<u64> {
    let module = checked(state, &text)?;
    let handle = state.handle();
    state.libraries.insert(
        handle,
        Library {
            text,
            module,
            unavailable,
            loaded: HashMap::new(),
            managed: Vec::new(),
        },
    );
    Ok(handle)
}

impl Library {
    /// `CUDA_ERROR_NO_BINARY_FOR_GPU` for a library without code ptxsim can run.
    fn available(&self) -> CallResult<()> {
        match &self.unavailable {
            Some(why) => Err(Failure::new(CudaError::NoBinaryForGpu, why.clone())),
            None => Ok(()),
        }
    }
}

/// `cuLibraryUnload`: the library and its modules in every context.
pub fn library_unload(library: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    let removed = state
        .libraries
        .remove(&library)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    state.kernels.retain(|_, kernel| kernel.library != library);
    for module in removed.loaded.into_values() {
        state.modules.remove(&module);
        state.functions.retain(|_, f| f.module != module);
    }
    Ok(())
}

/// `cuLibraryGetKernel`: the kernel `name` of the library (a handle that names it in every
/// context; `cuLaunchKernel` and the `cuFunc*` calls accept it as a `CUfunction`).
pub fn library_get_kernel(library: u64, name: &str) -> CallResult<u64> {
    let mut state = state();
    state.settings()?;
    let found = state
        .libraries
        .get(&library)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    found.available()?;
    if found.module.program(name).is_err() {
        let available: Vec<&str> = found.module.kernels().collect();
        return Err(Failure::new(
            CudaError::NotFound,
            format!(
                "the library has no kernel `{name}` (its kernels: {})",
                available.join(", ")
            ),
        ));
    }
    if let Some((&handle, _)) = state
        .kernels
        .iter()
        .find(|(_, kernel)| kernel.library == library && kernel.entry == name)
    {
        return Ok(handle);
    }
    let handle = state.handle();
    state.kernels.insert(
        handle,
        Kernel {
            library,
            entry: name.to_string(),
        },
    );
    Ok(handle)
}

/// The names of the library's kernels (`cuLibraryGetKernelCount`, `cuLibraryEnumerateKernels`).
pub fn library_kernel_names(library: u64) -> CallResult<Vec<String>> {
    let state = state();
    state.settings()?;
    let found = state
        .libraries
        .get(&library)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    Ok(found.module.kernels().map(str::to_string).collect())
}

/// The library's module in the current context, loaded now if it is not yet
/// (`cuLibraryGetModule`).
pub fn library_get_module(library: u64) -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    library_module_in(&mut state, library, context)
}

/// The module of `library` in `context`, loaded if it is not yet.
fn library_module_in(state: &mut State, library: u64, context: u64) -> CallResult<u64> {
    let found = state
        .libraries
        .get(&library)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    found.available()?;
    if let Some(&module) = found.loaded.get(&context) {
        return Ok(module);
    }
    let text = found.text.clone();
    let module = load_in(state, context, &text)?;
    if let Some(found) = state.libraries.get_mut(&library) {
        found.loaded.insert(context, module);
    }
    if let Some(loaded) = state.modules.get_mut(&module) {
        loaded.library = Some(library);
    }
    Ok(module)
}

/// The function a `CUfunction` argument means in the current context: itself, or, for a
/// kernel handle of a library (`cuLibraryGetKernel`), that kernel in the current context
/// (`cuKernelGetFunction`), its library loaded there if it is not yet.
fn resolve_function(state: &mut State, handle: u64) -> CallResult<u64> {
    let Some(kernel) = state.kernels.get(&handle) else {
        return Ok(handle);
    };
    let (library, entry) = (kernel.library, kernel.entry.clone());
    let context = state.current()?;
    let module = library_module_in(state, library, context)?;
    if let Some((&function, _)) = state
        .functions
        .iter()
        .find(|(_, f)| f.module == module && f.entry == entry)
    {
        return Ok(function);
    }
    let function = state.handle();
    state.functions.insert(
        function,
        Function {
            module,
            entry,
            max_dynamic_shared: DEFAULT_DYNAMIC_SHARED,
        },
    );
    Ok(function)
}

/// The library kernel (`CUkernel`) that `function` is the function of in its context, if it
/// was reached through a library (the handle the runtime made the launch or node with).
pub fn function_kernel(function: u64) -> Option<u64> {
    let state = state();
    let function = state.functions.get(&function)?;
    state
        .kernels
        .iter()
        .find(|(_, kernel)| {
            kernel.entry == function.entry
                && state
                    .libraries
                    .get(&kernel.library)
                    .is_some_and(|library| library.loaded.values().any(|m| *m == function.module))
        })
        .map(|(handle, _)| *handle)
}

/// `cuKernelGetFunction`: the kernel in the current context.
pub fn kernel_get_function(kernel: u64) -> CallResult<u64> {
    let mut state = state();
    if !state.kernels.contains_key(&kernel) {
        return Err(CudaError::InvalidHandle.into());
    }
    resolve_function(&mut state, kernel)
}

/// The name of a kernel or function (`cuKernelGetName`, `cuFuncGetName`).
pub fn function_name(handle: u64) -> CallResult<String> {
    let state = state();
    state.settings()?;
    if let Some(kernel) = state.kernels.get(&handle) {
        return Ok(kernel.entry.clone());
    }
    let (function, _) = state.function(handle)?;
    Ok(function.entry.clone())
}

/// The address and size of the library's `.global` or `.const` variable `name` in the
/// current context (`cuLibraryGetGlobal`).
pub fn library_get_global(library: u64, name: &str) -> CallResult<(u64, u64)> {
    let module = library_get_module(library)?;
    module_get_global(module, name)
}

/// `cuLibraryGetManaged`: the address of the library's `__managed__` variable `name`, which
/// the host dereferences (`cuda.h`: "Returns a pointer to managed memory"); as with NVIDIA's
/// driver it needs no context (the runtime asks right after `cuLibraryLoadData`). The first
/// call makes host memory for it with `allocate` (managed memory, mapped for kernels) holding
/// the variable's initial bytes; launches of the library's kernels keep the two the same
/// ([`ManagedVariable`]), and `cuModuleGetGlobal`/`cuLibraryGetGlobal` give the same address.
/// A variable without `.attribute(.managed)` is `CUDA_ERROR_NOT_FOUND`, as is a name the
/// library lacks.
pub fn library_get_managed(
    library: u64,
    name: &str,
    allocate: impl FnOnce(u64) -> CallResult<u64>,
) -> CallResult<(u64, u64)> {
    let mut state = state();
    let found = state
        .libraries
        .get(&library)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    found.available()?;
    let variable = found
        .module
        .variables()
        .and_then(|program| program.globals.iter().find(|g| g.name == name).cloned());
    let Some(variable) = variable.filter(|variable| variable.managed) else {
        return Err(Failure::new(
            CudaError::NotFound,
            format!("the library has no __managed__ (.attribute(.managed)) variable `{name}`"),
        ));
    };
    if let Some(known) = found.managed.iter().find(|m| m.address == variable.address) {
        return Ok((known.host, known.size));
    }
    let host = allocate(variable.size.max(1))?;
    let mut bytes = variable.bytes.clone();
    bytes.resize(usize::try_from(variable.size).unwrap_or(0), 0);
    host_write(host, &bytes);
    if let Some(found) = state.libraries.get_mut(&library) {
        found.managed.push(ManagedVariable {
            address: variable.address,
            size: variable.size,
            host,
        });
    }
    Ok((host, variable.size))
}

/// `cuModuleGetGlobal`: [`module_get_global`], except that a `__managed__` variable
/// (`.attribute(.managed)`) is host memory that the host dereferences and
/// `cuPointerGetAttribute` reports as managed (cuda-samples' 7_libNVVM `uvmlite` reads its
/// host pointer): the library's ([`library_get_managed`]) for a module of a library, else the
/// module's own, made by `allocate` at the first call and kept in step by launches as for a
/// library.
pub fn module_get_managed(
    module: u64,
    name: &str,
    allocate: impl FnOnce(u64) -> CallResult<u64>,
) -> CallResult<(u64, u64)> {
    let mut state = state();
    let loaded = state.module(module)?;
    let variable = loaded
        .module
        .variables()
        .and_then(|program| program.globals.iter().find(|g| g.name == name).cloned());
    let Some(variable) = variable.filter(|variable| variable.managed) else {
        drop(state);
        return module_get_global(module, name);
    };
    if let Some(library) = loaded.library {
        drop(state);
        return library_get_managed(library, name, allocate);
    }
    if let Some(known) = loaded
        .managed
        .iter()
        .find(|m| m.address == variable.address)
    {
        return Ok((known.host, known.size));
    }
    let host = allocate(variable.size.max(1))?;
    let loaded = state
        .modules
        .get_mut(&module)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    let managed = ManagedVariable {
        address: variable.address,
        size: variable.size,
        host,
    };
    loaded.managed.push(managed);
    // The variable as the module holds it now (its initializer, or what kernels stored).
    sync_managed(&mut loaded.globals, &[managed], false);
    Ok((host, variable.size))
}

/// `cuModuleGetFunction`: the kernel `name` of the module; `CUDA_ERROR_NOT_FOUND` if it has
/// none of that name.
pub fn module_get_function(module: u64, name: &str) -> CallResult<u64> {
    let mut state = state();
    let loaded = state.module(module)?;
    if loaded.module.program(name).is_err() {
        let available: Vec<&str> = loaded.module.kernels().collect();
        return Err(Failure::new(
            CudaError::NotFound,
            format!(
                "the module has no kernel `{name}` (its kernels: {})",
                available.join(", ")
            ),
        ));
    }
    let handle = state.handle();
    state.functions.insert(
        handle,
        Function {
            module,
            entry: name.to_string(),
            max_dynamic_shared: DEFAULT_DYNAMIC_SHARED,
        },
    );
    Ok(handle)
}

/// `cuModuleGetGlobal`: the address and size of the module's `.global` or `.const` variable
/// `name`. A `.const` variable's address is its generic address (what `cvta.const` gives):
/// the host writes and reads it with `cuMemcpyHtoD`/`cuMemcpyDtoH`, and later launches of the
/// module's kernels see what it wrote.
pub fn module_get_global(module: u64, name: &str) -> CallResult<(u64, u64)> {
    let state = state();
    let loaded = state.module(module)?;
    let program = loaded.module.variables();
    let global = program
        .and_then(|program| program.globals.iter().find(|g| g.name == name))
        .map(|global| {
            // A `__managed__` variable the host has asked for: its host memory.
            let managed = match loaded.library.and_then(|l| state.libraries.get(&l)) {
                Some(library) => library.managed.iter(),
                None => loaded.managed.iter(),
            }
            .find(|m| m.address == global.address);
            match managed {
                Some(managed) => (managed.host, global.size),
                None => (global.address, global.size),
            }
        });
    let constant = || {
        loaded
            .const_variables
            .iter()
            .find(|c| c.name == name)
            .map(|c| (CONST_WINDOW + c.address, c.size))
    };
    global.or_else(constant).ok_or_else(|| {
        Failure::new(
            CudaError::NotFound,
            format!("the module has no .global or .const variable `{name}`"),
        )
    })
}

/// `cuModuleUnload`: the module and its kernels' handles.
pub fn module_unload(module: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    if state.modules.remove(&module).is_none() {
        return Err(CudaError::InvalidHandle.into());
    }
    state.functions.retain(|_, f| f.module != module);
    Ok(())
}

impl State {
    /// The memory of `device` when `bytes` more fit in its size (`PTXSIM_DEVICE_MEMORY`), else
    /// `CUDA_ERROR_OUT_OF_MEMORY` saying how much is in use; `what` names the request.
    fn memory_with_room(
        &mut self,
        device: i32,
        bytes: u64,
        what: &str,
    ) -> CallResult<&mut DeviceMemory> {
        let limit = self.settings()?.device_memory;
        // Physical allocations of cuMemCreate count too.
        let mapped = self.vmm.bytes_on(device);
        let memory = self
            .memory
            .get_mut(usize::try_from(device).unwrap_or(usize::MAX))
            .ok_or(Failure::from(CudaError::InvalidDevice))?;
        let used = memory.allocated_bytes() + mapped;
        if used.saturating_add(bytes) > limit {
            return Err(Failure::new(
                CudaError::OutOfMemory,
                format!(
                    "{what}, {used} of {limit} of device {device} in use (PTXSIM_DEVICE_MEMORY)"
                ),
            ));
        }
        Ok(memory)
    }
}

/// `cuMemAlloc`: `bytes` zeroed bytes of device memory.
pub fn memory_allocate(bytes: u64) -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    if bytes == 0 {
        return Err(Failure::new(CudaError::InvalidValue, "a size of 0 bytes"));
    }
    let device = state.device_of(context)?;
    let memory = state.memory_with_room(device, bytes, &format!("{bytes} bytes asked for"))?;
    let address = memory
        .allocate(format!("cuMemAlloc of {bytes} bytes"), bytes)
        .ok_or(Failure::from(CudaError::OutOfMemory))?;
    state.owners.insert(address, context);
    Ok(address)
}

/// Whether `address` is in device memory as a unified-addressing copy (`cuMemcpy`) sees it: a
/// device allocation, a module's `.global` variable or its `.const` window. Anything else is a
/// host address (managed and pinned memory included: the host reaches it directly).
pub fn is_device_address(address: u64) -> bool {
    let state = state();
    state.allocation(address).is_some()
        || state.vmm.reserved(address)
        || (CONST_WINDOW..CONST_WINDOW + (1 << 32)).contains(&address)
        || state
            .modules
            .values()
            .any(|module| module.globals.find(address).is_some())
}

/// The resident CTAs of `function` per multiprocessor with `block` threads each and
/// `dynamic_shared` bytes of dynamic shared memory (`cuOccupancyMaxActiveBlocksPerMultiprocessor`),
/// with an H100's limits: 2048 threads (in whole warps), 32 CTAs, 228 KiB of shared memory
/// (1 KiB of it reserved per CTA). Registers are not modelled (PTX's virtual registers say
/// nothing of the machine's). 0 where one CTA does not fit, or the block is larger than the
/// kernel's `.maxntid` allows.
pub fn occupancy(function: u64, block: i32, dynamic_shared: u64) -> CallResult<i32> {
    let mut state = state();
    let function = resolve_function(&mut state, function)?;
    let (function, loaded) = state.function(function)?;
    let program = loaded
        .module
        .program(&function.entry)
        .map_err(|error| Failure::new(CudaError::InvalidHandle, error.to_string()))?;
    let block = u64::try_from(block)
        .ok()
        .filter(|&b| (1..=1024).contains(&b))
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, format!("block size {block}")))?;
    // A block larger than the kernel's `.maxntid` cannot be launched ([`check_configuration`]).
    if program
        .max_threads
        .is_some_and(|most| block > u64::from(most))
    {
        return Ok(0);
    }
    let warps = block.div_ceil(32);
    let by_threads = 2048 / (warps * 32);
    let shared = program.shared_bytes + dynamic_shared + 1024;
    let by_shared = (228 * 1024) / shared;
    let blocks = by_threads.min(by_shared).min(32);
    Ok(i32::try_from(blocks).unwrap_or(0))
}

/// The cluster shape `function` requires (`.reqnctapercluster`), if any.
pub fn required_cluster(function: u64) -> CallResult<Option<[u32; 3]>> {
    let mut state = state();
    let function = resolve_function(&mut state, function)?;
    let (function, loaded) = state.function(function)?;
    let program = loaded
        .module
        .program(&function.entry)
        .map_err(|error| Failure::new(CudaError::InvalidHandle, error.to_string()))?;
    Ok(program.cluster.required)
}

/// `cuFuncGetModule`: the module of a function (or of a library kernel in the current
/// context).
pub fn function_module(function: u64) -> CallResult<u64> {
    let mut state = state();
    let function = resolve_function(&mut state, function)?;
    let (function, _) = state.function(function)?;
    Ok(function.module)
}

/// `cuMemFree`: the allocation at `address` (its start; 0 does nothing).
pub fn memory_free(address: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    if address == 0 {
        return Ok(());
    }
    if state.owners.remove(&address).is_none() {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{address:#x} is not the start of a device allocation"),
        ));
    }
    for memory in &mut state.memory {
        memory.free(address);
    }
    graph::released(&mut state, address);
    Ok(())
}

/// `cuMemGetInfo`: free and total memory of the current context's device.
pub fn memory_info() -> CallResult<(u64, u64)> {
    let state = state();
    let context = state.current()?;
    let total = state.settings()?.device_memory;
    let device = state.device_of(context)?;
    let used = state
        .memory
        .get(usize::try_from(device).unwrap_or(usize::MAX))
        .map_or(0, DeviceMemory::allocated_bytes)
        + state.vmm.bytes_on(device);
    Ok((total.saturating_sub(used), total))
}

/// `cuMemcpyHtoD` (copying no bytes does nothing).
pub fn copy_to_device(destination: u64, bytes: &[u8]) -> CallResult<()> {
    let mut state = state();
    if bytes.is_empty() {
        return state.current().map(|_| ());
    }
    if let Some((module, offset)) = state.constant_at(destination, bytes.len())? {
        if let Some(loaded) = state.modules.get_mut(&module) {
            let constants = Arc::make_mut(&mut loaded.constants);
            constants[offset..offset + bytes.len()].copy_from_slice(bytes);
        }
        return Ok(());
    }
    let memory = match state.memory_at(destination, bytes.len()) {
        Ok(memory) => memory,
        Err(_) if host_write(destination, bytes) => return Ok(()),
        Err(failure) => return Err(failure),
    };
    memory
        .write(destination, bytes)
        .map_err(|fault| Failure::new(CudaError::InvalidValue, fault.describe()))
}

/// `cuMemcpyDtoH` (copying no bytes does nothing).
pub fn copy_from_device(out: &mut [u8], source: u64) -> CallResult<()> {
    let mut state = state();
    if out.is_empty() {
        return state.current().map(|_| ());
    }
    if let Some((module, offset)) = state.constant_at(source, out.len())? {
        if let Some(loaded) = state.modules.get(&module) {
            out.copy_from_slice(&loaded.constants[offset..offset + out.len()]);
        }
        return Ok(());
    }
    let memory = match state.memory_at(source, out.len()) {
        Ok(memory) => memory,
        Err(_) if host_read(source, out) => return Ok(()),
        Err(failure) => return Err(failure),
    };
    memory
        .read(source, out)
        .map_err(|fault| Failure::new(CudaError::InvalidValue, fault.describe()))
}

/// `cuMemcpyDtoD` (the ranges may overlap).
pub fn copy_on_device(destination: u64, source: u64, bytes: u64) -> CallResult<()> {
    let len = usize::try_from(bytes).map_err(|_| Failure::from(CudaError::InvalidValue))?;
    let mut staging = vec![0u8; len];
    copy_from_device(&mut staging, source)?;
    copy_to_device(destination, &staging)
}

/// `cuMemcpyPeer`: `bytes` from `source` (in `source_context`) to `destination` (in
/// `destination_context`). Addresses are unified, so this is `cuMemcpyDtoD` once both contexts
/// are checked.
pub fn copy_peer(
    destination: u64,
    destination_context: u64,
    source: u64,
    source_context: u64,
    bytes: u64,
) -> CallResult<()> {
    peer_contexts(destination_context, source_context)?;
    copy_on_device(destination, source, bytes)
}

/// Checks the two contexts of a peer copy (`cuMemcpyPeer`, `cuMemcpy3DPeer`): there is a
/// current context and both are usable. (Addresses are unique across devices, so the copy
/// itself needs no context.)
pub fn peer_contexts(destination_context: u64, source_context: u64) -> CallResult<()> {
    let state = state();
    state.current()?;
    state.usable(destination_context)?;
    state.usable(source_context)
}

/// `cuMemsetD8/D16/D32`: `count` copies of `pattern` from `destination`.
pub fn memory_set(destination: u64, pattern: &[u8], count: u64) -> CallResult<()> {
    if destination % pattern.len() as u64 != 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{destination:#x} is not aligned to {} bytes", pattern.len()),
        ));
    }
    let len = usize::try_from(count)
        .ok()
        .and_then(|count| count.checked_mul(pattern.len()))
        .ok_or(Failure::from(CudaError::InvalidValue))?;
    let bytes: Vec<u8> = pattern.iter().copied().cycle().take(len).collect();
    copy_to_device(destination, &bytes)
}

/// `cuMemsetD2D8` / `16` / `32` (and a graph's memset node): `height` rows of `width`
/// elements of `pattern`, each row `pitch` bytes after the one before; each row must lie in
/// one allocation.
pub fn memory_set_2d(
    destination: u64,
    pattern: &[u8],
    width: u64,
    height: u64,
    pitch: u64,
) -> CallResult<()> {
    for row in 0..height {
        let start = row
            .checked_mul(pitch)
            .and_then(|offset| destination.checked_add(offset))
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, "the rows overflow"))?;
        memory_set(start, pattern, width)?;
    }
    Ok(())
}

/// The parameters of a kernel: each one's offset and size, and the size of the parameter
/// space (what `kernelParams` and `extra` provide).
pub fn parameters(function: u64) -> CallResult<(Vec<(usize, usize)>, usize)> {
    let mut state = state();
    let function = resolve_function(&mut state, function)?;
    let (function, loaded) = state.function(function)?;
    let program = loaded
        .module
        .program(&function.entry)
        .map_err(|error| Failure::new(CudaError::InvalidHandle, error.to_string()))?;
    let size = |bytes: u64| usize::try_from(bytes).unwrap_or(usize::MAX);
    let layout = program
        .params
        .iter()
        .map(|param| (size(param.offset), size(param.bytes)))
        .collect();
    Ok((layout, size(program.param_bytes)))
}

/// A launch as `cuLaunchKernel` describes it, its parameter space assembled.
#[derive(Clone, Copy, Debug)]
pub struct Launch<'a> {
    /// The kernel.
    pub function: u64,
    /// CTAs, x y z.
    pub grid: [u32; 3],
    /// Threads per CTA, x y z.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per CTA.
    pub dynamic_shared: u32,
    /// The stream.
    pub stream: u64,
    /// The kernel parameter space.
    pub params: &'a [u8],
    /// A cooperative launch (`cuLaunchCooperativeKernel`): every CTA resident at once, so that
    /// the grid may synchronize (`LaunchOptions::cooperative`).
    pub cooperative: bool,
    /// The thread-block cluster shape (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`,
    /// `LaunchOptions::cluster`); `None`: the kernel's own.
    pub cluster: Option<[u32; 3]>,
}

impl Launch<'_> {
    /// The kernel node of this launch (its parameters copied), for stream capture.
    pub fn node(&self) -> GraphNode {
        GraphNode::Kernel {
            function: self.function,
            grid: self.grid,
            block: self.block,
            dynamic_shared: self.dynamic_shared,
            params: self.params.to_vec(),
        }
    }
}

/// Whether the CUDA runtime runs in this process: it asked for its private export tables
/// ([`note_runtime`]).
static RUNTIME_PRESENT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Notes that the CUDA runtime (libcudart) runs in this process: called when it asks for its
/// private interface (`cuGetExportTable`), which only the runtime does.
pub fn note_runtime() {
    RUNTIME_PRESENT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The failure of a launch whose shape no GPU takes (a block of more than 1024 threads or past
/// 1024 x 1024 x 64, a grid past 2^31 - 1 x 65535 x 65535, a zero dimension).
///
/// To a driver-API caller NVIDIA's `cuLaunchKernel` answers `CUDA_ERROR_INVALID_VALUE`
/// (pycuda's "cuLaunchKernel failed: invalid argument" for a grid of 93,288 along z,
/// tinygrad#625; Halide's `cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE` for a bad block
/// size). A program built with the CUDA runtime gets `cudaErrorInvalidConfiguration` (9,
/// "invalid configuration argument": llama.cpp#3740's `cudaLaunchKernel returned (0x9)` for
/// too many threads, mlx#2267's for 65,536 blocks along y). The CUDA 13 static runtime does
/// not check the shape itself: it calls `cuLaunchKernel` with it (`PTXSIM_LOG=calls`), and
/// it hands every driver result on as the `cudaError_t` of the same number (measured: a
/// `cuLaunchKernel` made to return each of 1 to 1000 gives that number from
/// `cudaGetLastError`). So the driver returns 9 to the runtime, a value `cuda.h` does not
/// name; this library does that where the runtime runs in the process ([`note_runtime`]),
/// and `CUDA_ERROR_INVALID_VALUE` elsewhere.
fn configuration_error(message: String) -> Failure {
    let error = if RUNTIME_PRESENT.load(std::sync::atomic::Ordering::Relaxed) {
        CudaError::InvalidConfiguration
    } else {
        CudaError::InvalidValue
    };
    Failure::new(error, message)
}

/// Checks a launch's shape before it is run, kept (a created stream's launch runs later) or
/// captured: an impossible shape is [`configuration_error`], a block of more threads than the
/// kernel's `.maxntid` or `.reqntid` allows (`__launch_bounds__`; `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`,
/// "the maximum number of threads per block, beyond which a launch of the function would
/// fail", `cuda.h`) is `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`, the result NVIDIA's driver gives
/// a block larger than a kernel's limit (numba-cuda-mlir#167, Enzyme-JAX#2895: "too many
/// resources requested for launch").
pub fn check_configuration(launch: &Launch<'_>) -> CallResult<()> {
    if let Err(error) = ptxsim_exec::grid::check_shape(launch.grid, launch.block) {
        return Err(configuration_error(error.to_string()));
    }
    let mut state = state();
    // A handle that does not resolve is reported by the launch itself.
    let Ok(function) = resolve_function(&mut state, launch.function) else {
        return Ok(());
    };
    let Ok((function, loaded)) = state.function(function) else {
        return Ok(());
    };
    let limit = loaded
        .module
        .program(&function.entry)
        .ok()
        .and_then(|program| program.max_threads);
    let threads: u64 = launch.block.iter().map(|&d| u64::from(d)).product();
    match limit {
        Some(limit) if threads > u64::from(limit) => Err(Failure::new(
            CudaError::LaunchOutOfResources,
            format!(
                "a block of {threads} threads, more than the {limit} of kernel `{}`'s \
                 .maxntid/.reqntid (__launch_bounds__)",
                function.entry
            ),
        )),
        _ => Ok(()),
    }
}

/// `cuLaunchKernel`: runs the kernel to completion. A fault of the kernel is a sticky error
/// of the context, with the faulting instruction's line and column in the message.
pub fn launch(launch: &Launch<'_>) -> CallResult<()> {
    launch_on(launch, false)
}

/// A kernel node of a CUDA graph (`cuGraphLaunch`): as [`launch`], but the kernel runs on its
/// own context, which need not be the current one: a graph may hold kernels of several
/// devices (tinygrad's graphs of multi-device tensors do), each running on its device.
pub fn launch_node(launch: &Launch<'_>) -> CallResult<()> {
    launch_on(launch, true)
}

/// [`launch`] (`own_context` false: the kernel must belong to the current context) or
/// [`launch_node`] (true: it runs on the context of its module).
fn launch_on(launch: &Launch<'_>, own_context: bool) -> CallResult<()> {
    let mut state = state();
    // A graph's node or a deferred launch runs on its kernel's context, whichever thread (with
    // whichever current context, if any) runs it.
    let current = if own_context {
        None
    } else {
        Some(state.current()?)
    };
    // A graph's node or a deferred launch had its stream checked when it was queued, and runs
    // even if the stream was destroyed since: "the resources associated with hStream will be
    // released automatically once the device has completed all work in hStream" (cuda.h,
    // cuStreamDestroy). Another thread may destroy the stream while this one runs the launches
    // kept before ([`run_deferred`] takes them all at once).
    if !own_context {
        state.stream(launch.stream)?;
    }
    let function = resolve_function(&mut state, launch.function)?;
    let (function, loaded) = state.function(function)?;
    if Some(loaded.context) != current && !own_context {
        return Err(Failure::new(
            CudaError::InvalidContext,
            "the kernel belongs to another context",
        ));
    }
    let context = loaded.context;
    let dynamic_shared = u64::from(launch.dynamic_shared);
    if dynamic_shared > function.max_dynamic_shared {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "{dynamic_shared} bytes of dynamic shared memory, more than the kernel's limit \
                 of {} (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                function.max_dynamic_shared
            ),
        ));
    }
    let entry = function.entry.clone();
    let module_handle = function.module;
    let settings = state.settings()?;
    let (trace_directory, trace_format) = (settings.trace_directory.clone(), settings.trace_format);
    let debug = settings.debug.clone();
    let engine = settings.engine;
    // A launch on several host threads starts a thread pool (a few hundred microseconds); one
    // CTA runs on the calling thread.
    let ctas: u64 = launch.grid.iter().map(|&d| u64::from(d)).product();
    let options = LaunchOptions {
        dynamic_shared,
        max_steps: settings.max_steps,
        host_threads: if ctas == 1 { 1 } else { settings.host_threads },
        // Nothing shows a launch's registers here (a debugged launch runs on its own).
        commuting_atomics_in_parallel: true,
        cooperative: launch.cooperative,
        // A grid whose CTAs wait for each other runs as a GPU runs it (`grid::make_interleaved`).
        interleave: true,
        cluster: launch.cluster,
        // The simulated GPU's tensor cores unless PTXSIM_DEVICE names others: also for a
        // module checked as its own `.target` (`as_own_target`),
        // which on the GPU runs with the GPU's arithmetic.
        tensor_cores: Some(
            settings
                .tensor_cores
                .unwrap_or_else(|| TensorCores::of_target(settings.target)),
        ),
        // The compiled tier, kernel by kernel, kept with the module (traced and cooperative
        // launches run in the interpreter whatever it says).
        compiler: ptxsim_jit::JitCompiler::for_engine(settings.engine),
        // Managed, pinned and registered host memory, at its host addresses.
        host_memory: (!host_ranges().is_empty())
            .then(|| HOST_BACKEND.get().cloned())
            .flatten(),
        ..LaunchOptions::default()
    };
    // The memory of the context's device, and of the devices of the peer contexts it enabled.
    let reachable: HashSet<i32> = {
        let current = state
            .contexts
            .get(&context)
            .ok_or(Failure::from(CudaError::InvalidContext))?;
        let peers = current.peers.iter();
        std::iter::once(current.device)
            .chain(peers.filter_map(|peer| state.contexts.get(peer).map(|c| c.device)))
            .collect()
    };
    let device = state.device_of(context)?;
    let State {
        modules,
        memory,
        contexts,
        vmm,
        libraries,
        ..
    } = &mut *state;
    let mut memories: Vec<&mut DeviceMemory> = memory
        .iter_mut()
        .enumerate()
        .filter(|(device, _)| i32::try_from(*device).is_ok_and(|d| reachable.contains(&d)))
        .map(|(_, memory)| memory)
        .collect();
    let Some(loaded) = modules.get_mut(&module_handle) else {
        return Err(CudaError::InvalidHandle.into());
    };
    let module = Arc::clone(&loaded.module);
    // The module's `.const` space as the host wrote it (every kernel of the module has the
    // same one).
    let same_size = module
        .program(&entry)
        .is_ok_and(|program| program.constants.len() == loaded.constants.len());
    let options = LaunchOptions {
        constants: (same_size && !loaded.constants.is_empty())
            .then(|| Arc::clone(&loaded.constants)),
        // Texture and surface objects (crate::texture).
        textures: crate::texture::table(),
        ..options
    };
    // `__managed__` variables as the host left them.
    let managed = match loaded.library.and_then(|library| libraries.get(&library)) {
        Some(library) => library.managed.clone(),
        None => loaded.managed.clone(),
    };
    sync_managed(&mut loaded.globals, &managed, true);
    memories.push(&mut loaded.globals);
    // The mappings the device was granted access to (cuMemSetAccess).
    if let Some(view) = vmm.view_of(device) {
        memories.push(view);
    }
    // The context's device heap: made by the first kernel that calls malloc or free, then
    // reachable by every kernel (a pointer to heap memory may be handed to any of them).
    let mut options = options;
    let uses_heap = module
        .program(&entry)
        .is_ok_and(|program| program.uses_heap);
    if let Some(context) = contexts.get_mut(&context) {
        if uses_heap && context.heap.is_none() {
            let bytes = context
                .limits
                .get(&LIMIT_MALLOC_HEAP_SIZE)
                .copied()
                .unwrap_or(ptxsim_exec::runtime::HEAP_BYTES)
                .max(ptxsim_exec::runtime::HEAP_ALIGN);
            context.heap = Some((
                DeviceMemory::heap_of(bytes),
                Arc::new(ptxsim_exec::runtime::Heap::with_capacity(bytes)),
            ));
        }
        if let Some((heap_memory, heap)) = &mut context.heap {
            options.heap = Some(Arc::clone(heap));
            memories.push(heap_memory);
        }
    }
    let index = LAUNCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Some(request) = &debug {
        let first = DEBUG_SEEN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(entry.clone());
        if request.matches(&entry, index, first) {
            flush_device_output();
            let shared: Vec<&DeviceMemory> = memories.iter().map(|memory| &**memory).collect();
            let stop = crate::debug::Stop {
                module: &module,
                entry: &entry,
                shape: (launch.grid, launch.block),
                params: launch.params,
                options: &options,
            };
            crate::debug::session(&stop, &shared);
        }
    }
    let extension = match trace_format {
        ptxsim_trace::Format::Jsonl => "jsonl",
        ptxsim_trace::Format::Text => "txt",
    };
    let profiled = module.program(&entry).ok().filter(|_| *LOG_PROFILE);
    let profile = profiled.map(|program| {
        Arc::new(ptxsim_exec::compiled::Profile::new(
            program.instructions.len(),
        ))
    });
    let options = LaunchOptions {
        profile: profile.clone(),
        ..options
    };
    let trace = trace_file(trace_directory.as_deref(), index, &entry, extension);
    let traced = trace.is_some();
    let compiled_before = module.compiled_state(&entry, launch.block);
    let started = std::time::Instant::now();
    let result = match trace {
        Some((path, file)) => {
            let mut writer = std::io::BufWriter::new(file);
            let mut failed = false;
            let mut sink = |line: ptxsim_trace::Line| {
                if !failed {
                    let text = trace_format.write(&line);
                    failed = writeln!(writer, "{text}").is_err();
                }
            };
            let result = module.launch_in_traced(
                &entry,
                launch.grid,
                launch.block,
                launch.params,
                &mut memories,
                &options,
                &mut sink,
            );
            if failed || writer.flush().is_err() {
                let _ = writeln!(
                    std::io::stderr(),
                    "ptxsim: PTXSIM_TRACE: writing `{}` failed",
                    path.display()
                );
            }
            result
        }
        None => module.launch_in(
            &entry,
            launch.grid,
            launch.block,
            launch.params,
            &mut memories,
            &options,
        ),
    };
    if *LOG_LAUNCHES {
        let launched = Launched {
            index,
            entry: &entry,
            shape: (launch.grid, launch.block),
            engine: launch_engine(&module, &entry, launch, (engine, compiled_before), traced),
            seconds: started.elapsed().as_secs_f64(),
        };
        log_launch(&launched, &result);
    }
    if let (Some(program), Some(profile), Ok(report)) = (profiled, &profile, &result) {
        let line = profile_line(index, &entry, program, profile, report.steps);
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    // The kernel's stores to `__managed__` variables, for the host.
    if let Some(loaded) = modules.get_mut(&module_handle) {
        sync_managed(&mut loaded.globals, &managed, false);
    }
    let failure = match result {
        Ok(report) => {
            print_device_output(&report.printed_bytes());
            return Ok(());
        }
        Err(error) => {
            let printed: Vec<u8> = error
                .printed()
                .iter()
                .flat_map(|p| p.bytes.clone())
                .collect();
            print_device_output(&printed);
            launch_failure(&entry, error)
        }
    };
    if failure.error.is_sticky() {
        if let Some(context) = state.contexts.get_mut(&context) {
            context.sticky = Some(failure.error);
            // A kernel's fault is reported as a GPU reports it: the launch itself succeeds
            // (the kernel runs after the call returns), and the next call of the context, a
            // synchronization, returns the sticky error ("Kernel launches are asynchronous
            // ... errors are reported by a later call", CUDA C++ Programming Guide, "Error
            // Checking"). What went wrong, and where, is on stderr now.
            let _ = writeln!(
                std::io::stderr(),
                "ptxsim: kernel launch: {}: {}",
                failure.error.name().to_string_lossy(),
                failure.message.as_deref().unwrap_or("")
            );
            return Ok(());
        }
    }
    Err(failure)
}

/// Whether `PTXSIM_LOG` asks for a line per kernel launch on stderr (`PTXSIM_LOG=launches`).
static LOG_LAUNCHES: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
    std::env::var("PTXSIM_LOG").is_ok_and(|value| value.split(',').any(|part| part == "launches"))
});

/// Whether `PTXSIM_LOG` asks for a profile line per kernel launch on stderr
/// (`PTXSIM_LOG=profile`): the instructions the compiled tier ran and those the interpreter
/// issued, and the instructions that took most of the interpreter's issues and made compiled
/// code hand threads back ([`ptxsim_exec::compiled::Profile`]).
static LOG_PROFILE: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
    std::env::var("PTXSIM_LOG").is_ok_and(|value| value.split(',').any(|part| part == "profile"))
});

/// The profile line of launch `index` of `entry` (`PTXSIM_LOG=profile`): `steps` instructions
/// in all, the share the interpreter issued, and the opcodes (as written, with their
/// modifiers) with the most interpreted issues and the most hand-backs, three each.
fn profile_line(
    index: u64,
    entry: &str,
    program: &ptxsim_exec::Program,
    profile: &ptxsim_exec::compiled::Profile,
    steps: u64,
) -> String {
    let (interpreted, handed_back) = profile.counts();
    let top = |counts: &[u64]| {
        let mut by_opcode: HashMap<&str, u64> = HashMap::new();
        for (instruction, &count) in program.instructions.iter().zip(counts) {
            if count > 0 {
                let opcode = instruction
                    .text
                    .split_whitespace()
                    .find(|word| !word.starts_with('@'))
                    .unwrap_or("");
                *by_opcode.entry(opcode).or_default() += count;
            }
        }
        let mut sorted: Vec<(&str, u64)> = by_opcode.into_iter().collect();
        sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        sorted
            .iter()
            .take(3)
            .map(|(opcode, count)| format!("{opcode} {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let issued: u64 = interpreted.iter().sum();
    let share = 100.0 * issued as f64 / steps.max(1) as f64;
    format!(
        "ptxsim: profile of launch {index} `{entry}`: {steps} instructions, {issued} interpreted \
         ({share:.1}%); most interpreted: [{}]; handed back by compiled code at: [{}]",
        top(&interpreted),
        top(&handed_back)
    )
}

/// One finished launch, for [`log_launch`]./// One finished launch, for [`log_launch`].
struct Launched<'a> {
    /// The launch's index in the process (as in `PTXSIM_TRACE`'s file names).
    index: u64,
    entry: &'a str,
    /// Grid and CTA shape.
    shape: ([u32; 3], [u32; 3]),
    /// Which tier ran it, and why ([`launch_engine`]).
    engine: String,
    /// Host wall time of the launch.
    seconds: f64,
}

/// Which tier ran a launch of `entry`, in words: `compiled`, or `interpreter (WHY)`.
/// `compiled_before` is whether the kernel was compiled before the launch
/// ([`Module::compiled_state`]): `auto` may compile it while the launch runs.
fn launch_engine(
    module: &Module,
    entry: &str,
    launch: &Launch<'_>,
    (engine, compiled_before): (ptxsim_jit::Engine, Option<bool>),
    traced: bool,
) -> String {
    use ptxsim_jit::Engine;
    let kept = module
        .program(entry)
        .ok()
        .filter(|_| engine == Engine::Auto)
        .and_then(ptxsim_jit::keeps_interpreter);
    let why = match (module.compiled_state(entry, launch.block), kept) {
        (Some(true), _) if !traced && !launch.cooperative && compiled_before == Some(true) => {
            return match module.program(entry) {
                Ok(program) => format!("compiled ({})", ptxsim_jit::strategy(program)),
                Err(_) => "compiled".into(),
            };
        }
        (Some(true), _) if !traced && !launch.cooperative => {
            return "interpreter, then compiled (the instructions it issued made it worth \
                    compiling)"
                .into();
        }
        _ if engine == Engine::Interp => "PTXSIM_ENGINE=interp",
        _ if traced => "traced",
        _ if launch.cooperative => "cooperative",
        (_, Some(reason)) => reason,
        (Some(_), None) => {
            "the compiled tier declined it: it cannot compile it, or its threads hand values \
             through shared memory without a barrier"
        }
        (None, None) => {
            "its launches so far are small: below 2^22 instructions (threads x instructions, or as issued)"
        }
    };
    format!("interpreter ({why})")
}

/// Prints a line on stderr for a finished launch (`PTXSIM_LOG=launches`): index, kernel, shape,
/// instructions, CTAs, wall time, tier, and the failure if it failed.
fn log_launch(launched: &Launched<'_>, result: &Result<ptxsim_exec::api::LaunchReport, ApiError>) {
    let ([gx, gy, gz], [bx, by, bz]) = launched.shape;
    let outcome = match result {
        Ok(report) => format!(
            "{} instructions in {} CTAs, {:.3} ms ({:.1} M instructions/s)",
            report.steps,
            report.ctas,
            launched.seconds * 1e3,
            report.steps as f64 / launched.seconds.max(1e-9) / 1e6
        ),
        Err(error) => format!("failed after {:.3} ms: {error}", launched.seconds * 1e3),
    };
    let _ = writeln!(
        std::io::stderr(),
        "ptxsim: launch {} `{}` grid ({gx}, {gy}, {gz}) block ({bx}, {by}, {bz}): {outcome}; {}",
        launched.index,
        launched.entry,
        launched.engine
    );
}

/// A kernel launch on a stream made by `cuStreamCreate`, kept until the next driver call that
/// needs its results ([`defer`], [`run_deferred`]).
struct Deferred {
    function: u64,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared: u32,
    stream: u64,
    params: Vec<u8>,
}

/// The launches [`defer`] keeps, in launch order (all streams, all threads).
static DEFERRED: Mutex<Vec<Deferred>> = Mutex::new(Vec::new());

/// Whether launches on created streams are deferred: yes unless
/// `PTXSIM_STREAMS=synchronous`.
static DEFER_LAUNCHES: LazyLock<bool> =
    LazyLock::new(|| !std::env::var("PTXSIM_STREAMS").is_ok_and(|v| v == "synchronous"));

/// Whether a launch on `stream` waits in [`DEFERRED`]: a stream the program made, not the
/// default stream, as "Kernel launches are asynchronous" (CUDA C++ Programming Guide,
/// "Asynchronous Concurrent Execution") lets the host go on, and a kernel launched into a
/// stream may wait for the host to write memory it reads (cuda-samples' UnifiedMemoryPerf
/// launches `spinWhileLessThanOne` and sets the latch after queueing more work).
pub fn defers(stream: u64) -> bool {
    stream >= FIRST_HANDLE && *DEFER_LAUNCHES
}

/// How many launches [`DEFERRED`] keeps at most. A GPU's launch queue is finite too: a host
/// thread that launches faster than the GPU runs its kernels waits in the launch call once the
/// queue is full (cuda-samples' and the developer blog's programs that launch from host threads
/// in a loop until another thread tells them to stop rely on it: without a bound the queue
/// grows for as long as the program runs, and the call that finally runs it takes as long).
/// The depth is ptxsim's ([divergences.md](../../../docs/divergences.md), D68).
pub const DEFERRED_LIMIT: usize = 1024;

/// Keeps `launch` (on a created stream) until the next call that is not one of
/// [`DEFERRING_CALLS`]: it then runs, before that call, in launch order with the others kept.
/// The stream and the context are checked now. When [`DEFERRED_LIMIT`] launches are kept
/// already, they run first, in this call, as a full launch queue holds the launching thread.
pub fn defer(launch: &Launch<'_>) -> CallResult<()> {
    if DEFERRED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .len()
        >= DEFERRED_LIMIT
    {
        run_deferred()?;
    }
    // A kernel of a library (`CUkernel`) is its module in the current context, now.
    let function = {
        let mut state = state();
        state.current()?;
        state.stream(launch.stream)?;
        resolve_function(&mut state, launch.function)?
    };
    DEFERRED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Deferred {
            function,
            grid: launch.grid,
            block: launch.block,
            dynamic_shared: launch.dynamic_shared,
            stream: launch.stream,
            params: launch.params.to_vec(),
        });
    Ok(())
}

/// The driver calls that leave deferred launches waiting: more launches and the calls that
/// only queue hints (prefetches, attaching managed memory) or that the CUDA runtime makes on
/// each of its calls (its per-context storage).
pub const DEFERRING_CALLS: &[&str] = &[
    "cuLaunchKernel",
    "cuMemPrefetchAsync",
    "cuMemPrefetchAsync_v2",
    "cuStreamAttachMemAsync",
    "cuGetErrorName",
    "cuGetErrorString",
    "cudart: context storage get",
];

/// Runs the deferred launches, in launch order, each on the context of its kernel. The first
/// failure that is not already the context's sticky error is returned (the call that ran them
/// reports it, as a later call reports an asynchronous launch's error on a GPU).
pub fn run_deferred() -> CallResult<()> {
    let pending = std::mem::take(&mut *DEFERRED.lock().unwrap_or_else(PoisonError::into_inner));
    let mut first = None;
    for deferred in pending {
        let launch = Launch {
            function: deferred.function,
            grid: deferred.grid,
            block: deferred.block,
            dynamic_shared: deferred.dynamic_shared,
            stream: deferred.stream,
            params: &deferred.params,
            cooperative: false,
            cluster: None,
        };
        if let Err(failure) = launch_on(&launch, true) {
            first.get_or_insert(failure);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Launches so far in this process (all contexts): each traced launch's index.
static LAUNCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The kernels launched so far, where `PTXSIM_DEBUG` is set (to find a kernel's first launch).
static DEBUG_SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The trace file of launch `index` of kernel `entry` in `directory` (`PTXSIM_TRACE`):
/// `NNNNNN-ENTRY.jsonl` (or `.txt` in the text form), the launch index counting every launch of
/// the process from 0, so that a program's traces sort in launch order and two runs of the
/// same program write the same names (`ptxsim trace-diff` compares them). `None` (with a
/// message on stderr) where the directory or file cannot be made: the launch runs untraced.
fn trace_file(
    directory: Option<&std::path::Path>,
    index: u64,
    entry: &str,
    extension: &str,
) -> Option<(std::path::PathBuf, std::fs::File)> {
    let directory = directory?;
    let name: String = entry
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(200)
        .collect();
    let path = directory.join(format!("{index:06}-{name}.{extension}"));
    let made = std::fs::create_dir_all(directory).and_then(|()| std::fs::File::create(&path));
    match made {
        Ok(file) => Some((path, file)),
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "ptxsim: PTXSIM_TRACE: cannot create `{}`: {error}",
                path.display()
            );
            None
        }
    }
}

/// Where the output of kernels' `printf` goes: set by the C boundary to the program's C
/// `stdout`, so that it interleaves with the host's own `printf` output as on a GPU; Rust's
/// stdout until then.
static DEVICE_OUTPUT: OnceLock<fn(&[u8])> = OnceLock::new();

/// Sets where kernels' `printf` output goes ([`DEVICE_OUTPUT`]); later calls keep the first.
pub fn set_device_output(output: fn(&[u8])) {
    let _ = DEVICE_OUTPUT.set(output);
}

/// Flushes what the program has written to its stdout so far (before the debugger talks).
fn flush_device_output() {
    match DEVICE_OUTPUT.get() {
        Some(output) => output(&[]),
        None => {
            let _ = std::io::stdout().flush();
        }
    }
}

/// Writes what a launch's `printf` calls printed, in the executor's order: by block, then
/// thread, then call.
fn print_device_output(bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    match DEVICE_OUTPUT.get() {
        Some(output) => output(bytes),
        None => {
            let mut out = std::io::stdout().lock();
            // Nothing to do if stdout is closed.
            let _ = out.write_all(bytes);
            let _ = out.flush();
        }
    }
}

/// The CUDA error of a failed launch: a memory fault is `CUDA_ERROR_ILLEGAL_ADDRESS` (a
/// misaligned access `CUDA_ERROR_MISALIGNED_ADDRESS`), `trap` and a barrier that can never
/// complete `CUDA_ERROR_LAUNCH_FAILED`, the step limit `CUDA_ERROR_LAUNCH_TIMEOUT`; an
/// instruction the simulator does not implement is `CUDA_ERROR_NOT_SUPPORTED` (not sticky);
/// arguments that do not fit the kernel are `CUDA_ERROR_INVALID_VALUE`.
fn launch_failure(entry: &str, error: ApiError) -> Failure {
    let code = match &error {
        ApiError::Run {
            outcome: Some(Outcome::Trapped { message, .. }),
            ..
        } => {
            // The executor's fault messages start with `FaultKind::describe`.
            if message.starts_with("misaligned address") {
                CudaError::MisalignedAddress
            } else if message.starts_with("null address")
                || message.starts_with("out-of-bounds address")
                || message.starts_with("address outside every buffer")
                || message.starts_with("store to read-only memory")
            {
                CudaError::IllegalAddress
            } else {
                CudaError::LaunchFailed
            }
        }
        ApiError::Run {
            outcome: Some(Outcome::AssertionFailed { message, .. }),
            ..
        } => {
            // The GPU's message, on stderr as the CUDA driver prints it.
            let _ = writeln!(std::io::stderr(), "{message}");
            CudaError::Assert
        }
        ApiError::Run {
            outcome: Some(_), ..
        } => CudaError::LaunchTimeout,
        ApiError::Run { outcome: None, .. } => CudaError::NotSupported,
        ApiError::HostWrite(_) => CudaError::IllegalAddress,
        ApiError::Launch(ptxsim_exec::grid::LaunchError::CooperativeTooLarge { .. }) => {
            CudaError::CooperativeLaunchTooLarge
        }
        ApiError::Launch(_) | ApiError::Build(_) | ApiError::Check { .. } => {
            CudaError::InvalidValue
        }
    };
    Failure::new(code, format!("kernel `{entry}`: {error}"))
}

/// `cuFuncGetAttribute`, with the values of `CUfunction_attribute` (cuda.h).
pub fn function_attribute(attribute: i32, function: u64) -> CallResult<i32> {
    let mut state = state();
    let function = resolve_function(&mut state, function)?;
    let (function, loaded) = state.function(function)?;
    let program = loaded
        .module
        .program(&function.entry)
        .map_err(|error| Failure::new(CudaError::InvalidHandle, error.to_string()))?;
    let int = |value: u64| i32::try_from(value).unwrap_or(i32::MAX);
    let architecture = int(u64::from(state.settings()?.target.number));
    Ok(match attribute {
        // MAX_THREADS_PER_BLOCK: the kernel's `.maxntid`/`.reqntid` (`__launch_bounds__`).
        0 => int(u64::from(
            program.max_threads.map_or(1024, |most| most.min(1024)),
        )),
        1 => int(program.shared_bytes),           // SHARED_SIZE_BYTES
        2 => int(program.constants.len() as u64), // CONST_SIZE_BYTES
        3 => int(program.local_bytes),            // LOCAL_SIZE_BYTES
        // NUM_REGS: registers are not modelled (PTX's virtual registers, often hundreds, say
        // nothing of what ptxas allocates); 32 is the count at which they never limit
        // occupancy (65536 per multiprocessor for 2048 threads), which is what the runtime's
        // own occupancy calculation (CUB sizes its grids by it) then assumes.
        4 => 32,
        5 | 6 => architecture,                 // PTX_VERSION, BINARY_VERSION
        8 => int(function.max_dynamic_shared), // MAX_DYNAMIC_SHARED_SIZE_BYTES
        7 | 9..=17 => 0,                       // not modelled
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("unknown function attribute {attribute}"),
            ));
        }
    })
}

/// `cuFuncSetAttribute`: `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` (8) sets the
/// kernel's dynamic shared memory limit (up to 227 KiB); the other settable attributes
/// (carveout, cluster settings) are accepted and have no effect.
pub fn function_set_attribute(function: u64, attribute: i32, value: i32) -> CallResult<()> {
    let mut state = state();
    let function = resolve_function(&mut state, function)?;
    state.function(function)?;
    let Some(function) = state.functions.get_mut(&function) else {
        return Err(CudaError::InvalidHandle.into());
    };
    match attribute {
        8 => {
            let bytes = u64::try_from(value)
                .ok()
                .filter(|&bytes| bytes <= ptxsim_exec::Device::MAX_DYNAMIC_SHARED)
                .ok_or_else(|| {
                    Failure::new(
                        CudaError::InvalidValue,
                        format!("{value} bytes of dynamic shared memory (at most 227 KiB)"),
                    )
                })?;
            function.max_dynamic_shared = bytes;
            Ok(())
        }
        9..=17 => Ok(()),
        _ => Err(Failure::new(
            CudaError::InvalidValue,
            format!("function attribute {attribute} cannot be set"),
        )),
    }
}

/// `cuStreamCreate`.
pub fn stream_create() -> CallResult<u64> {
    stream_create_with(0, 0)
}

/// `cuStreamCreateWithPriority`: a stream that remembers its flags and priority (clamped to
/// the device's range, [`STREAM_PRIORITIES`]: "priorities outside this range are clamped").
pub fn stream_create_with(flags: u32, priority: i32) -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    let handle = state.handle();
    state.streams.insert(handle, context);
    let (least, greatest) = STREAM_PRIORITIES;
    state
        .stream_settings
        .insert(handle, (flags, priority.clamp(greatest, least)));
    Ok(handle)
}

/// The least and the greatest stream priority: 0 and -5, an H100's.
pub const STREAM_PRIORITIES: (i32, i32) = (0, -5);

/// The flags and priority of `stream` (0 and 0 for the NULL stream and streams made without).
pub fn stream_settings(stream: u64) -> CallResult<(u32, i32)> {
    let state = state();
    state.current()?;
    state.stream(stream)?;
    Ok(state
        .stream_settings
        .get(&stream)
        .copied()
        .unwrap_or((0, 0)))
}

/// `cuStreamDestroy`.
pub fn stream_destroy(stream: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    state.stream_settings.remove(&stream);
    match state.streams.remove(&stream) {
        Some(_) => Ok(()),
        None => Err(CudaError::InvalidHandle.into()),
    }
}

/// `cuStreamSynchronize`, `cuStreamQuery`: nothing is pending; the context's sticky error,
/// if any.
pub fn stream_synchronize(stream: u64) -> CallResult<()> {
    let state = state();
    state.current()?;
    state.stream(stream)
}

/// `cuStreamWaitEvent`: the event has completed (everything is synchronous).
pub fn stream_wait_event(stream: u64, event: u64) -> CallResult<()> {
    let state = state();
    state.current()?;
    state.stream(stream)?;
    if state.events.contains_key(&event) {
        Ok(())
    } else {
        Err(CudaError::InvalidHandle.into())
    }
}

/// `cuEventCreate`.
pub fn event_create() -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    let handle = state.handle();
    state.events.insert(
        handle,
        Event {
            context,
            recorded: None,
        },
    );
    Ok(handle)
}

/// `cuEventRecord`: the time now (everything before it has finished).
pub fn event_record(event: u64, stream: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    state.stream(stream)?;
    let event = state
        .events
        .get_mut(&event)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    event.recorded = Some(Instant::now());
    Ok(())
}

/// `cuEventSynchronize`, `cuEventQuery`: the event's context's sticky error, if any.
pub fn event_synchronize(event: u64) -> CallResult<()> {
    let state = state();
    state.settings()?;
    let event = state
        .events
        .get(&event)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    state.usable(event.context)
}

/// `cuEventElapsedTime`: milliseconds between two recorded events.
pub fn event_elapsed(start: u64, end: u64) -> CallResult<f32> {
    let state = state();
    state.settings()?;
    let time = |event: u64| -> CallResult<Instant> {
        let event = state
            .events
            .get(&event)
            .ok_or(Failure::from(CudaError::InvalidHandle))?;
        state.usable(event.context)?;
        event
            .recorded
            .ok_or_else(|| Failure::new(CudaError::InvalidHandle, "the event was not recorded"))
    };
    let (start, end) = (time(start)?, time(end)?);
    let millis = if end >= start {
        end.duration_since(start).as_secs_f64() * 1e3
    } else {
        -(start.duration_since(end).as_secs_f64() * 1e3)
    };
    Ok(millis as f32)
}

/// `cuEventDestroy`.
pub fn event_destroy(event: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    match state.events.remove(&event) {
        Some(_) => Ok(()),
        None => Err(CudaError::InvalidHandle.into()),
    }
}

/// A value `cuPointerGetAttribute` writes, by its C type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerValue {
    /// A `CUcontext`.
    Context(u64),
    /// An `unsigned int` (`CUmemorytype`).
    U32(u32),
    /// An `int` (a device ordinal).
    I32(i32),
    /// A `CUdeviceptr` or `size_t`.
    U64(u64),
    /// A C `bool` (one byte: MAPPED, SYNC_MEMOPS, ...).
    Bool(bool),
}

/// `cuMemGetAddressRange`: "the base address ... and size ... of the allocation that contains
/// the input pointer" (cuda.h): a device allocation, a virtual-memory mapping, managed or
/// registered host memory (one address space, as with unified addressing), or a module's
/// `.global` variable;
/// `CUDA_ERROR_NOT_FOUND` for an address in none.
pub fn address_range(address: u64) -> CallResult<(u64, u64)> {
    let state = state();
    state.settings()?;
    if let Some((_, (base, len, _))) = state.allocation(address) {
        return Ok((base, len));
    }
    if let Some((base, len, _)) = state.vmm.mapping_at(address) {
        return Ok((base, len));
    }
    if let Some(range) = host_range(address, 1) {
        return Ok((range.start, range.len));
    }
    // A module's variable (the developer blog's printf-alternative copies a string a kernel
    // handed it, `__FILE__`, from the module's data).
    if let Some((base, len, _)) = state
        .modules
        .values()
        .find_map(|module| module.globals.find(address))
    {
        return Ok((base, len));
    }
    Err(Failure::new(
        CudaError::NotFound,
        format!("{address:#x} is in no allocation"),
    ))
}

/// `cuPointerGetAttribute` of a device allocation: CONTEXT (1), MEMORY_TYPE (2: device),
/// DEVICE_POINTER (3), BUFFER_ID (7), DEVICE_ORDINAL (9), RANGE_START_ADDR (11),
/// RANGE_SIZE (12); other attributes are `CUDA_ERROR_NOT_SUPPORTED`.
pub fn pointer_attribute(attribute: i32, address: u64) -> CallResult<PointerValue> {
    let state = state();
    state.settings()?;
    // (start, length, context, device, managed, host): the allocation or host range.
    let (start, len, context, device, managed, host) =
        if let Some((device, (base, len, _))) = state.allocation(address) {
            let context = state.owners.get(&base).copied().unwrap_or(0);
            let device = i32::try_from(device).unwrap_or(0);
            (base, len, context, device, false, false)
        } else if let Some((base, len, device)) = state.vmm.mapping_at(address) {
            (base, len, 0, device, false, false)
        } else if let Some(range) = host_range(address, 1) {
            let device = state.device_of(range.context).unwrap_or(0);
            let managed = range.kind == HostKind::Managed;
            (
                range.start,
                range.len,
                range.context,
                device,
                managed,
                !managed,
            )
        } else {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("{address:#x} is not in a device allocation or registered host memory"),
            ));
        };
    Ok(match attribute {
        1 => PointerValue::Context(context),
        // MEMORY_TYPE: host (1) for pinned and registered memory, device (2) for device and
        // managed memory (IS_MANAGED tells managed memory apart, as with NVIDIA's driver).
        2 => PointerValue::U32(if host { 1 } else { 2 }),
        3 => PointerValue::U64(address),
        // HOST_POINTER: host-accessible memory only.
        4 if host || managed => PointerValue::U64(address),
        6 | 13 => PointerValue::Bool(true), // SYNC_MEMOPS, MAPPED
        7 | 11 | 19 | 20 => PointerValue::U64(start), // BUFFER_ID, RANGE_START, MAPPING_BASE, BLOCK_ID
        // IS_MANAGED: a "boolean" that NVIDIA's driver writes as four bytes: the CUDA
        // runtime's cudaPointerGetAttributes passes an uninitialized `unsigned int` for it
        // (as TensorFlow's and CCCL's callers do), so one byte would leave the rest garbage.
        8 => PointerValue::U32(u32::from(managed)),
        9 => PointerValue::I32(device),            // DEVICE_ORDINAL
        10 | 15 | 21 => PointerValue::Bool(false), // IPC, GPU_DIRECT_RDMA, HW_DECOMPRESS
        12 | 18 => PointerValue::U64(len),         // RANGE_SIZE, MAPPING_SIZE
        14 | 17 => PointerValue::U64(0),           // ALLOWED_HANDLE_TYPES, MEMPOOL_HANDLE
        16 => PointerValue::U32(3),                // ACCESS_FLAGS: read and write
        22 => PointerValue::I32(0),                // LOCALITY_DOMAIN_ORDINAL
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("pointer attribute {attribute} of {address:#x}"),
            ));
        }
    })
}

/// Where a copy of a graph reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Device memory.
    Device(u64),
    /// Host memory, at this address (the C ABI reads or writes it when the graph runs).
    Host(usize),
}

/// One end of a copy node of several rows or with arrays (`CUDA_MEMCPY3D`'s source or
/// destination fields): where it is, as the C boundary reads it when the node runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopySide {
    /// `CUmemorytype`: host 1, device 2, array 3, unified 4.
    pub memory_type: u32,
    /// The host address (host memory).
    pub host: usize,
    /// The device address (device or unified memory).
    pub device: u64,
    /// The `CUarray` handle (arrays).
    pub array: u64,
    /// The first byte of each row, its row and its slice.
    pub x: u64,
    /// The first row.
    pub y: u64,
    /// The first slice.
    pub z: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Rows from one slice to the next.
    pub height: u64,
}

/// A node of a CUDA graph, with what it needs to run (the kernel parameters copied when the
/// node was added or set, as CUDA does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphNode {
    /// A kernel launch.
    Kernel {
        /// The kernel.
        function: u64,
        /// CTAs, x y z.
        grid: [u32; 3],
        /// Threads per CTA, x y z.
        block: [u32; 3],
        /// Bytes of dynamic shared memory per CTA.
        dynamic_shared: u32,
        /// The kernel parameter space.
        params: Vec<u8>,
    },
    /// A one-dimensional copy.
    Copy {
        /// From.
        source: Place,
        /// To.
        destination: Place,
        /// How many bytes.
        bytes: usize,
    },
    /// A copy of `extent` (bytes per row, rows, slices) between host memory, device memory
    /// and arrays (`cuGraphAddMemcpyNode` of a `CUDA_MEMCPY3D` beyond one row, a captured
    /// `cuMemcpy2DAsync` or `cuMemcpy3DAsync`).
    Copy3d {
        /// From.
        source: CopySide,
        /// To.
        destination: CopySide,
        /// Bytes per row, rows, slices.
        extent: [u64; 3],
    },
    /// A memset of `height` rows of `width` elements, `pitch` bytes apart.
    Memset {
        /// The first element.
        destination: u64,
        /// The element's bytes (1, 2 or 4).
        pattern: Vec<u8>,
        /// Elements per row.
        width: u64,
        /// Rows.
        height: u64,
        /// Bytes from one row to the next.
        pitch: u64,
    },
    /// A host function (`CUhostFn`) and its argument, as addresses the C boundary calls.
    Host {
        /// The function.
        function: usize,
        /// Its argument.
        data: usize,
    },
    /// A node that does nothing (`cuGraphAddEmptyNode`, a captured event).
    Empty,
    /// A graph allocation (`cuGraphAddMemAllocNode`, a captured `cuMemAllocAsync`): its
    /// address was reserved when the node was made and stays fixed; the memory exists from
    /// when the node runs until a free node, `cuMemFree` or `cuMemFreeAsync` frees it
    /// ([`graph`]).
    MemAlloc {
        /// The allocation's address.
        address: u64,
        /// Its size in bytes.
        bytes: u64,
    },
    /// A free of a graph allocation (`cuGraphAddMemFreeNode`, a captured `cuMemFreeAsync`).
    MemFree {
        /// The allocation's address.
        address: u64,
    },
    /// A conditional node (`cuGraphAddNode` with `CU_GRAPH_NODE_TYPE_CONDITIONAL`): runs none,
    /// one or (a loop) several times one of its body graphs, chosen by the value of its
    /// conditional handle when it runs ([`graph`]).
    Conditional {
        /// The handle (the device address of its 32-bit value).
        handle: u64,
        /// IF, WHILE or SWITCH.
        kind: ConditionalKind,
        /// The body graphs (executable graphs in an instantiated graph).
        bodies: Vec<u64>,
    },
}

/// A CUDA graph: its nodes in the order they were added, and its edges. An executable graph
/// holds its nodes in an order that runs each after its dependencies ([`topology::ordered`]).
#[derive(Clone, Debug)]
struct Graph {
    context: u64,
    nodes: Vec<(u64, GraphNode)>,
    /// The dependencies: (from, to), `to` runs after `from` (`cuGraphAddDependencies`).
    edges: Vec<(u64, u64)>,
    /// Nodes of an executable graph disabled by `cuGraphNodeSetEnabled` (they run as empty
    /// nodes).
    disabled: Vec<u64>,
    /// The flags the executable graph was instantiated with (`cuGraphExecGetFlags`).
    flags: u64,
    /// The references this graph holds to user objects (`cuGraphRetainUserObject`).
    user_objects: HashMap<u64, u32>,
    /// For a clone, each node of the original and the clone's node (`cuGraphNodeFindInClone`).
    originals: HashMap<u64, u64>,
    /// The conditional handles made for this graph (`cuGraphConditionalHandleCreate`).
    handles: Vec<u64>,
    /// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`: a launch first frees what the
    /// previous launch allocated and left live (an executable graph).
    auto_free: bool,
}

impl Graph {
    /// An empty graph of `context`.
    fn new(context: u64) -> Self {
        Self {
            context,
            nodes: Vec::new(),
            edges: Vec::new(),
            disabled: Vec::new(),
            flags: 0,
            user_objects: HashMap::new(),
            originals: HashMap::new(),
            handles: Vec::new(),
            auto_free: false,
        }
    }
}

/// `cuGraphCreate`.
pub fn graph_create() -> CallResult<u64> {
    let mut state = state();
    let context = state.current()?;
    let handle = state.handle();
    state.graphs.insert(handle, Graph::new(context));
    Ok(handle)
}

/// `cuGraphAddKernelNode`, `cuGraphAddMemcpyNode`: the node's handle. `dependencies` must be
/// nodes of the graph (they were added before, so they run before).
pub fn graph_add(graph: u64, dependencies: &[u64], node: GraphNode) -> CallResult<u64> {
    let mut state = state();
    graph_add_locked(&mut state, graph, dependencies, node)
}

/// [`graph_add`] with the state held. A kernel handle of a library becomes its function in
/// the current context.
fn graph_add_locked(
    state: &mut State,
    graph: u64,
    dependencies: &[u64],
    mut node: GraphNode,
) -> CallResult<u64> {
    state.current()?;
    if let GraphNode::Kernel { function, .. } = &mut node {
        *function = resolve_function(state, *function)?;
        state.function(*function)?;
    }
    let handle = state.handle();
    let graph = state
        .graphs
        .get_mut(&graph)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    if let Some(unknown) = dependencies
        .iter()
        .find(|dependency| !graph.nodes.iter().any(|(node, _)| node == *dependency))
    {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("dependency {unknown:#x} is not a node of the graph"),
        ));
    }
    graph.nodes.push((handle, node));
    for &dependency in dependencies {
        if !graph.edges.contains(&(dependency, handle)) {
            graph.edges.push((dependency, handle));
        }
    }
    Ok(handle)
}

/// Adds `node` to the graph `stream` captures into, after the nodes captured on the stream
/// before it (or the dependencies it took over from an event); it becomes the stream's last
/// node.
fn capture_add(state: &mut State, stream: u64, graph: u64, node: GraphNode) -> CallResult<u64> {
    let after = state
        .capture_tails
        .get(&stream)
        .cloned()
        .unwrap_or_default();
    let handle = graph_add_locked(state, graph, &after, node)?;
    state.capture_tails.insert(stream, vec![handle]);
    Ok(handle)
}

/// Stream capture (`cuStreamBeginCapture`): while a stream captures, the work enqueued on it
/// (launches, copies, memsets, host functions) is added to its graph as nodes instead of
/// running; nodes run in the order they were captured, which is an order of their
/// dependencies. A stream that waits on an event recorded in a capturing stream joins that
/// capture (the fork and join of CUDA's cross-stream capture).
pub fn begin_capture(stream: u64) -> CallResult<()> {
    let mut state = state();
    let context = state.current()?;
    state.stream(stream)?;
    if stream < FIRST_HANDLE {
        return Err(Failure::new(
            CudaError::StreamCaptureUnsupported,
            "the legacy default stream cannot capture",
        ));
    }
    if state.capture.contains_key(&stream) {
        return Err(Failure::new(
            CudaError::IllegalState,
            "the stream is capturing already",
        ));
    }
    let graph = state.handle();
    state.graphs.insert(graph, Graph::new(context));
    state.capture.insert(stream, graph);
    state.capture_tails.remove(&stream);
    Ok(())
}

/// `cuStreamEndCapture`: the captured graph; every stream that joined the capture stops
/// capturing.
pub fn end_capture(stream: u64) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    let graph = state
        .capture
        .remove(&stream)
        .ok_or_else(|| Failure::new(CudaError::IllegalState, "the stream is not capturing"))?;
    let joined: Vec<u64> = state
        .capture
        .iter()
        .filter(|(_, g)| **g == graph)
        .map(|(s, _)| *s)
        .chain([stream])
        .collect();
    for joined in joined {
        state.capture_tails.remove(&joined);
    }
    state.capture.retain(|_, g| *g != graph);
    let events: Vec<u64> = state
        .captured_events
        .iter()
        .filter(|(_, g)| **g == graph)
        .map(|(e, _)| *e)
        .collect();
    for event in events {
        state.event_tails.remove(&event);
    }
    state.captured_events.retain(|_, g| *g != graph);
    Ok(graph)
}

/// The nodes the next node captured on `stream` will depend on (`cuStreamGetCaptureInfo`'s
/// dependencies; none where the stream does not capture).
pub fn capture_dependencies(stream: u64) -> Vec<u64> {
    let state = state();
    if !state.capture.contains_key(&stream) {
        return Vec::new();
    }
    state
        .capture_tails
        .get(&stream)
        .cloned()
        .unwrap_or_default()
}

/// The graph `stream` captures into, if it is capturing.
pub fn capture_graph(stream: u64) -> Option<u64> {
    let state = state();
    state.capture.get(&stream).copied()
}

/// Captures `node` where `stream` is capturing: `true` if it was captured (and must not run).
pub fn capture(stream: u64, node: impl FnOnce() -> GraphNode) -> CallResult<bool> {
    let mut state = state();
    let Some(&graph) = state.capture.get(&stream) else {
        return Ok(false);
    };
    capture_add(&mut state, stream, graph, node())?;
    Ok(true)
}

/// `cuEventRecord` on a capturing stream: the event marks a point of the capture (another
/// stream that waits on it joins the capture). `true` if the stream was capturing.
pub fn capture_event(event: u64, stream: u64) -> CallResult<bool> {
    let mut state = state();
    let Some(&graph) = state.capture.get(&stream) else {
        return Ok(false);
    };
    if !state.events.contains_key(&event) {
        return Err(CudaError::InvalidHandle.into());
    }
    state.captured_events.insert(event, graph);
    let tail = state
        .capture_tails
        .get(&stream)
        .cloned()
        .unwrap_or_default();
    state.event_tails.insert(event, tail);
    Ok(true)
}

/// `cuStreamWaitEvent` of an event recorded in a capture: `stream` joins that capture.
/// `true` if the event was captured.
pub fn capture_wait(stream: u64, event: u64) -> CallResult<bool> {
    let mut state = state();
    let Some(&graph) = state.captured_events.get(&event) else {
        return Ok(false);
    };
    state.stream(stream)?;
    let mut tail = match state.capture.get(&stream) {
        Some(&current) if current == graph => state
            .capture_tails
            .get(&stream)
            .cloned()
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    for node in state.event_tails.get(&event).cloned().unwrap_or_default() {
        if !tail.contains(&node) {
            tail.push(node);
        }
    }
    state.capture.insert(stream, graph);
    state.capture_tails.insert(stream, tail);
    Ok(true)
}

/// The nodes of a graph (not instantiated), in the order they run (`cuGraphGetNodes`).
pub fn graph_node_handles(graph: u64) -> CallResult<Vec<u64>> {
    let state = state();
    state.current()?;
    let graph = state
        .graphs
        .get(&graph)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    Ok(graph.nodes.iter().map(|(handle, _)| *handle).collect())
}

/// `cuGraphClone`: a copy of the graph, its nodes with handles of their own
/// (`cuGraphNodeFindInClone` finds them from the original's). A graph with memory or
/// conditional nodes "cannot be cloned" (`cuGraphAddMemAllocNode`,
/// `CU_GRAPH_NODE_TYPE_CONDITIONAL`): `CUDA_ERROR_NOT_SUPPORTED`.
pub fn graph_clone(graph: u64) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    let copy = state
        .graphs
        .get(&graph)
        .cloned()
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    if copy.nodes.iter().any(|(_, node)| graph::not_clonable(node)) {
        return Err(Failure::new(
            CudaError::NotSupported,
            "a graph with memory or conditional nodes cannot be cloned",
        ));
    }
    let mut clone = copy.clone();
    clone.originals.clear();
    for (node, _) in &mut clone.nodes {
        let new = state.handle();
        clone.originals.insert(*node, new);
        *node = new;
    }
    for (from, to) in &mut clone.edges {
        *from = clone.originals[from];
        *to = clone.originals[to];
    }
    // The clone holds references of its own to the original's user objects.
    for (&object, &count) in &clone.user_objects {
        if let Some(user) = state.user_objects.get_mut(&object) {
            user.references += count;
        }
    }
    let handle = state.handle();
    state.graphs.insert(handle, clone);
    Ok(handle)
}

/// `cuGraphAddChildGraphNode`: "the node executes an embedded child graph. The child graph
/// is cloned in this call." Nodes run in the order they were added, which is an order of their
/// dependencies, so the clone's nodes are added to `graph` after `dependencies`, followed by
/// an empty node that stands for the child graph node (the handle returned: what later
/// nodes depend on). A child graph with memory or conditional nodes is not supported.
pub fn graph_add_child(graph: u64, dependencies: &[u64], child: u64) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    let nodes = state
        .graphs
        .get(&child)
        .map(|child| child.nodes.clone())
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    if nodes.iter().any(|(_, node)| graph::not_clonable(node)) {
        return Err(Failure::new(
            CudaError::NotSupported,
            "a child graph with memory or conditional nodes is not supported",
        ));
    }
    let mut after = dependencies.to_vec();
    for (_, node) in nodes {
        let added = graph_add_locked(&mut state, graph, &after, node)?;
        after = vec![added];
    }
    graph_add_locked(&mut state, graph, &after, GraphNode::Empty)
}

/// Why `cuGraphExecUpdate` refused a graph: the failure, the `CUgraphExecUpdateResult` for
/// the caller's result info and the graph's node that info names (0: none).
#[derive(Debug)]
pub struct UpdateRefusal {
    /// The call's result (`CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`, or an invalid handle).
    pub failure: Failure,
    /// `CU_GRAPH_EXEC_UPDATE_ERROR` (1), `_TOPOLOGY_CHANGED` (2), `_NODE_TYPE_CHANGED` (3),
    /// `_PARAMETERS_CHANGED` (5).
    pub result: u32,
    /// `errorNode`: the node of the graph the refusal is about.
    pub node: u64,
}

impl From<Failure> for UpdateRefusal {
    /// A failure not about the graph's nodes: `CU_GRAPH_EXEC_UPDATE_ERROR` ("passed an invalid
    /// value", `cuda.h`).
    fn from(failure: Failure) -> Self {
        Self {
            failure,
            result: 1,
            node: 0,
        }
    }
}

/// `cuGraphExecUpdate`: the executable takes the graph's nodes, if the graph has the
/// executable's shape (the same number of nodes, each of the same kind). Memory nodes must be
/// the same ("changing the parameters of memory nodes is not supported"); a conditional node
/// keeps its executable bodies, which take the graph's bodies in turn. A refusal says why as
/// `cuda.h` describes `cuGraphExecUpdate`'s result info: "The count of nodes directly in
/// hGraphExec and hGraph differ" is `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED` with no
/// node, a node whose type changed `CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED`, parameters
/// that cannot change `CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED`, each naming "the node
/// from hGraph".
pub fn graph_exec_update(executable: u64, graph: u64) -> Result<(), UpdateRefusal> {
    let mut state = state();
    state.current()?;
    exec_update_locked(&mut state, executable, graph)
}

/// [`graph_exec_update`] with the state held.
fn exec_update_locked(state: &mut State, executable: u64, graph: u64) -> Result<(), UpdateRefusal> {
    let mut source = state
        .graphs
        .get(&graph)
        .cloned()
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    source.nodes = topology::ordered(&source)?;
    let target = state
        .executables
        .get(&executable)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    let refusal = |result: u32, node: u64, message: &str| UpdateRefusal {
        failure: Failure::new(CudaError::GraphExecUpdateFailure, message),
        result,
        node,
    };
    if source.nodes.len() != target.nodes.len() {
        return Err(refusal(
            2,
            0,
            "the graph has another number of nodes than the executable",
        ));
    }
    let mut nodes = Vec::with_capacity(source.nodes.len());
    let mut bodies = Vec::new();
    for ((handle, new), (_, old)) in source.nodes.iter().zip(&target.nodes) {
        if std::mem::discriminant(new) != std::mem::discriminant(old) {
            return Err(refusal(
                3,
                *handle,
                "a node of the graph is of another kind than the executable's",
            ));
        }
        let node = match (new, old) {
            (GraphNode::MemAlloc { .. } | GraphNode::MemFree { .. }, _) if new != old => {
                return Err(refusal(
                    5,
                    *handle,
                    "the memory nodes differ (their parameters cannot change)",
                ));
            }
            (
                GraphNode::Conditional {
                    handle: condition,
                    kind,
                    bodies: sources,
                },
                GraphNode::Conditional {
                    handle: old_condition,
                    kind: old_kind,
                    bodies: targets,
                },
            ) => {
                if condition != old_condition || kind != old_kind || sources.len() != targets.len()
                {
                    return Err(refusal(
                        5,
                        *handle,
                        "a conditional node's parameters differ (they cannot change)",
                    ));
                }
                bodies.extend(targets.iter().copied().zip(sources.iter().copied()));
                old.clone()
            }
            _ => new.clone(),
        };
        nodes.push((*handle, node));
    }
    for (target, source) in bodies {
        exec_update_locked(state, target, source)?;
    }
    if let Some(target) = state.executables.get_mut(&executable) {
        target.nodes = nodes;
    }
    Ok(())
}

/// `cuGraphInstantiate`: an executable copy of the graph (and of the body graphs of its
/// conditional nodes). `flags`: `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH` (1) is kept
/// ([`graph::launch_begin`]); the others (upload, device launch, priority) change nothing here.
pub fn graph_instantiate(graph: u64, flags: u64) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    let handle = instantiate_locked(&mut state, graph)?;
    if let Some(executable) = state.executables.get_mut(&handle) {
        executable.auto_free = flags & graph::AUTO_FREE_ON_LAUNCH != 0;
        executable.flags = flags;
    }
    Ok(handle)
}

/// [`graph_instantiate`] with the state held: the executable's handle.
fn instantiate_locked(state: &mut State, graph: u64) -> CallResult<u64> {
    let mut copy = state
        .graphs
        .get(&graph)
        .cloned()
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    copy.nodes = topology::ordered(&copy)?;
    // The executable holds references of its own to the graph's user objects.
    for (&object, &count) in &copy.user_objects {
        if let Some(user) = state.user_objects.get_mut(&object) {
            user.references += count;
        }
    }
    for (_, node) in &mut copy.nodes {
        if let GraphNode::Conditional { bodies, .. } = node {
            for body in bodies.iter_mut() {
                *body = instantiate_locked(state, *body)?;
            }
        }
    }
    let handle = state.handle();
    state.executables.insert(handle, copy);
    Ok(handle)
}

/// `cuGraphExecKernelNodeSetParams`, `cuGraphExecMemcpyNodeSetParams`: replaces what node
/// `node` of the executable graph does (the same kind of node).
pub fn graph_exec_set(executable: u64, node: u64, mut replacement: GraphNode) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    if let GraphNode::Kernel { function, .. } = &mut replacement {
        *function = resolve_function(&mut state, *function)?;
        state.function(*function)?;
    }
    let slot = executable_node(&mut state, executable, node)?;
    if std::mem::discriminant(slot) != std::mem::discriminant(&replacement) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "the node is of another kind",
        ));
    }
    *slot = replacement;
    Ok(())
}

/// Node `node` of executable graph `executable` (`CUDA_ERROR_INVALID_HANDLE` for an unknown
/// executable, `CUDA_ERROR_INVALID_VALUE` for a node it does not have).
fn executable_node(state: &mut State, executable: u64, node: u64) -> CallResult<&mut GraphNode> {
    let graph = state
        .executables
        .get_mut(&executable)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    graph
        .nodes
        .iter_mut()
        .find(|(handle, _)| *handle == node)
        .map(|(_, slot)| slot)
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, "no such node in the graph"))
}

/// `cuGraphKernelNodeSetParams` and the like on a graph (not an executable one): node `node`
/// of whichever graph holds it becomes `replacement`, which must be of the same kind.
pub fn graph_node_set(node: u64, mut replacement: GraphNode) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    if let GraphNode::Kernel { function, .. } = &mut replacement {
        *function = resolve_function(&mut state, *function)?;
        state.function(*function)?;
    }
    let slot = state
        .graphs
        .values_mut()
        .flat_map(|graph| graph.nodes.iter_mut())
        .find(|(handle, _)| *handle == node)
        .map(|(_, slot)| slot)
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, "no graph has this node"))?;
    if std::mem::discriminant(slot) != std::mem::discriminant(&replacement) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "the node is of another kind",
        ));
    }
    *slot = replacement;
    Ok(())
}

/// `cuGraphNodeGetType`: the `CUgraphNodeType` of node `node` of a graph (a child graph node
/// reads as the empty node that stands for it, [`graph_add_child`]).
pub fn graph_node_type(node: u64) -> CallResult<i32> {
    let state = state();
    state.current()?;
    let kind = state
        .graphs
        .values()
        .flat_map(|graph| graph.nodes.iter())
        .find(|(handle, _)| *handle == node)
        .map(|(_, kind)| kind)
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, "no graph has this node"))?;
    Ok(match kind {
        GraphNode::Kernel { .. } => 0,
        GraphNode::Copy { .. } | GraphNode::Copy3d { .. } => 1,
        GraphNode::Memset { .. } => 2,
        GraphNode::Host { .. } => 3,
        GraphNode::Empty => 5,
        GraphNode::MemAlloc { .. } => 10,
        GraphNode::MemFree { .. } => 11,
        GraphNode::Conditional { .. } => 13,
    })
}

/// The nodes of an executable graph, in an order that runs each after its dependencies
/// (`cuGraphLaunch` runs them: kernels with [`launch`], copies through the C ABI); a node
/// disabled by `cuGraphNodeSetEnabled` is an empty node ("a disabled node is functionally
/// equivalent to an empty node until it is reenabled").
pub fn graph_nodes(executable: u64) -> CallResult<Vec<GraphNode>> {
    let state = state();
    state.current()?;
    let graph = state
        .executables
        .get(&executable)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    Ok(graph
        .nodes
        .iter()
        .map(|(handle, node)| {
            if graph.disabled.contains(handle) {
                GraphNode::Empty
            } else {
                node.clone()
            }
        })
        .collect())
}

/// `cuGraphDestroy` (`executable` false) and `cuGraphExecDestroy` (true), with the body
/// graphs of their conditional nodes. The destructors (function and argument) of the user
/// objects whose last reference the graph held, for the caller to run without the state.
pub fn graph_destroy(graph: u64, executable: bool) -> CallResult<Vec<(usize, usize)>> {
    let mut state = state();
    state.settings()?;
    let references = if executable {
        state.executables.get(&graph)
    } else {
        state.graphs.get(&graph)
    }
    .map(|graph| graph.user_objects.clone())
    .unwrap_or_default();
    destroy_locked(&mut state, graph, executable)?;
    Ok(references
        .into_iter()
        .filter_map(|(object, count)| topology::release_locked(&mut state, object, count))
        .collect())
}

/// [`graph_destroy`] with the state held.
fn destroy_locked(state: &mut State, graph: u64, executable: bool) -> CallResult<()> {
    let table = if executable {
        &mut state.executables
    } else {
        &mut state.graphs
    };
    let removed = table.remove(&graph).ok_or(CudaError::InvalidHandle)?;
    for (_, node) in removed.nodes {
        if let GraphNode::Conditional { bodies, .. } = node {
            for body in bodies {
                // A body destroyed with its node's graph already is no error.
                let _ = destroy_locked(state, body, executable);
            }
        }
    }
    Ok(())
}
