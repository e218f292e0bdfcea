//! The machine: a launch's [`Device`] (global memory, kernel parameters, grid shape), the
//! [`Cta`]s that run on it (shared memory and threads, run in lockstep) and the fuel that
//! limits them; each instruction is run by the executor (`src/exec/`: the one exhaustive
//! `match` over instruction kinds, one module per instruction family).
//!
//! [`Machine`] is the one-thread launch that `ptxsim eval`, the tests and the single-thread
//! form of `ptxsim run` use; grids are run by [`crate::grid`].
//!
//! Faults of the simulated program are [`Outcome`]s; limits of the simulator are
//! [`ExecError`]s (style rule 4).

use std::sync::Arc;

use ptxsim_isa::ops::{BarrierOp, Space};

use crate::budget::{DEFAULT_MEMORY_LIMIT, Footprint};
use crate::error::ExecError;
use crate::exec::{Control, Executor};
use crate::ir::{Destination, InstructionKind, Location, Program, RegisterId, Source, WarpSync};
use crate::memory::{GRID_WORKSPACE_BASE, GRID_WORKSPACE_BYTES, GlobalMemory, Words};
use crate::runtime::{HEAP_BASE, HEAP_BYTES, Heap, PrintBuffer, Printed};
use crate::semantics::{chop, guard_passes};

/// The default step limit (per thread) of the CLI.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// Three dimensions of a grid or CTA, or an index into one (`x`, `y`, `z`).
pub type Dim3 = [u32; 3];

/// What one step (or a whole run) came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The instruction ran; the thread goes on.
    Running,
    /// The thread finished: `ret` or `exit` in the kernel, or the end of its body.
    Exited,
    /// The program aborted (`trap`, or a memory fault). `message` says why; `location` is the
    /// instruction.
    Trapped {
        /// Why.
        message: String,
        /// Where.
        location: Location,
    },
    /// The thread reached its step limit before it finished.
    OutOfFuel,
    /// The thread called `__assertfail` (a failed `assert`, CUDA's `cudaErrorAssert`):
    /// `message` is what a GPU prints, `FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z]
    /// Assertion `EXPRESSION` failed.`; `location` is the call.
    AssertionFailed {
        /// The GPU's message.
        message: String,
        /// The `call` of `__assertfail`.
        location: Location,
    },
}

impl Outcome {
    /// The status word of the JSON output: `running`, `exited`, `trapped` or `out_of_fuel`.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Running => "running",
            Outcome::Exited => "exited",
            Outcome::Trapped { .. } | Outcome::AssertionFailed { .. } => "trapped",
            Outcome::OutOfFuel => "out_of_fuel",
        }
    }
}

/// One register write of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    /// The register.
    pub register: RegisterId,
    /// Its value before.
    pub old: u128,
    /// Its value after.
    pub new: u128,
}

/// One memory write of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryWrite {
    /// The space written (generic addresses resolved to their space).
    pub space: Space,
    /// The address in that space.
    pub address: u64,
    /// The number of bytes.
    pub bytes: u32,
    /// The bytes written, little-endian.
    pub value: u128,
}

/// The most step records a traced CTA holds to group them by thread (see [`Cta::run`]); about
/// 100 bytes each, plus the values they write. A trace of threads that run longer than this
/// between two barriers has its groups cut here (issue 23: the memory of a traced launch must
/// not grow with the trace).
pub const MAX_GROUPED_RECORDS: usize = 1 << 18;

/// What one executed step did, for traces and the debugger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepRecord {
    /// The thread's step number, from 0.
    pub step: u64,
    /// The thread's index in the grid: `(ctaid linear) * threads-per-CTA + tid linear`.
    pub thread: u64,
    /// The instruction's index in [`Program::instructions`].
    pub pc: usize,
    /// Whether the guard let the instruction run (`true` when it has none).
    pub executed: bool,
    /// The registers written, in order.
    pub writes: Vec<Write>,
    /// The memory written, in order.
    pub memory: Vec<MemoryWrite>,
}

/// What a launch shares between all its threads: the program, global memory, the kernel's
/// parameter space, the grid's shape and the step limit.
#[derive(Debug)]
pub struct Device<'p> {
    pub(crate) program: &'p Program,
    /// Global memory: argument buffers, then the module's `.global` variables.
    pub global: GlobalMemory,
    pub(crate) params: Vec<u8>,
    pub(crate) grid: Dim3,
    pub(crate) block: Dim3,
    max_steps: u64,
    /// The bytes of dynamic shared memory per CTA (`.extern .shared` arrays).
    dynamic_shared: u64,
    /// The memory limit of the launch (crate::budget).
    memory_limit: u64,
    /// The `.const` space when it is not the program's initial one
    /// ([`Device::set_constants`]).
    constants: Option<Arc<Vec<u8>>>,
    /// The allocations of the device heap (`malloc`/`free`), whose memory is a global buffer
    /// at [`HEAP_BASE`] when the program uses it.
    pub(crate) heap: Arc<Heap>,
    /// Whether the launch is cooperative ([`Device::set_cooperative`]).
    cooperative: bool,
    /// Whether the CTAs of the launch are all resident and run in turns, as a cooperative
    /// launch's, without being one ([`Device::set_interleaved`]).
    interleaved: bool,
    /// The shape of the launch's thread-block clusters in CTAs ([`Device::set_cluster`];
    /// `[1, 1, 1]`: every CTA is a cluster of its own).
    cluster: Dim3,
    /// Whether the cluster shape was given, by the launch or by `.reqnctapercluster`
    /// (`%is_explicit_cluster`).
    explicit_cluster: bool,
    /// The texture and surface objects of the launch ([`Device::set_textures`]).
    pub(crate) textures: Option<Arc<crate::texture::TextureTable>>,
    /// The device runtime of dynamic parallelism: the module's kernels, the grid's nesting
    /// depth and the work its threads enqueue ([`crate::launches`]).
    pub(crate) runtime: crate::launches::DeviceRuntime<'p>,
    /// Whose tensor-core arithmetic `mma` and `wmma` follow ([`Device::set_tensor_cores`]).
    tensor_cores: crate::alu::tensor_cores::TensorCores,
    /// The kernel's compiled code, if it has some ([`Device::set_compiled`]).
    compiled: Option<Arc<dyn crate::compiled::CompiledKernel>>,
}

impl<'p> Device<'p> {
    /// A device for `program` with grid and CTA shapes and a step limit per thread. Global
    /// memory holds the module's `.global` variables (at the addresses the program gives them);
    /// kernel parameters read as zero until [`Device::set_params`].
    pub fn new(program: &'p Program, grid: Dim3, block: Dim3, max_steps: u64) -> Self {
        let mut global = GlobalMemory::new();
        for variable in &program.globals {
            global.add_words(
                variable.name.clone(),
                Words::padded(&variable.bytes, variable.size),
            );
        }
        let mut device = Self::new_in(program, grid, block, max_steps, global);
        device.install_heap();
        device
    }

    /// A device for a grid that a kernel launched (dynamic parallelism, [`crate::launches`]):
    /// it runs in `global`, its parent's global memory, as it is (no heap is added).
    pub(crate) fn new_in(
        program: &'p Program,
        grid: Dim3,
        block: Dim3,
        max_steps: u64,
        global: GlobalMemory,
    ) -> Self {
        Self {
            program,
            global,
            params: vec![0; usize::try_from(program.param_bytes).unwrap_or(0)],
            grid,
            block,
            max_steps,
            dynamic_shared: 0,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            constants: None,
            heap: Arc::default(),
            cooperative: false,
            interleaved: false,
            cluster: [1, 1, 1],
            explicit_cluster: false,
            textures: None,
            runtime: crate::launches::DeviceRuntime::default(),
            tensor_cores: crate::alu::tensor_cores::TensorCores::of_program(program.target),
            compiled: None,
        }
    }

    /// Runs the kernel's threads through `code` where it covers them ([`crate::compiled`]),
    /// in runs that are neither traced nor sliced.
    pub fn set_compiled(&mut self, code: Arc<dyn crate::compiled::CompiledKernel>) {
        self.compiled = Some(code);
    }

    /// The kernel's compiled code ([`Device::set_compiled`]).
    pub fn compiled(&self) -> Option<&Arc<dyn crate::compiled::CompiledKernel>> {
        self.compiled.as_ref()
    }

    /// Models the tensor cores of another GPU than the one the program was checked for (by
    /// default, [`TensorCores::of_program`](crate::alu::tensor_cores::TensorCores::of_program):
    /// an `sm_80` module runs as on an A100, `sm_89` as on an L40, no `.target` as on an H100).
    pub fn set_tensor_cores(&mut self, cores: crate::alu::tensor_cores::TensorCores) {
        self.tensor_cores = cores;
    }

    /// The tensor cores the device models ([`Device::set_tensor_cores`]).
    pub fn tensor_cores(&self) -> crate::alu::tensor_cores::TensorCores {
        self.tensor_cores
    }

    /// Lets the grid's kernels launch grids of the module's `kernels` (source order, the
    /// kernels' addresses, [`ptxsim_check::program::cdp::kernel_address`]): sets the device
    /// runtime up for a host launch and adds its memory ([`crate::launches::install`]) when the
    /// program calls it.
    pub fn enable_device_launches(&mut self, kernels: &'p [Program]) {
        self.runtime = crate::launches::DeviceRuntime::new(kernels, 0, Arc::default());
        if self.program.calls_device_runtime() {
            crate::launches::install(&mut self.global);
        }
    }

    /// Adds the device heap's memory ([`HEAP_BYTES`] at [`HEAP_BASE`], zeroed) to global
    /// memory when the program calls `malloc` or `free`, with no allocation yet. A launch that
    /// replaces [`Device::global`] calls it again.
    pub fn install_heap(&mut self) {
        self.heap = Arc::default();
        if self.program.uses_heap {
            self.global
                .add_at("malloc heap", HEAP_BASE, Words::zeros(HEAP_BYTES));
        }
    }

    /// Uses `heap` as the device heap, whose memory ([`crate::memory::DeviceMemory::heap`])
    /// the caller has put in global memory: a heap that lasts across launches (a CUDA
    /// context's, [`crate::api::LaunchOptions::heap`]).
    pub fn share_heap(&mut self, heap: Arc<Heap>) {
        self.heap = heap;
    }

    /// Makes the launch cooperative (CUDA's `cuLaunchCooperativeKernel`): every CTA of the grid
    /// is resident at once ([`crate::grid::run_grid`] runs them interleaved, see
    /// [`Cta::run_slice`]), and `%envreg1`/`%envreg2` give the high and low halves of the
    /// address of the grid workspace, [`GRID_WORKSPACE_BYTES`] zero bytes that this adds to
    /// global memory at [`GRID_WORKSPACE_BASE`] (where CUDA's `cooperative_groups::this_grid()`
    /// keeps its barrier's counter). A launch that replaces [`Device::global`] calls it after.
    pub fn set_cooperative(&mut self) {
        self.global.add_at(
            "grid workspace",
            GRID_WORKSPACE_BASE,
            Words::zeros(GRID_WORKSPACE_BYTES),
        );
        self.cooperative = true;
    }

    /// Whether the launch is cooperative ([`Device::set_cooperative`]).
    pub fn cooperative(&self) -> bool {
        self.cooperative
    }

    /// Makes every CTA of the launch resident from the start, running in turns as a
    /// cooperative launch's do (`grid::make_interleaved`), without the grid workspace: the
    /// kernel is no cooperative one (`this_grid().sync()` still traps), but CTAs that wait
    /// for each other through global memory all get to run.
    pub fn set_interleaved(&mut self) {
        self.interleaved = true;
    }

    /// Whether the CTAs run in turns: a cooperative launch, or [`Device::set_interleaved`].
    pub fn interleaved(&self) -> bool {
        self.cooperative || self.interleaved
    }

    /// The most CTAs of a cluster: 8, the portable cluster size of compute capability 9.0
    /// (CUDA C++ Programming Guide, "Thread Block Clusters": "a maximum of 8 thread blocks in a
    /// cluster is supported as a portable cluster size").
    pub const MAX_CLUSTER_CTAS: u64 = 8;

    /// Sets the launch's thread-block clusters (PTX ISA 9.0, 2.2.1 "Cluster of Cooperative
    /// Thread Arrays"; CUDA's `cudaLaunchAttributeClusterDimension`): `Some(shape)` as the launch
    /// gives it, `None` for a launch without one. The kernel's directives decide too
    /// (PTX ISA 9.0, 11.5 "Cluster Dimension Directives"): `.reqnctapercluster` is the shape of
    /// a launch that gives none, and a launch that gives another is refused; `.explicitcluster`
    /// refuses a launch without a cluster shape; `.maxclusterrank` bounds the CTAs of a
    /// cluster. The grid must be a whole number of clusters along each axis, a cluster at most
    /// [`Device::MAX_CLUSTER_CTAS`] CTAs. The CTAs of a cluster run together
    /// ([`crate::grid::run_grid`]).
    pub fn set_cluster(&mut self, shape: Option<Dim3>) -> Result<(), String> {
        let directives = self.program.cluster;
        let shape = match (shape, directives.required) {
            (Some(given), Some(required)) if given != required => {
                return Err(format!(
                    "kernel `{}` requires clusters of {} CTAs (.reqnctapercluster); the launch \
                     asks for {}",
                    self.program.entry,
                    dims(required),
                    dims(given)
                ));
            }
            (Some(shape), _) | (None, Some(shape)) => shape,
            (None, None) if directives.explicit => {
                return Err(format!(
                    "kernel `{}` must be launched with a cluster shape (.explicitcluster)",
                    self.program.entry
                ));
            }
            (None, None) => {
                self.cluster = [1, 1, 1];
                self.explicit_cluster = false;
                return Ok(());
            }
        };
        if shape.contains(&0) {
            return Err("cluster dimensions must be at least 1".to_string());
        }
        for (axis, (&g, &c)) in ["x", "y", "z"].iter().zip(self.grid.iter().zip(&shape)) {
            if g % c != 0 {
                return Err(format!(
                    "the grid ({}) is not a whole number of clusters ({}) along {axis}",
                    dims(self.grid),
                    dims(shape)
                ));
            }
        }
        let ctas: u64 = shape.iter().map(|&d| u64::from(d)).product();
        if ctas > Self::MAX_CLUSTER_CTAS {
            return Err(format!(
                "a cluster has at most {} CTAs; {} asks for {ctas}",
                Self::MAX_CLUSTER_CTAS,
                dims(shape)
            ));
        }
        if let Some(most) = directives.max_rank.filter(|&most| ctas > u64::from(most)) {
            return Err(format!(
                "kernel `{}` allows at most {most} CTAs per cluster (.maxclusterrank); the \
                 launch asks for {ctas}",
                self.program.entry
            ));
        }
        let footprint = self.footprint();
        let needed = footprint
            .fixed()
            .saturating_add(footprint.per_cta().saturating_mul(ctas));
        if needed > self.memory_limit {
            return Err(format!(
                "a cluster of {ctas} CTAs runs at once: {needed} bytes of simulated memory, more \
                 than the memory limit of {} bytes",
                self.memory_limit
            ));
        }
        if self.cooperative && ctas > 1 {
            return Err("cooperative launches with clusters are not supported".to_string());
        }
        self.cluster = shape;
        self.explicit_cluster = true;
        Ok(())
    }

    /// The cluster shape in CTAs (`%cluster_nctaid`).
    pub fn cluster(&self) -> Dim3 {
        self.cluster
    }

    /// The CTAs of a cluster (`%cluster_nctarank`).
    pub fn cluster_ctas(&self) -> u64 {
        self.cluster.iter().map(|&d| u64::from(d)).product()
    }

    /// Whether the launch has a cluster shape (`%is_explicit_cluster`).
    pub fn explicit_cluster(&self) -> bool {
        self.explicit_cluster
    }

    /// The clusters of the grid along each axis (`%nclusterid`).
    pub fn clusters(&self) -> Dim3 {
        [0, 1, 2].map(|axis| self.grid[axis] / self.cluster[axis].max(1))
    }

    /// The CTA of rank `rank` in cluster `cluster` (linear, x fastest): its index in the grid.
    pub fn cluster_cta(&self, cluster: u64, rank: u64) -> Dim3 {
        let id = unflatten(cluster, self.clusters());
        let within = unflatten(rank, self.cluster);
        [0, 1, 2].map(|axis| id[axis] * self.cluster[axis] + within[axis])
    }

    /// The value of `%envreg{number}`: in a cooperative launch `%envreg1` and `%envreg2` hold
    /// the high and low 32 bits of the grid workspace's address (nvcc joins them with
    /// `bfi.b64 %rd, %envreg1, %envreg2, 32, 32`: `%envreg1` goes into bits 32 to 63); every other one, and all of
    /// them in a launch that is not cooperative, read 0 (so CUDA's `this_grid().sync()` traps,
    /// as on a GPU, and `this_grid().is_valid()` is false). The PTX ISA leaves their meaning
    /// to the driver ("Special Registers: %envreg<32>").
    pub fn envreg(&self, number: u8) -> u64 {
        match (self.cooperative, number) {
            (true, 1) => GRID_WORKSPACE_BASE >> 32,
            (true, 2) => GRID_WORKSPACE_BASE & 0xffff_ffff,
            _ => 0,
        }
    }

    /// Makes `constants` the `.const` space of the launch in place of the program's initial
    /// bytes (a CUDA driver's module, whose constants the host may have written). It must have
    /// the program's size; bytes beyond it are not reachable, missing ones read as a fault.
    pub fn set_constants(&mut self, constants: Arc<Vec<u8>>) {
        self.constants = Some(constants);
    }

    /// Gives the launch its texture and surface objects (what `tex`, `suld`, ... find by
    /// handle; without a table every handle traps).
    pub fn set_textures(&mut self, textures: Arc<crate::texture::TextureTable>) {
        self.textures = Some(textures);
    }

    /// The `.const` space of the launch.
    pub(crate) fn constants(&self) -> &[u8] {
        self.constants
            .as_deref()
            .map_or(&self.program.constants, Vec::as_slice)
    }

    /// Sets the memory limit that [`Device::set_dynamic_shared`] and the grid runner keep to
    /// (see [`crate::budget`]; [`crate::grid::prepare_within`] sets it).
    pub fn set_memory_limit(&mut self, bytes: u64) {
        self.memory_limit = bytes;
    }

    /// The memory limit.
    pub fn memory_limit(&self) -> u64 {
        self.memory_limit
    }

    /// What the launch's simulated memories take (see [`crate::budget`]).
    pub fn footprint(&self) -> Footprint {
        let argument_bytes = self
            .global
            .buffers()
            .iter()
            .filter(|buffer| buffer.base != HEAP_BASE && buffer.base != GRID_WORKSPACE_BASE)
            .skip(self.program.globals.len())
            .fold(0u64, |sum, buffer| sum.saturating_add(buffer.len));
        Footprint::new(
            self.program,
            self.block,
            argument_bytes,
            self.dynamic_shared,
        )
    }

    /// The most dynamic shared memory a launch may ask for: 227 KiB, the per-block maximum of
    /// compute capability 9.0 (CUDA C++ Programming Guide, "Technical Specifications per
    /// Compute Capability").
    pub const MAX_DYNAMIC_SHARED: u64 = 227 * 1024;

    /// Gives each CTA `bytes` of dynamic shared memory, where the program's `.extern .shared`
    /// arrays live (`ptxsim run --dynamic-shared`); at most [`Device::MAX_DYNAMIC_SHARED`].
    pub fn set_dynamic_shared(&mut self, bytes: u64) -> Result<(), String> {
        if bytes > Self::MAX_DYNAMIC_SHARED {
            return Err(format!(
                "{bytes} bytes of dynamic shared memory is more than a CTA can have ({} bytes, \
                 227 KiB on sm_90)",
                Self::MAX_DYNAMIC_SHARED
            ));
        }
        let mut footprint = self.footprint();
        footprint.shared = footprint
            .shared
            .saturating_sub(self.dynamic_shared)
            .saturating_add(bytes);
        footprint
            .check(self.memory_limit)
            .map_err(|error| error.to_string())?;
        self.dynamic_shared = bytes;
        Ok(())
    }

    /// The dynamic shared memory per CTA, in bytes.
    pub fn dynamic_shared(&self) -> u64 {
        self.dynamic_shared
    }

    /// A CTA's shared memory in bytes: the static variables and, after them, the dynamic part
    /// (`%total_smem_size`; the reserved region not included).
    pub fn shared_size(&self) -> u64 {
        match self.program.dynamic_shared {
            Some(base) => base.max(self.program.shared_bytes) + self.dynamic_shared,
            None => self.program.shared_bytes,
        }
    }

    /// Where the reserved shared memory starts: after the static and dynamic parts, aligned
    /// to 128 bytes.
    pub fn reserved_shared_start(&self) -> u64 {
        self.shared_size().next_multiple_of(128)
    }

    /// The bytes of a CTA's shared memory as allocated: [`Device::shared_size`] and, for a
    /// kernel that reads `%reserved_smem_offset_*`, the reserved region after it
    /// ([`crate::ir::RESERVED_SHARED_BYTES`]).
    pub fn shared_allocation(&self) -> u64 {
        if self.program.reserved_shared {
            self.reserved_shared_start() + crate::ir::RESERVED_SHARED_BYTES
        } else {
            self.shared_size()
        }
    }

    /// A one-thread launch without arguments (parameters read as zero).
    pub fn single(program: &'p Program, max_steps: u64) -> Self {
        Self::new(program, [1, 1, 1], [1, 1, 1], max_steps)
    }

    /// Sets the kernel parameter space (padded with zeros to its declared size).
    pub fn set_params(&mut self, mut params: Vec<u8>) {
        let size = usize::try_from(self.program.param_bytes).unwrap_or(0);
        if params.len() < size {
            params.resize(size, 0);
        }
        self.params = params;
    }

    /// The kernel parameter space.
    pub fn params(&self) -> &[u8] {
        &self.params
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The grid's shape in CTAs.
    pub fn grid(&self) -> Dim3 {
        self.grid
    }

    /// The CTA's shape in threads.
    pub fn block(&self) -> Dim3 {
        self.block
    }

    /// The step limit of each thread.
    pub fn max_steps(&self) -> u64 {
        self.max_steps
    }

    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// CTAs in the grid.
    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }
}

/// `X,Y,Z` for messages.
fn dims([x, y, z]: Dim3) -> String {
    format!("{x}x{y}x{z}")
}

/// The index `i` as a [`Dim3`] of a shape (x fastest).
pub fn unflatten(index: u64, shape: Dim3) -> Dim3 {
    let x = u64::from(shape[0].max(1));
    let y = u64::from(shape[1].max(1));
    [
        (index % x) as u32,
        ((index / x) % y) as u32,
        (index / (x * y)) as u32,
    ]
}

/// The linear index of `index` in `shape` (x fastest).
pub fn flatten(index: Dim3, shape: Dim3) -> u64 {
    u64::from(index[0])
        + u64::from(shape[0]) * (u64::from(index[1]) + u64::from(shape[1]) * u64::from(index[2]))
}

/// A call frame: where to go back to and what to copy back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) return_pc: usize,
    /// The caller's stack pointer: `ret` frees what the callee's `alloca`s took (PTX ISA
    /// 9.7.17.3: the memory "is automatically deallocated when the function exits").
    pub(crate) stack: u64,
    pub(crate) callee: usize,
    pub(crate) returns: Vec<(u64, u64, u64)>,
    /// `.reg` return values: the callee's register and the caller's destination.
    pub(crate) register_returns: Vec<(RegisterId, Destination)>,
    /// For a call of a function that is already running in this thread (recursion): the
    /// thread's registers, `.param` space and the callee's `.local` variables as they were
    /// before the call, put back when it returns, so that each invocation has its own.
    pub(crate) saved: Option<Box<SavedState>>,
}

/// A thread's registers and per-thread `.param` space, saved across a recursive call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SavedState {
    pub(crate) registers: Vec<u128>,
    pub(crate) params: Vec<u8>,
    /// The callee's `.local` variables: where they start, and their bytes.
    pub(crate) local: (usize, Vec<u8>),
}

/// Where a thread is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadStatus {
    /// It can run.
    Ready,
    /// It waits at `bar.sync` for the rest of its CTA.
    AtBarrier,
    /// It waits at a warp-synchronous instruction (`shfl.sync`, `vote.sync`, ...), its program
    /// counter on it, for the lanes of its warp the instruction waits for.
    AtWarpSync,
    /// It finished (exited, trapped or ran out of fuel).
    Done(Outcome),
}

/// What a thread has that instructions seldom touch: its index, `.local` and per-thread
/// `.param` memory and call stack. Registers, program counters, step counts and statuses live
/// in [`Lanes`].
#[derive(Clone, Debug)]
pub(crate) struct Thread {
    pub(crate) tid: Dim3,
    pub(crate) local: Vec<u8>,
    pub(crate) params: Vec<u8>,
    pub(crate) frames: Vec<Frame>,
    /// The stack pointer of `alloca` (a `.local` address; the stack is the top
    /// `Program::stack_bytes` of `local` and grows down from its end).
    pub(crate) stack: u64,
}

impl Thread {
    fn new(program: &Program, tid: Dim3) -> Self {
        Self {
            tid,
            local: vec![0; usize::try_from(program.local_bytes).unwrap_or(0)],
            params: vec![0; usize::try_from(program.thread_param_bytes).unwrap_or(0)],
            frames: Vec::new(),
            stack: program.local_bytes,
        }
    }
}

/// The per-thread state that every instruction touches, stored as a structure of arrays:
/// register `r` of thread `t` is `registers[r * stride + t]` (`stride`: the thread count
/// padded, [`crate::compiled::register_stride`]), so an instruction that runs for
/// the threads of a CTA in lockstep reads and writes each operand's values contiguously.
/// Registers start at zero (PTX leaves them undefined; ptxsim picks zero so that runs are
/// deterministic).
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    /// The distance between two registers' rows ([`crate::compiled::register_stride`]).
    pub(crate) stride: usize,
    /// The low 64 bits of every register (all of a register of 64 bits or fewer).
    pub(crate) low: Vec<u64>,
    /// The high 64 bits of the `.b128` registers, in rows numbered by `high_row`.
    high: Vec<u64>,
    /// For each register, its row in `high` when it is wider than 64 bits.
    high_row: Vec<Option<usize>>,
    pub(crate) pc: Vec<usize>,
    pub(crate) steps: Vec<u64>,
    pub(crate) status: Vec<ThreadStatus>,
    /// Whether a thread's last `mbarrier.test_wait`/`try_wait` found the phase incomplete: it
    /// spins, and [`Cta::gather`] lets the other threads run first.
    pub(crate) waiting: Vec<bool>,
    /// Whether a thread has called a function since the CTA started (else no thread has a
    /// call frame, and `ret` ends every thread that runs it).
    pub(crate) calls: bool,
    /// Instructions that the group running in lockstep issued without its threads' program
    /// counters and step counts being updated (see [`Lanes::settle`]).
    pub(crate) pending: u64,
}

impl Lanes {
    fn new(program: &Program, count: usize) -> Self {
        let mut wide = 0;
        let high_row: Vec<Option<usize>> = program
            .registers
            .iter()
            .map(|register| {
                (register.bits() > 64).then(|| {
                    wide += 1;
                    wide - 1
                })
            })
            .collect();
        let stride = crate::compiled::register_stride(count);
        Self {
            stride,
            low: vec![0; program.registers.len() * stride],
            high: vec![0; wide * stride],
            high_row,
            pc: vec![0; count],
            steps: vec![0; count],
            status: vec![ThreadStatus::Ready; count],
            waiting: vec![false; count],
            calls: false,
            pending: 0,
        }
    }

    /// Register `register` of thread `lane`; an invalid index (a simulator bug: lowering only
    /// produces valid ones) reads as zero rather than panicking.
    #[inline(always)]
    pub(crate) fn get(&self, lane: usize, register: RegisterId) -> u128 {
        let low = self.low.get(register.index() * self.stride + lane).copied();
        let high = match self.high_row.get(register.index()) {
            Some(Some(row)) => self.high.get(row * self.stride + lane).copied(),
            _ => None,
        };
        u128::from(low.unwrap_or(0)) | u128::from(high.unwrap_or(0)) << 64
    }

    /// Sets register `register` of thread `lane` (an invalid index is ignored).
    #[inline(always)]
    pub(crate) fn set(&mut self, lane: usize, register: RegisterId, value: u128) {
        if let Some(slot) = self.low.get_mut(register.index() * self.stride + lane) {
            *slot = value as u64;
        }
        if let Some(Some(row)) = self.high_row.get(register.index()) {
            if let Some(slot) = self.high.get_mut(row * self.stride + lane) {
                *slot = (value >> 64) as u64;
            }
        }
    }

    /// Every register of thread `lane`, in register order.
    pub(crate) fn save(&self, lane: usize) -> Vec<u128> {
        (0..self.high_row.len())
            .map(|index| self.get(lane, RegisterId(index as u32)))
            .collect()
    }

    /// Puts back the registers [`Lanes::save`] gave.
    pub(crate) fn restore(&mut self, lane: usize, registers: &[u128]) {
        for (index, &value) in registers.iter().enumerate() {
            self.set(lane, RegisterId(index as u32), value);
        }
    }

    /// Brings the threads of `group`, which issued [`Lanes::pending`] instructions in lockstep
    /// without their counters being updated, to the instruction `pc`.
    #[inline]
    pub(crate) fn settle(&mut self, group: &[usize], pc: usize) {
        if self.pending == 0 {
            return;
        }
        for &lane in group {
            self.steps[lane] += self.pending;
            self.pc[lane] = pc;
        }
        self.pending = 0;
    }

    /// The low 64 bits of `register` for the consecutive lanes `first..first + count`.
    #[inline(always)]
    pub(crate) fn row(&self, register: RegisterId, first: usize, count: usize) -> Option<&[u64]> {
        let base = register.index() * self.stride + first;
        self.low.get(base..base + count)
    }
}

/// The operand values of one instruction for the lanes it runs on (one entry per lane, in the
/// order of the lanes), reused from instruction to instruction: operands are fetched for all
/// lanes at once, computed in one loop and written back in one loop, so each loop decodes
/// nothing and runs over contiguous memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Columns {
    pub(crate) a: Vec<u64>,
    pub(crate) b: Vec<u64>,
    pub(crate) c: Vec<u64>,
    pub(crate) out: Vec<u64>,
}

/// The first lane of `lanes` when they are consecutive (lanes are sorted and distinct, so this
/// is when the last is `len - 1` after the first).
#[inline(always)]
pub(crate) fn run_start(lanes: &[usize]) -> Option<usize> {
    let (&first, &last) = (lanes.first()?, lanes.last()?);
    (last - first + 1 == lanes.len()).then_some(first)
}

/// The CTA's sixteen barriers (PTX ISA 9.7.13.1) in their current phase: which lanes arrived
/// (a warp has arrived when all its lanes that have not finished did), the thread count the
/// phase waits for, the reduction of `.red`, and the barrier each waiting lane waits at.
#[derive(Clone, Debug, Default)]
pub(crate) struct Barriers {
    /// Per barrier, per warp: the lanes that arrived in this phase (empty: nobody yet).
    arrived: Vec<Vec<u32>>,
    /// Per barrier: `b`, the threads the phase waits for (`None`: all of the CTA).
    count: [Option<u32>; 16],
    /// Per barrier: how many arriving lanes had `c` true, and how many arrived with a `c`.
    popc: [u32; 16],
    voters: [u32; 16],
    /// Per lane: the barrier it waits at (while `AtBarrier`).
    pub(crate) waiting_at: Vec<u8>,
}

impl Barriers {
    fn new(threads: usize) -> Self {
        Barriers {
            arrived: vec![Vec::new(); 16],
            count: [None; 16],
            popc: [0; 16],
            voters: [0; 16],
            waiting_at: vec![0; threads],
        }
    }

    /// Lane `lane` arrives at barrier `id` (0..16) of a phase of `count` threads, with `c` for
    /// `.red`.
    pub(crate) fn arrive(&mut self, lane: usize, id: usize, count: Option<u32>, c: Option<bool>) {
        let warps = self.waiting_at.len().div_ceil(32);
        let arrived = &mut self.arrived[id];
        if arrived.is_empty() {
            arrived.resize(warps, 0);
            self.count[id] = count;
        }
        arrived[lane / 32] |= 1 << (lane % 32);
        if let Some(c) = c {
            self.voters[id] += 1;
            self.popc[id] += u32::from(c);
        }
    }

    fn reset(&mut self, id: usize) {
        self.arrived[id].clear();
        self.count[id] = None;
        self.popc[id] = 0;
        self.voters[id] = 0;
    }
}

/// The barrier number [`Barriers::waiting_at`] holds for a lane that waits at
/// `barrier.cluster.wait`.
pub(crate) const CLUSTER_BARRIER: u8 = 16;

/// A CTA's place in its thread-block cluster (PTX ISA 9.0, 2.2.1 "Cluster of Cooperative
/// Thread Arrays"): its rank, the shared memory of the other CTAs while it runs (distributed
/// shared memory, `.shared::cluster`), and the cluster barrier (`barrier.cluster`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ClusterLink {
    /// `%cluster_ctarank`.
    pub(crate) rank: u32,
    /// `%cluster_nctarank`.
    pub(crate) size: u32,
    /// The shared memory of the cluster's CTAs by rank while this one runs: the runner of a
    /// cluster lends them to the running CTA for its time slice ([`crate::grid`]); this CTA's
    /// own slot is empty (its memory is [`Cta::shared`]), and so is every slot of a cluster of
    /// one.
    pub(crate) peers: Vec<Vec<u8>>,
    /// The tensor memories of the cluster's CTAs by rank, lent as [`ClusterLink::peers`] are
    /// (`tcgen05` `.cta_group::2` reaches the peer CTA's).
    pub(crate) tmem: Vec<crate::tensor_memory::TensorMemory>,
    /// Per lane: the `barrier.cluster.arrive`s it made.
    pub(crate) arrivals: Vec<u64>,
    /// The completed phases of the cluster barrier: a lane that arrived `n` times waits at
    /// `barrier.cluster.wait` until `phase >= n`.
    pub(crate) phase: u64,
}

impl ClusterLink {
    fn new(device: &Device<'_>, ctaid: Dim3, threads: usize) -> Self {
        let shape = device.cluster();
        let within = [0, 1, 2].map(|axis| ctaid[axis] % shape[axis].max(1));
        Self {
            rank: flatten(within, shape) as u32,
            size: device.cluster_ctas() as u32,
            peers: Vec::new(),
            tmem: Vec::new(),
            arrivals: vec![0; threads],
            phase: 0,
        }
    }

    /// Whether `lane` arrived at the cluster barrier in its current phase.
    pub(crate) fn arrived(&self, lane: usize) -> bool {
        self.arrivals.get(lane).is_some_and(|&n| n > self.phase)
    }
}

/// One thread of a [`Cta`], to look at: its index, registers, program counter, step count,
/// status and `.local` memory.
#[derive(Clone, Copy, Debug)]
pub struct ThreadRef<'a> {
    cta: &'a Cta,
    index: usize,
}

impl<'a> ThreadRef<'a> {
    fn thread(&self) -> &'a Thread {
        &self.cta.threads[self.index]
    }

    /// The thread's index in its CTA.
    pub fn tid(&self) -> Dim3 {
        self.thread().tid
    }

    /// Every register's value, in declaration order.
    pub fn registers(&self) -> Vec<u128> {
        let lanes = &self.cta.lanes;
        (0..lanes.high_row.len())
            .map(|index| lanes.get(self.index, RegisterId(index as u32)))
            .collect()
    }

    /// One register's value (zero for an index that is not a register).
    pub fn register(&self, register: RegisterId) -> u128 {
        self.cta.lanes.get(self.index, register)
    }

    /// The index of the next instruction.
    pub fn pc(&self) -> usize {
        self.cta.lanes.pc[self.index]
    }

    /// Instructions issued so far.
    pub fn steps(&self) -> u64 {
        self.cta.lanes.steps[self.index]
    }

    /// Where the thread is.
    pub fn status(&self) -> &'a ThreadStatus {
        &self.cta.lanes.status[self.index]
    }

    /// The thread's `.local` memory.
    pub fn local(&self) -> &'a [u8] {
        &self.thread().local
    }
}

/// How a time slice of a CTA ([`Cta::run_slice`]) ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The CTA finished: `None` when every thread exited, else the first thread that did not
    /// exit normally and its outcome (as [`Cta::run`] returns them).
    Finished(Option<(usize, Outcome)>),
    /// The budget was spent; the CTA has threads that can go on (or wait at a barrier).
    Paused,
    /// No thread can run until the cluster barrier completes (`barrier.cluster.wait` in a
    /// cluster of several CTAs, which the cluster's runner completes).
    Blocked,
}

/// What one call of [`Cta::step_thread`] came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The thread can go on.
    Continue,
    /// The thread reached `bar.sync` and waits for its CTA.
    Barrier,
    /// The thread waits at a warp-synchronous instruction for other lanes of its warp.
    WarpSync,
    /// The thread finished.
    Done(Outcome),
}

/// A CTA: its shared memory and its threads.
#[derive(Clone, Debug)]
pub struct Cta {
    ctaid: Dim3,
    linear: u64,
    pub(crate) shared: Vec<u8>,
    threads: Vec<Thread>,
    lanes: Lanes,
    columns: Columns,
    /// Step records of lanes that a warp-synchronous instruction released while another lane
    /// was being stepped (by lane), when steps are recorded.
    released: Vec<(usize, StepRecord)>,
    /// Whether [`Cta::run`] is recording a trace (then every released lane's step is recorded).
    tracing: bool,
    barriers: Barriers,
    /// Its tensor memory (`tcgen05`, sm_100a).
    pub(crate) tmem: crate::tensor_memory::TensorMemory,
    /// Its place in its thread-block cluster.
    pub(crate) cluster: ClusterLink,
    /// What the threads printed with `printf`.
    printed: PrintBuffer,
    /// Per thread: the instruction at which compiled code last handed it to the interpreter
    /// (`usize::MAX`: none), which the interpreter runs before compiled code takes it on again.
    held: Vec<usize>,
    /// The global buffers compiled code accessed last ([`crate::compiled::CompiledCta`]).
    windows: Vec<u64>,
    /// The threads [`Cta::run_compiled`] hands to compiled code (kept for its allocation).
    runnable: Vec<u32>,
    /// Whether compiled code handed a thread back at an access it did not make (a fault,
    /// most likely): the rest of the CTA's run is the interpreter's.
    interpret_only: bool,
}

impl Cta {
    /// CTA `ctaid` of the device's grid, every thread at the first instruction.
    pub fn new(device: &Device<'_>, ctaid: Dim3) -> Self {
        let program = device.program;
        let count = device.threads_per_cta();
        let threads: Vec<Thread> = (0..count)
            .map(|index| Thread::new(program, unflatten(index, device.block)))
            .collect();
        Self {
            ctaid,
            linear: flatten(ctaid, device.grid),
            shared: vec![0; usize::try_from(device.shared_allocation()).unwrap_or(0)],
            lanes: Lanes::new(program, threads.len()),
            columns: Columns::default(),
            released: Vec::new(),
            tracing: false,
            barriers: Barriers::new(threads.len()),
            tmem: crate::tensor_memory::TensorMemory::default(),
            cluster: ClusterLink::new(device, ctaid, threads.len()),
            threads,
            printed: PrintBuffer::default(),
            held: Vec::new(),
            windows: Vec::new(),
            runnable: Vec::new(),
            interpret_only: false,
        }
    }

    /// The CTA's index in the grid.
    pub fn ctaid(&self) -> Dim3 {
        self.ctaid
    }

    /// The number of threads.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// Thread `index` (in linear order).
    pub fn thread(&self, index: usize) -> Option<ThreadRef<'_>> {
        (index < self.threads.len()).then_some(ThreadRef { cta: self, index })
    }

    /// The threads, in linear order.
    pub fn threads(&self) -> impl ExactSizeIterator<Item = ThreadRef<'_>> {
        (0..self.threads.len()).map(|index| ThreadRef { cta: self, index })
    }

    /// Sets a register of thread `index` (masked to the register's width).
    pub fn set_register(
        &mut self,
        program: &Program,
        index: usize,
        register: RegisterId,
        value: u128,
    ) {
        let bits = program
            .registers
            .get(register.index())
            .map_or(0, |r| r.bits());
        if index < self.threads.len() {
            self.lanes.set(index, register, chop(value, bits));
        }
    }

    /// What the threads printed with `printf` since the CTA started or this was last called:
    /// by thread in linear order, each thread's calls in order; and how many calls were dropped
    /// past [`crate::runtime::PRINTF_LIMIT`].
    pub fn take_printed(&mut self) -> (Vec<Printed>, u64) {
        let (ctaid, threads) = (self.ctaid, &self.threads);
        self.printed
            .take(ctaid, |lane| threads.get(lane).map_or([0; 3], |t| t.tid))
    }

    /// The CTA's shared memory.
    pub fn shared(&self) -> &[u8] {
        &self.shared
    }

    /// The grid-wide index of thread `index` of this CTA.
    pub fn global_thread(&self, device: &Device<'_>, index: usize) -> u64 {
        self.linear * device.threads_per_cta() + index as u64
    }

    /// Releases every barrier whose phase is complete (PTX ISA 9.7.13.1): a warp has arrived
    /// when all its lanes that have not finished executed a barrier instruction on it; the
    /// phase is complete when `b` threads (warps × 32) arrived, or without `b` when every warp
    /// with a lane that has not finished did. The waiting lanes go on past the instruction
    /// (`.red` writes its result in each), and the barrier starts a new phase. Returns whether
    /// a barrier completed.
    pub fn release_barrier(&mut self, device: &Device<'_>) -> bool {
        let count = self.threads.len();
        let mut released = self.release_cluster_barrier();
        for id in 0..16 {
            if self.barriers.arrived[id].is_empty() {
                continue;
            }
            let mut arrived_warps = 0u32;
            let mut every_warp = true;
            for (warp, &mask) in self.barriers.arrived[id].iter().enumerate() {
                let first = warp * 32;
                let end = (first + 32).min(count);
                let live = (first..end)
                    .filter(|&lane| !matches!(self.lanes.status[lane], ThreadStatus::Done(_)))
                    .fold(0u32, |live, lane| live | 1 << (lane % 32));
                if mask != 0 && live & !mask == 0 {
                    arrived_warps += 1;
                } else if live != 0 {
                    every_warp = false;
                }
            }
            let complete = match self.barriers.count[id] {
                Some(threads) => arrived_warps * 32 >= threads,
                None => every_warp,
            };
            if !complete {
                continue;
            }
            let (popc, voters) = (self.barriers.popc[id], self.barriers.voters[id]);
            for lane in 0..count {
                if self.lanes.status[lane] != ThreadStatus::AtBarrier
                    || usize::from(self.barriers.waiting_at[lane]) != id
                {
                    continue;
                }
                let pc = self.lanes.pc[lane];
                if let Some(InstructionKind::Barrier {
                    op,
                    destination: Some(destination),
                    ..
                }) = device.program.instructions.get(pc).map(|i| &i.kind)
                {
                    // "Once the barrier count is reached, the final value is written to the
                    // destination register in all threads waiting at the barrier."
                    let value = match op {
                        BarrierOp::RedPopc => popc,
                        BarrierOp::RedAnd => u32::from(popc == voters),
                        _ => u32::from(popc > 0),
                    };
                    let bits = device
                        .program
                        .registers
                        .get(destination.register.index())
                        .map_or(32, |r| r.bits());
                    self.lanes
                        .set(lane, destination.register, chop(u128::from(value), bits));
                }
                self.lanes.status[lane] = ThreadStatus::Ready;
                self.lanes.pc[lane] = pc + 1;
            }
            self.barriers.reset(id);
            released = true;
        }
        released
    }

    /// Whether every thread of this CTA that has not finished arrived at the cluster barrier in
    /// its current phase, and one did (PTX ISA 9.0, barrier.cluster: "barrier.cluster.wait
    /// causes the executing thread to wait for all non-exited threads of the cluster to
    /// perform barrier.cluster.arrive").
    pub(crate) fn cluster_arrived(&self) -> (bool, bool) {
        let mut all = true;
        let mut some = false;
        for (lane, status) in self.lanes.status.iter().enumerate() {
            if self.cluster.arrived(lane) {
                some = true;
            } else if !matches!(status, ThreadStatus::Done(_)) {
                all = false;
            }
        }
        (all, some)
    }

    /// The CTA's lanes that arrived at the cluster barrier in its current phase.
    pub(crate) fn cluster_arrivals(&self) -> usize {
        (0..self.threads.len())
            .filter(|&lane| self.cluster.arrived(lane))
            .count()
    }

    /// Completes the cluster barrier's phase of a cluster of one CTA when every unfinished
    /// thread arrived (a cluster of several is completed by its runner, [`crate::grid`]), then
    /// releases the lanes whose phase completed from `barrier.cluster.wait`. Returns whether
    /// a lane was released.
    fn release_cluster_barrier(&mut self) -> bool {
        if self.cluster.size <= 1 {
            let (all, some) = self.cluster_arrived();
            if all && some {
                self.cluster.phase += 1;
            }
        }
        let mut released = false;
        for lane in 0..self.threads.len() {
            if self.lanes.status[lane] == ThreadStatus::AtBarrier
                && self.barriers.waiting_at[lane] == CLUSTER_BARRIER
                && self.cluster.arrivals[lane] <= self.cluster.phase
            {
                self.lanes.status[lane] = ThreadStatus::Ready;
                self.lanes.pc[lane] += 1;
                released = true;
            }
        }
        released
    }

    /// Whether a lane waits at `barrier.cluster.wait`.
    pub(crate) fn waits_for_cluster(&self) -> bool {
        (0..self.threads.len()).any(|lane| {
            self.lanes.status[lane] == ThreadStatus::AtBarrier
                && self.barriers.waiting_at[lane] == CLUSTER_BARRIER
        })
    }

    /// Traps the first lane that waits at `barrier.cluster.wait` in a cluster that can never
    /// complete its barrier: `arrived` of `threads` threads of the cluster arrived.
    pub(crate) fn trap_cluster_wait(
        &mut self,
        device: &Device<'_>,
        arrived: usize,
        threads: usize,
    ) -> Option<(usize, Outcome)> {
        let lane = (0..self.threads.len()).find(|&lane| {
            self.lanes.status[lane] == ThreadStatus::AtBarrier
                && self.barriers.waiting_at[lane] == CLUSTER_BARRIER
        })?;
        let instruction = device.program.instructions.get(self.lanes.pc[lane]);
        let outcome = Outcome::Trapped {
            message: format!(
                "`{}` can never complete: {arrived} of the cluster's {threads} threads arrived \
                 at the cluster barrier and no other thread can run",
                instruction.map_or("", |i| i.text.as_str())
            ),
            location: instruction.map(|i| i.location).unwrap_or_default(),
        };
        self.lanes.status[lane] = ThreadStatus::Done(outcome.clone());
        Some((lane, outcome))
    }

    /// Runs every thread to its end, in lockstep: each step issues the instruction at the
    /// lowest program counter among the threads that can run, for every such thread in linear
    /// order (threads that took a branch wait until the others reach them, so they
    /// reconverge). Threads that reach `bar.sync` wait until every unfinished thread has; then
    /// they are released. Stops at the first thread that does not exit normally and returns its
    /// index and outcome (or its index and the simulator's error).
    ///
    /// `trace` receives every issued step's record, grouped by thread: each thread's steps
    /// between two barrier releases are passed together, threads in linear order. A CTA holds
    /// at most about [`MAX_GROUPED_RECORDS`] records for that: when it has more before the next
    /// barrier, those are passed on (threads in linear order) and grouping starts over there.
    pub fn run(
        &mut self,
        device: &Device<'_>,
        trace: Option<&mut dyn FnMut(&StepRecord)>,
    ) -> Result<Option<(usize, Outcome)>, (usize, ExecError)> {
        match self.run_for::<false>(device, trace, u64::MAX) {
            Ok(Slice::Finished(stopped)) => Ok(stopped),
            // Without a budget the run never pauses, and a cluster of several CTAs runs by
            // slices.
            Ok(Slice::Paused | Slice::Blocked) => Ok(None),
            Err(failure) => Err(failure),
        }
    }

    /// Runs the CTA as [`Cta::run`] does for at most `issues` issues (an issue runs one
    /// instruction for a group of threads in lockstep, or one thread's step while tracing),
    /// then pauses: [`Slice::Paused`] leaves every thread's state (program counter, step count,
    /// barrier) as a later call continues from, so that calls with budgets give the same
    /// results as one [`Cta::run`]. A cooperative launch runs its CTAs by such time slices, in
    /// turn, so that a CTA spinning on global memory (CUDA's grid barrier) lets the others
    /// reach it. Trace records are passed on at the end of each slice.
    pub fn run_slice(
        &mut self,
        device: &Device<'_>,
        trace: Option<&mut dyn FnMut(&StepRecord)>,
        issues: u64,
    ) -> Result<Slice, (usize, ExecError)> {
        self.run_for::<true>(device, trace, issues)
    }

    /// [`Cta::run`] and [`Cta::run_slice`]: with `SLICED` false the budget is never looked at,
    /// so the loop of a launch that is not cooperative is the same as without one.
    #[inline(always)]
    fn run_for<const SLICED: bool>(
        &mut self,
        device: &Device<'_>,
        mut trace: Option<&mut dyn FnMut(&StepRecord)>,
        mut budget: u64,
    ) -> Result<Slice, (usize, ExecError)> {
        let tracing = trace.is_some();
        self.tracing = tracing;
        let mut buffered: Vec<Vec<StepRecord>> = if tracing {
            vec![Vec::new(); self.threads.len()]
        } else {
            Vec::new()
        };
        let mut flush = |buffered: &mut Vec<Vec<StepRecord>>| {
            if let Some(sink) = trace.as_mut() {
                for records in buffered.iter_mut() {
                    for record in records.drain(..) {
                        sink(&record);
                    }
                }
            }
        };
        // Records held for grouping since the last flush: past [`MAX_GROUPED_RECORDS`] they are
        // passed on (threads in linear order) and grouping starts over, so the memory a traced
        // CTA holds is bounded however long it runs between barriers.
        let held = |buffered: &[Vec<StepRecord>]| buffered.iter().map(Vec::len).sum::<usize>();
        let mut record = StepRecord::default();
        let mut group: Vec<usize> = Vec::with_capacity(self.threads.len());
        let mut active: Vec<usize> = Vec::with_capacity(self.threads.len());
        let mut pc = 0;
        let mut converged = false;
        // At least the step count of every thread of the group: each issue adds one to each.
        let mut bound = 0;
        // Compiled code runs the threads between the instructions the interpreter issues,
        // unless the run is traced or sliced, or the CTA is part of a larger cluster.
        let compiled = device
            .compiled
            .clone()
            .filter(|_| !SLICED && !tracing && self.cluster.size <= 1);
        // Whether threads at `pc` go to the compiled code.
        let enters = |cta: &Self, pc: usize| {
            compiled
                .as_ref()
                .is_some_and(|code| !cta.interpret_only && code.covers(pc))
        };
        let result = 'run: loop {
            if SLICED {
                if budget == 0 {
                    // Counters a converged group deferred are settled, so that the next slice
                    // finds every thread where it is.
                    self.lanes.settle(&group, pc);
                    break Ok(Slice::Paused);
                }
                budget -= 1;
            }
            if !converged {
                if let Some(code) = compiled.as_ref().filter(|_| !self.interpret_only) {
                    self.run_compiled(device, code.as_ref());
                }
                match self.gather(&mut group) {
                    // With compiled code, a group runs in lockstep up to the next instruction
                    // where the compiled code takes the threads on.
                    Some((lowest, all, most)) => {
                        (pc, converged, bound) = (lowest, all && !enters(self, lowest), most);
                    }
                    None if self.release_barrier(device) => {
                        flush(&mut buffered);
                        continue;
                    }
                    None => match self.release_warps(device) {
                        Err(failure) => break Err(failure),
                        Ok(true) => {
                            self.take_released(&mut buffered);
                            continue;
                        }
                        Ok(false) if self.wake_spinners() => continue,
                        Ok(false)
                            if SLICED && self.cluster.size > 1 && self.waits_for_cluster() =>
                        {
                            break Ok(Slice::Blocked);
                        }
                        Ok(false) => break Ok(Slice::Finished(self.stuck(device))),
                    },
                }
            }
            if tracing {
                for &index in &group {
                    let issued = self.step_thread(device, index, Some(&mut record));
                    if record.pc != usize::MAX {
                        buffered[index].push(record.clone());
                    }
                    self.take_released(&mut buffered);
                    if let Err(error) = issued {
                        break 'run Err((index, error));
                    }
                }
                let share = MAX_GROUPED_RECORDS / self.threads.len().max(1);
                if group
                    .first()
                    .is_some_and(|&first| buffered[first].len() >= share)
                    && held(&buffered) >= MAX_GROUPED_RECORDS
                {
                    flush(&mut buffered);
                }
            } else {
                let fuelled = bound < device.max_steps;
                let lockstep = Lockstep {
                    fuelled,
                    defer: converged,
                };
                let issued = self.issue(device, pc, &group, &mut active, None, lockstep);
                bound = bound.saturating_add(1);
                match issued {
                    Err(failure) => break Err(failure),
                    Ok(Some(next)) if converged => {
                        pc = next;
                        if enters(self, next) {
                            self.lanes.settle(&group, next);
                            converged = false;
                        }
                        continue;
                    }
                    Ok(_) => {}
                }
            }
            // Keep the threads that go on; they stay one group while they agree on the next
            // instruction.
            let mut next = None;
            let mut kept = 0;
            for slot in 0..group.len() {
                let index = group[slot];
                match &self.lanes.status[index] {
                    ThreadStatus::Ready => {
                        let at = self.lanes.pc[index];
                        converged &= *next.get_or_insert(at) == at;
                        group[kept] = index;
                        kept += 1;
                    }
                    ThreadStatus::AtBarrier
                    | ThreadStatus::AtWarpSync
                    | ThreadStatus::Done(Outcome::Exited) => {}
                    ThreadStatus::Done(outcome) => {
                        break 'run Ok(Slice::Finished(Some((index, outcome.clone()))));
                    }
                }
            }
            group.truncate(kept);
            pc = next.unwrap_or(pc);
            converged &= kept > 0 && !enters(self, pc);
        };
        flush(&mut buffered);
        result
    }

    /// Runs every thread that can run through `code` from its program counter to the next
    /// instruction the interpreter must run ([`crate::compiled`]), threads in linear order;
    /// a thread the compiled code handed back stays where it is until the interpreter has
    /// issued that instruction.
    fn run_compiled(&mut self, device: &Device<'_>, code: &dyn crate::compiled::CompiledKernel) {
        let count = self.threads.len();
        if self.held.len() != count {
            self.held = vec![usize::MAX; count];
        }
        debug_assert_eq!(
            self.lanes.pending, 0,
            "a lockstep group deferred its counters"
        );
        loop {
            if !self.run_compiled_once(device, code) || !self.pass_barrier(device) {
                return;
            }
        }
    }

    /// Whether every thread of the CTA waits, ready, at one `bar.sync a` (or `barrier.sync`)
    /// of a constant barrier no thread has arrived at, without a thread count, guard or
    /// reduction, below its step limit; then runs it for all of them at once, as the
    /// interpreter would (each thread arrives, which completes the barrier, and goes on: PTX
    /// ISA 9.0, bar/barrier: "If no thread count is specified, all threads in the CTA
    /// participate in the barrier"), and returns true. Compiled code stops every thread at such barriers:
    /// this saves the interpreter's issue, arrival and release for them.
    fn pass_barrier(&mut self, device: &Device<'_>) -> bool {
        let Some(&pc) = self.lanes.pc.first() else {
            return false;
        };
        let Some(instruction) = device.program.instructions.get(pc) else {
            return false;
        };
        let id = match instruction.kind {
            InstructionKind::Barrier {
                op: BarrierOp::Sync,
                id: Source::Immediate(id),
                count: None,
                destination: None,
                predicate: None,
            } if instruction.guard.is_none() && id < 16 => id as usize,
            _ => return false,
        };
        let max_steps = device.max_steps;
        let all_there = self.barriers.arrived[id].is_empty()
            && self
                .lanes
                .pc
                .iter()
                .zip(&self.lanes.steps)
                .zip(&self.lanes.status)
                .all(|((&at, &steps), status)| {
                    at == pc && steps < max_steps && *status == ThreadStatus::Ready
                });
        if !all_there {
            return false;
        }
        for (at, steps) in self.lanes.pc.iter_mut().zip(&mut self.lanes.steps) {
            *at += 1;
            *steps += 1;
        }
        true
    }

    /// [`Cta::run_compiled`]'s one call of the compiled code; false when it ran no thread or
    /// handed one back at an access it did not make.
    fn run_compiled_once(
        &mut self,
        device: &Device<'_>,
        code: &dyn crate::compiled::CompiledKernel,
    ) -> bool {
        let count = self.threads.len();
        let mut runnable = std::mem::take(&mut self.runnable);
        runnable.clear();
        for lane in 0..count {
            let pc = self.lanes.pc[lane];
            if matches!(self.lanes.status[lane], ThreadStatus::Ready)
                && self.held[lane] != pc
                && code.covers(pc)
            {
                runnable.push(lane as u32);
            }
        }
        if runnable.is_empty() {
            self.runnable = runnable;
            return false;
        }
        let mut cta = crate::compiled::CompiledCta {
            registers: &mut self.lanes.low,
            count,
            stride: self.lanes.stride,
            lanes: &runnable,
            pc: &mut self.lanes.pc,
            steps: &mut self.lanes.steps,
            max_steps: device.max_steps,
            specials: crate::compiled::Specials::of_cta(device, self.ctaid).values(),
            windows: &mut self.windows,
            declined: None,
            memory: crate::compiled::CtaSpaces::new(
                &device.global,
                &mut self.shared,
                &device.params,
                device.constants(),
                &mut self.threads,
            ),
        };
        code.run(&mut cta);
        let declined = cta.declined;
        // Each thread run stays where the compiled code left it until the interpreter has
        // issued that instruction.
        for &lane in &runnable {
            let lane = lane as usize;
            self.held[lane] = self.lanes.pc[lane];
            if declined == Some(lane) {
                break;
            }
        }
        self.runnable = runnable;
        if declined.is_some() {
            // Handed back at an access the compiled code did not make: most likely a fault,
            // which stops the CTA. The interpreter runs the CTA from here on, in lockstep, so
            // that the threads after this one stop where it stops them.
            self.interpret_only = true;
            return false;
        }
        true
    }

    /// Moves the step records of lanes a warp-synchronous instruction released into their
    /// threads' buffers (there are some only while tracing).
    fn take_released(&mut self, buffered: &mut [Vec<StepRecord>]) {
        for (lane, record) in self.released.drain(..) {
            if let Some(records) = buffered.get_mut(lane) {
                records.push(record);
            }
        }
    }

    /// Lanes that arrived at a warp-synchronous instruction at `pc`: they wait there; every
    /// warp among them whose lanes have all arrived runs it ([`Cta::release_warp`]). With
    /// `record` (stepping one lane) the lane's step is recorded if it is released now.
    ///
    /// The common case goes straight through: when the arriving lanes of a warp are all its
    /// lanes (a converged warp), all with the same membermask, which holds each of them, the
    /// instruction runs for them at once. Returns whether every arriving lane ran it
    /// and goes on.
    fn arrive(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        arrived: &[usize],
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        let instruction = &device.program.instructions[pc];
        if instruction.kind.warp_sync() == Some(WarpSync::Warpgroup) {
            return self.arrive_warpgroup(device, pc, arrived, record);
        }
        let count = self.threads.len();
        let mut waiting = false;
        let mut start = 0;
        while start < arrived.len() {
            let warp = arrived[start] / 32;
            let end = start
                + arrived[start..]
                    .iter()
                    .take_while(|&&lane| lane / 32 == warp)
                    .count();
            let chunk = &arrived[start..end];
            start = end;
            let lanes_in_warp = (count - warp * 32).min(32);
            let whole = record.is_none()
                && chunk.len() == lanes_in_warp
                && chunk
                    .iter()
                    .enumerate()
                    .all(|(i, &lane)| lane == warp * 32 + i);
            let ready = whole
                && match instruction.kind.warp_sync() {
                    Some(WarpSync::Members(source)) => {
                        // Every lane of the warp is here: a lane outside its own
                        // membermask (a trap) and lanes of different membermasks (separate
                        // groups, see `release_warp`) take the slow path.
                        let executor = self.executor(device, chunk, pc, None, None);
                        let first = executor.read_bits(chunk[0], source, 32) as u32;
                        chunk.iter().all(|&lane| {
                            let mask = executor.read_bits(lane, source, 32) as u32;
                            mask == first && mask & 1 << (lane % 32) != 0
                        })
                    }
                    Some(WarpSync::Converged) => true,
                    Some(WarpSync::Warpgroup) | None => false,
                };
            if ready {
                self.run_together(device, pc, chunk)?;
                continue;
            }
            waiting = true;
            self.wait_together(device, chunk, record.as_deref_mut())?;
        }
        Ok(!waiting)
    }

    /// Runs the collective instruction at `pc` for `chunk` (lanes of one warp or warpgroup, all
    /// arrived) at once, and moves them past it. A lane the instruction stopped (a collective
    /// instruction that faulted) keeps its program counter at the instruction.
    fn run_together(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        chunk: &[usize],
    ) -> Result<(), (usize, ExecError)> {
        let instruction = &device.program.instructions[pc];
        let mut executor = self.executor(device, chunk, pc, None, None);
        executor
            .execute(instruction, chunk)
            .map_err(|(lane, error)| (lane, *error))?;
        for &lane in chunk {
            self.lanes.steps[lane] += 1;
            if !matches!(self.lanes.status[lane], ThreadStatus::Done(_)) {
                self.lanes.pc[lane] = pc + 1;
            }
        }
        Ok(())
    }

    /// Parks `chunk` (lanes of one warp, or of one warpgroup starting at a warp) at their
    /// collective instruction and runs whatever of the first lane's warp is now ready. A traced
    /// step is not a step until the instruction runs (`record.pc` becomes `usize::MAX`).
    fn wait_together(
        &mut self,
        device: &Device<'_>,
        chunk: &[usize],
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        for &lane in chunk {
            self.lanes.status[lane] = ThreadStatus::AtWarpSync;
        }
        let owner = record.as_ref().and(chunk.first().copied());
        if let Some(record) = record.as_deref_mut() {
            record.pc = usize::MAX;
        }
        self.release_warp(device, chunk[0] / 32, owner, record)
    }

    /// Runs the warp-synchronous instructions that lanes of `warp` wait at, for each one whose
    /// lanes have all arrived: for the `.sync` forms every lane of the waiting lanes'
    /// membermasks that exists and has not finished ("wait until all non-exited threads
    /// corresponding to membermask have executed" it), for the others every lane of the warp
    /// at the same instruction. A lane whose membermask leaves it out traps ("undefined if the
    /// executing thread is not in the membermask"). Returns whether any lane was released.
    fn release_warp(
        &mut self,
        device: &Device<'_>,
        warp: usize,
        owner: Option<usize>,
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        let first = warp * 32;
        let end = (first + 32).min(self.threads.len());
        let mut released = false;
        let mut pcs: Vec<usize> = (first..end)
            .filter(|&lane| self.lanes.status[lane] == ThreadStatus::AtWarpSync)
            .map(|lane| self.lanes.pc[lane])
            .collect();
        pcs.sort_unstable();
        pcs.dedup();
        for pc in pcs {
            let Some(instruction) = device.program.instructions.get(pc) else {
                continue;
            };
            let Some(sync) = instruction.kind.warp_sync() else {
                continue;
            };
            let groups: Vec<(Vec<usize>, bool)> = if sync == WarpSync::Warpgroup {
                vec![self.warpgroup_waiting(warp, pc)]
            } else {
                let waiting: Vec<usize> = (first..end)
                    .filter(|&lane| {
                        self.lanes.status[lane] == ThreadStatus::AtWarpSync
                            && self.lanes.pc[lane] == pc
                    })
                    .collect();
                // The lanes waiting here, by membermask: lanes of different membermasks at
                // the same instruction (the groups of `cg::labeled_partition`, each reducing
                // or shuffling among its own lanes) are different executions of it.
                let mut by_mask: Vec<(u32, Vec<usize>)> = Vec::new();
                let mut executor = self.executor(device, &waiting, pc, None, None);
                let mut traps = Vec::new();
                for &lane in &waiting {
                    let bit = 1u32 << (lane % 32);
                    let required = match sync {
                        WarpSync::Members(source) => {
                            let mask = executor.read_bits(lane, source, 32) as u32;
                            if mask & bit == 0 {
                                traps.push((lane, mask));
                            }
                            mask
                        }
                        WarpSync::Converged | WarpSync::Warpgroup => 0,
                    };
                    match by_mask.iter_mut().find(|(mask, _)| *mask == required) {
                        Some((_, lanes)) => lanes.push(lane),
                        None => by_mask.push((required, vec![lane])),
                    }
                }
                for (lane, mask) in traps {
                    let message = format!(
                        "`{}`: the membermask {mask:#010x} does not include the executing lane {} \
                     (undefined in the PTX ISA)",
                        instruction.text,
                        lane % 32
                    );
                    executor.trap(lane, instruction, message);
                }
                by_mask
                    .into_iter()
                    .map(|(mut required, lanes)| {
                        if matches!(sync, WarpSync::Converged) {
                            // Every lane at this instruction, and those that have not arrived
                            // yet.
                            for &lane in &lanes {
                                required |= 1 << (lane % 32);
                            }
                            for lane in first..end {
                                if self.lanes.status[lane] == ThreadStatus::Ready
                                    && self.lanes.pc[lane] == pc
                                {
                                    required |= 1 << (lane % 32);
                                }
                            }
                        }
                        let complete = (0..32).filter(|bit| required & 1 << bit != 0).all(|bit| {
                            let lane = first + bit;
                            lane >= end
                                || matches!(self.lanes.status[lane], ThreadStatus::Done(_))
                                || (self.lanes.status[lane] == ThreadStatus::AtWarpSync
                                    && self.lanes.pc[lane] == pc)
                        });
                        let lanes: Vec<usize> = lanes
                            .into_iter()
                            .filter(|&lane| self.lanes.status[lane] == ThreadStatus::AtWarpSync)
                            .collect();
                        (lanes, complete)
                    })
                    .collect()
            };
            for (lanes, complete) in groups {
                if !complete || lanes.is_empty() {
                    continue;
                }
                let recording = self.tracing || record.is_some();
                let destinations = instruction.kind.warp_destinations();
                let before: Vec<Vec<u128>> = if recording {
                    lanes
                        .iter()
                        .map(|&lane| {
                            destinations
                                .iter()
                                .map(|&register| self.lanes.get(lane, register))
                                .collect()
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let mut executor = self.executor(device, &lanes, pc, None, None);
                executor
                    .execute(instruction, &lanes)
                    .map_err(|(lane, error)| (lane, *error))?;
                for &lane in &lanes {
                    if self.lanes.status[lane] == ThreadStatus::AtWarpSync {
                        self.lanes.status[lane] = ThreadStatus::Ready;
                        self.lanes.pc[lane] = pc + 1;
                    }
                    self.lanes.steps[lane] += 1;
                }
                released = true;
                if recording {
                    for (&lane, old) in lanes.iter().zip(before) {
                        let writes = destinations
                            .iter()
                            .zip(old)
                            .map(|(&register, old)| Write {
                                register,
                                old,
                                new: self.lanes.get(lane, register),
                            })
                            .collect();
                        let step = StepRecord {
                            step: self.lanes.steps[lane] - 1,
                            thread: self.linear * device.threads_per_cta() + lane as u64,
                            pc,
                            executed: true,
                            writes,
                            memory: Vec::new(),
                        };
                        match record.as_deref_mut() {
                            Some(record) if Some(lane) == owner => *record = step,
                            // Other lanes' steps matter to a trace only.
                            _ if self.tracing => self.released.push((lane, step)),
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(released)
    }

    /// [`Cta::arrive`] for a warpgroup-collective instruction (`wgmma.mma_async`): the arriving
    /// lanes are taken warpgroup by warpgroup (threads `128i .. 128i + 127`, "four contiguous
    /// warps", PTX ISA 9.7.15.1); a whole warpgroup runs it at once, the others wait until
    /// every thread of their warpgroup that has not finished has arrived
    /// ([`Cta::warpgroup_waiting`]).
    fn arrive_warpgroup(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        arrived: &[usize],
        mut record: Option<&mut StepRecord>,
    ) -> Result<bool, (usize, ExecError)> {
        let size = ptxsim_isa::wgmma::WARPGROUP_THREADS;
        let mut waiting = false;
        let mut start = 0;
        while start < arrived.len() {
            let group = arrived[start] / size;
            let end = start
                + arrived[start..]
                    .iter()
                    .take_while(|&&lane| lane / size == group)
                    .count();
            let chunk = &arrived[start..end];
            start = end;
            let whole = record.is_none()
                && chunk.len() == size
                && chunk
                    .iter()
                    .enumerate()
                    .all(|(i, &lane)| lane == group * size + i);
            if whole {
                self.run_together(device, pc, chunk)?;
                continue;
            }
            waiting = true;
            self.wait_together(device, chunk, record.as_deref_mut())?;
        }
        Ok(!waiting)
    }

    /// The lanes of `warp`'s warpgroup that wait at the warpgroup-collective instruction at
    /// `pc`, and whether it can run: when every thread of the warpgroup that has not finished
    /// waits there. It then runs for those lanes, and traps them unless they are the whole
    /// warpgroup (a thread exited, or the CTA ends inside the warpgroup).
    fn warpgroup_waiting(&self, warp: usize, pc: usize) -> (Vec<usize>, bool) {
        let size = ptxsim_isa::wgmma::WARPGROUP_THREADS;
        let first = warp * 32 / size * size;
        let end = (first + size).min(self.threads.len());
        let at = |lane: usize| {
            self.lanes.status[lane] == ThreadStatus::AtWarpSync && self.lanes.pc[lane] == pc
        };
        let complete = (first..end)
            .all(|lane| at(lane) || matches!(self.lanes.status[lane], ThreadStatus::Done(_)));
        ((first..end).filter(|&lane| at(lane)).collect(), complete)
    }

    /// Tries every warp whose lanes wait at a warp-synchronous instruction (the lanes they
    /// wait for may have finished since); whether any lane was released.
    fn release_warps(&mut self, device: &Device<'_>) -> Result<bool, (usize, ExecError)> {
        let warps = self.threads.len().div_ceil(32);
        let mut released = false;
        for warp in 0..warps {
            let first = warp * 32;
            let end = (first + 32).min(self.threads.len());
            if self.lanes.status[first..end].contains(&ThreadStatus::AtWarpSync) {
                released |= self.release_warp(device, warp, None, None)?;
            }
        }
        Ok(released)
    }

    /// When nothing can run and no barrier or warp can be released: the first lane that waits
    /// (at a barrier, [`Cta::stuck_barrier`], or at a warp-synchronous instruction), trapped
    /// with what it waits for (a lane that waits elsewhere can never arrive).
    fn stuck(&mut self, device: &Device<'_>) -> Option<(usize, Outcome)> {
        // The first waiting lane says what it waits for.
        let first = self.lanes.status.iter().position(|status| {
            matches!(status, ThreadStatus::AtBarrier | ThreadStatus::AtWarpSync)
        })?;
        if self.lanes.status[first] == ThreadStatus::AtBarrier {
            return self.stuck_barrier(device);
        }
        let lane = self
            .lanes
            .status
            .iter()
            .position(|status| *status == ThreadStatus::AtWarpSync)?;
        let pc = self.lanes.pc[lane];
        let unit = match device
            .program
            .instructions
            .get(pc)
            .map(|i| i.kind.warp_sync())
        {
            Some(Some(WarpSync::Warpgroup)) => ptxsim_isa::wgmma::WARPGROUP_THREADS,
            _ => 32,
        };
        let first = lane / unit * unit;
        let end = (first + unit).min(self.threads.len());
        let other = (first..end).find(|&other| {
            matches!(
                self.lanes.status[other],
                ThreadStatus::AtBarrier | ThreadStatus::AtWarpSync
            ) && (self.lanes.pc[other] != pc || self.lanes.status[other] == ThreadStatus::AtBarrier)
        });
        let waits = match other {
            Some(other) if self.lanes.status[other] == ThreadStatus::AtBarrier => {
                format!(
                    "lane {} of the {} waits at a barrier",
                    other % unit,
                    unit_name(unit)
                )
            }
            Some(other) => format!(
                "lane {} of the {} waits at another warp-synchronous instruction \
                 (instruction {})",
                other % unit,
                unit_name(unit),
                self.lanes.pc[other]
            ),
            None => "a lane it waits for never arrives".to_string(),
        };
        let instruction = device.program.instructions.get(pc);
        let outcome = Outcome::Trapped {
            message: format!(
                "`{}` can never complete: {waits}",
                instruction.map_or("", |i| i.text.as_str())
            ),
            location: instruction.map(|i| i.location).unwrap_or_default(),
        };
        self.lanes.status[lane] = ThreadStatus::Done(outcome.clone());
        Some((lane, outcome))
    }

    /// When nothing can run and no barrier can be released: the first lane that waits at a
    /// barrier, trapped with how many threads arrived there.
    fn stuck_barrier(&mut self, device: &Device<'_>) -> Option<(usize, Outcome)> {
        let lane = self
            .lanes
            .status
            .iter()
            .position(|status| *status == ThreadStatus::AtBarrier)?;
        if self.barriers.waiting_at[lane] == CLUSTER_BARRIER {
            let arrived = self.cluster_arrivals();
            let threads = self.threads.len();
            return self.trap_cluster_wait(device, arrived, threads);
        }
        let id = usize::from(self.barriers.waiting_at[lane]);
        let arrived: u32 = self.barriers.arrived[id]
            .iter()
            .map(|mask| mask.count_ones())
            .sum();
        let wanted = match self.barriers.count[id] {
            Some(count) => format!("{count} threads"),
            None => "every thread of the CTA".to_string(),
        };
        let instruction = device.program.instructions.get(self.lanes.pc[lane]);
        let outcome = Outcome::Trapped {
            message: format!(
                "`{}` can never complete: barrier {id} waits for {wanted}, {arrived} arrived \
                 and no other thread can run",
                instruction.map_or("", |i| i.text.as_str())
            ),
            location: instruction.map(|i| i.location).unwrap_or_default(),
        };
        self.lanes.status[lane] = ThreadStatus::Done(outcome.clone());
        Some((lane, outcome))
    }

    /// An executor for `lanes` of this CTA at instruction `pc`.
    fn executor<'a, 'p>(
        &'a mut self,
        device: &'a Device<'p>,
        group: &'a [usize],
        pc: usize,
        writes: Option<&'a mut Vec<Write>>,
        memory: Option<&'a mut Vec<MemoryWrite>>,
    ) -> Executor<'a, 'p> {
        Executor {
            device,
            ctaid: self.ctaid,
            shared: &mut self.shared,
            threads: &mut self.threads,
            lanes: &mut self.lanes,
            columns: &mut self.columns,
            barriers: &mut self.barriers,
            tmem: &mut self.tmem,
            cluster: &mut self.cluster,
            printed: &mut self.printed,
            writes,
            memory,
            stopped: false,
            group,
            pc,
        }
    }

    /// Collects into `group` the threads that can run and share the lowest program counter,
    /// in one pass; `None` when no thread can run, else that counter, whether every thread
    /// that can run is in `group`, and the largest step count in `group`.
    ///
    /// Threads whose last mbarrier wait failed ([`Lanes::waiting`]) are left out: a
    /// warp-specialized kernel's consumers spin on mbarriers that its producers complete, and
    /// the spinners let every other thread run (and barriers release) first
    /// ([`Cta::wake_spinners`]).
    fn gather(&self, group: &mut Vec<usize>) -> Option<(usize, bool, u64)> {
        let lanes = &self.lanes;
        group.clear();
        let (mut pc, mut ready, mut bound) = (usize::MAX, 0, 0);
        for (index, (status, &at)) in lanes.status.iter().zip(&lanes.pc).enumerate() {
            if !matches!(status, ThreadStatus::Ready) {
                continue;
            }
            ready += 1;
            if lanes.waiting[index] {
                continue;
            }
            if at < pc {
                (pc, bound) = (at, 0);
                group.clear();
            }
            if at == pc {
                group.push(index);
                bound = bound.max(lanes.steps[index]);
            }
        }
        (!group.is_empty()).then_some((pc, group.len() == ready, bound))
    }

    /// When the only threads that can run spin on mbarriers (no other thread can run and no
    /// barrier can release), lets them try again; returns whether there were any.
    fn wake_spinners(&mut self) -> bool {
        let lanes = &mut self.lanes;
        let spinning = lanes
            .status
            .iter()
            .zip(&lanes.waiting)
            .any(|(status, &waiting)| waiting && matches!(status, ThreadStatus::Ready));
        lanes.waiting.fill(false);
        spinning
    }

    /// Puts every thread back at the first instruction with zeroed registers and memory, as
    /// CTA `ctaid` (reusing the allocations of a finished CTA).
    pub fn reset(&mut self, device: &Device<'_>, ctaid: Dim3) {
        self.ctaid = ctaid;
        self.linear = flatten(ctaid, device.grid);
        self.shared.fill(0);
        self.lanes.low.fill(0);
        self.lanes.high.fill(0);
        self.lanes.pc.fill(0);
        self.lanes.steps.fill(0);
        self.lanes.status.fill(ThreadStatus::Ready);
        self.lanes.waiting.fill(false);
        let program = device.program;
        if self.lanes.calls || program.local_bytes > 0 || program.thread_param_bytes > 0 {
            for thread in &mut self.threads {
                if !thread.local.is_empty() {
                    thread.local.fill(0);
                }
                if !thread.params.is_empty() {
                    thread.params.fill(0);
                }
                thread.frames.clear();
                thread.stack = program.local_bytes;
            }
        }
        self.lanes.calls = false;
        self.lanes.pending = 0;
        self.released.clear();
        self.barriers = Barriers::new(self.threads.len());
        self.cluster = ClusterLink::new(device, ctaid, self.threads.len());
        self.printed.clear();
        self.held.clear();
        self.windows.clear();
        self.interpret_only = false;
    }

    /// Issues the next instruction of thread `index`. When `record` is given it is filled
    /// with what the step did (`pc == usize::MAX` when no instruction was issued).
    pub fn step_thread(
        &mut self,
        device: &Device<'_>,
        index: usize,
        mut record: Option<&mut StepRecord>,
    ) -> Result<Event, ExecError> {
        let global_thread = self.global_thread(device, index);
        if index >= self.threads.len() {
            return Err(ExecError::Internal(format!("no thread {index}")));
        }
        if let Some(record) = record.as_deref_mut() {
            record.pc = usize::MAX;
            record.writes.clear();
            record.memory.clear();
            record.thread = global_thread;
            record.step = self.lanes.steps[index];
        }
        let pc = self.lanes.pc[index];
        if matches!(self.lanes.status[index], ThreadStatus::Ready) {
            let mut scratch = Vec::new();
            self.issue(
                device,
                pc,
                &[index],
                &mut scratch,
                record,
                Lockstep::default(),
            )
            .map_err(|(_, error)| error)?;
        }
        Ok(match &self.lanes.status[index] {
            ThreadStatus::Ready => Event::Continue,
            ThreadStatus::AtBarrier => Event::Barrier,
            ThreadStatus::AtWarpSync => Event::WarpSync,
            ThreadStatus::Done(outcome) => Event::Done(outcome.clone()),
        })
    }

    /// Issues the instruction at `pc` for the threads of `group` (all ready, all at `pc`):
    /// threads without fuel stop, threads whose guard fails move on, the others run it
    /// together; `active` is scratch space. With `record` (a group of one thread) the step is
    /// recorded. With `fuelled` the caller knows every thread of the group to be below its
    /// step limit (else each is checked). With `defer` (the group is every thread that can
    /// run, and the caller keeps its program counter), an instruction that every thread of
    /// the group runs without consequence for control only counts in [`Lanes::pending`]; the
    /// threads' counters are settled before anything reads or changes them. Returns the
    /// group's next instruction when every thread of the group is still ready and goes there
    /// (the group stays together), `None` when the group must be formed again. On a simulator
    /// error nothing more is issued and the error names the thread.
    fn issue(
        &mut self,
        device: &Device<'_>,
        pc: usize,
        group: &[usize],
        active: &mut Vec<usize>,
        record: Option<&mut StepRecord>,
        Lockstep { fuelled, defer }: Lockstep,
    ) -> Result<Option<usize>, (usize, ExecError)> {
        let Some(instruction) = device.program.instructions.get(pc) else {
            self.lanes.settle(group, pc);
            for &index in group {
                self.lanes.status[index] = ThreadStatus::Done(Outcome::Exited);
            }
            return Ok(None);
        };
        let threads = &mut self.threads;
        let lanes_state = &mut self.lanes;
        if !fuelled || instruction.guard.is_some() || !instruction.kind.keeps_counters() {
            lanes_state.settle(group, pc);
        }
        let max_steps = device.max_steps;
        let fuelled = fuelled
            || group
                .iter()
                .all(|&index| lanes_state.steps[index] < max_steps);
        let mut together = fuelled;
        let mut issued = group.len();
        let lanes: &[usize] = match (fuelled, instruction.guard) {
            (true, None) => group,
            (_, guard) => {
                active.clear();
                issued = 0;
                for &index in group {
                    if lanes_state.steps[index] >= device.max_steps {
                        lanes_state.status[index] = ThreadStatus::Done(Outcome::OutOfFuel);
                        continue;
                    }
                    issued += 1;
                    let runs = guard.is_none_or(|guard| {
                        guard_passes(lanes_state.get(index, guard.predicate), guard.negated)
                    });
                    if runs {
                        active.push(index);
                    } else {
                        lanes_state.pc[index] += 1;
                        lanes_state.steps[index] += 1;
                    }
                }
                // The group stays together when the guard let every lane run or none.
                together &= active.is_empty() || active.len() == group.len();
                active
            }
        };
        let recording = record.is_some();
        let mut scratch = StepRecord::default();
        let record = match record {
            Some(record) => record,
            None => &mut scratch,
        };
        if issued > 0 {
            record.pc = pc;
            record.executed = !lanes.is_empty();
        }
        if lanes.is_empty()
            && together
            && !matches!(instruction.kind, InstructionKind::Unsupported { .. })
        {
            // The guard failed on every lane: they all moved on together.
            return Ok(Some(pc + 1));
        }
        if instruction.kind.warp_sync().is_some() {
            let arrived = lanes.to_vec();
            let all_ran = self.arrive(device, pc, &arrived, recording.then_some(record))?;
            // A converged group that ran it goes on together, unless it stopped a lane (then
            // the caller looks at the statuses and reports the trap).
            let stopped = arrived
                .iter()
                .any(|&lane| matches!(self.lanes.status[lane], ThreadStatus::Done(_)));
            let next =
                (all_ran && !stopped && together && arrived.len() == group.len()).then_some(pc + 1);
            return Ok(next);
        }
        let mut executor = Executor {
            device,
            ctaid: self.ctaid,
            shared: &mut self.shared,
            threads,
            lanes: lanes_state,
            columns: &mut self.columns,
            barriers: &mut self.barriers,
            tmem: &mut self.tmem,
            cluster: &mut self.cluster,
            printed: &mut self.printed,
            writes: recording.then_some(&mut record.writes),
            memory: recording.then_some(&mut record.memory),
            stopped: false,
            group,
            pc,
        };
        let control = match executor.execute(instruction, lanes) {
            Ok(control) => control,
            Err((index, error)) => {
                // The instruction did not run: no step, no trace line.
                record.pc = usize::MAX;
                return Err((index, *error));
            }
        };
        let stopped = executor.stopped;
        together &= !stopped;
        let state = &mut self.lanes;
        if defer && together && control == Control::Next && lanes.len() == group.len() {
            // Every thread of the group ran it and goes on to the next instruction.
            state.pending += 1;
            return Ok(Some(pc + 1));
        }
        state.settle(group, pc);
        let run = run_start(lanes).map(|first| first..first + lanes.len());
        if let (false, Control::Next, Some(run)) = (stopped, control, run) {
            // Every lane is still ready: no status to look at.
            for steps in &mut state.steps[run.clone()] {
                *steps += 1;
            }
            for pc in &mut state.pc[run] {
                *pc += 1;
            }
        } else {
            for &index in lanes {
                state.steps[index] += 1;
                if control == Control::Next && matches!(state.status[index], ThreadStatus::Ready) {
                    state.pc[index] += 1;
                }
            }
        }
        Ok(match (together, control, &instruction.kind) {
            (false, _, _) => None,
            (true, Control::Next, _) => Some(pc + 1),
            (true, Control::Done, InstructionKind::Bra { target }) => Some(*target),
            (true, Control::Done, _) => None,
        })
    }
}

/// "warp" or "warpgroup", for messages.
fn unit_name(unit: usize) -> &'static str {
    if unit == 32 { "warp" } else { "warpgroup" }
}

/// What the caller of [`Cta::issue`] knows about the group: `fuelled`, that every thread of
/// it is below its step limit; `defer`, that the counters of a group in lockstep may be
/// updated later (see [`Lanes::pending`]).
#[derive(Clone, Copy, Debug, Default)]
struct Lockstep {
    fuelled: bool,
    defer: bool,
}

/// One thread running a [`Program`] alone: a one-thread, one-CTA launch without arguments.
#[derive(Debug)]
pub struct Machine<'p> {
    program: &'p Program,
    device: Device<'p>,
    cta: Cta,
    record: StepRecord,
    has_record: bool,
    /// Why the program's memories were not allocated: they do not fit in
    /// [`DEFAULT_MEMORY_LIMIT`] (every step is then this error).
    refused: Option<String>,
}

/// The program a [`Machine`] holds in place of one whose memories do not fit: nothing to
/// allocate, nothing to run.
static NOTHING: Program = Program {
    entry: String::new(),
    registers: Vec::new(),
    instructions: Vec::new(),
    params: Vec::new(),
    param_bytes: 0,
    thread_param_bytes: 0,
    local_bytes: 0,
    stack_bytes: 0,
    function_locals: Vec::new(),
    shared_bytes: 0,
    dynamic_shared: None,
    globals: Vec::new(),
    constants: Vec::new(),
    const_variables: Vec::new(),
    has_atomics: false,
    uses_heap: false,
    reserved_shared: false,
    cluster: crate::ir::ClusterDirectives {
        required: None,
        explicit: false,
        max_rank: None,
    },
    max_threads: None,
    target: None,
};

impl<'p> Machine<'p> {
    /// A thread at the program's first instruction, with every register zero and a limit of
    /// `max_steps` instructions (fuel). A program whose memories do not fit in
    /// [`DEFAULT_MEMORY_LIMIT`] (see [`crate::budget`]) gets none: its first step is
    /// [`ExecError::Memory`].
    pub fn new(program: &'p Program, max_steps: u64) -> Self {
        let refused = Footprint::new(program, [1, 1, 1], 0, 0)
            .check(DEFAULT_MEMORY_LIMIT)
            .err()
            .map(|error| error.to_string());
        let runs: &'p Program = if refused.is_some() { &NOTHING } else { program };
        let device = Device::single(runs, max_steps);
        let cta = Cta::new(&device, [0, 0, 0]);
        Self {
            program,
            device,
            cta,
            record: StepRecord::default(),
            has_record: false,
            refused,
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    fn thread(&self) -> Option<ThreadRef<'_>> {
        self.cta.thread(0)
    }

    /// Every register's value, in declaration order.
    pub fn registers(&self) -> Vec<u128> {
        self.thread().map_or_else(Vec::new, |t| t.registers())
    }

    /// Sets a register (masked to its width); used to preload operands.
    pub fn set_register(&mut self, register: RegisterId, value: u128) {
        let program = self.device.program;
        self.cta.set_register(program, 0, register, value);
    }

    /// The number of instructions issued so far.
    pub fn steps(&self) -> u64 {
        self.thread().map_or(0, |t| t.steps())
    }

    /// The index of the next instruction.
    pub fn pc(&self) -> usize {
        self.thread().map_or(0, |t| t.pc())
    }

    /// What the last step did (`None` before the first or after a step that ended the run
    /// without issuing an instruction).
    pub fn last_record(&self) -> Option<&StepRecord> {
        self.has_record.then_some(&self.record)
    }

    /// Runs until the thread exits, traps or runs out of fuel.
    pub fn run(&mut self) -> Result<Outcome, ExecError> {
        loop {
            match self.step()? {
                Outcome::Running => {}
                done => return Ok(done),
            }
        }
    }

    /// Issues one instruction.
    pub fn step(&mut self) -> Result<Outcome, ExecError> {
        self.has_record = false;
        if let Some(message) = &self.refused {
            return Err(ExecError::Memory(message.clone()));
        }
        let event = self
            .cta
            .step_thread(&self.device, 0, Some(&mut self.record))?;
        self.has_record = self.record.pc != usize::MAX;
        Ok(match event {
            Event::Continue => Outcome::Running,
            Event::Barrier => {
                // A lone thread is the whole CTA: a barrier without a count releases at once;
                // one waiting for more threads never does.
                if !self.cta.release_barrier(&self.device) {
                    if let Some((_, outcome)) = self.cta.stuck(&self.device) {
                        return Ok(outcome);
                    }
                }
                Outcome::Running
            }
            // A lone thread waits for no other lane, unless its membermask names lanes that
            // do not exist... which it then never gets: nothing else can run.
            Event::WarpSync => match self.cta.stuck(&self.device) {
                Some((_, outcome)) => outcome,
                None => Outcome::Running,
            },
            Event::Done(outcome) => outcome,
        })
    }
}
