//! ptxsim's compiled tier (issue 35): a kernel's checked program translated to native code with
//! Cranelift, run through `ptxsim-exec`'s [`CompiledKernel`] interface.
//!
//! [`compile`] translates the instructions it can (see [`translate`]) into one function, for
//! one CTA shape, that runs the threads of a CTA one after another, each from its program
//! counter to the first instruction the interpreter must run, and, for kernels with
//! warp-synchronous instructions, a second that runs converged warps in lockstep
//! ([`WarpStrategy`], `warp.rs`);
//! the interpreter keeps the scheduling (barriers, warp-synchronous instructions, traps,
//! traces) and runs everything else, so a kernel runs whatever part of it compiles. The results
//! are the interpreter's for programs without data races between the threads of a CTA (see
//! [`ptxsim_exec::compiled`]).
//!
//! ```
//! let source = "
//! .version 8.0
//! .target sm_90
//! .address_size 64
//! .visible .entry k(.param .u64 out) {
//!     .reg .b32 %r<4>;
//!     .reg .b64 %rd<3>;
//!     ld.param.u64 %rd1, [out];
//!     mov.u32 %r1, %tid.x;
//!     mul.lo.u32 %r2, %r1, %r1;
//!     mul.wide.u32 %rd2, %r1, 4;
//!     add.u64 %rd1, %rd1, %rd2;
//!     st.global.u32 [%rd1], %r2;
//!     ret;
//! }";
//! let program = ptxsim_exec::load(source, None).unwrap();
//! let kernel = ptxsim_jit::compile(&program, [32, 1, 1]).unwrap();
//! // Every instruction is compiled, `ret` too (it ends the thread).
//! assert_eq!(kernel.stats().covered, 7);
//! ```

mod native;
mod registers;
mod translate;
mod warp;
mod writeback;

pub use native::FloatEnvironment;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{AbiParam, Signature, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use ptxsim_exec::compiled::{CompiledCta, CompiledKernel};
use ptxsim_exec::{Dim3, Program};

/// Why a kernel was not compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JitError(pub String);

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the compiled tier could not compile the kernel: {}",
            self.0
        )
    }
}

impl std::error::Error for JitError {}

fn error(e: impl std::fmt::Display) -> JitError {
    JitError(e.to_string())
}

/// The fewest compiled instructions a thread must run from a run start (unless it loops) for
/// the interpreter to hand it to the compiled code there ([`translate::entries`]).
const MIN_ENTRY: usize = 6;

/// What compiling a kernel did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// The program's instructions.
    pub instructions: usize,
    /// How many of them run compiled.
    pub covered: usize,
    /// The time translation and code generation took.
    pub compile_time: Duration,
    /// Whether the code stores every register write at once rather than keeping registers in
    /// variables until the thread leaves: a kernel whose ways out would store too many
    /// registers (`writeback::STORES_PER_INSTRUCTION`, docs/compiled-tier.md).
    pub registers_stored_at_once: bool,
    /// Whether the kernel has a warp function, which runs converged warps in lockstep
    /// ([`WarpStrategy`]), how many warp-synchronous instructions it makes, and how many of
    /// those are `shfl.sync`s generated inline (a full membermask and `b`, `c` known while
    /// compiling: docs/compiled-tier.md) rather than made through a helper.
    pub warp_function: bool,
    pub warp_instructions: usize,
    pub warp_shuffles_inline: usize,
}

/// When [`compile`] builds the **warp function** besides the work-item function: a function
/// that runs the 32 threads of a converged warp in lockstep, warp-synchronous instructions
/// (`shfl.sync`, `vote.sync`, integer `redux.sync`, `activemask`, `bar.warp.sync`) included (docs/compiled-tier.md,
/// "Warps in lockstep"). `PTXSIM_JIT_WARP` = `off` or `all` chooses another than `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WarpStrategy {
    /// For kernels with a warp-synchronous instruction the warp function makes.
    #[default]
    Auto,
    /// Never: every thread runs in the work-item function (or the interpreter).
    Off,
    /// For every kernel (the tests' way to run any kernel in lockstep).
    All,
}

impl WarpStrategy {
    /// The strategy `PTXSIM_JIT_WARP` names (`off`, `all`; anything else `auto`).
    pub fn from_env() -> Self {
        match std::env::var("PTXSIM_JIT_WARP").as_deref() {
            Ok("off" | "0") => Self::Off,
            Ok("all") => Self::All,
            _ => Self::Auto,
        }
    }

    /// Whether `program` gets a warp function.
    pub fn builds(self, program: &Program) -> bool {
        match self {
            Self::Auto => warp::worth_building(program),
            Self::Off => false,
            Self::All => true,
        }
    }
}

/// How the compiled tier runs `program`'s threads (for the launch log and `--stats`): warps in
/// lockstep and threads one after another, or threads one after another only.
pub fn strategy(program: &Program) -> &'static str {
    if WarpStrategy::from_env().builds(program) {
        "converged warps in lockstep, other threads one after another"
    } else {
        "threads one after another"
    }
}

/// A kernel's compiled code.
#[derive(Debug)]
pub struct Kernel {
    code: native::Code,
    /// The code for the CTA whose registers are shown after its run.
    shown: Shown,
    /// Per instruction: a thread there enters the code (the start of a run worth entering).
    covered: Vec<bool>,
    /// Per instruction: it is compiled (a thread that entered the code runs it there).
    compiled: Vec<bool>,
    /// The registers a thread may read before writing them (`None`: any register), which a
    /// CTA must start with zeroed ([`registers::read_before_written`]).
    observed: Option<Vec<u32>>,
    /// The CTA shape it was compiled for.
    block: Dim3,

    stats: Stats,
}

/// The code for a CTA whose registers are shown ([`CompiledCta::shown`]: every register write
/// stored at once).
#[derive(Debug)]
enum Shown {
    /// The kernel's code stores every write at once already.
    Same,
    /// Built from the program when the first such CTA comes (most launches show none: the
    /// driver library's); `None` inside when building it failed (the interpreter then runs
    /// that CTA), with the time building took.
    Later {
        program: Box<Program>,
        block: Dim3,
        code: Box<OnceLock<(Option<native::Code>, Duration)>>,
    },
}

impl Kernel {
    /// What compiling it did (the shown CTAs' code counted in `compile_time` once built).
    pub fn stats(&self) -> Stats {
        let mut stats = self.stats;
        if let Shown::Later { code, .. } = &self.shown
            && let Some((_, time)) = code.get()
        {
            stats.compile_time += *time;
        }
        stats
    }

    /// Whether the code for CTAs whose registers are shown has been built (it is built when
    /// the first such CTA runs, unless the kernel's code serves them too).
    pub fn shown_code_built(&self) -> bool {
        match &self.shown {
            Shown::Same => true,
            Shown::Later { code, .. } => code.get().is_some_and(|(code, _)| code.is_some()),
        }
    }

    /// Why `auto` leaves this compiled `program` to the interpreter after all, if it does:
    /// threads that hand values through shared memory with only compiled code between the
    /// store and the load (`translate::shared_exchange_without_barrier`; [`compile`] leaves
    /// such loads to the interpreter, so this holds for no kernel it compiled; it stays as the
    /// check of that rule), or threads of the CTA that read-modify-write the same global
    /// address without a barrier (`registers::global_update_shared_by_threads`: a data race
    /// whose result the order of the threads decides).
    pub fn auto_declines(&self, program: &Program) -> Option<&'static str> {
        if translate::shared_exchange_without_barrier(program, &self.compiled) {
            return Some("a shared-memory store reaches a load without a barrier between");
        }
        registers::global_update_shared_by_threads(program, &self.compiled, self.block)
            .then_some("threads of a CTA update the same global address without a barrier")
    }
}

impl CompiledKernel for Kernel {
    fn covers(&self, pc: usize) -> bool {
        self.covered.get(pc).copied().unwrap_or(false)
    }

    fn run(&self, cta: &mut CompiledCta<'_>) {
        let code = match &self.shown {
            Shown::Later {
                program,
                block,
                code,
            } if cta.shown => {
                let (code, _) = code.get_or_init(|| {
                    let start = Instant::now();
                    let code = guarded(|| build_code(program, *block, true, false))
                        .ok()
                        .map(|(code, _)| code);
                    (code, start.elapsed())
                });
                match code {
                    Some(code) => code,
                    None => return,
                }
            }
            _ => &self.code,
        };
        code.run(cta);
    }

    fn observed_registers(&self) -> Option<&[u32]> {
        self.observed.as_deref()
    }
}

/// Compiles `program` for the host and CTAs of shape `block` (the code runs only CTAs of that
/// many threads); `Err` when Cranelift does not support the host or fails, or when compiling
/// panics (a bug in the translation or in Cranelift): every caller then runs the kernel in the
/// interpreter, so such a bug costs speed, not the program.
pub fn compile(program: &Program, block: Dim3) -> Result<Kernel, JitError> {
    compile_with(program, block, WarpStrategy::from_env())
}

/// [`compile`] with the warp function built as `warp` says.
pub fn compile_with(
    program: &Program,
    block: Dim3,
    warp: WarpStrategy,
) -> Result<Kernel, JitError> {
    guarded(|| compile_unguarded(program, block, warp.builds(program)))
}

/// `f`'s result, or an error when it panics.
fn guarded<T>(f: impl FnOnce() -> Result<T, JitError>) -> Result<T, JitError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(JitError(format!("compiling panicked: {message}")))
    })
}

/// [`compile`] without its guard against panics.
fn compile_unguarded(program: &Program, block: Dim3, with_warp: bool) -> Result<Kernel, JitError> {
    let threads = block
        .iter()
        .fold(1u64, |product, &n| product.saturating_mul(u64::from(n)));
    if threads == 0 || threads > ptxsim_exec::grid::MAX_THREADS_PER_CTA {
        return Err(JitError(format!(
            "a CTA of {} x {} x {} threads cannot be launched (1 to {} threads)",
            block[0],
            block[1],
            block[2],
            ptxsim_exec::grid::MAX_THREADS_PER_CTA
        )));
    }
    let start = Instant::now();
    let (code, built) = build_code(program, block, false, with_warp)?;
    // The code for CTAs whose registers are shown: the same where it stores every write at
    // once already (its ways out would store too much, `writeback::STORES_PER_INSTRUCTION`),
    // else built when the first such CTA comes.
    let shown = if built.through {
        Shown::Same
    } else {
        Shown::Later {
            program: Box::new(program.clone()),
            block,
            code: Box::default(),
        }
    };
    let compiled: Vec<bool> = plans(program).iter().map(Option::is_some).collect();
    // Threads enter the compiled code at the starts of its runs only, and only where they
    // run a while in it; and where the warp function takes them.
    let mut covered = translate::entries(program, &compiled, MIN_ENTRY);
    if let Some(warp) = code.warp() {
        for (covers, &entry) in covered.iter_mut().zip(&warp.entries) {
            *covers |= entry;
        }
    }
    let stats = Stats {
        instructions: program.instructions.len(),
        covered: compiled.iter().filter(|&&c| c).count(),
        compile_time: start.elapsed(),
        registers_stored_at_once: built.through,
        warp_function: code.warp().is_some(),
        warp_instructions: code.warp().map_or(0, |warp| warp.ops.len()),
        warp_shuffles_inline: code.warp().map_or(0, |warp| warp.inline),
    };
    Ok(Kernel {
        code,
        shown,
        covered,
        compiled,
        observed: registers::read_before_written(program),
        block,
        stats,
    })
}

/// How each instruction of `program` is translated ([`translate::plan`]), less the shared
/// loads that a shared store reaches through compiled code alone, which run in the
/// interpreter, in lockstep after every thread's store (warp-synchronous exchanges written
/// without `__syncwarp`; `translate::shared_loads_after_stores`).
fn plans(program: &Program) -> Vec<Option<translate::Plan>> {
    let mut plans = translate::plan(program);
    let planned: Vec<bool> = plans.iter().map(Option::is_some).collect();
    for load in translate::shared_loads_after_stores(program, &planned) {
        plans[load] = None;
    }
    plans
}

/// Builds one function for `program` and CTAs of shape `block` in a module of its own: with
/// `through`, the one that stores every register write at once (for a CTA whose registers
/// are shown), else the one that keeps registers in variables (which stores every write at
/// once too where its ways out would store too much: [`translate::Built::through`]).
fn build_code(
    program: &Program,
    block: Dim3,
    through: bool,
    with_warp: bool,
) -> Result<(native::Code, translate::Built), JitError> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(error)?;
    // Cranelift's IR verifier runs in debug builds (the tests) only: in a release build it
    // would be a good part of the compile time.
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    flags.set("enable_verifier", verify).map_err(error)?;
    flags
        .set("use_colocated_libcalls", "false")
        .map_err(error)?;
    flags.set("is_pic", "false").map_err(error)?;
    let isa = cranelift_native::builder()
        .map_err(error)?
        .finish(settings::Flags::new(flags))
        .map_err(error)?;
    let mut jit = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, address) in native::helper_symbols()
        .into_iter()
        .chain(native::warp_helper_symbols())
    {
        jit.symbol(name, address);
    }
    let mut module = JITModule::new(jit);
    let call_conv = module.isa().default_call_conv();
    let pointer = module.target_config().pointer_type();
    if pointer != types::I64 {
        return Err(JitError("the host is not 64-bit".into()));
    }
    let mut helper_ids = Vec::new();
    for (name, signature) in translate::helper_signatures(call_conv) {
        helper_ids.push(
            module
                .declare_function(name, Linkage::Import, &signature)
                .map_err(error)?,
        );
    }
    let mut signature = Signature::new(call_conv);
    signature.params.push(AbiParam::new(types::I64));
    let mut functions = Vec::new();
    let mut conversions = Vec::new();
    let mut texture_calls = Vec::new();
    // PTXSIM_JIT_DUMP (any value): the Cranelift IR and the generated machine code on
    // standard error, for the compiled tier's developers (docs/compiled-tier.md).
    let dump = std::env::var_os("PTXSIM_JIT_DUMP").is_some();
    let mut context = module.make_context();
    let mut builder_context = FunctionBuilderContext::new();
    let name = if through {
        "ptxsim_kernel_shown"
    } else {
        "ptxsim_kernel"
    };
    let id = module
        .declare_function(name, Linkage::Export, &signature)
        .map_err(error)?;
    context.func.signature = signature;
    let built = {
        let mut builder = FunctionBuilder::new(&mut context.func, &mut builder_context);
        let [load, store, lane, convert, atom, texture] =
            [0, 1, 2, 3, 4, 5].map(|i| module.declare_func_in_func(helper_ids[i], builder.func));
        let helpers = translate::Helpers {
            load,
            store,
            lane,
            convert,
            atom,
            texture,
        };
        let built = translate::build(
            &mut builder,
            program,
            plans(program),
            &mut functions,
            &mut conversions,
            &mut texture_calls,
            helpers,
            (block, through),
        );
        builder.finalize(module.target_config());
        built
    };
    if dump {
        eprintln!(
            "{}\n; {} register stores at the ways out",
            context.func.display(),
            built.stores
        );
    }
    context.set_disasm(dump);
    module.define_function(id, &mut context).map_err(error)?;
    if let Some(code) = context.compiled_code()
        && let Some(disasm) = &code.vcode
    {
        eprintln!("{disasm}");
    }
    module.clear_context(&mut context);
    // The warp function (`warp.rs`), for kernels with warp-synchronous instructions: in the
    // module of the work-item function, whose tables of lane functions it shares.
    let warp = if with_warp {
        let tables = (&mut functions, &mut conversions, &mut texture_calls);
        Some(warp::define(
            &mut module,
            (&mut context, &mut builder_context),
            program,
            (block, built.slots, built.through),
            tables,
            dump,
        )?)
    } else {
        None
    };
    module.finalize_definitions().map_err(error)?;
    let address = module.get_finalized_function(id);
    let warp = warp.map(|(id, built)| (module.get_finalized_function(id), built));
    let code = native::Code::new(
        address,
        module,
        functions,
        conversions,
        texture_calls,
        program.registers.len(),
        built,
        block.iter().map(|&d| d as usize).product(),
    );
    let code = match warp {
        Some((function, built)) => {
            let compiled: Vec<bool> = plans(program).iter().map(Option::is_some).collect();
            code.with_warp(
                native::WarpCode {
                    function,
                    entries: built.entries,
                    ops: built.ops,
                    items: translate::entries(program, &compiled, MIN_ENTRY),
                    ends: warp::ends(program),
                    inline: built.inline,
                },
                built.slots,
                built.needs,
            )
        }
        None => code,
    };
    Ok((code, built))
}

/// [`compile`] as the shared handle a [`ptxsim_exec::Device`] takes.
pub fn compile_shared(program: &Program, block: Dim3) -> Result<Arc<Kernel>, JitError> {
    compile(program, block).map(Arc::new)
}

/// Which tier runs a kernel (`--engine`, `PTXSIM_ENGINE`). The default of `ptxsim run`,
/// `ptx_run` and the Python package is the interpreter (whose lockstep scheduling defines the
/// traces); the driver library's is `auto` (docs/compiled-tier.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// The interpreter only.
    #[default]
    Interp,
    /// The compiled tier for every instruction it compiles, whatever the kernel.
    Compiled,
    /// The compiled tier when the kernel's results cannot depend on it ([`keeps_interpreter`]),
    /// else the interpreter.
    Auto,
}

impl Engine {
    /// Parses `interp`, `compiled` or `auto`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "interp" | "interpreter" => Ok(Self::Interp),
            "compiled" => Ok(Self::Compiled),
            "auto" => Ok(Self::Auto),
            other => Err(format!(
                "unknown engine `{other}` (expected interp, compiled or auto)"
            )),
        }
    }

    /// The engine `PTXSIM_ENGINE` names, if it is set (an invalid value is an error).
    pub fn from_env() -> Result<Option<Self>, String> {
        match std::env::var("PTXSIM_ENGINE") {
            Ok(value) if !value.is_empty() => Self::parse(&value)
                .map(Some)
                .map_err(|e| format!("PTXSIM_ENGINE: {e}")),
            _ => Ok(None),
        }
    }
}

/// Why `auto` keeps `program` in the interpreter, if it does: its threads may observe the order
/// in which the threads of a CTA run, which the compiled tier changes (it runs them one after
/// another between the instructions the interpreter issues, [`ptxsim_exec::compiled`]).
/// * `atom`/`red`: the values atomics return depend on that order;
/// * `.volatile`, `.relaxed`, `.acquire`, `.release` accesses, `fence`/`membar`: the mark of
///   threads that poll each other's writes (and of the warp-synchronous code written before
///   `__syncwarp`), which runs differently when the threads do not run in lockstep;
/// * `malloc`/`free` and the device runtime: their results depend on the order of calls.
pub fn keeps_interpreter(program: &Program) -> Option<&'static str> {
    if program.has_atomics && !program.atomics_commute {
        return Some("atomics whose results depend on the order of the threads");
    }
    if program.uses_heap || program.calls_device_runtime() {
        return Some("device heap or runtime calls");
    }
    let ordered = program.instructions.iter().any(|instruction| {
        let opcode = instruction
            .text
            .trim_start()
            .trim_start_matches(['@', '!'])
            .split_whitespace()
            .find(|word| !word.starts_with('%') && !word.starts_with('@'))
            .unwrap_or("");
        opcode.starts_with("fence")
            || opcode.starts_with("membar")
            || [".volatile", ".relaxed", ".acquire", ".release"]
                .iter()
                .any(|qualifier| opcode.contains(qualifier))
    });
    ordered.then_some("volatile or ordered memory accesses")
}

/// The compiled tier as a [`ptxsim_exec::compiled::Compiler`] for API launches (the driver
/// library, `ptx_run`): kernels compiled as `engine` says, `None` for the interpreter.
#[derive(Clone, Copy, Debug)]
pub struct JitCompiler {
    engine: Engine,
}

impl JitCompiler {
    /// The compiler for `engine` (`None` for [`Engine::Interp`]).
    pub fn for_engine(engine: Engine) -> Option<Arc<dyn ptxsim_exec::compiled::Compiler>> {
        (engine != Engine::Interp).then(|| Arc::new(Self { engine }) as Arc<_>)
    }
}

impl ptxsim_exec::compiled::Compiler for JitCompiler {
    fn compile(&self, program: &Program, block: Dim3) -> Option<Arc<dyn CompiledKernel>> {
        if self.engine == Engine::Auto && keeps_interpreter(program).is_some() {
            return None;
        }
        let kernel = compile(program, block).ok()?;
        if self.engine == Engine::Auto && kernel.auto_declines(program).is_some() {
            return None;
        }
        Some(Arc::new(kernel) as Arc<dyn CompiledKernel>)
    }

    /// `compiled` compiles every kernel on its first launch; `auto` once its launches come to
    /// [`AUTO_WORK`].
    fn worth_compiling(&self, work: u64) -> bool {
        self.engine != Engine::Auto || work >= AUTO_WORK
    }
}

/// The work (threads launched times the kernel's instructions, summed over its launches) from
/// which `auto` compiles a kernel in API launches: about 4 million instructions, which the
/// interpreter runs in about as long as compiling a kernel takes (2-35 ms). A program that
/// launches many small kernels a few times each (a test suite) never waits for the compiler;
/// a kernel launched big, or often, is compiled on the launch that reaches it.
pub const AUTO_WORK: u64 = 1 << 22;
