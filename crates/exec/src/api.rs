//! The executor as a library: load a module from PTX text once, launch its kernels many times.
//!
//! [`Module::load`] parses and checks the text (errors carry the checker's located
//! diagnostics) and builds the program of every kernel; [`Module::launch`] runs one kernel over
//! a grid with [`Arg`]uments: buffers (byte slices copied into the simulated global memory
//! before the launch and back out after it) and scalars. A fault of the kernel (`trap`, a bad
//! address, the step limit) or an instruction the executor does not implement is an
//! [`Error`] with the instruction's line and column.
//!
//! ```
//! use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};
//!
//! let source = r#"
//! .version 8.0
//! .target sm_90
//! .address_size 64
//! .visible .entry scale(.param .u64 data, .param .f32 factor, .param .u32 n)
//! {
//!     .reg .b32 %r<4>;
//!     .reg .f32 %f<3>;
//!     .reg .b64 %rd<4>;
//!     .reg .pred %p;
//!     ld.param.u64 %rd1, [data];
//!     ld.param.f32 %f1, [factor];
//!     ld.param.u32 %r1, [n];
//!     mov.u32 %r2, %tid.x;
//!     setp.ge.u32 %p, %r2, %r1;
//!     @%p ret;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd3, %rd1, %rd2;
//!     ld.global.f32 %f2, [%rd3];
//!     mul.rn.f32 %f2, %f2, %f1;
//!     st.global.f32 [%rd3], %f2;
//!     ret;
//! }"#;
//! let module = Module::load(source, &Options::default())?;
//! let mut data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let report = module.launch(
//!     "scale",
//!     [1, 1, 1],
//!     [4, 1, 1],
//!     &mut [Arg::Buffer(&mut data), Arg::F32(0.5), Arg::U32(4)],
//!     &LaunchOptions::default(),
//! )?;
//! let out: Vec<f32> = data.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
//! assert_eq!(out, [0.5, 1.0, 1.5, 2.0]);
//! assert_eq!(report.ctas, 1);
//! # Ok::<(), ptxsim_exec::api::Error>(())
//! ```
//!
//! Errors are values with the location of the problem:
//!
//! ```
//! use ptxsim_exec::api::{Error, Module, Options};
//!
//! let broken = ".version 8.0\n.target sm_90\n.address_size 64\n.entry k() {\n  bogus.u32 %r1;\n}\n";
//! let Err(error @ Error::Check { .. }) = Module::load(broken, &Options::default()) else {
//!     panic!("the module does not check");
//! };
//! // `line:column: error[CODE]: message`, one line per error.
//! assert!(error.to_string().starts_with("5:"), "{error}");
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use ptxsim_isa::{Target, Type};
use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::diag::LineIndex;

use crate::device::{DEFAULT_MAX_STEPS, Device};
use crate::dim::Dim3;
use crate::grid::{self, Argument, Failure, GridOptions, LaunchError};
use crate::ir::{Location, Program};
use crate::memory::{DeviceMemory, GlobalMemory, HostMemory, HostWriteError};
use crate::occupancy::CtaResources;
pub use crate::runtime::Printed;
use crate::step::Outcome;

/// How to check a module.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Check (and run) the module as if its `.target` were this architecture; `None` keeps the
    /// module's own.
    pub target: Option<Target>,
}

/// Why a module did not load or a launch did not complete.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The module has errors: every diagnostic (errors and warnings), and the errors rendered
    /// one per line as `line:column: error[CODE]: message`.
    #[error("{rendered}")]
    Check {
        /// Every diagnostic, in source order.
        diagnostics: Vec<Diagnostic>,
        /// The errors, one per line, with their locations.
        rendered: String,
    },
    /// The module checked but has no program for the kernel asked for (no such entry, too
    /// many registers).
    #[error(transparent)]
    Build(#[from] crate::BuildError),
    /// The arguments do not fit the kernel's parameters, or the grid is not a valid shape.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A thread trapped (`trap`, a memory fault) or ran out of fuel, or the executor met an
    /// instruction it does not implement. The launch stopped; buffers hold what the kernel
    /// stored before it stopped.
    #[error("{}", located(*location, message))]
    Run {
        /// What happened; it starts with `file:line: ` where the instruction's `.loc` names
        /// a source line (the PTX of `nvcc -lineinfo` or `-G`; PTX ISA 9.0, 11.6.2).
        message: String,
        /// The instruction (line 0 where there is none: the step limit).
        location: Location,
        /// The CTA of the first thread that stopped (in CTA order).
        cta: Dim3,
        /// The thread in its CTA.
        thread: Dim3,
        /// What stopped it: `Some` for an outcome of the program (`Trapped`, `OutOfFuel`,
        /// `AssertionFailed`: a failed `assert`, CUDA's `CUDA_ERROR_ASSERT`), `None` for an
        /// instruction the executor does not implement.
        outcome: Option<Outcome>,
        /// What the kernel printed with `printf` before it stopped (as
        /// [`LaunchReport::printed`]).
        printed: Vec<Printed>,
    },
    /// The kernel stored into host memory that cannot be written (see
    /// [`LaunchOptions::host_memory`]).
    #[error(transparent)]
    HostWrite(#[from] HostWriteError),
}

fn located(location: Location, message: &str) -> String {
    if location.line == 0 {
        message.to_string()
    } else {
        format!("{}:{}: {message}", location.line, location.column)
    }
}

/// Renders the errors of `diagnostics` one per line, `line:column: error[CODE]: message`.
pub fn render_errors(source: &str, diagnostics: &[Diagnostic]) -> String {
    let index = LineIndex::new(source);
    let lines: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let (line, column) = index.line_column(source, d.span.start as usize);
            format!("{line}:{column}: {d}")
        })
        .collect();
    lines.join("\n")
}

/// A kernel argument of [`Module::launch`].
#[derive(Debug)]
pub enum Arg<'a> {
    /// A global buffer: its bytes are copied into the simulated global memory before the launch
    /// and back into the slice after it (also when the launch fails). The kernel receives its
    /// simulated address; the parameter must be 8 bytes.
    Buffer(&'a mut [u8]),
    /// A `.u32`/`.s32`/`.b32` value.
    U32(u32),
    /// A `.s32` value.
    S32(i32),
    /// A `.u64`/`.s64`/`.b64` value.
    U64(u64),
    /// A `.s64` value.
    S64(i64),
    /// An `.f32` value.
    F32(f32),
    /// An `.f64` value.
    F64(f64),
    /// A value as bits, cut to the parameter's size (1, 2, 4 or 8 bytes): gpuocelot's
    /// convention, where every argument is widened to 64 bits.
    Bits(u64),
    /// The bytes of a parameter that is an array (`.param .align 8 .b8 s[16]`, a struct passed
    /// by value): exactly the parameter's size.
    Bytes(&'a [u8]),
}

/// How to run a launch.
#[derive(Clone, Debug)]
pub struct LaunchOptions {
    /// Bytes of dynamic shared memory per CTA (`.extern .shared` arrays).
    pub dynamic_shared: u64,
    /// The step limit of each thread.
    pub max_steps: u64,
    /// Host threads to run CTAs on (0: all cores). Results do not depend on it.
    pub host_threads: usize,
    /// [`GridOptions::commuting_atomics_in_parallel`]: CTAs of a kernel whose atomics commute
    /// run on several host threads too (the same memory results; registers no instruction
    /// reads may differ).
    pub commuting_atomics_in_parallel: bool,
    /// Where global addresses that no buffer holds lead: `None` makes them faults; `Some` maps
    /// the host's memory there through the backend (the C ABI's `ptx_run`, whose pointer
    /// arguments are host addresses; see [`HostMemory`]).
    pub host_memory: Option<Arc<dyn HostMemory>>,
    /// The most bytes the launch's simulated memories may take (global, constant, parameters,
    /// and per CTA shared memory, registers, local and call parameters); a launch that does not
    /// fit is [`LaunchError::Memory`] before anything is allocated (see [`crate::budget`]).
    pub memory_limit: u64,
    /// The `.const` space in place of the kernel's initial one (`None`): a CUDA driver's
    /// module, whose `.const` variables the host may have written (`cuModuleGetGlobal`). It
    /// should have the size of the program's [`crate::ir::Program::constants`].
    pub constants: Option<Arc<Vec<u8>>>,
    /// A cooperative launch (CUDA's `cuLaunchCooperativeKernel`): every CTA of the grid is
    /// resident at once and they run interleaved, so that the kernel may synchronize the whole
    /// grid (`cooperative_groups::this_grid().sync()`, which reads the grid workspace's address
    /// from `%envreg1`/`%envreg2`; see [`crate::device::Device::set_cooperative`]). The grid
    /// may have at most [`Module::max_cooperative_ctas`] CTAs, else the launch is
    /// [`LaunchError::CooperativeTooLarge`]. It runs on one host thread.
    pub cooperative: bool,
    /// Lets a launch whose kernel may wait for other CTAs run its CTAs in turns, all resident,
    /// where the grid fits on the GPU at once ([`grid::make_interleaved`]), as a GPU runs such
    /// a grid: CUDA programs' hand-written grid barriers and inter-CTA flags then finish. The
    /// CUDA driver library sets it; `ptxsim run` does not.
    pub interleave: bool,
    /// The launch's thread-block cluster shape in CTAs (CUDA's
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), or `None` for the kernel's own
    /// (`.reqnctapercluster`, else clusters of one CTA); see
    /// [`crate::device::Device::set_cluster`]. A wrong shape is [`LaunchError::Shape`].
    pub cluster: Option<Dim3>,
    /// The texture and surface objects the kernel's `tex`, `tld4`, `txq`, `suld`, `sust`,
    /// `sured` and `suq` find by handle (`None`: every handle traps).
    pub textures: Option<Arc<crate::texture::TextureTable>>,
    /// The device heap (`malloc`/`free` in kernels) of a CUDA context, which lasts from launch
    /// to launch as on a GPU ("memory allocated by a kernel's `malloc` persists for the
    /// lifetime of the CUDA context", CUDA C++ Programming Guide, "Dynamic Global Memory
    /// Allocation and Operations"): its memory, [`DeviceMemory::heap`], must be among the
    /// memories lent to the launch. `None`: a fresh heap for this launch alone.
    pub heap: Option<Arc<crate::runtime::Heap>>,
    /// The GPU whose tensor-core arithmetic `mma` and `wmma` follow, or `None` for the one the
    /// module was checked for (its `.target`, or [`Options::target`]; see
    /// [`crate::alu::tensor_cores::TensorCores`]).
    pub tensor_cores: Option<crate::alu::tensor_cores::TensorCores>,
    /// Where the kernel's compiled code comes from (`None`: the interpreter runs it): the
    /// compiled tier ([`crate::compiled`]) asked once per module and kernel, its answer kept
    /// with the module.
    pub compiler: Option<Arc<dyn crate::compiled::Compiler>>,
    /// Where the launch counts the instructions the interpreter issued and the hand-backs of
    /// compiled code, per instruction (`None`: not counted); it must have the kernel's
    /// instruction count ([`crate::compiled::Profile::new`]).
    pub profile: Option<Arc<crate::compiled::Profile>>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            dynamic_shared: 0,
            max_steps: DEFAULT_MAX_STEPS,
            host_threads: 0,
            commuting_atomics_in_parallel: false,
            host_memory: None,
            memory_limit: crate::budget::DEFAULT_MEMORY_LIMIT,
            constants: None,
            cooperative: false,
            interleave: false,
            cluster: None,
            textures: None,
            heap: None,
            tensor_cores: None,
            compiler: None,
            profile: None,
        }
    }
}

/// What a completed launch did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchReport {
    /// Instructions issued, all threads together.
    pub steps: u64,
    /// CTAs that ran.
    pub ctas: u64,
    /// Bytes of host memory written back (with [`LaunchOptions::host_memory`]).
    pub host_bytes_written: u64,
    /// What the kernel printed with `printf`, one record per call: by CTA (linear order), then
    /// by thread in its CTA (linear order, x fastest), then in the order of the thread's calls;
    /// at most [`crate::runtime::PRINTF_LIMIT`] bytes ([`crate::runtime::printed_bytes`]
    /// joins them).
    pub printed: Vec<Printed>,
    /// The `printf` calls dropped past that limit.
    pub printed_dropped: u64,
}

impl LaunchReport {
    /// What the kernel printed, all records joined.
    pub fn printed_bytes(&self) -> Vec<u8> {
        crate::runtime::printed_bytes(&self.printed)
    }
}

impl Error {
    /// What the kernel printed with `printf` before a failed launch stopped (empty for other
    /// errors).
    pub fn printed(&self) -> &[Printed] {
        match self {
            Error::Run { printed, .. } => printed,
            _ => &[],
        }
    }

    /// Whether a thread failed an `assert` (`__assertfail`; CUDA's `CUDA_ERROR_ASSERT`, 710).
    pub fn is_assertion(&self) -> bool {
        matches!(
            self,
            Error::Run {
                outcome: Some(Outcome::AssertionFailed { .. }),
                ..
            }
        )
    }
}

/// A checked module and the programs of its kernels, ready to launch.
pub struct Module {
    kernels: Vec<Program>,
    /// For a module without kernels, a program of its module-scope variables alone
    /// ([`Module::variables`]).
    variables_only: Option<Program>,
    warnings: Vec<Diagnostic>,
    /// The module's text, which the programs' line numbers refer to (for a debugger).
    source: Arc<str>,
    /// The compiled code of each kernel launched with a compiler (`None`: the compiler left it
    /// to the interpreter), by entry and CTA shape.
    compiled: CompiledCache,
}

/// [`Module::compiled`]'s cache, by entry and CTA shape.
type CompiledCache = std::sync::Mutex<HashMap<(String, Dim3), Compiled>>;

/// A kernel's entry in [`CompiledCache`].
#[derive(Clone)]
enum Compiled {
    /// Not compiled yet: the work of its launches so far
    /// ([`crate::compiled::Compiler::worth_compiling`]).
    Waiting(u64),
    /// Compiled (`None`: the compiler left it to the interpreter).
    Done(Option<Arc<dyn crate::compiled::CompiledKernel>>),
}

/// The code `slot` holds, compiling `program` for CTAs of shape `block` with `compiler` (and
/// keeping the result, code or `None`) if it was not compiled yet.
fn compile_into(
    slot: &mut Compiled,
    compiler: &dyn crate::compiled::Compiler,
    program: &Program,
    block: Dim3,
) -> Option<Arc<dyn crate::compiled::CompiledKernel>> {
    if let Compiled::Done(code) = slot {
        return code.clone();
    }
    let code = compiler.compile(program, block);
    *slot = Compiled::Done(code.clone());
    code
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("kernels", &self.kernels().collect::<Vec<_>>())
            .field("warnings", &self.warnings.len())
            .finish()
    }
}

impl Module {
    /// Parses and checks `source` and builds the program of every kernel (`.entry` with a
    /// body).
    pub fn load(source: &str, options: &Options) -> Result<Self, Error> {
        let check = ptxsim_check::Options {
            target: options.target,
        };
        let (checked, diagnostics) = ptxsim_check::compile(source, &check);
        let Some(checked) = checked else {
            let rendered = render_errors(source, &diagnostics);
            return Err(Error::Check {
                diagnostics,
                rendered,
            });
        };
        let kernels = checked
            .entries()
            .into_iter()
            .map(|entry| checked.program(Some(entry)))
            .collect::<Result<Vec<_>, _>>()?;
        let variables_only = if kernels.is_empty() {
            Self::variables_of(source, options)
        } else {
            None
        };
        Ok(Self {
            kernels,
            variables_only,
            warnings: diagnostics,
            source: Arc::from(source),
            compiled: CompiledCache::default(),
        })
    }

    /// The module-scope variables of a module without kernels (CUDA libraries keep some of
    /// their `__device__` variables in a translation unit of their own, whose PTX has no
    /// `.entry`; the host still asks for their addresses): the program of the module with an
    /// empty kernel added, whose variables are the module's. `None` where that does not build.
    fn variables_of(source: &str, options: &Options) -> Option<Program> {
        let with_kernel = format!("{source}\n.entry __ptxsim_module_variables()\n{{\nret;\n}}\n");
        let check = ptxsim_check::Options {
            target: options.target,
        };
        let (checked, _) = ptxsim_check::compile(&with_kernel, &check);
        checked?.program(Some("__ptxsim_module_variables")).ok()
    }

    /// A program that holds the module's module-scope variables (`.global`, `.const`), at the
    /// addresses every kernel of the module sees them: the first kernel's, or for a module
    /// without kernels one built for them alone. `None` for a module without kernels whose
    /// variables could not be laid out.
    pub fn variables(&self) -> Option<&Program> {
        self.kernels.first().or(self.variables_only.as_ref())
    }

    /// The compiled code of kernel `entry` for a launch of `grid` CTAs of shape `block` from
    /// `options`' compiler: compiled on the first launch that makes its launches worth
    /// compiling ([`crate::compiled::Compiler::worth_compiling`]) and kept for the next ones.
    fn compiled(
        &self,
        entry: &str,
        program: &Program,
        (grid, block): (Dim3, Dim3),
        options: &LaunchOptions,
    ) -> Option<Arc<dyn crate::compiled::CompiledKernel>> {
        let compiler = options.compiler.as_ref()?;
        let mut cache = self.cache();
        let slot = cache
            .entry((entry.to_string(), block))
            .or_insert(Compiled::Waiting(0));
        match slot {
            Compiled::Done(code) => code.clone(),
            Compiled::Waiting(work) => {
                *work = work.saturating_add(crate::compiled::launch_work(program, grid, block));
                if !compiler.worth_compiling(*work) {
                    return None;
                }
                compile_into(slot, compiler.as_ref(), program, block)
            }
        }
    }

    /// Gives `device`, a launch of kernel `entry`, its compiled code ([`Module::compiled`]),
    /// or where the kernel's launches are not worth compiling yet, the means to compile it
    /// once this launch has issued enough instructions ([`crate::compiled::Upgrade`]).
    fn attach_compiled<'a>(
        &'a self,
        entry: &str,
        device: &mut Device<'a>,
        options: &LaunchOptions,
    ) {
        let program = device.program();
        let shape = (device.grid(), device.block());
        if let Some(code) = self.compiled(entry, program, shape, options) {
            device.set_compiled(code);
            return;
        }
        let Some(compiler) = options.compiler.clone() else {
            return;
        };
        let block = shape.1;
        let key = (entry.to_string(), block);
        let work = match self.cache().get(&key) {
            Some(Compiled::Waiting(work)) => *work,
            _ => return,
        };
        let worth = {
            let compiler = Arc::clone(&compiler);
            move |work| compiler.worth_compiling(work)
        };
        let compile = move || {
            let mut cache = self.cache();
            let slot = cache.entry(key.clone()).or_insert(Compiled::Waiting(0));
            compile_into(slot, compiler.as_ref(), program, block)
        };
        device.set_upgrade(crate::compiled::Upgrade::new(work, worth, compile));
    }

    /// The cache of compiled kernels, locked.
    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<(String, Dim3), Compiled>> {
        self.compiled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether launches of kernel `entry` with CTAs of shape `block` run compiled code:
    /// `Some(true)` once a compiler compiled it, `Some(false)` when the compiler left it to the
    /// interpreter, `None` when no launch has asked for it yet or its launches so far were not
    /// worth compiling ([`crate::compiled::Compiler::worth_compiling`]).
    pub fn compiled_state(&self, entry: &str, block: Dim3) -> Option<bool> {
        let cache = self.cache();
        match cache.get(&(entry.to_string(), block))? {
            Compiled::Done(code) => Some(code.is_some()),
            Compiled::Waiting(_) => None,
        }
    }

    /// The module's text, which the lines of its programs' instructions refer to.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The kernels' names, in source order.
    pub fn kernels(&self) -> impl Iterator<Item = &str> {
        self.kernels.iter().map(|program| program.entry.as_str())
    }

    /// The checker's warnings.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The program of kernel `entry`.
    pub fn program(&self, entry: &str) -> Result<&Program, Error> {
        self.kernels
            .iter()
            .find(|program| program.entry == entry)
            .ok_or_else(|| {
                Error::Build(crate::BuildError::EntryNotFound {
                    name: entry.to_string(),
                    available: self.kernels().map(str::to_string).collect(),
                })
            })
    }

    /// How many CTAs of kernel `entry` with `block` threads and `dynamic_shared` bytes of
    /// dynamic shared memory one multiprocessor keeps resident at once (0 when one does not
    /// fit): what `cuOccupancyMaxActiveBlocksPerMultiprocessor` answers. The model and its
    /// figures are in [`crate::occupancy`].
    pub fn max_active_ctas_per_sm(
        &self,
        entry: &str,
        block: Dim3,
        dynamic_shared: u64,
    ) -> Result<u64, Error> {
        Ok(self
            .resources(entry, block, dynamic_shared)?
            .active_per_sm())
    }

    /// The most CTAs a cooperative launch ([`LaunchOptions::cooperative`]) of kernel `entry`
    /// with `block` threads and `dynamic_shared` bytes of dynamic shared memory may have:
    /// [`Module::max_active_ctas_per_sm`] times [`crate::occupancy::SM_COUNT`]. A larger grid
    /// is [`LaunchError::CooperativeTooLarge`] (`CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`).
    pub fn max_cooperative_ctas(
        &self,
        entry: &str,
        block: Dim3,
        dynamic_shared: u64,
    ) -> Result<u64, Error> {
        Ok(self
            .resources(entry, block, dynamic_shared)?
            .max_cooperative())
    }

    fn resources(
        &self,
        entry: &str,
        block: Dim3,
        dynamic_shared: u64,
    ) -> Result<CtaResources, Error> {
        let program = self.program(entry)?;
        let threads = block.iter().map(|&d| u64::from(d)).product();
        Ok(CtaResources::of(program, threads, dynamic_shared))
    }

    /// Runs kernel `entry` over `grid` CTAs of `block` threads with `args` (one per
    /// parameter). Buffers are copied back into their slices after the launch, also when it
    /// fails.
    pub fn launch(
        &self,
        entry: &str,
        grid: Dim3,
        block: Dim3,
        args: &mut [Arg<'_>],
        options: &LaunchOptions,
    ) -> Result<LaunchReport, Error> {
        let program = self.program(entry)?;
        let arguments = arguments(program, args);
        let (mut device, addresses) = grid::prepare_within(
            program,
            grid,
            block,
            options.max_steps,
            arguments,
            options.memory_limit,
        )?;
        device
            .set_dynamic_shared(options.dynamic_shared)
            .map_err(LaunchError::Shape)?;
        device
            .set_cluster(options.cluster)
            .map_err(LaunchError::Shape)?;
        if let Some(host) = &options.host_memory {
            device.global.map_host(Arc::clone(host));
        }
        if let Some(constants) = &options.constants {
            device.set_constants(Arc::clone(constants));
        }
        if options.cooperative {
            grid::make_cooperative(&mut device)?;
        } else if options.interleave {
            grid::make_interleaved(&mut device);
        }
        if let Some(textures) = &options.textures {
            device.set_textures(Arc::clone(textures));
        }
        if let Some(cores) = options.tensor_cores {
            device.set_tensor_cores(cores);
        }
        self.attach_compiled(entry, &mut device, options);
        if let Some(profile) = &options.profile {
            device.set_profile(Arc::clone(profile));
        }
        device.enable_device_launches(&self.kernels);
        // Nobody sees the registers of an API launch.
        let grid_options = GridOptions {
            host_threads: options.host_threads,
            show_registers: false,
            commuting_atomics_in_parallel: options.commuting_atomics_in_parallel,
            ..GridOptions::default()
        };
        let mut run = grid::run_grid(&device, grid_options, None, None);
        run_nested(&mut device, &mut run, options, grid_options);
        self.count_interpreted(entry, block, run.steps);
        for (arg, address) in args.iter_mut().zip(&addresses) {
            let (Arg::Buffer(bytes), Some(address)) = (arg, address) else {
                continue;
            };
            if let Some(buffer) = device.global.buffer_at(*address) {
                let contents = buffer.contents();
                let n = bytes.len().min(contents.len());
                bytes[..n].copy_from_slice(&contents[..n]);
            }
        }
        let written = device.global.write_back_host();
        report(run, written, options.max_steps, self.program(entry).ok())
    }
}

impl Module {
    /// The bytes the module's `.global` variables take as declared.
    pub fn globals_bytes(&self) -> u64 {
        self.variables().map_or(0, |p| {
            p.globals
                .iter()
                .map(|g| g.size)
                .fold(0, u64::saturating_add)
        })
    }

    /// The `.global` variables of the module with their initial bytes (zero beyond the
    /// initializer), as device memory for [`Module::launch_in`] (a CUDA driver keeps one per
    /// loaded module, so that what a kernel stores there is seen by the next launch). It takes
    /// [`Module::globals_bytes`] bytes of host memory: check that against a budget first.
    pub fn globals(&self) -> DeviceMemory {
        self.globals_with_slack(0)
    }

    /// The module's `.global` variables as [`Module::globals`] gives them, each of which
    /// kernels may load and store past its end up to the next variable, the last up to the
    /// `granule` ([`DeviceMemory::globals_with_slack`]; 0: no slack).
    pub fn globals_with_slack(&self, granule: u64) -> DeviceMemory {
        DeviceMemory::globals_with_slack(self.variables().map_or(&[], |p| &p.globals), granule)
    }

    /// Runs kernel `entry` as a CUDA driver launches it: `params` is the kernel parameter
    /// space (each parameter at its offset, [`crate::ir::Program::params`]), and global
    /// memory is made of the buffers of `memories` (device allocations, the module's
    /// [`Module::globals`]), which keep what the kernel stored, also when it fails. An address
    /// outside them faults (or reaches [`LaunchOptions::host_memory`] where that is given).
    ///
    /// ```
    /// use ptxsim_exec::api::{LaunchOptions, Module, Options};
    /// use ptxsim_exec::memory::DeviceMemory;
    ///
    /// let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
    ///     .visible .entry fill(.param .u64 p, .param .u32 v) {\n\
    ///     .reg .b32 %r<3>;\n .reg .b64 %rd<4>;\n\
    ///     ld.param.u64 %rd1, [p];\n ld.param.u32 %r1, [v];\n mov.u32 %r2, %tid.x;\n\
    ///     mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n\
    ///     st.global.u32 [%rd3], %r1;\n ret;\n}";
    /// let module = Module::load(source, &Options::default())?;
    /// let mut memory = DeviceMemory::allocations();
    /// let mut globals = module.globals();
    /// let buffer = memory.allocate("buffer", 16).unwrap();
    /// let mut params = buffer.to_le_bytes().to_vec();
    /// params.extend(7u32.to_le_bytes());
    /// let mut memories = [&mut memory, &mut globals];
    /// module.launch_in("fill", [1, 1, 1], [4, 1, 1], &params, &mut memories, &LaunchOptions::default())?;
    /// let mut out = [0u8; 16];
    /// memory.read(buffer, &mut out).unwrap();
    /// assert_eq!(out, [7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0, 7, 0, 0, 0]);
    /// # Ok::<(), ptxsim_exec::api::Error>(())
    /// ```
    pub fn launch_in(
        &self,
        entry: &str,
        grid: Dim3,
        block: Dim3,
        params: &[u8],
        memories: &mut [&mut DeviceMemory],
        options: &LaunchOptions,
    ) -> Result<LaunchReport, Error> {
        self.launch_with(entry, grid, block, params, memories, options, None)
    }

    /// [`Module::launch_in`], handing `sink` the launch's trace as it runs (the lines of
    /// `ptxsim run --trace`, docs/trace-format.md: the header, every issued step, the end),
    /// CTAs one after the other on the calling thread
    /// ([`crate::streamed::run_grid_streamed`]).
    #[allow(clippy::too_many_arguments)]
    pub fn launch_in_traced(
        &self,
        entry: &str,
        grid: Dim3,
        block: Dim3,
        params: &[u8],
        memories: &mut [&mut DeviceMemory],
        options: &LaunchOptions,
        sink: &mut dyn FnMut(ptxsim_trace::Line),
    ) -> Result<LaunchReport, Error> {
        self.launch_with(entry, grid, block, params, memories, options, Some(sink))
    }

    /// The launch of [`Module::launch_in`], traced into `trace` where one is given.
    #[allow(clippy::too_many_arguments)]
    fn launch_with(
        &self,
        entry: &str,
        grid: Dim3,
        block: Dim3,
        params: &[u8],
        memories: &mut [&mut DeviceMemory],
        options: &LaunchOptions,
        trace: Option<&mut dyn FnMut(ptxsim_trace::Line)>,
    ) -> Result<LaunchReport, Error> {
        let mut device = match self.device(
            entry,
            (grid, block),
            params,
            GlobalMemory::lend(memories),
            options,
        ) {
            Ok(device) => device,
            Err(failed) => {
                let (error, global) = *failed;
                global.give_back(memories);
                return Err(error);
            }
        };
        // Nobody sees the registers of an API launch.
        let grid_options = GridOptions {
            host_threads: options.host_threads,
            show_registers: false,
            commuting_atomics_in_parallel: options.commuting_atomics_in_parallel,
            ..GridOptions::default()
        };
        let mut run = match trace {
            Some(sink) => crate::streamed::run_grid_streamed(&device, grid_options, sink, None),
            None => grid::run_grid(&device, grid_options, None, None),
        };
        run_nested(&mut device, &mut run, options, grid_options);
        self.count_interpreted(entry, block, run.steps);
        let written = device.global.write_back_host();
        std::mem::take(&mut device.global).give_back(memories);
        report(run, written, options.max_steps, self.program(entry).ok())
    }

    /// Adds the instructions a launch of `entry` issued to the work [`Module::compiled`] counts
    /// for it while it is not compiled: threads times the kernel's instructions is a lower
    /// bound that loops exceed (a launch of a few threads looping 10^8 times counts little),
    /// so the next launch of such a kernel is compiled once one launch has run that much.
    fn count_interpreted(&self, entry: &str, block: Dim3, steps: u64) {
        let mut cache = self.cache();
        if let Some(Compiled::Waiting(work)) = cache.get_mut(&(entry.to_string(), block)) {
            *work = work.saturating_add(steps);
        }
    }

    /// The device of a launch of `entry` over the global memory `global`: parameters,
    /// dynamic shared memory, device heap, host memory, constants, textures and cooperative
    /// scheduling as `options` say. A launch that cannot be made gives `global` back with the
    /// error, so that lent memories are returned.
    fn device(
        &self,
        entry: &str,
        (grid, block): (Dim3, Dim3),
        params: &[u8],
        global: GlobalMemory,
        options: &LaunchOptions,
    ) -> Result<Device<'_>, Box<(Error, GlobalMemory)>> {
        let mut device = match self.bare_device(entry, (grid, block), params, options) {
            Ok(device) => device,
            Err(error) => return Err(Box::new((error, global))),
        };
        device.global = global;
        match &options.heap {
            Some(heap) => device.share_heap(Arc::clone(heap)),
            None => device.install_heap(),
        }
        if let Some(host) = &options.host_memory {
            device.global.map_host(Arc::clone(host));
        }
        if let Some(constants) = &options.constants {
            device.set_constants(Arc::clone(constants));
        }
        if options.cooperative
            && let Err(error) = grid::make_cooperative(&mut device)
        {
            return Err(Box::new((error.into(), std::mem::take(&mut device.global))));
        }
        if options.interleave && !options.cooperative {
            grid::make_interleaved(&mut device);
        }
        if let Some(textures) = &options.textures {
            device.set_textures(Arc::clone(textures));
        }
        self.attach_compiled(entry, &mut device, options);
        if let Some(profile) = &options.profile {
            device.set_profile(Arc::clone(profile));
        }
        device.enable_device_launches(&self.kernels);
        Ok(device)
    }

    /// The device of a launch of `entry` without global memory: shape, parameters, dynamic
    /// shared memory.
    fn bare_device(
        &self,
        entry: &str,
        (grid, block): (Dim3, Dim3),
        params: &[u8],
        options: &LaunchOptions,
    ) -> Result<Device<'_>, Error> {
        let program = self.program(entry)?;
        grid::check_shape(grid, block)?;
        if params.len() as u64 != program.param_bytes {
            return Err(Error::Launch(LaunchError::Arguments {
                message: format!(
                    "kernel `{entry}` has {} bytes of parameters but {} were given",
                    program.param_bytes,
                    params.len()
                ),
                signature: grid::signature(program),
            }));
        }
        let mut device = Device::new(program, grid, block, options.max_steps);
        device.set_params(params.to_vec());
        device
            .set_dynamic_shared(options.dynamic_shared)
            .map_err(LaunchError::Shape)?;
        device
            .set_cluster(options.cluster)
            .map_err(LaunchError::Shape)?;
        if let Some(cores) = options.tensor_cores {
            device.set_tensor_cores(cores);
        }
        Ok(device)
    }

    /// The device of a launch as [`Module::launch_in`] would run it, over a *copy* of
    /// `memories` (their bytes as they are now), not run: for a debugger, which steps through
    /// it (and may start it again from another copy) while the memories stay as they were.
    /// Writes to host memory (managed, mapped) stay in the copy's cached pages.
    pub fn prepare_copy(
        &self,
        entry: &str,
        (grid, block): (Dim3, Dim3),
        params: &[u8],
        memories: &[&DeviceMemory],
        options: &LaunchOptions,
    ) -> Result<Device<'_>, Error> {
        self.device(
            entry,
            (grid, block),
            params,
            GlobalMemory::copy_of(memories),
            options,
        )
        .map_err(|failed| failed.0)
    }
}

/// Runs the grids (and copies, sets) that the kernels of `device`'s grid enqueued with CUDA
/// Dynamic Parallelism, after it, with the launch's settings ([`crate::launches`]; they are not
/// traced).
fn run_nested(
    device: &mut Device<'_>,
    run: &mut grid::GridRun,
    options: &LaunchOptions,
    grid_options: GridOptions,
) {
    let nest = crate::nested::Nest {
        max_steps: options.max_steps,
        memory_limit: options.memory_limit,
        options: grid_options,
        constants: options.constants.as_ref(),
        textures: options.textures.as_ref(),
        tensor_cores: options.tensor_cores,
    };
    crate::nested::run_nested(device, run, &nest);
}

/// The result of a launch that ran.
fn report(
    run: grid::GridRun,
    written: Result<u64, HostWriteError>,
    max_steps: u64,
    program: Option<&Program>,
) -> Result<LaunchReport, Error> {
    if let Some(failure) = run.failure {
        return Err(run_error(failure, run.printed, max_steps, program));
    }
    Ok(LaunchReport {
        steps: run.steps,
        ctas: run.ctas_run,
        host_bytes_written: written?,
        printed: run.printed,
        printed_dropped: run.printed_dropped,
    })
}

fn run_error(
    failure: Failure,
    printed: Vec<Printed>,
    max_steps: u64,
    program: Option<&Program>,
) -> Error {
    let Failure {
        cta,
        thread,
        outcome,
    } = failure;
    let (message, location, outcome) = match outcome {
        Ok(Outcome::Trapped { message, location }) => (
            format!("trap: {message}"),
            location,
            Some(Outcome::Trapped {
                message: message.clone(),
                location,
            }),
        ),
        Ok(Outcome::AssertionFailed { message, location }) => (
            message.clone(),
            location,
            Some(Outcome::AssertionFailed { message, location }),
        ),
        Ok(other) => (
            format!(
                "thread {thread:?} of CTA {cta:?} did not finish within {max_steps} steps (the \
                 step limit)"
            ),
            Location::default(),
            Some(other),
        ),
        Err(stopped) => (stopped.message, stopped.location, None),
    };
    let message = match program.and_then(|program| program.source_text(location)) {
        Some(source) => format!("{source}: {message}"),
        None => message,
    };
    Error::Run {
        message,
        location,
        cta,
        thread,
        outcome,
        printed,
    }
}

/// The launch arguments of `args` for `program`'s parameters.
fn arguments(program: &Program, args: &[Arg<'_>]) -> Vec<Argument> {
    let mut out = Vec::with_capacity(args.len());
    for (index, arg) in args.iter().enumerate() {
        let scalar = |ty: Type, bits: u64| Argument::Scalar { ty, bits };
        out.push(match arg {
            Arg::Buffer(bytes) => Argument::Buffer(bytes.to_vec()),
            Arg::U32(v) => scalar(Type::U32, u64::from(*v)),
            Arg::S32(v) => scalar(Type::S32, u64::from(*v as u32)),
            Arg::U64(v) => scalar(Type::U64, *v),
            Arg::S64(v) => scalar(Type::S64, *v as u64),
            Arg::F32(v) => scalar(Type::F32, u64::from(v.to_bits())),
            Arg::F64(v) => scalar(Type::F64, v.to_bits()),
            Arg::Bytes(bytes) => Argument::Bytes(bytes.to_vec()),
            Arg::Bits(bits) => {
                // The parameter's size decides; a parameter of another size (a byte array)
                // is reported by `prepare` as a size mismatch of a .b64.
                let bytes = program.params.get(index).map_or(8, |param| param.bytes);
                let (ty, mask) = match bytes {
                    1 => (Type::B8, 0xff),
                    2 => (Type::B16, 0xffff),
                    4 => (Type::B32, 0xffff_ffff),
                    _ => (Type::B64, u64::MAX),
                };
                scalar(ty, bits & mask)
            }
        });
    }
    out
}
