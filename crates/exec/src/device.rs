//! A launch's [`Device`]: what all its threads share (the program, global memory, the kernel
//! parameters, the grid's shape, the step limit), and what one step of a thread comes to
//! ([`Outcome`], [`StepRecord`]).

use std::sync::Arc;

use crate::budget::{DEFAULT_MEMORY_LIMIT, Footprint};
use crate::dim::{Dim3, unflatten};
use crate::ir::Program;
use crate::memory::{GRID_WORKSPACE_BASE, GRID_WORKSPACE_BYTES, GlobalMemory, Words};
use crate::runtime::{HEAP_BASE, HEAP_BYTES, Heap};

/// The default step limit (per thread) of the CLI.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

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
    pub(crate) max_steps: u64,
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
    pub(crate) compiled: Option<Arc<dyn crate::compiled::CompiledKernel>>,
    /// Where the launch counts its instructions by tier, if it does ([`Device::set_profile`]).
    pub(crate) profile: Option<Arc<crate::compiled::Profile>>,
    /// Compiling the kernel once the launch has issued enough instructions, where it started
    /// without compiled code ([`Device::set_upgrade`]).
    pub(crate) upgrade: Option<crate::compiled::Upgrade<'p>>,
}

impl<'p> Device<'p> {
    /// The special registers of [`crate::compiled::special_index`] that are the same for every
    /// thread of CTA `ctaid` (the per-thread ones, `%tid`, `%laneid` and `%warpid`, are 0:
    /// compiled code derives them from the thread's index, see
    /// [`crate::compiled::CompiledCta::specials`]).
    pub(crate) fn compiled_specials(&self, ctaid: Dim3) -> [u64; crate::compiled::SPECIALS] {
        let mut values = [0; crate::compiled::SPECIALS];
        let (block, grid) = (self.block(), self.grid());
        for axis in 0..3 {
            values[3 + axis] = u64::from(block[axis]);
            values[6 + axis] = u64::from(ctaid[axis]);
            values[9 + axis] = u64::from(grid[axis]);
        }
        values[14] = self.threads_per_cta().div_ceil(32);
        values[15] = self.dynamic_shared();
        values[16] = self.shared_size();
        values
    }

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
            profile: None,
            upgrade: None,
        }
    }

    /// Runs the kernel's threads through `code` where it covers them ([`crate::compiled`]),
    /// in runs that are neither traced nor sliced.
    pub fn set_compiled(&mut self, code: Arc<dyn crate::compiled::CompiledKernel>) {
        self.compiled = Some(code);
    }

    /// Counts the launch's instructions into `profile` ([`crate::compiled::Profile`]); a
    /// profile made for another number of instructions than the program's is ignored.
    pub fn set_profile(&mut self, profile: Arc<crate::compiled::Profile>) {
        if profile.interpreted.len() == self.program.instructions.len() {
            self.profile = Some(profile);
        }
    }

    /// Lets the launch compile its kernel while it runs ([`crate::compiled::Upgrade`]): CTAs
    /// that run without compiled code report the instructions they issue, and once `upgrade`
    /// has compiled, run the code from then on (the CTAs that start later, and the threads of
    /// a running CTA from their next entry into it). Only for a launch without compiled code.
    pub fn set_upgrade(&mut self, upgrade: crate::compiled::Upgrade<'p>) {
        if self.compiled.is_none() {
            self.upgrade = Some(upgrade);
        }
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
